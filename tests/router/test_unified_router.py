"""UnifiedLLMAdapter: dispatch, retries, REQUIRED post-validation and response assembly.

These tests drive the router through a scripted adapter that implements the Adapter protocol;
the end-to-end tests with the real SDKs and the emulator live in tests/test_end_to_end.py.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from adapters.base import AdapterResult
from router import (
    GroundingRequiredFailedError,
    GroundingValidationError,
    LLMRequest,
    LLMResponse,
    ProviderRequestError,
    ProviderTransientError,
    RequestValidationError,
    RouterError,
    RouterSettings,
    UnifiedLLMAdapter,
)
from router.logging import grounding_debug_enabled
from router.types import Citation
from support.logs import capture_logs

Outcome = AdapterResult | Exception


def citation(url: str = "https://example.com/a", rank: int = 1) -> Citation:
    return {
        "provider": "openai",
        "url": url,
        "source_domain": "example.com",
        "title": "Example",
        "snippet": None,
        "source_type": "web",
        "rank": rank,
        "raw": {},
        "spans": [],
        "cited": True,
        "cited_text": None,
        "location": None,
    }


GROUNDED = AdapterResult(
    content="Paris is the capital.",
    grounded_effective=True,
    tool_call_count=1,
    web_search_queries=["capital of france"],
    citations=[citation()],
)
UNGROUNDED = AdapterResult(content="Paris.")
SEARCHED_NOTHING_CITED = AdapterResult(
    content="Paris.",
    grounded_effective=True,
    tool_call_count=2,
    warnings=["[CITATIONS] OpenAI: 2 tool calls but 0 citations extracted. First output item: {}"],
)


class ScriptedAdapter:
    """An Adapter whose calls return (or raise) the scripted outcomes in order."""

    vendor = "openai"

    def __init__(self, *outcomes: Outcome, on_call: Callable[[], None] | None = None) -> None:
        self.outcomes = list(outcomes)
        self.calls: list[LLMRequest] = []
        self.on_call = on_call
        self.closed = False

    def _next(self, request: LLMRequest) -> AdapterResult:
        self.calls.append(request)
        if self.on_call:
            self.on_call()
        outcome = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        return self._next(request)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        await asyncio.sleep(0)
        return self._next(request)

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


def transient(retry_after: float | None = None) -> ProviderTransientError:
    return ProviderTransientError(
        "rate limited", status_code=429, reason="rate_limited", retry_after_s=retry_after
    )


def make_router(
    adapter: ScriptedAdapter, sleeps: list[float] | None = None, **settings: Any
) -> UnifiedLLMAdapter:
    waits = sleeps if sleeps is not None else []

    async def async_sleep(seconds: float) -> None:
        waits.append(seconds)

    return UnifiedLLMAdapter(
        RouterSettings(_env_file=None, **settings),  # type: ignore[call-arg]
        adapters={"openai": adapter},  # type: ignore[dict-item]
        sleep=waits.append,
        async_sleep=async_sleep,
    )


def request(**overrides: Any) -> dict[str, Any]:
    return {
        "vendor": "openai",
        "model": "gpt-5",
        "messages": [{"role": "user", "content": "What is the capital of France?"}],
        "request_id": "r1",
        **overrides,
    }


REQUIRED = {"grounded": True, "grounding_mode": "REQUIRED"}


def test_dict_request_is_validated_before_any_call() -> None:
    """A malformed dict raises RequestValidationError and never reaches the adapter."""
    adapter = ScriptedAdapter(GROUNDED)
    with pytest.raises(RequestValidationError, match="messages"):
        make_router(adapter).route(request(messages=[]))
    assert adapter.calls == []


class _RaisingMapping(Mapping[str, Any]):
    """A caller-built mapping whose every method raises."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("broken")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("broken")

    def __len__(self) -> int:
        raise RuntimeError("broken")


@pytest.mark.parametrize("call", ["route", "aroute"])
def test_mapping_whose_methods_raise_is_a_request_error(call: str) -> None:
    """A request given as a mapping that raises when read leaves as RequestValidationError."""
    adapter = ScriptedAdapter(GROUNDED)
    router = make_router(adapter)
    send: Callable[[], object] = (
        (lambda: router.route(_RaisingMapping()))
        if call == "route"
        else (lambda: asyncio.run(router.aroute(_RaisingMapping())))
    )
    with pytest.raises(RequestValidationError, match="could not be read"):
        send()
    assert adapter.calls == []


@pytest.mark.parametrize("value", [float("inf"), 1e308, float("nan")])
def test_settings_refuse_a_timeout_that_would_overflow(value: float) -> None:
    """GROUNDING_ROUTER_TIMEOUT_S of inf, 1e308 or NaN is a settings error, not a later crash."""
    with pytest.raises(ValueError, match="timeout_s"):
        RouterSettings(_env_file=None, timeout_s=value)  # type: ignore[call-arg]


def test_response_carries_citations_in_fields_and_metadata() -> None:
    """The response mirrors citations and grounding evidence into metadata."""
    response = make_router(ScriptedAdapter(GROUNDED)).route(request(metadata={"job": "j1"}))
    assert response.citations == [citation()]
    assert response.metadata["citations"] == [citation()]
    assert response.metadata["grounded_effective"] is True
    assert response.metadata["two_step"] is False
    assert response.metadata["tool_call_count"] == 1
    assert response.metadata["warnings"] == []
    assert response.metadata["request_metadata"] == {"job": "j1"}
    assert response.request_id == "r1"
    assert response.attempts == 1
    assert response.latency_ms > 0


def test_transient_error_is_retried_then_succeeds() -> None:
    """A 429 followed by success returns the answer with attempts=2 after one backoff."""
    sleeps: list[float] = []
    adapter = ScriptedAdapter(transient(), GROUNDED)
    response = make_router(adapter, sleeps).route(request())
    assert response.attempts == 2
    assert len(adapter.calls) == 2
    assert len(sleeps) == 1
    assert 0 <= sleeps[0] <= 8.0


def test_exhausted_retries_raise_with_attempt_count_and_context() -> None:
    """When every attempt is transient, the last error surfaces with attempts and request ids."""
    adapter = ScriptedAdapter(transient())
    with pytest.raises(ProviderTransientError) as caught:
        make_router(adapter, max_attempts=4).route(request())
    assert caught.value.attempts == 4
    assert len(adapter.calls) == 4
    assert (caught.value.vendor, caught.value.model, caught.value.request_id) == (
        "openai",
        "gpt-5",
        "r1",
    )


def test_backoff_grows_and_respects_the_maximum() -> None:
    """Backoff delays never exceed retry_max_delay_s plus jitter."""
    sleeps: list[float] = []
    with pytest.raises(ProviderTransientError):
        make_router(
            ScriptedAdapter(transient()),
            sleeps,
            max_attempts=6,
            retry_initial_delay_s=0.5,
            retry_max_delay_s=2.0,
        ).route(request())
    assert len(sleeps) == 5
    assert all(0.5 <= s <= 2.5 for s in sleeps)


def test_request_error_is_not_retried() -> None:
    """A 400 is raised at once: one call, no sleep."""
    sleeps: list[float] = []
    adapter = ScriptedAdapter(ProviderRequestError("bad", status_code=400))
    with pytest.raises(ProviderRequestError):
        make_router(adapter, sleeps).route(request())
    assert len(adapter.calls) == 1
    assert sleeps == []


def test_retry_after_is_honoured() -> None:
    """A Retry-After of 2 s is waited exactly, not replaced by backoff."""
    sleeps: list[float] = []
    make_router(ScriptedAdapter(transient(2.0), GROUNDED), sleeps).route(request())
    assert sleeps == [2.0]


def test_retry_after_beyond_cap_stops_retrying() -> None:
    """A Retry-After longer than the cap ends the retries and reports the wait asked for."""
    sleeps: list[float] = []
    adapter = ScriptedAdapter(transient(600.0), GROUNDED)
    with pytest.raises(ProviderTransientError) as caught:
        make_router(adapter, sleeps, retry_after_cap_s=30).route(request())
    assert caught.value.retry_after_s == 600.0
    assert caught.value.attempts == 1
    assert sleeps == []


def test_auto_mode_passes_ungrounded_answer() -> None:
    """AUTO grounding accepts an answer where the model did not search."""
    response = make_router(ScriptedAdapter(UNGROUNDED)).route(request(grounded=True))
    assert response.grounded_effective is False
    assert response.content == "Paris."


def test_required_without_search_fails_not_invoked() -> None:
    """REQUIRED with no search raises reason=not_invoked, carrying the response."""
    with pytest.raises(GroundingRequiredFailedError) as caught:
        make_router(ScriptedAdapter(UNGROUNDED)).route(request(**REQUIRED))
    error = caught.value
    assert error.reason == "not_invoked"
    assert str(error) == "Model did not invoke grounding tools"
    assert (error.vendor, error.model, error.request_id) == ("openai", "gpt-5", "r1")
    assert isinstance(error.response, LLMResponse)


def test_required_with_search_but_no_citations_fails_no_citations() -> None:
    """REQUIRED where the model searched but nothing was cited raises reason=no_citations."""
    with pytest.raises(GroundingRequiredFailedError) as caught:
        make_router(ScriptedAdapter(SEARCHED_NOTHING_CITED)).route(request(**REQUIRED))
    assert caught.value.reason == "no_citations"
    assert str(caught.value) == "Grounding tools invoked but no citations extracted"


def test_required_failure_is_not_retried_by_default() -> None:
    """Without the re-ask option, a REQUIRED failure costs exactly one call."""
    adapter = ScriptedAdapter(UNGROUNDED, GROUNDED)
    with pytest.raises(GroundingRequiredFailedError):
        make_router(adapter).route(request(**REQUIRED))
    assert len(adapter.calls) == 1


def test_reask_option_asks_once_more() -> None:
    """With the re-ask option, a skipped search is asked again once, and attempts add up."""
    adapter = ScriptedAdapter(UNGROUNDED, GROUNDED)
    response = make_router(adapter, reask_on_required_failure=True).route(request(**REQUIRED))
    assert response.grounded_effective is True
    assert response.attempts == 2
    assert len(adapter.calls) == 2


def test_reask_gives_up_after_one_more_try() -> None:
    """The re-ask happens once: a second failure is raised."""
    adapter = ScriptedAdapter(UNGROUNDED)
    with pytest.raises(GroundingRequiredFailedError):
        make_router(adapter, reask_on_required_failure=True).route(request(**REQUIRED))
    assert len(adapter.calls) == 2


def test_unexpected_adapter_exception_becomes_router_error() -> None:
    """An exception outside the RouterError tree is wrapped, not retried, and keeps its cause."""
    adapter = ScriptedAdapter(KeyError("candidates"))
    with pytest.raises(RouterError) as caught:
        make_router(adapter).route(request())
    assert type(caught.value) is RouterError
    assert caught.value.reason == "unexpected_error"
    assert isinstance(caught.value.__cause__, KeyError)
    assert len(adapter.calls) == 1


def test_crashing_validator_rejects() -> None:
    """A validator that raises an unexpected exception fails closed."""

    def broken(_request: LLMRequest, _response: LLMResponse) -> None:
        raise ZeroDivisionError("oops")

    router = UnifiedLLMAdapter(
        RouterSettings(_env_file=None),  # type: ignore[call-arg]
        adapters={"openai": ScriptedAdapter(GROUNDED)},  # type: ignore[dict-item]
        validators=[broken],
    )
    with pytest.raises(GroundingValidationError) as caught:
        router.route(request())
    assert caught.value.reason == "validator_error"
    assert "broken" in str(caught.value)


def test_citation_warnings_are_logged_and_kept() -> None:
    """[CITATIONS] warnings reach the log and response.metadata['warnings']."""
    with capture_logs() as logs:
        response = make_router(ScriptedAdapter(SEARCHED_NOTHING_CITED)).route(request())
    warnings = [e for e in logs if e["event"].startswith("[CITATIONS]")]
    assert len(warnings) == 1
    assert warnings[0]["log_level"] == "warning"
    assert warnings[0]["request_id"] == "r1"
    assert response.metadata["warnings"] == SEARCHED_NOTHING_CITED.warnings


def test_debug_grounding_is_on_during_the_adapter_call() -> None:
    """DEBUG_GROUNDING switches forensic events on for the call, and off after it."""
    seen: list[bool] = []
    adapter = ScriptedAdapter(GROUNDED, on_call=lambda: seen.append(grounding_debug_enabled()))
    make_router(adapter, debug_grounding=True).route(request())
    assert seen == [True]
    assert grounding_debug_enabled() is False


def test_creating_an_adapter_reads_the_suffix_list_before_any_call() -> None:
    """The suffix list is read (tldextract imported) when the vendor's adapter is created, which
    is before any call's deadline starts, not by the first citation within one."""
    code = (
        "import sys\n"
        "from router import RouterSettings, UnifiedLLMAdapter\n"
        "from router.citations import domains\n"
        "router = UnifiedLLMAdapter(RouterSettings(openai_api_key='sk-test'))\n"
        "before = 'tldextract' in sys.modules\n"
        "router.adapter_for('openai')\n"
        "loaded = domains._extractor.cache_info().currsize == 1\n"
        "# tldextract memoises the parsed list on the instance once it has read it\n"
        "print(before, loaded and domains._extractor()._extractor is not None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["False", "True"]


def test_close_releases_adapters() -> None:
    """Closing the router (or leaving its with-block) closes its adapters."""
    adapter = ScriptedAdapter(GROUNDED)
    with make_router(adapter) as router:
        router.route(request())
    assert adapter.closed


def test_with_adapters_routes_through_them_and_closes_only_them() -> None:
    """A router with other adapters keeps the original's retries and settings; closing it closes
    the adapters it was given, not the original's."""
    sleeps: list[float] = []
    original, other = ScriptedAdapter(GROUNDED), ScriptedAdapter(transient(1.0), GROUNDED)
    router = make_router(original, sleeps)
    with router.with_adapters({"openai": other}) as twin:  # type: ignore[dict-item]
        assert twin.route(request()).attempts == 2
        assert twin.settings is router.settings
    assert (other.closed, original.closed, sleeps) == (True, False, [1.0])
    assert original.calls == []


async def test_aroute_retries_and_validates() -> None:
    """aroute retries a transient error and post-validates REQUIRED like route."""
    sleeps: list[float] = []
    response = await make_router(ScriptedAdapter(transient(1.0), GROUNDED), sleeps).aroute(
        request(**REQUIRED)
    )
    assert response.attempts == 2
    assert sleeps == [1.0]
    with pytest.raises(GroundingRequiredFailedError):
        await make_router(ScriptedAdapter(UNGROUNDED)).aroute(request(**REQUIRED))


async def test_concurrent_aroute_keeps_requests_apart() -> None:
    """Two hundred concurrent aroute calls each get the response for their own request."""

    class EchoAdapter(ScriptedAdapter):
        async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
            await asyncio.sleep(0)
            return AdapterResult(content=request.messages[-1].content)

    router = make_router(EchoAdapter(UNGROUNDED))
    requests = [
        request(request_id=f"r{i}", messages=[{"role": "user", "content": f"q{i}"}])
        for i in range(200)
    ]
    responses = await asyncio.gather(*(router.aroute(r) for r in requests))
    assert [(r.request_id, r.content) for r in responses] == [
        (f"r{i}", f"q{i}") for i in range(200)
    ]
