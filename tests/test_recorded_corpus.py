"""The recorded provider bodies in tests/data/recorded load, and streams merge to final bodies."""

from __future__ import annotations

import pytest

from support.recorded import RECORDED_DIR, load_final_body, recorded_files

ALL_FILES = recorded_files()


def test_manifest_lists_every_copied_file() -> None:
    """Each copied body has its MANIFEST row (source, license and caveats travel with it)."""
    manifest = (RECORDED_DIR / "MANIFEST.md").read_text()
    assert len(ALL_FILES) == 54
    for path in ALL_FILES:
        assert f"| {path.name} |" in manifest, path.name


@pytest.mark.parametrize("path", ALL_FILES, ids=[p.name for p in ALL_FILES])
def test_every_body_loads(path: object) -> None:
    """Every file parses to a JSON object (streams to their final state)."""
    assert isinstance(load_final_body(path), dict)  # type: ignore[arg-type]


def test_gemini_stream_merges_text_and_keeps_last_grounding() -> None:
    """A Vertex SSE stream merges to one body: full text, grounding from the last frame."""
    (path,) = recorded_files("pydantic-ai/vertex_gemini25flash_stream_web_domain.sse.txt")
    body = load_final_body(path)
    (candidate,) = body["candidates"]
    text = candidate["content"]["parts"][0]["text"]
    assert text.startswith("Pydantic AI's documentation can be found")
    assert len(candidate["groundingMetadata"]["groundingChunks"]) == 5


def test_openai_stream_final_state_is_the_completed_response() -> None:
    """An OpenAI SSE stream yields the response of its response.completed event."""
    (path,) = recorded_files("mirascope/openai_responses_gpt4o_stream.sse.txt")
    body = load_final_body(path)
    assert body["status"] == "completed"
    assert any(item["type"] == "message" for item in body["output"])
