"""A caller's key quoted back in an answer: strong secrets out of what a response carries.

A provider may quote the credential it was sent with in its answer (a prompt that holds the
key, a proxy that echoes headers into the text). Error messages, logs, batch rows and printed
output were redacted already; this module does the same for the response objects a library
caller gets, under the rule of :mod:`router.text.redaction` for provider content: only strong
secrets and their runs are removed (``redact_text(..., shapes=False)``), so an ordinary word is
never rewritten.

Removing a secret shortens the text, so the character offsets that point into ``content``
(citation spans, attributions) are moved with it: :class:`Offsets` maps an offset into the
text as the provider wrote it to the same place in the redacted text. When no strong secret is
registered, :func:`redacted_response` returns its argument untouched and walks nothing. It runs
at assembly (:mod:`router.respond`), before the validators, so the grounding report is made
from the redacted answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from router.text.redaction import (
    REDACTED,
    may_hold_strong_secret,
    redact_text,
    strong_secret_spans,
    strong_secrets_registered,
)
from router.text.written import written
from router.types import Citation, LLMResponse

__all__ = ["Offsets", "redact_content", "redact_strings", "redacted_response"]

_MAX_DEPTH = 256


@dataclass(frozen=True, slots=True)
class Offsets:
    """Where each redacted span was, in the original text, and what that does to offsets."""

    replaced: tuple[tuple[int, int], ...] = ()

    def __call__(self, position: int) -> int:
        """``position`` in the original text, as a position in the redacted text.

        A position inside a removed secret moves to the end of its ``REDACTED``, so a span
        that covered part of a secret covers the whole marker.
        """
        shift = 0
        for start, end in self.replaced:
            if position <= start:
                break
            if position < end:  # inside this secret
                return start - shift + len(REDACTED)
            shift += (end - start) - len(REDACTED)
        return position - shift


def redact_content(text: str) -> tuple[str, Offsets]:
    """``text`` without strong secrets, and the map of its offsets."""
    spans = strong_secret_spans(text)
    if not spans:
        return text, Offsets()
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        pieces.append(REDACTED)
        position = end
    pieces.append(text[position:])
    return "".join(pieces), Offsets(tuple(spans))


def redact_strings(value: Any, depth: int = 0) -> Any:
    """Every string inside ``value`` (dicts and lists, keys too) without strong secrets."""
    if isinstance(value, str):
        return redact_text(value, shapes=False)
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {
            redact_strings(k, depth + 1): redact_strings(v, depth + 1) for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_strings(item, depth + 1) for item in value]
    return value


def _with_offsets(item: dict[str, Any], offsets: Offsets) -> dict[str, Any]:
    """A span or attribution (``start``, ``end`` into the content) with its offsets moved."""
    copy: dict[str, Any] = redact_strings(item)
    if isinstance(item.get("start"), int) and isinstance(item.get("end"), int):
        copy["start"] = offsets(item["start"])
        copy["end"] = max(copy["start"], offsets(item["end"]))
    return copy


def redact_citation(citation: Citation, offsets: Offsets) -> Citation:
    """The citation with every text field redacted and its spans moved with the content."""
    copy: dict[str, Any] = redact_strings({k: v for k, v in citation.items() if k != "spans"})
    copy["spans"] = [_with_offsets(dict(span), offsets) for span in citation["spans"]]
    return copy  # type: ignore[return-value]


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth < _MAX_DEPTH and isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, depth + 1)
            yield from _strings(item, depth + 1)
    elif depth < _MAX_DEPTH and isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, depth + 1)


def _holds_a_secret(response: LLMResponse, texts: bytes | None) -> bool:
    """One scan over every text of the response (no secret's spelling holds a NUL).

    A quick scan of the response's strings as marshal wrote them (``texts``; written here when
    None) first tells almost every response that holds none.
    """
    if texts is None:
        texts = written(
            (
                response.content,
                response.model_version,
                response.search_entry_point,
                response.web_search_queries,
                response.parsed,
                response.metadata,
                response.citations,
                response.attributions,
            )
        )
    if not may_hold_strong_secret(texts):
        return False
    strings = [
        response.content,
        response.model_version or "",
        response.search_entry_point or "",
        *response.web_search_queries,
        *_strings(response.parsed),
        *_strings(response.metadata),  # at assembly its citations are the response's
        *(() if "citations" in response.metadata else _strings(list(response.citations))),
        *_strings(list(response.attributions)),
    ]
    return bool(strong_secret_spans("\0".join(strings)))


def redacted_response(response: LLMResponse, texts: bytes | None = None) -> LLMResponse:
    """``response`` with no strong secret left in any text it carries (itself when none is).

    ``texts``: bytes of :func:`router.text.written.written` that hold every string of the
    response (assembly has them already), so they need not be written again.
    """
    if not strong_secrets_registered() or not _holds_a_secret(response, texts):
        return response
    content, offsets = redact_content(response.content)
    citations = [redact_citation(citation, offsets) for citation in response.citations]
    metadata = redact_strings({k: v for k, v in response.metadata.items() if k != "citations"})
    if "citations" in response.metadata:
        metadata["citations"] = citations
    entry_point = response.search_entry_point
    update: dict[str, Any] = {
        "content": content,
        "parsed": redact_strings(response.parsed),
        "model_version": redact_strings(response.model_version),
        "web_search_queries": redact_strings(response.web_search_queries),
        "citations": list(citations),
        "search_entry_point": redact_strings(entry_point),
        "metadata": metadata,
        "attributions": [_with_offsets(dict(item), offsets) for item in response.attributions],
    }
    return response.model_copy(update=update)
