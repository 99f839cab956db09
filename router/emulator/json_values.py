"""A JSON value that conforms to a schema, filled from an answer.

Both schema dialects arrive here: JSON Schema (OpenAI ``text.format``, Vertex
``responseJsonSchema``, pydantic output with ``$defs``) and Vertex's OpenAPI-style
``responseSchema`` (upper-case types, ``nullable``, ``propertyOrdering``). Strings are
filled by what their property name suggests (a URL, a title, a date, ...) and otherwise with
the answer's sentences, so a grounded JSON answer still says something.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from typing import Any

from router.emulator.catalogue import Answer

__all__ = ["SchemaFiller"]

_MAX_DEPTH = 8
# Numbers as answers write them: 3,747 / 2.1 / 14 (not digits inside words such as "10th").
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?![\w,])")
_NAME_HINTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("url", "uri", "link", "href"), "url"),
    (("title", "headline"), "title"),
    (("domain", "site", "publisher", "source", "host"), "domain"),
    (("date", "published", "updated", "time"), "date"),
    (("country",), "country"),
    (("lang", "language", "locale"), "language"),
    (("query", "queries", "search"), "query"),
    (("name", "topic", "subject", "entity"), "topic"),
)


class SchemaFiller:
    """Builds values from schemas; remembers which claims it placed in strings."""

    def __init__(
        self,
        answer: Answer,
        rng: random.Random,
        *,
        cite_marker: Callable[[int], str] | None = None,
        country: str | None = None,
    ) -> None:
        self._answer = answer
        self._rng = rng
        self._cite_marker = cite_marker
        self._country = country or "US"
        self._next_claim = 0
        self._next_source = 1
        self._next_number = 0
        self._current_source = 0
        self.placed_claims: list[tuple[int, str]] = []
        """(claim index, the exact string placed) for each claim used, in order."""

    def value(self, schema: Mapping[str, Any] | None) -> Any:
        """A value for ``schema``; no schema, or no properties, gives an ``answer`` object."""
        schema = schema or {"type": "object"}
        return self._value(schema, root=schema, name="", depth=0)

    def _value(self, schema: Any, *, root: Mapping[str, Any], name: str, depth: int) -> Any:
        if not isinstance(schema, Mapping):
            return self._text()
        schema = self._resolve(schema, root)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._rng.choice(schema["enum"])
        for key in ("anyOf", "oneOf", "allOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                useful = [o for o in options if _type_of(self._resolve(o, root)) != "null"]
                return self._value((useful or options)[0], root=root, name=name, depth=depth)
        kind = _type_of(schema)
        if kind is None:
            kind = (
                "object" if "properties" in schema else "array" if "items" in schema else "string"
            )
        # Recursive schemas end in empty lists; a chain of required objects ends in {}.
        if kind == "array" and depth >= _MAX_DEPTH:
            return []
        if kind == "object" and depth >= 2 * _MAX_DEPTH:
            return {}
        if kind == "object":
            return self._object(schema, root=root, depth=depth)
        if kind == "array":
            return self._array(schema, root=root, name=name, depth=depth)
        if kind in ("number", "integer"):
            return self._number(schema, name, integer=kind == "integer")
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        return self._string(schema, name)

    def _resolve(self, schema: Any, root: Mapping[str, Any]) -> Any:
        seen = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen < 32:
            target: Any = root
            for part in schema["$ref"].lstrip("#/").split("/"):
                target = target.get(part, {}) if isinstance(target, Mapping) else {}
            schema, seen = target, seen + 1
        return schema

    def _object(self, schema: Mapping[str, Any], *, root: Mapping[str, Any], depth: int) -> Any:
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            return {"answer": self._text()}
        order = schema.get("propertyOrdering")
        names = [n for n in order if n in properties] if isinstance(order, list) else []
        names += [n for n in properties if n not in names]
        return {n: self._value(properties[n], root=root, name=n, depth=depth + 1) for n in names}

    def _array(
        self, schema: Mapping[str, Any], *, root: Mapping[str, Any], name: str, depth: int
    ) -> list[Any]:
        count = 2
        if isinstance(schema.get("minItems"), int):
            count = max(count, schema["minItems"])
        if isinstance(schema.get("maxItems"), int):
            count = min(count, schema["maxItems"])
        singular = name[:-1] if name.endswith("s") else name
        items = []
        for _ in range(count):
            # Each element of a list (of URLs, or of source objects) names its own source.
            self._current_source, self._next_source = self._next_source, self._next_source + 1
            items.append(
                self._value(schema.get("items", {}), root=root, name=singular, depth=depth + 1)
            )
        return items

    def _number(self, schema: Mapping[str, Any], name: str, *, integer: bool) -> int | float:
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        lowered = name.lower()
        if "year" in lowered:
            guess: float = 2026
        elif any(w in lowered for w in ("score", "confidence", "probability", "ratio")):
            guess = 0.87
        else:
            stated = self._stated_numbers()
            guess = stated[self._next_number % len(stated)] if stated else self._rng.randint(1, 12)
            self._next_number += 1
        if isinstance(low, int | float) and guess <= low:
            guess = low + 1 if "exclusiveMinimum" in schema else low
        if isinstance(high, int | float) and guess >= high:
            guess = high - 1 if "exclusiveMaximum" in schema else high
        return round(guess) if integer else float(guess)

    def _stated_numbers(self) -> list[float]:
        """The numbers the answer states, in order ("3,747 m" gives 3747)."""
        found = (
            float(match.replace(",", ""))
            for claim in self._answer.claims
            for match in _NUMBER.findall(claim.text)
        )
        return list(dict.fromkeys(found))

    def _string(self, schema: Mapping[str, Any], name: str) -> str:
        fmt = str(schema.get("format", "")).lower()
        hint = {"uri": "url", "url": "url", "date": "date", "date-time": "datetime"}.get(fmt)
        if fmt == "email":
            return "press@example.org"
        if hint is None:
            lowered = name.lower()
            hint = next((h for words, h in _NAME_HINTS if any(w in lowered for w in words)), "")
        text = self._hinted(hint) if hint else self._text()
        limit = schema.get("maxLength")
        return text[: int(limit)] if isinstance(limit, int) else text

    def _hinted(self, hint: str) -> str:
        sources = [s for s in self._answer.sources if not s.vertex_only] or list(
            self._answer.sources
        )
        if hint in ("url", "title", "domain"):
            source = sources[self._current_source % len(sources)]
            return {"url": source.url, "title": source.title, "domain": source.domain}[hint]
        if hint == "date":
            return "2026-05-14"
        if hint == "datetime":
            return "2026-05-14T09:30:00Z"
        if hint == "country":
            return self._country
        if hint == "language":
            return "en"
        if hint == "query":
            return self._answer.queries[0] if self._answer.queries else self._answer.topic
        return self._answer.topic

    def _text(self) -> str:
        claims = self._answer.claims
        index = self._next_claim % len(claims)
        self._next_claim += 1
        text = claims[index].text
        if self._cite_marker is not None and claims[index].cites:
            text += self._cite_marker(index)
        self.placed_claims.append((index, text))
        return text


def _type_of(schema: Any) -> str | None:
    if not isinstance(schema, Mapping):
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "null")
    if kind is None:
        return None
    kind = str(kind).lower()
    return "string" if kind == "type_unspecified" else kind
