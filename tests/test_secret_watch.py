"""The sentinel secrets are set for the whole run, and the watch that guards them can fail it.

The detector is shown to flag every kind of channel on scratch values (never on the channels
the watch itself observes, which would fail this test); a pytest run in a subprocess, with the
same conftest set-up, shows that a test leaking the sentinel fails and fails the run.
"""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from router.logging import get_logger
from router.settings import RouterSettings
from router.types import LLMResponse
from support.logs import capture_logs
from support.secret_watch import (
    RUN_CHARS,
    SENTINEL_OPENAI_KEY,
    SENTINEL_VERTEX_TOKEN,
    SENTINELS,
    sentinel_findings,
)

TESTS_DIR = Path(__file__).resolve().parent


def test_settings_from_the_environment_hold_the_sentinels() -> None:
    """Settings built from the environment carry the sentinel key and token, nothing else."""
    settings = RouterSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.secret_values() == list(SENTINELS)
    assert os.environ["OPENAI_API_KEY"] == SENTINEL_OPENAI_KEY


class _ScratchError(Exception):
    """An exception type the watch does not observe."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.detail = {"headers": {"authorization": f"Bearer {SENTINEL_VERTEX_TOKEN}"}}


def _logged_event() -> Any:
    with capture_logs() as events:
        get_logger("router.scratch").info("call_failed", key=SENTINEL_OPENAI_KEY)
    return events


SCRATCH_LEAKS: dict[str, Any] = {
    "text": lambda: f"calling with {SENTINEL_OPENAI_KEY}",
    "bytes": lambda: b"Authorization: Bearer " + SENTINEL_VERTEX_TOKEN.encode(),
    "nested": lambda: {"rows": [{"error": {"message": ("x", SENTINEL_OPENAI_KEY)}}]},
    "exception field": lambda: _ScratchError("failed"),
    "exception message": lambda: ValueError(f"bad key {SENTINEL_OPENAI_KEY}"),
    "response": lambda: LLMResponse(vendor="openai", model="m", content=SENTINEL_OPENAI_KEY),
    "log event": _logged_event,
    "cut short": lambda: SENTINEL_OPENAI_KEY[:22],
    "masked": lambda: "sk-SENTINEL-" + "*" * 10 + SENTINEL_OPENAI_KEY[-10:],
    "8-character run": lambda: f"token …{SENTINEL_VERTEX_TOKEN[-14:-6]}… expired",
    "percent-encoded": lambda: "key=" + "".join(f"%{b:02X}" for b in SENTINEL_OPENAI_KEY.encode()),
    "json-escaped": lambda: "".join(f"\\u{ord(c):04x}" for c in SENTINEL_VERTEX_TOKEN[-9:]),
}


@pytest.mark.parametrize("channel", list(SCRATCH_LEAKS))
def test_detector_flags_a_leak_in_any_channel(channel: str) -> None:
    """The detector finds the sentinel in text, bytes, containers, exceptions, models, logs."""
    assert sentinel_findings(SCRATCH_LEAKS[channel]())


def test_detector_flags_a_file(tmp_path: Path) -> None:
    """A file that holds the sentinel (a batch output, a log file) is flagged."""
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"error": {"message": f"key {SENTINEL_VERTEX_TOKEN}"}}) + "\n")
    assert sentinel_findings(path)


def test_detector_passes_redacted_text() -> None:
    """Text whose secrets were redacted, and unrelated keys, are not flagged."""
    assert sentinel_findings({"message": "key [REDACTED]", "other": "sk-other-0123456789"}) == []


def test_detector_passes_seven_characters_of_a_secret() -> None:
    """Runs shorter than 8 characters are not a leak (they occur by chance)."""
    assert sentinel_findings(f"…{SENTINEL_OPENAI_KEY[-7:]}") == []


def test_no_run_of_a_sentinel_can_occur_in_a_random_hex_id() -> None:
    """The emulator's ids are random hex (``resp_`` and 50 digits): a run of a sentinel that was
    all hex would turn up in one by chance now and then and fail an innocent test as a leak."""
    hex_digits = set(string.hexdigits)
    for sentinel in SENTINELS:
        random_part = sentinel.rpartition("SENTINEL-")[2]
        runs = [random_part[i : i + RUN_CHARS] for i in range(len(random_part) - RUN_CHARS + 1)]
        assert runs
        assert all(set(run) - hex_digits for run in runs), sentinel
        # The hex id closest to the sentinel: its every hex digit in place, the rest made "0".
        closest = "".join(char if char in hex_digits else "0" for char in random_part)
        assert sentinel_findings(f"resp_{closest}") == [], sentinel


_LEAKY_TESTS = """
import os

import pytest

from router.batch.output import ResultWriter
from router.errors import ProviderRequestError

KEY = os.environ["OPENAI_API_KEY"]
# Never registered in this run and of no secret shape: the one redaction cannot know it.
TOKEN = os.environ["GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN"]


def test_prints_the_key():
    print("calling with", KEY)


def test_raises_an_error_with_the_key():
    with pytest.raises(ProviderRequestError):
        raise ProviderRequestError(f"rejected {TOKEN}")


def test_writes_the_key_into_a_batch_row(tmp_path):
    writer = ResultWriter(tmp_path / "out.jsonl")
    writer.write_line('{"key": "%s"}' % KEY)
    writer.close()


def test_reads_its_own_output(capsys):
    print(KEY)
    assert KEY in capsys.readouterr().out


def test_keeps_the_key_to_itself():
    assert KEY.startswith("sk-")
"""

_CONFTEST = """
import os
import sys

sys.path.insert(0, {tests_dir!r})

from support.secret_watch import SENTINEL_ENVIRONMENT, SecretWatch

os.environ.update(SENTINEL_ENVIRONMENT)


def pytest_configure(config):
    config.pluginmanager.register(SecretWatch(), "secret-watch")
"""


@pytest.mark.timeout(120)
def test_watch_fails_the_tests_that_leak_and_the_run(tmp_path: Path) -> None:
    """A run whose tests leak the sentinel exits 1; exactly the leaking tests fail."""
    (tmp_path / "conftest.py").write_text(_CONFTEST.format(tests_dir=str(TESTS_DIR)))
    (tmp_path / "test_leaks.py").write_text(textwrap.dedent(_LEAKY_TESTS))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfp", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    summary = {
        line.split("::")[1].split()[0]: line.split()[0]
        for line in run.stdout.splitlines()
        if line.startswith(("PASSED", "FAILED"))
    }
    assert run.returncode == 1
    assert summary == {
        "test_prints_the_key": "FAILED",
        "test_raises_an_error_with_the_key": "FAILED",
        "test_writes_the_key_into_a_batch_row": "FAILED",
        "test_reads_its_own_output": "FAILED",
        "test_keeps_the_key_to_itself": "PASSED",
    }
    assert "sentinel secrets leaked" in run.stdout
