"""JSON answers generated from schemas conform to those schemas."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from router.emulator import answer_for
from router.emulator.json_values import SchemaFiller

DATA = Path(__file__).resolve().parents[2] / "data"
SCHEMAS: list[dict[str, Any]] = json.loads((DATA / "emulator_schemas.json").read_text())
FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


def fill(schema: dict[str, Any], **options: Any) -> Any:
    answer = answer_for("What is the capital of France?")
    return SchemaFiller(answer, random.Random(0), **options).value(schema)


@pytest.mark.parametrize("row", SCHEMAS, ids=[r["id"] for r in SCHEMAS])
def test_value_conforms_to_schema(row: dict[str, Any]) -> None:
    """The generated value validates against its JSON Schema (formats included)."""
    value = fill(row["schema"])
    jsonschema.validate(value, row["schema"], format_checker=FORMATS)


def test_property_names_choose_fitting_values() -> None:
    """URL, title and date fields get a source's URL and title and an ISO date."""
    schema = next(r["schema"] for r in SCHEMAS if r["id"] == "sources_list")
    first = fill(schema)["sources"][0]
    answer = answer_for("What is the capital of France?")
    assert any(first["url"] == s.url and first["title"] == s.title for s in answer.sources)
    assert first["published"] == "2026-05-14"


def test_free_text_carries_the_citation_marker() -> None:
    """With a cite marker, answer sentences in strings end with it."""
    value = fill({"type": "object"}, cite_marker=lambda index: f" <cite {index}>")
    assert value["answer"].endswith(" <cite 0>")


def test_google_schema_dialect() -> None:
    """Vertex's OpenAPI-style schema (upper-case types, propertyOrdering) is understood."""
    schema = {
        "type": "OBJECT",
        "properties": {
            "count": {"type": "INTEGER"},
            "answer": {"type": "STRING"},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
            "note": {"type": "STRING", "nullable": True},
        },
        "propertyOrdering": ["answer", "count", "tags", "note"],
        "required": ["answer", "count"],
    }
    value = fill(schema)
    assert list(value) == ["answer", "count", "tags", "note"]
    assert isinstance(value["count"], int)
    assert all(isinstance(tag, str) for tag in value["tags"])


def test_numbers_come_from_the_answer() -> None:
    """Numeric fields take the numbers the answer states, in order, not random ones."""
    answer = answer_for("What is the tallest mountain in Alberta?")
    schema = {"type": "object", "properties": {"elevation_m": {"type": "integer"}}}
    value = SchemaFiller(answer, random.Random(0)).value(schema)
    assert value == {"elevation_m": 3747}
