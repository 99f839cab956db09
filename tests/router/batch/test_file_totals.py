"""A row's outcome read back from the error type it records, as the run's statistics class it."""

from __future__ import annotations

import pytest

from router.batch.file_totals import row_outcome


@pytest.mark.parametrize(
    ("error_type", "outcome"),
    [
        ("GroundingRequiredFailedError", "required_failed"),
        ("ProviderTransientError", "provider_error"),
        ("ProviderRequestError", "provider_error"),
        ("RequestValidationError", "bad_input"),
        ("FanoutError", "fanout_failed"),
        ("ResponseParseError", "error"),
        ("NotAnErrorClass", "error"),
    ],
)
def test_error_type_gives_the_outcome(error_type: str, outcome: str) -> None:
    """Each recorded error type maps to the outcome outcome_of gives its class."""
    assert row_outcome({"ok": False, "error": {"type": error_type}}) == outcome


def test_answered_row_is_ok() -> None:
    """A row with ok true is ok, whatever else it holds."""
    assert row_outcome({"ok": True}) == "ok"
