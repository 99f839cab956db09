"""A JSON answer that Python cannot hold though it is JSON: one error for every provider.

``json.loads`` refuses valid JSON in two ways besides ``JSONDecodeError``: an integer of more
than 4,300 digits (``ValueError``, Python's guard against quadratic int parsing) and nesting
deeper than the interpreter's recursion limit (``RecursionError``). Both are replies the router
cannot use, said as such rather than as an unexpected crash.
"""

from __future__ import annotations

from router.errors import ResponseParseError

__all__ = ["unholdable_json"]


def unholdable_json(label: str, exc: BaseException, *, vendor: str) -> ResponseParseError:
    """The error for an answer ``json.loads`` refused with ``exc`` (not a ``JSONDecodeError``)."""
    if isinstance(exc, RecursionError):
        return ResponseParseError(
            f"{label}: the JSON answer nests too deep to be read",
            vendor=vendor,
            reason="json_too_deep",
        )
    return ResponseParseError(
        f"{label}: the JSON answer cannot be read ({type(exc).__name__}: {str(exc)[:120]})",
        vendor=vendor,
        reason="invalid_json",
    )
