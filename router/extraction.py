"""``extract(vendor, reply)``: the offline entry for stored, recorded or logged replies.

(The module is ``extraction`` so that ``router.extract`` stays the function: a submodule of
that name would take the package attribute over once imported.)

``reply`` may be any of these, and is told apart in this order:

- text (``str``, ``bytes``): JSON (one body, or a JSON array of stream chunks, as Vertex's
  ``streamGenerateContent`` without ``alt=sse`` sends), JSON lines (one chunk per line), or an
  SSE text (``data:`` lines; ``[DONE]`` and comments skipped);
- a dict: a final reply body, or one stream event when the provider's reader says so
  (``StreamFormat.is_stream_event``);
- an SDK object (anything with ``model_dump``): read like the dict it dumps to;
- any other iterable (a list of chunks, an SDK stream, lines or pieces of an SSE text, objects
  with a ``data`` text such as an SDK's server-sent events): a stream, chunk by chunk.

A final body goes through the provider's reply mapper, a stream through its stream reader (both
named by the registry, see ``adapters.base``), each in the lenient mode: the result is an
``LLMResponse`` exactly as ``route()`` would build it for the same reply, through the same
assembly (:func:`router.respond.offline_response`: ``latency_ms`` 0, ``attempts`` 0; the cost
estimated at the built-in list prices; no validators: a stored reply is read, not judged), and
nothing about the reply makes it raise. What could not be read is said in
``metadata["warnings"]``, and a reply that yields nothing at all always says what it looked
like: an empty result is never silent. Only an unknown vendor (or a bad ``request``) raises
``RequestValidationError``, and a reply larger than ``route()`` would accept
(``GROUNDING_ROUTER_MAX_REPLY_BYTES``) raises ``ResponseParseError`` (``reply_too_large``).

The limits are ``route()``'s: ``settings`` (default: the settings' defaults) give
``max_reply_bytes``, checked before a text reply is parsed, and ``max_citations``, past which
the rest of the sources are cut, with a ``[CITATIONS]`` warning that names the setting.

``request`` says what was asked, when it matters to the mapping (``json_mode``: the answer is
parsed; grounded JSON on Vertex: the reply is step 1's prose); by default a grounded text
request to the vendor, with the model the reply names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.base import AdapterResult, StreamFormat
from adapters.registry import ProviderRow, provider
from router.call_limits import CallLimits, limits_scope
from router.errors import ResponseParseError
from router.respond import offline_response
from router.settings import RouterSettings
from router.streaming.sse import parse_sse
from router.types import LLMRequest, LLMResponse, Message

__all__ = ["extract", "offline_request"]

_SHOWN = 60
_PLACEHOLDER_QUESTION = "(a stored reply: the question was not recorded)"


def offline_request(
    vendor: str, request: LLMRequest | Mapping[str, Any] | None = None, *, model: object = None
) -> LLMRequest:
    """The request a stored reply is read for: ``request``, or a grounded text request."""
    if isinstance(request, LLMRequest):
        return request
    if request is not None:
        return LLMRequest.model_validate(request)
    return _default_request(provider(vendor), model)


def _default_request(row: ProviderRow, model: object) -> LLMRequest:
    return LLMRequest(
        vendor=row.vendor,
        model=model if isinstance(model, str) and model.strip() else row.default_model,
        messages=[Message(role="user", content=_PLACEHOLDER_QUESTION)],
        grounded=True,
    )


def extract(
    vendor: str,
    reply: object,
    *,
    request: LLMRequest | Mapping[str, Any] | None = None,
    settings: RouterSettings | None = None,
) -> LLMResponse:
    """The ``LLMResponse`` of a stored reply of ``vendor``, within ``route()``'s limits."""
    row = provider(vendor)
    limits = _limits(settings)
    warnings: list[str] = []
    shape = _Shape(row, warnings, max_bytes=limits.max_reply_bytes)
    read = shape.read(reply)
    asked = offline_request(row.vendor, request, model=shape.model)
    with limits_scope(limits):
        result = _result(row, asked, read, warnings)
    if limits.citations_cut:
        warnings.append(
            f"[CITATIONS] {row.label}: the reply named more sources than "
            f"GROUNDING_ROUTER_MAX_CITATIONS={limits.max_citations}; the first "
            f"{limits.max_citations} were kept, {limits.citations_cut} cut"
        )
    if not result.content and not result.citations and not result.tool_call_count:
        warnings.append(
            f"extract: nothing could be read from the reply ({shape.seen}); "
            f"expected a reply body or stream of {row.label}"
        )
    result.warnings = [*warnings, *result.warnings]
    return offline_response(asked, result)


def _limits(settings: RouterSettings | None) -> CallLimits:
    """``route()``'s reply-size and citation limits (no deadline: nothing is waited for)."""
    fields = RouterSettings.model_fields
    return CallLimits(
        float("inf"),
        max_reply_bytes=settings.max_reply_bytes
        if settings
        else fields["max_reply_bytes"].get_default(),
        max_citations=settings.max_citations if settings else fields["max_citations"].get_default(),
    )


def reply_too_large(limit: int, vendor: str) -> ResponseParseError:
    """The error of a stored reply larger than ``GROUNDING_ROUTER_MAX_REPLY_BYTES``."""
    return ResponseParseError(
        f"extract: the reply is larger than GROUNDING_ROUTER_MAX_REPLY_BYTES={limit} bytes, "
        "the most a reply may hold; raise that setting to read it",
        reason="reply_too_large",
        vendor=vendor,
    )


# What the reply turned out to be: a body, stream chunks, or nothing readable.
_Read = tuple[str, Any]


def _result(row: ProviderRow, asked: LLMRequest, read: _Read, warnings: list[str]) -> AdapterResult:
    kind, value = read
    try:
        if kind == "body":
            mapper = row.reply_mapper()
            if mapper is not None:
                return mapper(value, asked, strict=False)
            warnings.append(f"extract: {row.label} has no reply mapper")
        elif kind == "chunks":
            reader_class = row.stream_format()
            if reader_class is not None:
                reader = reader_class(asked)
                for chunk in value:
                    reader.feed(chunk)
                return reader.finish(strict=False)
            warnings.append(f"extract: {row.label} has no stream reader")
    except Exception as exc:  # the mappers do not raise; this guards the promise regardless
        warnings.append(f"extract: reading the reply failed ({type(exc).__name__}: {exc})")
    return AdapterResult(content="")


class _Shape:
    """Tells what a reply is and turns it into a body or a list of chunks."""

    def __init__(self, row: ProviderRow, warnings: list[str], *, max_bytes: int | None) -> None:
        self.row = row
        self.warnings = warnings
        self.max_bytes = max_bytes
        self.seen = "nothing"
        self.model: object = None
        self._format: StreamFormat | None = None

    def read(self, reply: object) -> _Read:
        if isinstance(reply, str | bytes | bytearray):
            self._check_size(_byte_size(reply, self.max_bytes))
            return self._text(_decoded(reply, self.warnings))
        if isinstance(reply, Mapping):
            return self._mapping(reply)
        dumped = _dumped(reply)
        if dumped is not None:
            if self._is_event(dumped):
                self.seen = f"one {type(reply).__name__} stream event"
                return "chunks", [dumped]
            self.seen = f"a {type(reply).__name__} object"
            self._note_model(dumped)
            return "body", reply  # the mapper reads SDK objects as they are
        if isinstance(reply, Iterable):
            return self._iterable(reply)
        self.seen = f"a {type(reply).__name__}"
        self.warnings.append(f"extract: cannot read a {type(reply).__name__} as a reply")
        return "none", None

    def _mapping(self, value: Mapping[str, Any]) -> _Read:
        if self._is_event(value):
            self.seen = "one stream event"
            return "chunks", [value]
        self.seen = f"a JSON object with keys {_keys(value)}"
        self._note_model(value)
        return "body", value

    def _text(self, text: str) -> _Read:
        stripped = text.strip().lstrip("\ufeff")
        if not stripped:
            self.seen = "an empty text"
            self.warnings.append("extract: the reply is empty")
            return "none", None
        if stripped[0] in "{[":
            try:
                value = json.loads(stripped)
            except (ValueError, RecursionError) as exc:
                lines = _json_lines(stripped)
                if lines is not None:
                    self.seen = f"JSON lines ({len(lines)} lines)"
                    return self._chunks(lines)
                if not _looks_like_sse(stripped):
                    self.seen = f"a text that starts like JSON but is not: {stripped[:_SHOWN]!r}"
                    self.warnings.append(f"extract: the reply is not valid JSON ({exc})")
                    return "none", None
            else:
                if isinstance(value, Mapping):
                    return self._mapping(value)
                if isinstance(value, list):
                    self.seen = f"a JSON array of {len(value)} items"
                    return self._chunks(value)
                self.seen = f"a JSON {type(value).__name__}"
                self.warnings.append(f"extract: a JSON {type(value).__name__} is not a reply")
                return "none", None
        if _looks_like_sse(stripped):
            return self._sse(stripped)
        self.seen = f"a text that is neither JSON nor SSE: {stripped[:_SHOWN]!r}"
        self.warnings.append("extract: the reply is neither JSON nor an SSE stream")
        return "none", None

    def _sse(self, text: str) -> _Read:
        events = parse_sse(text)
        chunks: list[Any] = []
        unreadable = 0
        for event in events:
            data = event.data.strip()
            if data == "[DONE]":
                continue
            try:
                chunks.append(json.loads(data))
            except (ValueError, RecursionError):
                unreadable += 1
        self.seen = f"an SSE stream of {len(events)} events"
        if unreadable:
            self.warnings.append(
                f"extract: {unreadable} of {len(events)} SSE events hold data that is not JSON"
            )
        return self._chunks(chunks)

    def _iterable(self, value: Iterable[Any]) -> _Read:
        items: list[Any] = []
        text_bytes = 0
        try:
            for item in value:
                if isinstance(item, str | bytes | bytearray):
                    text_bytes += _byte_size(item)
                    self._check_size(text_bytes)
                items.append(item)
        except ResponseParseError:
            raise  # past the size limit
        except Exception as exc:  # a broken SDK stream: read what came before it broke
            self.warnings.append(
                f"extract: reading the stream stopped after {len(items)} items "
                f"({type(exc).__name__}: {exc})"
            )
        if items and all(isinstance(item, str | bytes | bytearray) for item in items):
            pieces = [_decoded(item, self.warnings) for item in items]
            joiner = "" if any(piece.endswith(("\n", "\r")) for piece in pieces) else "\n"
            return self._text(joiner.join(pieces))
        self.seen = f"an iterable of {len(items)} items"
        return self._chunks(items)

    def _chunks(self, items: list[Any]) -> _Read:
        chunks: list[Any] = []
        unreadable = 0
        for item in items:
            chunk = _chunk(item)
            if chunk is None:
                unreadable += 1
            else:
                chunks.append(chunk)
                self._note_model(chunk)
        if unreadable:
            self.warnings.append(
                f"extract: {unreadable} of {len(items)} stream items are not JSON objects"
            )
        if len(chunks) == 1 and not self._is_event(chunks[0]):
            return "body", chunks[0]  # a list of one final body
        return "chunks", chunks

    def _check_size(self, size: int) -> None:
        if self.max_bytes is not None and size > self.max_bytes:
            raise reply_too_large(self.max_bytes, self.row.vendor)

    def _is_event(self, value: Mapping[str, Any]) -> bool:
        if self._format is None:
            self._format = self.row.stream_format()
        try:
            return self._format is not None and bool(self._format.is_stream_event(value))
        except Exception:
            return False

    def _note_model(self, value: Mapping[str, Any]) -> None:
        if self.model is None:
            response = value.get("response")
            owner = response if isinstance(response, Mapping) else value
            self.model = owner.get("model") or owner.get("modelVersion")


def _byte_size(value: str | bytes | bytearray, limit: int | None = None) -> int:
    """The UTF-8 size of ``value``; with ``limit``, a figure on the same side of it as the size."""
    if not isinstance(value, str):
        return len(value)
    if limit is not None and (len(value) > limit or len(value) * 4 <= limit):
        return len(value)  # one to four bytes a character: the side of the limit is known
    return len(value.encode("utf-8", errors="surrogatepass"))


def _decoded(value: str | bytes | bytearray, warnings: list[str]) -> str:
    if isinstance(value, str):
        return value
    text = bytes(value).decode("utf-8", errors="replace")
    if "\ufffd" in text:
        warnings.append("extract: the reply is not valid UTF-8; undecodable bytes were replaced")
    return text


def _dumped(value: object) -> dict[str, Any] | None:
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return None
    try:
        dumped = dump(mode="json", by_alias=True, exclude_none=True)
    except Exception:
        return None
    return dumped if isinstance(dumped, dict) else None


def _chunk(item: object) -> Mapping[str, Any] | None:
    if isinstance(item, Mapping):
        return item
    data = getattr(item, "data", None)
    if isinstance(data, str):  # a server-sent event object
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, Mapping) else None
    return _dumped(item)


def _json_lines(text: str) -> list[Any] | None:
    values: list[Any] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except (ValueError, RecursionError):
            return None
    return values if len(values) > 1 else None


def _looks_like_sse(text: str) -> bool:
    return any(line.startswith(("data:", "event:")) for line in text.splitlines()[:50])


def _keys(value: Mapping[str, Any]) -> list[str]:
    keys = [str(key)[:40] for key in list(value)[:10]]
    return keys if len(value) <= 10 else [*keys, f"… {len(value) - 10} more"]
