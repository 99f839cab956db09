"""Used as a library, the router is quiet: its events go to the standard ``logging`` module,
which shows nothing until the application configures it, and never to stdout."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

# An unknown model (``price_unknown``) and a failing call (``route_failed``): two events that
# structlog's default configuration used to print on stdout.
_SCRIPT = """
    import logging, sys
    from router.emulator import Emulator
    from router.errors import RouterError
    from router.unified_llm_adapter import UnifiedLLMAdapter
    from support.emulated import emulator_settings, grounded_request
    from router.emulated import EMULATOR_API_KEY
    from pydantic import SecretStr
    {setup}
    with Emulator() as emulator:
        settings = emulator_settings(emulator, openai_api_key=SecretStr(EMULATOR_API_KEY),
                                     retry_max_attempts=1)
        with UnifiedLLMAdapter(settings) as router:
            router.route(grounded_request("openai", "quiet please", model="gpt-unpriced-9"))
            try:
                router.route(grounded_request("openai", "[[emulator:fault=400]] fail"))
            except RouterError:
                pass
    print("DATA")
"""


def _run(setup: str = "") -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(_SCRIPT).replace("{setup}", textwrap.dedent(setup).strip())
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_library_prints_nothing_by_default() -> None:
    """With logging unconfigured, stdout holds only the application's output; stderr, nothing."""
    result = _run()
    assert result.returncode == 0, result.stderr
    assert result.stdout == "DATA\n"
    assert result.stderr == ""


def test_events_reach_the_applications_logging() -> None:
    """``logging.basicConfig`` shows the events, with their fields, on the handler's stream."""
    result = _run("logging.basicConfig(stream=sys.stderr, level=logging.INFO)")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "DATA\n"
    assert "WARNING:router.pricing.book:price_unknown" in result.stderr
    assert "model='gpt-unpriced-9'" in result.stderr
    assert "route_failed" in result.stderr


def test_events_carry_their_fields_for_structured_handlers() -> None:
    """A handler reads an event's fields from the record's ``grounding_router`` attribute."""
    setup = """
    class Fields(logging.Handler):
        def emit(self, record):
            fields = getattr(record, "grounding_router", {})
            if fields.get("event") == "price_unknown":
                sys.stderr.write("FIELDS " + fields["model"] + "\\n")
    logging.getLogger("router").addHandler(Fields())
    logging.getLogger("router").setLevel(logging.INFO)
    """
    result = _run(setup)
    assert result.returncode == 0, result.stderr
    assert "FIELDS gpt-unpriced-9" in result.stderr


def test_no_library_module_logs_through_structlogs_global_configuration() -> None:
    """Every library module takes its logger from ``router.logging.get_logger`` (or ``logging``):
    ``structlog.get_logger`` prints on stdout until someone configures structlog."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(path.relative_to(root))
        for package in ("router", "adapters", "als")
        for path in (root / package).rglob("*.py")
        if "structlog.get_logger(" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
