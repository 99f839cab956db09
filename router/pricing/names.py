"""Which price table entry prices a model name: exact names first, then documented foldings.

The rules, tried in order until a name is in the table (as a model or one of its ``aliases``);
names compare without regard to case or surrounding space:

1. the name as given: ``gpt-5-2025-08-07`` if the table lists that snapshot;
2. without a resource path: ``publishers/google/models/gemini-2.5-flash`` and
   ``models/gemini-2.5-flash`` are ``gemini-2.5-flash``;
3. without one trailing snapshot suffix: a date (``gpt-5-2025-08-07``, ``gpt-4o-2024-08-06``,
   ``claude-sonnet-4-20250514``, ``claude-sonnet-4@20250514``), or a three-digit version
   (``gemini-2.0-flash-001``).

Nothing else folds: ``gpt-5-mini`` is never priced as ``gpt-5``, and preview or experimental
names (``gemini-2.5-flash-preview-05-20``) are priced only when the table lists them, since
their prices can differ from the released model's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

__all__ = ["find_model", "name_forms"]

_RESOURCE_PATH = re.compile(r"^(?:.*/)?models/")
_SNAPSHOT_SUFFIX = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|[-@]\d{8}|-\d{3})$")


def name_forms(name: str) -> Iterator[str]:
    """The forms of ``name`` the rules try, in order, each once."""
    seen: set[str] = set()
    plain = name.strip().lower()
    unpathed = _RESOURCE_PATH.sub("", plain)
    for form in (plain, unpathed, _SNAPSHOT_SUFFIX.sub("", unpathed)):
        if form and form not in seen:
            seen.add(form)
            yield form


def find_model(name: str, index: Mapping[str, str]) -> str | None:
    """The table name that prices ``name``; ``index`` maps lowercased names and aliases to it."""
    return next((index[form] for form in name_forms(name) if form in index), None)
