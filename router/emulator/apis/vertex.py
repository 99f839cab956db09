"""Vertex AI ``generateContent``: read the request, synthesise the reply and its SSE chunks.

The reply carries the quirks measured on recorded bodies: chunk URIs that are
``grounding-api-redirect`` links titled by bare domain, ``web.domain`` on some chunks only,
supports whose offsets are UTF-8 bytes (``startIndex`` omitted when 0) with unsorted
``groundingChunkIndices``, a google.com/search chunk with literal spaces for weather and time
answers, ``webSearchQueries`` and ``searchEntryPoint.renderedContent``; in a stream every chunk
carries ``groundingMetadata: {}`` and only the last one is populated.
"""

from __future__ import annotations

import html
import itertools
import json
import random
from collections.abc import Mapping
from typing import Any

from router.emulator.catalogue import Answer
from router.emulator.faults import FaultKind
from router.emulator.ids import redirect_token, rng_for, vertex_response_id
from router.emulator.json_values import SchemaFiller
from router.emulator.wire import Ask, BadRequest, JsonFormat

__all__ = ["REDIRECT_PREFIX", "build_response", "read_request", "stream_chunks"]

REDIRECT_PREFIX = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
_SEARCH_TOOL_KEYS = frozenset(
    {"googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval"}
)
_SCHEMA_KEYS = ("responseJsonSchema", "response_json_schema", "responseSchema", "response_schema")
_MAX_CHUNKS = 5


def read_request(body: Mapping[str, Any], *, model: str, stream: bool) -> Ask:
    """The :class:`Ask` in a generateContent request; raises :class:`BadRequest` as Vertex would."""
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        raise BadRequest(
            "Unable to submit request because it has an empty contents field. Add a value and "
            "try again."
        )
    user_texts = [
        _text_of(content)
        for content in contents
        if isinstance(content, Mapping) and content.get("role", "user") == "user"
    ]
    prompt = user_texts[-1] if user_texts else ""
    tools = body.get("tools") or []
    search = isinstance(tools, list) and any(
        isinstance(t, Mapping) and _SEARCH_TOOL_KEYS & t.keys() for t in tools
    )
    config = body.get("generationConfig") or {}
    json_format = None
    if isinstance(config, Mapping) and config.get("responseMimeType") == "application/json":
        schema = next((config[k] for k in _SCHEMA_KEYS if isinstance(config.get(k), Mapping)), None)
        json_format = JsonFormat(schema)
    # A reshape (no tools, JSON asked, after the model's own answer) restates the question the
    # model already answered: answer that first question again, so the JSON says the same.
    answered = any(isinstance(c, Mapping) and c.get("role") == "model" for c in contents)
    reshape = json_format is not None and not search and answered and len(user_texts) > 1
    return Ask(
        api="vertex",
        model=model,
        prompt=prompt,
        question=user_texts[0] if reshape else prompt,
        stream=stream,
        search=search,
        json_format=json_format,
        country=_country(body),
        echo=body,
    )


def _text_of(content: Mapping[str, Any]) -> str:
    parts = content.get("parts") or []
    return "\n".join(str(p["text"]) for p in parts if isinstance(p, Mapping) and "text" in p)


def _country(body: Mapping[str, Any]) -> str | None:
    """The region of ``toolConfig.retrievalConfig.languageCode`` ("de-DE" gives "DE")."""
    config = body.get("toolConfig")
    retrieval = config.get("retrievalConfig") if isinstance(config, Mapping) else None
    code = retrieval.get("languageCode") if isinstance(retrieval, Mapping) else None
    if isinstance(code, str) and "-" in code:
        return code.rsplit("-", 1)[1].upper()
    return None


def build_response(
    ask: Ask, answer: Answer, *, fault: FaultKind | None, serial: str, create_time: str
) -> dict[str, Any]:
    """The final generateContent body for ``ask``."""
    rng = rng_for("vertex", ask.question, ask.model)
    searched = ask.search and fault != "no_search"
    if ask.json_format is not None:
        text, spans = _json_text(ask, answer)
    else:
        text, spans = _prose(answer)
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP",
    }
    if searched:
        if fault == "empty_grounding":
            candidate["groundingMetadata"] = {}
        else:
            candidate["groundingMetadata"] = _grounding(
                ask, answer, spans, rng, cite=fault != "no_citations"
            )
    prompt_tokens = _tokens(ask.prompt)
    text_tokens = _tokens(text)
    usage: dict[str, Any] = {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": text_tokens,
        "totalTokenCount": 0,
        "trafficType": "ON_DEMAND",
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt_tokens}],
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": text_tokens}],
    }
    if searched:
        tool_tokens = rng.randint(40, 120)
        usage["toolUsePromptTokensDetails"] = [{"modality": "TEXT", "tokenCount": tool_tokens}]
        usage["toolUsePromptTokenCount"] = tool_tokens
    if "2.5" in ask.model or "gemini-3" in ask.model:
        usage["thoughtsTokenCount"] = rng.randint(80, 400)
    usage["totalTokenCount"] = sum(
        usage.get(k, 0)
        for k in (
            "promptTokenCount",
            "candidatesTokenCount",
            "toolUsePromptTokenCount",
            "thoughtsTokenCount",
        )
    )
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": ask.model,
        "createTime": create_time,
        "responseId": vertex_response_id(serial),
    }


# A claim placed in the answer text: claim index, UTF-8 byte span, and the text of the span.
_Span = tuple[int, int, int, str]


def _prose(answer: Answer) -> tuple[str, list[_Span]]:
    spans: list[_Span] = []
    offset = 0
    for index, claim in enumerate(answer.claims):
        if index:
            offset += 1  # the joining space
        size = len(claim.text.encode())
        spans.append((index, offset, offset + size, claim.text))
        offset += size
    return " ".join(c.text for c in answer.claims), spans


def _json_text(ask: Ask, answer: Answer) -> tuple[str, list[_Span]]:
    """JSON for the schema; spans cover the claims inside its string values (in bytes)."""
    assert ask.json_format is not None
    filler = SchemaFiller(answer, rng_for("vertex-json", ask.question), country=ask.country)
    text = json.dumps(filler.value(ask.json_format.schema), ensure_ascii=False, indent=2)
    spans: list[_Span] = []
    cursor = 0
    for claim_index, placed in filler.placed_claims:
        escaped = json.dumps(placed, ensure_ascii=False)[1:-1]
        found = text.find(escaped, cursor)
        if found < 0:
            continue
        start = len(text[:found].encode())
        spans.append((claim_index, start, start + len(escaped.encode()), escaped))
        cursor = found + len(escaped)
    return text, spans


def _grounding(
    ask: Ask, answer: Answer, spans: list[_Span], rng: random.Random, *, cite: bool
) -> dict[str, Any]:
    queries = list(answer.queries) or [answer.topic]
    metadata: dict[str, Any] = {
        "webSearchQueries": queries,
        "searchEntryPoint": {"renderedContent": _rendered_content(queries, ask.question)},
    }
    if cite:
        cited = list(dict.fromkeys(i for c in answer.claims for i in c.cites))
        # One search result that no support uses, as real responses often include.
        extra = [i for i in range(len(answer.sources)) if i not in cited][:1]
        order = (cited + extra)[:_MAX_CHUNKS]
        position = {source: n for n, source in enumerate(order)}
        metadata["groundingChunks"] = [_chunk(answer, i, ask.question, rng) for i in order]
        metadata["groundingSupports"] = [
            support for span in spans if (support := _support(answer, span, position)) is not None
        ]
    if ask.model.startswith("gemini-2"):
        metadata["retrievalMetadata"] = {}
    return metadata


def _chunk(answer: Answer, index: int, question: str, rng: random.Random) -> dict[str, Any]:
    source = answer.sources[index]
    if source.vertex_only:
        # Google's own weather/time answers point at google.com/search, spaces and all.
        return {"web": {"uri": source.url, "title": source.title}}
    web = {"uri": REDIRECT_PREFIX + redirect_token(question, source.url), "title": source.domain}
    if rng.random() < 0.6:
        web["domain"] = source.domain
    return {"web": web}


def _support(answer: Answer, span: _Span, position: Mapping[int, int]) -> dict[str, Any] | None:
    claim_index, start, end, text = span
    indices = [position[i] for i in answer.claims[claim_index].cites if i in position]
    if not indices:
        return None
    # Real supports list their chunks unsorted ([2, 0, 1]); rotating keeps them so.
    indices = indices[1:] + indices[:1]
    segment: dict[str, Any] = {"endIndex": end, "text": text}
    if start:
        # proto3 leaves a zero startIndex out of the JSON.
        segment = {"startIndex": start, **segment}
    return {"segment": segment, "groundingChunkIndices": indices}


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def stream_chunks(body: Mapping[str, Any], *, serial: str) -> list[dict[str, Any]]:
    """The ``alt=sse`` chunks that deliver ``body``: text in pieces, grounding on the last."""
    candidate = body["candidates"][0]
    text: str = candidate["content"]["parts"][0]["text"]
    rng = rng_for("chunks", serial)
    cuts = [0, min(len(text), rng.randint(1, 3))]
    while cuts[-1] < len(text):
        cuts.append(min(len(text), cuts[-1] + rng.randint(40, 200)))
    pieces = [text[a:b] for a, b in itertools.pairwise(cuts)] or [""]
    grounded = "groundingMetadata" in candidate
    envelope = {k: body[k] for k in ("modelVersion", "createTime", "responseId") if k in body}
    chunks: list[dict[str, Any]] = []
    for piece in pieces[:-1]:
        part: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": piece}]}}
        if grounded:
            part["groundingMetadata"] = {}
        chunks.append(
            {"candidates": [part], "usageMetadata": {"trafficType": "ON_DEMAND"}, **envelope}
        )
    last: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": pieces[-1]}]},
        "finishReason": candidate.get("finishReason", "STOP"),
    }
    if grounded:
        last["groundingMetadata"] = candidate["groundingMetadata"]
    chunks.append({"candidates": [last], "usageMetadata": body["usageMetadata"], **envelope})
    return chunks


_ENTRY_POINT_STYLE = """<style>
.container {
  align-items: center;
  border-radius: 8px;
  display: flex;
  font-family: Google Sans, Roboto, sans-serif;
  font-size: 14px;
  line-height: 20px;
  padding: 8px 12px;
}
.chip {
  display: inline-block;
  border: solid 1px;
  border-radius: 16px;
  min-width: 14px;
  padding: 5px 16px;
  text-align: center;
  user-select: none;
  margin: 0 8px;
  -webkit-tap-highlight-color: transparent;
}
.carousel {
  overflow: auto;
  scrollbar-width: none;
  white-space: nowrap;
  margin-right: -12px;
}
.headline {
  display: flex;
  margin-right: 4px;
}
@media (prefers-color-scheme: light) {
  .container {
    background-color: #fafafa;
    box-shadow: 0 0 0 1px #0000000f;
  }
  .chip {
    background-color: #ffffff;
    border-color: #d2d2d2;
    color: #5e5e5e;
    text-decoration: none;
  }
}
@media (prefers-color-scheme: dark) {
  .container {
    background-color: #1f1f1f;
    box-shadow: 0 0 0 1px #ffffff26;
  }
  .chip {
    background-color: #2c2c2c;
    border-color: #3c4043;
    color: #fff;
    text-decoration: none;
  }
}
</style>
<div class="container">
  <div class="headline">
    <svg class="logo-light" width="18" height="18" viewBox="9 9 35 35" fill="none" \
xmlns="http://www.w3.org/2000/svg">
      <path fill-rule="evenodd" clip-rule="evenodd" d="M42.8622 27.0064C42.8622 25.7839 42.7525 \
24.6084 42.5487 23.4799H26.3109V30.1568H35.5897C35.1821 32.3041 33.9596 34.1222 32.1258 \
35.3448V39.6864H37.7213C40.9814 36.677 42.8622 32.2571 42.8622 27.0064V27.0064Z" fill="#4285F4"/>
    </svg>
  </div>
  <div class="carousel">
"""


def _rendered_content(queries: list[str], question: str) -> str:
    """The Search Suggestions chip widget: one chip per query, linking through a redirect."""
    chips = "".join(
        f'    <a class="chip" href="{REDIRECT_PREFIX}{redirect_token(question, "chip", q)}">'
        f"{html.escape(q, quote=False)}</a>\n"
        for q in queries
    )
    return f"{_ENTRY_POINT_STYLE}{chips}  </div>\n</div>\n"
