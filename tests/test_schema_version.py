"""Versioned outputs: every shape the router writes carries ``schema_version``, and its readers
accept older rows and refuse a newer major version with a clear message.

``tests/data/schema_shapes.json`` pins each written shape (its keys and their JSON types): a
response (``route --json-output``, ``extract --json``), a batch row (answered, failed, fan-out)
and a ``compare --json`` document. Changing a shape means changing that file, and, when a field
is removed or changes type, ``router.schema.SCHEMA_VERSION``. A REQUIRED-failed row's error
gained ``usage`` (what the rejected answer cost) in version 2: an added field, so no new version.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest

from adapters.registry import PROVIDERS
from als.report import build_report
from router import extract, route_many
from router.batch.output import error_row, existing_request_ids, row_text, success_row
from router.cli import main
from router.emulator import Emulator
from router.errors import GroundingRequiredFailedError, ProviderRequestError
from router.render.report_input import iter_report_rows
from router.router import Router
from router.schema import SCHEMA_VERSION, SchemaVersionError, check_schema_version
from router.types import LLMRequest, LLMResponse
from support.emulated import emulator_settings
from support.replies import reply_body

SHAPES_FILE = Path(__file__).parent / "data" / "schema_shapes.json"
SHAPES: dict[str, dict[str, str]] = json.loads(SHAPES_FILE.read_text(encoding="utf-8"))
NEWER = SCHEMA_VERSION + 1


def json_type(value: Any) -> str:
    """The JSON type of a value, as the snapshot names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def shape(document: dict[str, Any]) -> dict[str, str]:
    """Each key of ``document`` and its JSON type, in order."""
    return {key: json_type(value) for key, value in document.items()}


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[Router]:
    with Router(emulator_settings(emulator)) as built:
        yield built


def asked(vendor: str = "openai", request_id: str = "v1") -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": vendor,
            "model": PROVIDERS[vendor].default_model,
            "messages": [{"role": "user", "content": "Who won the 2022 World Cup?"}],
            "grounded": True,
            "request_id": request_id,
        }
    )


@pytest.fixture(scope="module")
def written(router: Router) -> dict[str, dict[str, Any]]:
    """One document of each shape, as the router writes it (JSON, read back)."""
    request = asked()
    response = router.route(request)
    failure = ProviderRequestError("bad request", vendor="openai", reason="bad_request")
    fanout = route_many(request, ["openai", "vertex"], router=router)
    offline = extract("openai", reply_body("openai", "Paris is the capital of France."))
    return {
        "response": json.loads(response.model_dump_json()),
        "extract": json.loads(offline.model_dump_json()),
        "batch_answered": json.loads(row_text(success_row(1, request, response))),
        "batch_failed": json.loads(row_text(error_row(2, "v2", failure, request))),
        "compare": json.loads(json.dumps(fanout.to_dict())),
    }


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_each_written_shape_matches_its_snapshot(
    kind: str, written: dict[str, dict[str, Any]]
) -> None:
    """Every written shape has the pinned keys and types, ``schema_version`` first and current."""
    document = written[kind]
    assert shape(document) == SHAPES[kind]
    assert next(iter(document)) == "schema_version"
    assert document["schema_version"] == SCHEMA_VERSION


def test_the_response_of_a_batch_row_is_versioned_too(written: dict[str, dict[str, Any]]) -> None:
    """A batch row's response and a compare document's responses carry their version."""
    assert written["batch_answered"]["response"]["schema_version"] == SCHEMA_VERSION
    for outcome in written["compare"]["providers"].values():
        assert outcome["response"]["schema_version"] == SCHEMA_VERSION


@pytest.mark.parametrize(
    ("record", "version"),
    [
        ({}, 1),
        ({"schema_version": 1}, 1),
        ({"schema_version": "2.3"}, 2),
        ({"schema_version": 2}, 2),
    ],
    ids=["missing-is-1", "one", "major-of-a-dotted-version", "current"],
)
def test_older_and_current_versions_are_read(record: dict[str, Any], version: int) -> None:
    """A record without the field is version 1; older and current versions are accepted."""
    assert check_schema_version(record) == version


def test_a_newer_major_version_is_refused_saying_what_to_do() -> None:
    """A newer major version is refused with its number, the versions read, and the remedy."""
    with pytest.raises(SchemaVersionError) as caught:
        check_schema_version({"schema_version": NEWER}, "out.jsonl line 3")
    message = str(caught.value)
    assert f"out.jsonl line 3 has schema_version {NEWER}" in message
    assert f"versions 1 to {SCHEMA_VERSION}" in message
    assert "upgrade grounding-router" in message


def test_a_response_dump_of_a_newer_version_does_not_validate(
    written: dict[str, dict[str, Any]],
) -> None:
    """LLMResponse.model_validate reads an old dump and refuses a newer one, saying why."""
    old = {k: v for k, v in written["response"].items() if k != "schema_version"}
    assert LLMResponse.model_validate(old).schema_version == SCHEMA_VERSION
    with pytest.raises(pydantic.ValidationError, match="newer than this grounding-router"):
        LLMResponse.model_validate({**written["response"], "schema_version": NEWER})


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def old_and_newer(written: dict[str, dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A version-1 row (no field anywhere) and a row of a newer major version."""
    old = {k: v for k, v in written["batch_answered"].items() if k != "schema_version"}
    old["response"] = {k: v for k, v in old["response"].items() if k != "schema_version"}
    newer = {**written["batch_failed"], "schema_version": NEWER, "request_id": "v3"}
    return old, newer


def test_resume_reads_version_1_rows_and_refuses_newer(
    written: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """--resume takes the ids of rows without a version and stops at a newer row's line."""
    old, newer = old_and_newer(written)
    ids, _ = existing_request_ids(write_rows(tmp_path / "old.jsonl", [old]))
    with ids:
        assert "v1" in ids
    with pytest.raises(SchemaVersionError, match=r"mixed\.jsonl line 2 has schema_version"):
        existing_request_ids(write_rows(tmp_path / "mixed.jsonl", [old, newer]))


def test_als_reads_version_1_rows_and_refuses_newer(
    written: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """ALS counts a version-1 row as answered and refuses a file holding a newer row."""
    old, newer = old_and_newer(written)
    assert build_report(write_rows(tmp_path / "old.jsonl", [old])).answered == 1
    with pytest.raises(SchemaVersionError, match="line 2 has schema_version"):
        build_report(write_rows(tmp_path / "mixed.jsonl", [old, newer]))


def test_report_reads_version_1_rows_and_refuses_newer(
    written: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """The HTML report's reader takes version-1 rows and refuses a newer one by its line."""
    old, newer = old_and_newer(written)
    rows = list(iter_report_rows(write_rows(tmp_path / "old.jsonl", [old])))
    assert [row.request_id for row in rows] == ["v1"]
    with pytest.raises(SchemaVersionError, match="line 2 has schema_version"):
        list(iter_report_rows(write_rows(tmp_path / "mixed.jsonl", [old, newer])))


@pytest.mark.parametrize("command", ["als", "report"])
def test_the_commands_refuse_a_newer_file_with_a_message_not_a_traceback(
    command: str,
    written: dict[str, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """als and report exit 2 and print the version message when a row is newer."""
    _, newer = old_and_newer(written)
    source = write_rows(tmp_path / "newer.jsonl", [newer])
    code = main([command, str(source)])
    _, err = capsys.readouterr()
    assert code == 2
    assert f"has schema_version {NEWER}, newer than this grounding-router reads" in err
    assert "Traceback" not in err


def test_a_rejected_answers_row_carries_its_usage_as_a_response_does(router: Router) -> None:
    """A REQUIRED-failed row's error holds ``usage`` in the shape of a response's, cost included;
    an error with no answer behind it has none."""
    question = "Who won the 2022 World Cup? [[emulator:fault=no_search]]"
    request = LLMRequest.model_validate(
        {**asked().model_dump(), "messages": [{"role": "user", "content": question}]}
        | {"grounding_mode": "REQUIRED", "request_id": "v4"}
    )
    with pytest.raises(GroundingRequiredFailedError) as caught:
        router.route(request)
    row = json.loads(row_text(error_row(4, "v4", caught.value, request)))
    answered = json.loads(router.route(asked()).model_dump_json())
    usage = row["error"]["usage"]
    assert shape(usage) == shape(answered["usage"])
    assert usage["cost"]["total"] > 0
    assert row["schema_version"] == SCHEMA_VERSION
    failure = ProviderRequestError("bad request", vendor="openai", reason="bad_request")
    assert "usage" not in error_row(5, "v5", failure)["error"]
