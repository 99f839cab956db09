"""The version of what the router writes: responses, batch rows, ``compare`` and ``extract``.

Every serialised :class:`~router.types.LLMResponse`, batch output row (plain and fan-out),
``compare --json`` document and ``extract --json`` response carries ``schema_version``, an
integer: the major version of those shapes. It goes up when a field is removed, renamed or
changes its type or meaning, so that a reader written for version N reads every version up to N
(fields are added without a new version) and refuses a newer one with a clear message instead of
misreading it.

- Version 1: everything written before the field existed (a record without it is version 1).
- Version 2: the field itself, on the shapes of DESIGN.md section 2 (responses with
  ``attributions`` and ``grounding``, batch rows with ``request_id``, ``ok``, ``line``,
  ``request`` and ``response`` or ``error``).

Readers (``batch --resume``, ``als``, ``report``, ``LLMResponse.model_validate``) call
:func:`check_schema_version`. This module imports nothing from the router.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["SCHEMA_VERSION", "SchemaVersionError", "check_schema_version", "schema_version_of"]

SCHEMA_VERSION: Final = 2
"""The major version of every shape this grounding-router writes."""

_BEFORE_VERSIONS = 1


class SchemaVersionError(ValueError):
    """A record written by a newer grounding-router (or with a version that is not one)."""


def schema_version_of(record: Mapping[str, Any], where: str = "the record") -> int:
    """The record's major version: 1 when it has none; ``"2.1"`` and ``2`` are both 2."""
    value = record.get("schema_version")
    if value is None:
        return _BEFORE_VERSIONS
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise SchemaVersionError(
            f"{where}: schema_version {value!r} is not a version (an integer, e.g. "
            f"{SCHEMA_VERSION})"
        )
    major = value if isinstance(value, int) else value.split(".", 1)[0]
    try:
        number = int(major)
    except ValueError:
        raise SchemaVersionError(
            f"{where}: schema_version {value!r} is not a version (an integer, e.g. "
            f"{SCHEMA_VERSION})"
        ) from None
    if number < 1:
        raise SchemaVersionError(f"{where}: schema_version {value!r} is not a version")
    return number


def check_schema_version(record: Mapping[str, Any], where: str = "the record") -> int:
    """The record's version, when this grounding-router can read it; else a clear error.

    ``where`` names the record for the message (``"out.jsonl line 7"``).
    """
    version = schema_version_of(record, where)
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{where} has schema_version {version}, newer than this grounding-router reads "
            f"(versions 1 to {SCHEMA_VERSION}): it was written by a newer release; upgrade "
            "grounding-router to read it"
        )
    return version
