"""Golden citations of every recorded OpenAI body (Responses, Chat Completions, OpenRouter).

The expectation files (tests/data/expected/openai/<recorded file>.json) were checked row by row
against the bodies and the MANIFEST notes. The other tests here do not read them: they check
spans against the raw text, the MANIFEST's counts, and properties every body must have.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.openai.adapter import _extract_openai_citations, extract_openai_grounding
from adapters.openai_compatible.citations import read_openai_reply
from support.citations import golden_row
from support.openai import EXPECTED_DIR, OPENAI_FILES, citation_problems
from support.recorded import is_normalized, load_final_body

IDS = [path.name for path in OPENAI_FILES]
RAW_FILES = [path for path in OPENAI_FILES if not is_normalized(path)]
COUNTS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "openai_recorded_counts.json").read_text("utf-8")
)


def _annotations(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(the text of its part, its fields) for each URL citation of the answer, as listed."""
    if "choices" in body:
        message = body["choices"][0]["message"]
        found = message.get("annotations") or []
        return [(message["content"], annotation["url_citation"]) for annotation in found]
    return [
        (part["text"], annotation)
        for item in body["output"]
        if item["type"] == "message"
        for part in item["content"]
        for annotation in part.get("annotations", [])
    ]


def test_every_openai_body_has_an_expectation() -> None:
    """The expected-citation files and the recorded OpenAI bodies match one to one."""
    expected = sorted(path.name for path in EXPECTED_DIR.glob("*.json"))
    assert expected == sorted(f"{name}.json" for name in IDS)
    assert len(IDS) == 19


@pytest.mark.parametrize("path", OPENAI_FILES, ids=IDS)
def test_golden_citations(path: Path) -> None:
    """The extracted citations are exactly the checked expectation, row for row."""
    expected = json.loads((EXPECTED_DIR / f"{path.name}.json").read_text("utf-8"))
    citations = _extract_openai_citations(load_final_body(path))
    assert [golden_row(c, is_normalized(path)) for c in citations] == expected["citations"]


@pytest.mark.parametrize("path", OPENAI_FILES, ids=IDS)
def test_golden_grounding(path: Path) -> None:
    """Tool calls, queries, evidence and the warning flag are the checked expectation."""
    expected = json.loads((EXPECTED_DIR / f"{path.name}.json").read_text("utf-8"))["grounding"]
    grounding = extract_openai_grounding(load_final_body(path))
    assert {
        "tool_call_count": grounding.tool_call_count,
        "web_search_queries": list(grounding.web_search_queries),
        "grounded_effective": grounding.grounded_effective,
        "non_url_sources": list(grounding.non_url_sources),
        "warning": grounding.warning is not None,
    } == expected


@pytest.mark.parametrize("path", OPENAI_FILES, ids=IDS)
def test_every_citation_satisfies_the_schema(path: Path) -> None:
    """Each citation has the ten keys with valid values; spans lie inside the answer text."""
    reply = read_openai_reply(load_final_body(path))
    for citation in reply.citations:
        assert citation_problems(citation, reply.content) == []


@pytest.mark.parametrize("path", RAW_FILES, ids=[path.name for path in RAW_FILES])
def test_spans_are_the_annotated_text(path: Path) -> None:
    """On raw bodies every annotation with offsets is a span: the text it marks, nothing else."""
    body = load_final_body(path)
    reply = read_openai_reply(body)
    expected = {
        (a["start_index"], a["end_index"], text[a["start_index"] : a["end_index"]])
        for text, a in _annotations(body)
        if a["end_index"] > a["start_index"]
    }
    spans = {(s["start"], s["end"], s["text"]) for c in reply.citations for s in c["spans"]}
    assert spans == expected
    for _, _, text in spans:  # each covers an inline markdown link
        assert text.endswith(")")
        assert "](http" in text


@pytest.mark.parametrize("path", OPENAI_FILES, ids=IDS)
def test_no_tracking_parameter_survives(path: Path) -> None:
    """No citation URL keeps utm_source (openai or chatgpt.com) or any other utm_ parameter."""
    for citation in _extract_openai_citations(load_final_body(path)):
        assert "utm_" not in (citation["url"] or "")


@pytest.mark.parametrize("path", OPENAI_FILES, ids=IDS)
def test_ranks_put_cited_sources_first(path: Path) -> None:
    """Ranks run 1..N; every cited source ranks before every source that was only seen."""
    citations = _extract_openai_citations(load_final_body(path))
    assert [c["rank"] for c in citations] == list(range(1, len(citations) + 1))
    cited = [c["cited"] for c in citations]
    assert cited == sorted(cited, reverse=True)


@pytest.mark.parametrize("row", COUNTS, ids=[row["file"] for row in COUNTS])
def test_counts_match_the_manifest(row: dict[str, Any]) -> None:
    """Annotations, distinct cited URLs, citations and tool calls are what the MANIFEST says."""
    (path,) = [p for p in OPENAI_FILES if p.name == row["file"]]
    body = load_final_body(path)
    citations = _extract_openai_citations(body)
    assert len(_annotations(body)) == row["annotations"]
    assert sum(c["cited"] for c in citations) == row["cited_urls"]
    assert len(citations) == len({c["url"] for c in citations}) == row["citations"]
    assert extract_openai_grounding(body).tool_call_count == row["tool_calls"]


def test_counts_table_covers_every_body() -> None:
    """The MANIFEST count table has one row per recorded OpenAI body."""
    assert sorted(row["file"] for row in COUNTS) == sorted(IDS)
