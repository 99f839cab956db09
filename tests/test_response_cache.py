"""The opt-in response cache against the emulator: hits, misses, expiry, two processes, a
corrupt file, the Google grounded default and the CLI's --no-cache."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.cache import ResponseCache, cache_key
from router.emulator import Emulator
from router.router import Router
from router.types import LLMRequest
from support.emulated import cli_environment, emulator_settings, grounded_request
from support.logs import capture_logs


class Clock:
    """A clock the test moves by hand: expiry without waiting."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cached(emulator: Emulator, tmp_path: Path, clock: Clock) -> Iterator[Router]:
    cache = ResponseCache(tmp_path / "cache.sqlite", ttl_s=60.0, clock=clock)
    with Router(emulator_settings(emulator), cache=cache) as router:
        yield router


def _question(vendor: str = "openai", text: str = "Who designed Python?") -> dict[str, Any]:
    return grounded_request(vendor, text, request_id="c-1")


def test_second_call_is_a_hit_with_zero_cost(cached: Router, emulator: Emulator) -> None:
    """The same request again is served from the cache: marked a hit, costing nothing."""
    first = cached.route(_question())
    emulator.clear_requests()
    second = cached.route({**_question(), "request_id": "c-2"})
    assert emulator.requests == []
    assert second.metadata["cache"] == "hit"
    assert "cache" not in first.metadata
    assert second.usage.cost is not None
    assert second.usage.cost.total == 0.0
    assert first.usage.cost is not None
    assert first.usage.cost.total > 0
    assert (second.content, second.citations) == (first.content, first.citations)
    assert second.request_id == "c-2"


def test_a_different_question_is_a_miss(cached: Router, emulator: Emulator) -> None:
    """Another question, or the same one to another model, goes to the provider."""
    cached.route(_question())
    emulator.clear_requests()
    other = cached.route(_question(text="Who designed Rust?"))
    other_model = cached.route({**_question(), "model": "gpt-5-mini"})
    assert "cache" not in other.metadata
    assert "cache" not in other_model.metadata
    assert len(emulator.requests) == 2


def test_key_ignores_what_does_not_change_the_answer() -> None:
    """Request id, metadata, timeout and fallbacks leave the key as it is; the policy does not."""
    base = LLMRequest.model_validate(_question())
    same = base.model_copy(
        update={"request_id": "x", "metadata": {"a": 1}, "timeout_s": 3.0, "fallbacks": []}
    )
    other = base.model_copy(update={"grounding_mode": "REQUIRED"})
    assert cache_key(same) == cache_key(base)
    assert cache_key(other) != cache_key(base)


def test_entry_expires_after_its_ttl(cached: Router, emulator: Emulator, clock: Clock) -> None:
    """Once the TTL has passed on the controlled clock, the provider is asked again."""
    cached.route(_question())
    clock.now += 59.0
    assert cached.route(_question()).metadata.get("cache") == "hit"
    clock.now += 2.0
    emulator.clear_requests()
    assert "cache" not in cached.route(_question()).metadata
    assert len(emulator.requests) == 1


def test_size_is_bounded(emulator: Emulator, tmp_path: Path, clock: Clock) -> None:
    """With room for two entries, the oldest of three is dropped."""
    cache = ResponseCache(tmp_path / "c.sqlite", max_entries=2, clock=clock)
    with Router(emulator_settings(emulator), cache=cache) as router:
        for number in range(3):
            clock.now += 1
            router.route(_question(text=f"Who designed language {number}?"))
        emulator.clear_requests()
        router.route(_question(text="Who designed language 0?"))
        router.route(_question(text="Who designed language 2?"))
    assert len(emulator.requests) == 1


@pytest.mark.parametrize("vendor", ["vertex", "gemini"])
def test_google_grounded_answers_are_not_stored_by_default(
    emulator: Emulator, tmp_path: Path, vendor: str
) -> None:
    """A grounded Vertex or Gemini answer is not stored unless the setting allows it."""
    for allowed in (False, True):
        cache = ResponseCache(tmp_path / f"{allowed}.sqlite", store_restricted_grounded=allowed)
        with Router(emulator_settings(emulator), cache=cache) as router:
            assert router.route(_question(vendor)).grounded_effective
            again = router.route(_question(vendor))
        assert (again.metadata.get("cache") == "hit") is allowed


def test_google_setting_comes_from_the_environment_name(emulator: Emulator, tmp_path: Path) -> None:
    """The cache and Google settings (GROUNDING_ROUTER_CACHE...) build the router's cache."""
    settings = emulator_settings(
        emulator, cache=tmp_path / "env.sqlite", cache_google_grounded=True
    )
    with Router(settings) as router:
        assert router.cache is not None
        assert router.cache.store_restricted_grounded
        router.route(_question("gemini"))
        assert router.route(_question("gemini")).metadata.get("cache") == "hit"


def test_corrupt_file_is_a_warning_and_a_miss(emulator: Emulator, tmp_path: Path) -> None:
    """A cache file that is not a database never fails the call: a warning, then the provider."""
    path = tmp_path / "corrupt.sqlite"
    path.write_bytes(b"this is not a sqlite database at all" * 100)
    with Router(emulator_settings(emulator), cache=path) as router, capture_logs() as logs:
        response = router.route(_question())
    assert response.content
    assert "cache" not in response.metadata
    events = [entry for entry in logs if entry["event"] == "response_cache_unavailable"]
    assert {entry["operation"] for entry in events} == {"read", "write"}


def test_locked_file_is_a_miss(emulator: Emulator, tmp_path: Path) -> None:
    """While another connection holds the write lock, a call still answers (and warns)."""
    path = tmp_path / "locked.sqlite"
    cache = ResponseCache(path, busy_timeout_s=0.0)  # a lock held: fail at once, no wait
    holder = sqlite3.connect(path, timeout=0.0)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with Router(emulator_settings(emulator), cache=cache) as router, capture_logs() as logs:
            response = router.route(_question())
    finally:
        holder.rollback()
        holder.close()
    assert response.content
    assert any(entry["event"] == "response_cache_unavailable" for entry in logs)


_WRITER = """
import sys
from pathlib import Path
from router.cache import ResponseCache
from router.types import LLMRequest, LLMResponse
cache = ResponseCache(Path(sys.argv[1]))
for number in range(int(sys.argv[3])):
    text = f"{sys.argv[2]} question {number}"
    request = LLMRequest(vendor="openai", model="gpt-5",
                         messages=[{"role": "user", "content": text}])
    assert cache.put(request, LLMResponse(vendor="openai", model="gpt-5", content=text))
"""


def test_two_processes_writing_at_once_keep_every_entry(tmp_path: Path) -> None:
    """Two processes storing 100 entries each into one file: all 200 are read back."""
    path = tmp_path / "shared.sqlite"
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name, "100"])
        for name in ("a", "b")
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    cache = ResponseCache(path)
    for name in ("a", "b"):
        for number in range(100):
            text = f"{name} question {number}"
            request = LLMRequest.model_validate(
                {
                    "vendor": "openai",
                    "model": "gpt-5",
                    "messages": [{"role": "user", "content": text}],
                }
            )
            hit = cache.get(request)
            assert hit is not None
            assert hit.content == text


def test_cli_no_cache_flag_leaves_the_cache_out(emulator: Emulator, tmp_path: Path) -> None:
    """``route`` twice with GROUNDING_ROUTER_CACHE set hits; with --no-cache it asks again."""
    environment = {**cli_environment(emulator), "GROUNDING_ROUTER_CACHE": str(tmp_path / "c.db")}
    command = [sys.executable, "-m", "router.cli", "route", "--vendor", "openai", "--json"]
    question = ["Who designed Python?"]

    def run(*flags: str) -> dict[str, Any]:
        done = subprocess.run(
            [*command, *flags, *question],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        loaded: dict[str, Any] = json.loads(done.stdout)
        return loaded

    assert "cache" not in run()["metadata"]
    assert run()["metadata"]["cache"] == "hit"
    emulator.clear_requests()
    assert "cache" not in run("--no-cache")["metadata"]
    assert len(emulator.requests) == 1
