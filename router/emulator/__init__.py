"""A loopback emulator of the providers' APIs: the OpenAI Responses API, ``generateContent`` of
Vertex AI and the Gemini API, Perplexity's and OpenRouter's chat completions, and the Anthropic
Messages API.

It speaks their wire protocols on 127.0.0.1 so the real ``openai``, ``google-genai`` and
``anthropic`` clients run end to end without keys or network::

    with Emulator(latency_s=0.05) as emulator:
        client = openai.OpenAI(base_url=emulator.base_url("openai"), api_key="test")
        genai.Client(vertexai=True, project="p", location="us-central1",
                     credentials=google.oauth2.credentials.Credentials(token="test"),
                     http_options=types.HttpOptions(base_url=emulator.base_url("vertex")))
        anthropic.Anthropic(base_url=emulator.base_url("anthropic"), api_key="test")

Endpoints: ``POST /v1/responses`` (JSON, or SSE when ``stream`` is true);
``POST /v1beta1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`` and
``:streamGenerateContent`` (``?alt=sse`` for SSE), and the Gemini API's
``POST /v1beta/models/{m}:generateContent`` (or ``/v1/models/...``) and its stream;
``POST /chat/completions`` (Perplexity) and ``POST /api/v1/chat/completions`` (OpenRouter),
JSON or SSE; and ``POST /v1/messages`` (JSON, or SSE when ``stream`` is true). Answers come
from a small scenario catalogue, or a deterministic fallback for any other text (same text, same
answer), and carry the quirks of the real services (see the modules under ``apis``, one per
API, each exporting the row the server loops over). With ``replay=DIR``
recorded bodies are served verbatim instead; :meth:`Emulator.enqueue_reply` serves one given
body to the next request on an API. ``latency_s`` runs from a request's arrival to its reply
and includes the synthesis, as a real service's latency includes its compute.

Faults
------
A request's fault is taken, first match wins, from:

1. the ``X-Emulator-Fault: SPEC`` header (``extra_headers`` / ``HttpOptions(headers=...)``);
2. a ``[[emulator:fault=SPEC]]`` directive anywhere in the last user message (so a batch
   input file carries its own faults through the router; directives never reach the answer);
3. the emulator's :class:`FaultPlan`: ``FaultPlan.always(SPEC)``, or
   ``FaultPlan.mix({SPEC: rate, ...}, seed=0)``, which hashes each request's text with the
   seed to pick at most one spec, so a batch always gets the same mix.

A spec is ``KIND[:ARG][*COUNT][@API]``:

===================  ==========================================================  ===========
KIND                 what the client sees                                        ARG
===================  ==========================================================  ===========
``429``              rate limit, provider error body, ``Retry-After``             seconds (1)
``500``, ``503``     server error, provider error body                            503: Retry-After
``529``              overloaded (Anthropic's ``overloaded_error``)               Retry-After
``400``, ``401``     invalid request, authentication error                        --
``delay``            a normal answer after a pause                                seconds (1)
``hang``             no answer until the client gives up (or the emulator stops)  seconds (cap)
``drop``             the connection closes without a response                     --
``truncate``         HTTP 200 with the body (or stream) cut mid-JSON              --
``non_json``         HTTP 200 with text where JSON (or JSON events) belongs       --
``html``             a proxy's HTML error page                                    502 or 503
``no_search``        a normal answer without any search or grounding              --
``no_citations``     searched (queries present) but nothing cited                 --
``empty_grounding``  Vertex ``groundingMetadata: {}``; OpenAI as ``no_search``    --
``trickle_headers``  the status line, then header bytes one per 50 ms, then the   seconds (60)
                     answer: every read is quick, the whole reply is not
``trickle_body``     headers, then body bytes (JSON whitespace) one per 50 ms     seconds (60)
``trickle_chunks``   chunked framing written a byte per 50 ms                     seconds (60)
``continue_flood``   ``100 Continue`` every 50 ms, then the answer                seconds (60)
===================  ==========================================================  ===========

``*COUNT`` limits the fault to the first COUNT attempts of an identical request (same path
and body); the next attempt succeeds. That is how retried transient faults are tested:
``429:2*1`` fails once with ``Retry-After: 2``, then answers. Without ``*COUNT`` every attempt
gets the fault. ``@API`` (``openai``, ``vertex``, ...) limits the fault to requests on that
API, wherever the spec comes from: a prompt sent to several providers at once may carry
``[[emulator:fault=500@vertex]] [[emulator:fault=no_search@openai]]``, and each request takes
the first directive that applies to it. In a rate list (``--fault 429*1=0.1,500=0.05``) each
key is a spec.
Content faults (no_search, no_citations, empty_grounding) shape synthesised answers only.

Refusals
--------
``[[emulator:refuse=tool_choice]]`` and ``[[emulator:refuse=web_search]]`` (or both,
``refuse=tool_choice,web_search``) in the last user message make the OpenAI endpoint answer
400 as a model or deployment does that rejects a forced hosted tool, or the ``web_search``
tool: only while the request carries it, so a request without ``tool_choice``, or with
``web_search_preview``, is answered. The messages are OpenAI's shape: the first names
``tool_choice``, the second says the model does not support ``web_search``.
"""

from __future__ import annotations

from router.emulator.apis.vertex import REDIRECT_PREFIX
from router.emulator.catalogue import SCENARIOS, Answer, answer_for
from router.emulator.faults import (
    FAULT_HEADER,
    FAULT_KINDS,
    FaultKind,
    FaultPlan,
    FaultSpec,
    FaultSpecError,
)
from router.emulator.replay import REPLAY_HEADER
from router.emulator.request_log import RecordedRequest
from router.emulator.server import Emulator

__all__ = [
    "FAULT_HEADER",
    "FAULT_KINDS",
    "REDIRECT_PREFIX",
    "REPLAY_HEADER",
    "SCENARIOS",
    "Answer",
    "Emulator",
    "FaultKind",
    "FaultPlan",
    "FaultSpec",
    "FaultSpecError",
    "RecordedRequest",
    "answer_for",
]
