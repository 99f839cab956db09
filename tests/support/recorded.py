"""Loading the recorded provider bodies under tests/data/recorded/.

Three kinds of file: ``*.json`` (one body), ``*.sse.txt`` (a raw event stream; Gemini/Vertex
frames end in CRLF) and ``*.chunks.jsonl`` (one SSE data payload per line). For streams, the
extractors are checked against the final state a client would hold: OpenAI's
``response.completed`` response, for Gemini/Vertex the chunks merged (text concatenated per
candidate, the last non-empty grounding metadata, the last usage), and for Anthropic the message
its events build (blocks started, text and citations appended, tool input JSON joined).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "RECORDED_DIR",
    "files_for_vendor",
    "is_chat_completion_chunk",
    "is_normalized",
    "load_events",
    "load_final_body",
    "merge_anthropic_events",
    "merge_chat_chunks",
    "merge_gemini_chunks",
    "openai_completed_response",
    "parse_sse",
    "recorded_files",
    "reply_kind",
    "stream_final_body",
    "vendor_reply_kind",
]

RECORDED_DIR = Path(__file__).resolve().parents[1] / "data" / "recorded"


def is_normalized(path: Path) -> bool:
    """Whether the recording project rewrote the body's text: offsets must not be checked then."""
    return ".normalized." in path.name


def recorded_files(*patterns: str) -> list[Path]:
    """Recorded files (relative glob patterns under RECORDED_DIR), sorted, without MANIFEST."""
    found: set[Path] = set()
    for pattern in patterns or ("**/*",):
        found.update(p for p in RECORDED_DIR.glob(pattern) if p.is_file() and p.suffix != ".md")
    return sorted(found)


def parse_sse(text: str) -> list[dict[str, Any]]:
    """The JSON payloads of an event stream, in order (``[DONE]`` and non-JSON data skipped)."""
    events: list[dict[str, Any]] = []
    data_lines: list[str] = []
    for raw_line in [*text.replace("\r\n", "\n").split("\n"), ""]:
        if raw_line.startswith("data:"):
            data_lines.append(raw_line[5:].removeprefix(" "))
        elif raw_line == "" and data_lines:
            payload = "\n".join(data_lines)
            data_lines = []
            try:
                value = json.loads(payload)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                events.append(value)
    return events


def load_events(path: Path) -> list[dict[str, Any]]:
    """The events of a ``.sse.txt`` or ``.chunks.jsonl`` file."""
    text = path.read_text(encoding="utf-8")
    if path.name.endswith(".chunks.jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return parse_sse(text)


def openai_completed_response(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``response`` of the ``response.completed`` event of an OpenAI Responses stream."""
    for event in reversed(events):
        if event.get("type") == "response.completed":
            response: dict[str, Any] = event["response"]
            return response
    raise ValueError("the stream has no response.completed event")


def merge_gemini_chunks(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A Gemini/Vertex stream merged into one generateContent body."""
    merged: dict[str, Any] = {}
    candidates: dict[int, dict[str, Any]] = {}
    for event in events:
        for key, value in event.items():
            if key != "candidates":
                merged[key] = value
        for position, candidate in enumerate(event.get("candidates", [])):
            index = candidate.get("index", position)
            target = candidates.setdefault(index, {"content": {"role": "model", "parts": []}})
            for key, value in candidate.items():
                if key == "content":
                    _append_parts(target["content"]["parts"], value.get("parts", []))
                elif key == "groundingMetadata":
                    if value or "groundingMetadata" not in target:
                        target["groundingMetadata"] = value
                else:
                    target[key] = value
    merged["candidates"] = [candidates[i] for i in sorted(candidates)]
    return merged


def _append_parts(parts: list[dict[str, Any]], new_parts: list[dict[str, Any]]) -> None:
    """Concatenate streamed text into the last text part; keep other parts as they come."""
    for part in new_parts:
        text = part.get("text")
        is_plain_text = text is not None and set(part) <= {"text"}
        if is_plain_text and parts and set(parts[-1]) <= {"text"}:
            parts[-1] = {"text": parts[-1].get("text", "") + text}
        else:
            parts.append(dict(part))


def merge_anthropic_events(events: list[dict[str, Any]]) -> dict[str, Any]:
    """An Anthropic Messages stream folded into the final message, as the SDK's accumulator does:
    ``message_start`` gives the message, each block starts as sent and grows by its deltas
    (``text_delta``, ``citations_delta``, ``input_json_delta``), ``message_delta`` sets the stop
    reason and usage."""
    message: dict[str, Any] = {}
    partial_json: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            message = {**event["message"], "content": []}
        elif kind == "content_block_start":
            message["content"].append(dict(event["content_block"]))
        elif kind == "content_block_delta":
            block = message["content"][event["index"]]
            delta = event["delta"]
            if delta["type"] == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif delta["type"] == "citations_delta":
                block["citations"] = [*block.get("citations", []), delta["citation"]]
            elif delta["type"] == "input_json_delta":
                partial_json[event["index"]] = (
                    partial_json.get(event["index"], "") + delta["partial_json"]
                )
        elif kind == "message_delta":
            message.update(event.get("delta", {}))
            message["usage"] = {**message.get("usage", {}), **event.get("usage", {})}
    for index, text in partial_json.items():
        message["content"][index]["input"] = json.loads(text) if text else {}
    return message


def load_final_body(path: Path) -> dict[str, Any]:
    """The body an extractor sees for ``path``: the JSON itself, or a stream's final state."""
    if path.suffix == ".json":
        body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return body
    events = load_events(path)
    if any(str(event.get("type", "")).startswith("response.") for event in events):
        return openai_completed_response(events)
    if events and events[0].get("type") == "message_start":
        return merge_anthropic_events(events)
    if events and all(is_chat_completion_chunk(event) for event in events):
        return merge_chat_chunks(events)
    return merge_gemini_chunks(events)


def stream_final_body(path: Path) -> dict[str, Any] | None:
    """The final body a recorded stream adds up to, built here independently of the readers.

    OpenAI Responses streams: the ``response.completed`` response; Gemini/Vertex: the chunks
    merged; Anthropic: the message its events build. None for a stream of another kind (its
    provider's suite adds a builder here).
    """
    events = load_events(path)
    if any(str(event.get("type", "")).startswith("response.") for event in events):
        return openai_completed_response(events)
    if events and all("candidates" in event or "usageMetadata" in event for event in events):
        return merge_gemini_chunks(events)
    if events and events[0].get("type") == "message_start":
        return merge_anthropic_events(events)
    if events and all(is_chat_completion_chunk(event) for event in events):
        return merge_chat_chunks(events)
    return None


def is_chat_completion_chunk(event: dict[str, Any]) -> bool:
    """A chat completion stream chunk, by its ``object`` (Perplexity ends with ``.done``)."""
    return event.get("object") in ("chat.completion.chunk", "chat.completion.done")


def merge_chat_chunks(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A chat completion stream merged into one ``chat.completion``: the first choice's deltas
    joined, the latest top-level fields, the last finish reason."""
    merged: dict[str, Any] = {}
    pieces: list[str] = []
    finish_reason = None
    for event in events:
        merged.update({key: value for key, value in event.items() if key != "choices"})
        for choice in event.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            pieces.append((choice.get("delta") or {}).get("content") or "")
            finish_reason = choice.get("finish_reason") or finish_reason
    message = {"role": "assistant", "content": "".join(pieces)}
    choice = {"index": 0, "message": message, "finish_reason": finish_reason}
    return {**merged, "object": "chat.completion", "choices": [choice]}


# The kind of reply each vendor's endpoint answers with, so its suites can be served recorded
# bodies it reads: a new vendor names the kind of its replies here.
_VENDOR_REPLY_KINDS = {
    "openai": "responses",
    "vertex": "generate_content",
    "gemini": "generate_content",
    "perplexity": "perplexity",
    "openrouter": "chat",
    "anthropic": "messages",
}


def reply_kind(body: dict[str, Any]) -> str | None:
    """What API a final body comes from, by its shape."""
    if "output" in body:
        return "responses"
    if body.get("candidates"):
        return "generate_content"
    if body.get("type") == "message" and isinstance(body.get("content"), list):
        return "messages"
    if "choices" in body:
        return "perplexity" if "citations" in body or "search_results" in body else "chat"
    return None


def vendor_reply_kind(vendor: str) -> str:
    """The kind of reply ``vendor``'s endpoint answers with (see :func:`reply_kind`)."""
    return _VENDOR_REPLY_KINDS[vendor]


def files_for_vendor(vendor: str) -> list[Path]:
    """The recorded files whose final body is the kind of reply ``vendor`` answers with."""
    kind = vendor_reply_kind(vendor)
    return [path for path in recorded_files() if reply_kind(load_final_body(path)) == kind]
