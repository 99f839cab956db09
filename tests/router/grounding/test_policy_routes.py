"""Grounding policies enforced on routed answers: every rule, REQUIRED and AUTO, sync, async,
streamed and async streamed, against the loopback emulator with the real SDK clients.

Each rule's limits are set from the report of the same emulated answer routed without a
policy: at the measured value the rule passes, one step past it the rule fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from router import (
    Completed,
    GroundingPolicy,
    GroundingReport,
    GroundingRequiredFailedError,
    LLMResponse,
    Router,
    StreamEvent,
    verify,
)
from router.emulator import Emulator
from support.emulated import emulator_settings, grounded_request
from support.logs import capture_logs

QUESTION = "What is the capital of France?"
# Anthropic quotes a passage for each citation, so every rule, support included, has a value.
VENDOR = "anthropic"


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[Router]:
    with Router(emulator_settings(emulator, timeout_s=10)) as built:
        yield built


@pytest.fixture(scope="module")
def baseline(router: Router) -> GroundingReport:
    """The report of the emulated answer, routed without a policy."""
    return verify(router.route(grounded_request(VENDOR, QUESTION)))


def _limits(report: GroundingReport, rule: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A policy with ``rule`` that the answer meets, and one that it breaks."""
    domains = report.cited_domains
    assert report.support_rate is not None
    table: dict[str, tuple[Any, Any]] = {
        "min_coverage": (report.coverage, min(1.0, report.coverage + 0.01)),
        "min_support_rate": (report.support_rate, min(1.0, report.support_rate + 0.01)),  # see
        # _breaking_vendor: a rate of 1.0 is broken by an answer with no passage to score
        "min_citations": (report.citations_cited, report.citations_cited + 1),
        "min_domains": (len(domains), len(domains) + 1),
        "allowed_domains": (domains, domains[:1]),
        "blocked_domains": (["blocked.example"], domains[-1:]),
        "max_uncited_claims": (report.uncited, report.uncited - 1),
    }
    meets, breaks = table[rule]
    return {rule: meets}, {rule: breaks}


def _breaking_vendor(rule: str) -> str:
    """The vendor whose emulated answer breaks ``rule``'s limit.

    Anthropic's emulated answer quotes, for each claim, a passage that supports it: its support
    rate is 1.0 and no min_support_rate can fail it. OpenAI quotes no passage: nothing is
    scorable, so any min_support_rate fails.
    """
    return "openai" if rule == "min_support_rate" else VENDOR


RULES = [
    "min_coverage",
    "min_support_rate",
    "min_citations",
    "min_domains",
    "allowed_domains",
    "blocked_domains",
    "max_uncited_claims",
]


def _routed(router: Router, request: dict[str, Any]) -> LLMResponse:
    return router.route(request)


def _aroute(router: Router, request: dict[str, Any]) -> LLMResponse:
    return asyncio.run(router.aroute(request))


def _streamed(router: Router, request: dict[str, Any]) -> LLMResponse:
    events = list(router.stream(request))
    last = events[-1]
    assert isinstance(last, Completed)
    return last.response


def _astreamed(router: Router, request: dict[str, Any]) -> LLMResponse:
    async def events() -> list[StreamEvent]:
        return [event async for event in router.astream(request)]

    last = asyncio.run(events())[-1]
    assert isinstance(last, Completed)
    return last.response


CALLS: dict[str, Callable[[Router, dict[str, Any]], LLMResponse]] = {
    "route": _routed,
    "aroute": _aroute,
    "stream": _streamed,
    "astream": _astreamed,
}


def test_the_baseline_answer_has_a_value_for_every_rule(baseline: GroundingReport) -> None:
    """The emulated answer has cited and uncited claims, passages and several domains."""
    assert 0 < baseline.coverage < 1
    assert baseline.support_rate is not None
    assert baseline.uncited >= 1
    assert len(baseline.cited_domains) >= 2


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("rule", RULES)
def test_required_passes_when_the_rule_is_met(
    router: Router, baseline: GroundingReport, rule: str, call: str
) -> None:
    """REQUIRED with a rule the answer meets returns it, with the report attached."""
    meets, _ = _limits(baseline, rule)
    request = grounded_request(VENDOR, QUESTION, mode="REQUIRED", grounding_policy=meets)
    response = CALLS[call](router, request)
    assert response.grounding is not None
    assert response.grounding.violations == []
    assert response.grounding.policy == GroundingPolicy(**meets)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("rule", RULES)
def test_required_raises_naming_the_broken_rule(
    router: Router, baseline: GroundingReport, rule: str, call: str
) -> None:
    """REQUIRED with a rule the answer breaks raises reason 'policy', the rule and the report."""
    _, breaks = _limits(baseline, rule)
    request = grounded_request(
        _breaking_vendor(rule), QUESTION, mode="REQUIRED", grounding_policy=breaks
    )
    with pytest.raises(GroundingRequiredFailedError) as caught:
        CALLS[call](router, request)
    error = caught.value
    assert error.reason == "policy"
    assert error.rule == rule
    assert rule in str(error)
    assert isinstance(error.report, GroundingReport)
    assert [v.rule for v in error.report.violations] == [rule]
    assert isinstance(error.response, LLMResponse)
    assert error.response.grounding == error.report
    assert error.to_dict()["rule"] == rule


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("rule", RULES)
def test_auto_reports_a_broken_rule_without_raising(
    router: Router, baseline: GroundingReport, rule: str, call: str
) -> None:
    """AUTO with a broken rule returns the answer; the report lists the violation."""
    meets, breaks = _limits(baseline, rule)
    passing = CALLS[call](router, grounded_request(VENDOR, QUESTION, grounding_policy=meets))
    failing = CALLS[call](
        router, grounded_request(_breaking_vendor(rule), QUESTION, grounding_policy=breaks)
    )
    assert passing.grounding is not None
    assert passing.grounding.violations == []
    assert failing.grounding is not None
    assert [v.rule for v in failing.grounding.violations] == [rule]


def test_no_policy_leaves_grounding_unset(router: Router) -> None:
    """Without a policy on the request or in the settings, no report is attached."""
    response = router.route(grounded_request(VENDOR, QUESTION, mode="REQUIRED"))
    assert response.grounding is None


def test_the_settings_policy_applies_when_the_request_sets_none(
    emulator: Emulator, baseline: GroundingReport
) -> None:
    """The settings' default policy is enforced; a request's own policy replaces it."""
    _, breaks = _limits(baseline, "min_domains")
    settings = emulator_settings(emulator, timeout_s=10, grounding_policy=breaks)
    with Router(settings) as router:
        with pytest.raises(GroundingRequiredFailedError) as caught:
            router.route(grounded_request(VENDOR, QUESTION, mode="REQUIRED"))
        assert caught.value.rule == "min_domains"
        own = grounded_request(VENDOR, QUESTION, mode="REQUIRED", grounding_policy={})
        assert router.route(own).grounding is not None


def test_the_settings_policy_reads_json_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GROUNDING_ROUTER_GROUNDING_POLICY holds the default policy as JSON."""
    from router.settings import RouterSettings

    monkeypatch.setenv(
        "GROUNDING_ROUTER_GROUNDING_POLICY", '{"min_coverage": 0.6, "blocked_domains": ["X.org"]}'
    )
    settings = RouterSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.grounding_policy == GroundingPolicy(min_coverage=0.6, blocked_domains=["x.org"])


def test_a_policy_failure_is_asked_again_when_reask_is_on(
    emulator: Emulator, baseline: GroundingReport
) -> None:
    """With reask_on_required_failure, a broken rule asks once more before failing."""
    _, breaks = _limits(baseline, "min_coverage")
    settings = emulator_settings(emulator, timeout_s=10, reask_on_required_failure=True)
    request = grounded_request(VENDOR, QUESTION, mode="REQUIRED", grounding_policy=breaks)
    with (
        Router(settings) as router,
        capture_logs() as logs,
        pytest.raises(GroundingRequiredFailedError) as caught,
    ):
        router.route(request)
    asked_again = [e for e in logs if e["event"] == "grounding_required_reask"]
    assert [e["reason"] for e in asked_again] == ["policy"]
    assert caught.value.response is not None
    assert caught.value.response.attempts == 2


def test_the_policy_runs_after_the_two_required_checks(router: Router) -> None:
    """An answer that did not search fails as not_invoked, not as a policy failure."""
    request = grounded_request(
        VENDOR,
        f"{QUESTION} [[emulator:fault=no_search]]",
        mode="REQUIRED",
        grounding_policy={"min_coverage": 1.0},
    )
    with pytest.raises(GroundingRequiredFailedError) as caught:
        router.route(request)
    assert caught.value.reason == "not_invoked"
