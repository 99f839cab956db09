"""Streaming with citations: the events, the accumulator, the stream call and SSE decoding.

``stream(request)`` / ``astream(request)`` (and ``Router.stream`` / ``Router.astream``) yield
the events of :mod:`router.streaming.events` as the provider sends them, and end with
``Completed(response)``, the response ``route()`` returns for the same reply::

    from router import stream, TextDelta, CitationDelta, Completed

    for event in stream({"vendor": "openai", "model": "gpt-5", "grounded": True,
                         "messages": [{"role": "user", "content": "Who won the 2022 World Cup?"}]}):
        if isinstance(event, TextDelta):
            print(event.text, end="", flush=True)
        elif isinstance(event, CitationDelta):
            ...  # event.citation["spans"] point into the text printed so far
        elif isinstance(event, Completed):
            response = event.response

How a stream behaves (DESIGN.md section 9):

- Retries (transient errors, under the router's retry policy) happen only before the first
  event reaches the caller; once text has been delivered, a failure is raised, never hidden
  by a second answer.
- A stream that ends before the provider's last event (a connection cut mid-way) raises
  ``ProviderTransientError(reason="stream_cut")`` saying how many characters, citations and
  chunks were delivered: never a silent short answer.
- REQUIRED grounding is checked when the stream ends, as ``route()`` checks it: instead of
  ``Completed`` the iterator raises ``GroundingRequiredFailedError`` (the text already
  delivered stays delivered; the error carries the response for forensics). A stream is not
  re-asked on a REQUIRED failure (``reask_on_required_failure`` applies to ``route()``).
- Grounded JSON on a provider that answers it in two steps (Vertex): step 1 streams as prose
  with its citations; step 2, the JSON reshape, arrives as one last ``TextDelta`` holding the
  JSON, then ``Completed`` (whose ``content`` is the JSON; the spans point into step 1's text,
  kept in ``metadata["step1"]["content"]``, as for ``route()``).

:class:`StreamAccumulator` folds events, or a provider's raw chunks, into that final state:
``text``, the latest ``citations`` per source, ``web_search_queries``, ``search_calls``, and
``result()``: the ``Completed`` response, or for raw chunks the same ``LLMResponse`` that
``extract()`` gives for them.

The package's modules, bottom up: :mod:`~router.streaming.events` (the events and the buffer
the adapters' stream readers emit through: it sits below the adapters, with the contract
modules), :mod:`~router.streaming.sse` (server-sent events read from text, for ``extract``),
:mod:`~router.streaming.accumulator` and :mod:`~router.streaming.call` (one streamed call, sync
and async), which sit above the adapters. The events are imported with the package; the
accumulator only when it is first asked for, so an adapter importing the events never loads the
registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from router.streaming.events import CitationDelta, Completed, SearchStarted, StreamEvent, TextDelta

if TYPE_CHECKING:
    from router.streaming.accumulator import StreamAccumulator

__all__ = [
    "CitationDelta",
    "Completed",
    "SearchStarted",
    "StreamAccumulator",
    "StreamEvent",
    "TextDelta",
]


def __getattr__(name: str) -> Any:
    # The accumulator reads raw chunks through the registry: loaded on first use only.
    if name == "StreamAccumulator":
        from router.streaming.accumulator import StreamAccumulator

        return StreamAccumulator
    raise AttributeError(f"module 'router.streaming' has no attribute {name!r}")
