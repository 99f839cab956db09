"""Grounded JSON on Vertex in two calls (the provider-independent pattern: ``adapters.two_step``).

Step 1 sends the conversation with the Google Search tool and no JSON settings; step 2 sends
the conversation, step 1's answer as the model's turn and the reshape request, with no tools and
``response_mime_type="application/json"`` (and ``response_json_schema`` when the request has a
schema). Why two calls on Vertex: Gemini 2.x models reject tools together with a JSON response
MIME type, and where the combination is accepted (Gemini 3), the supports of a JSON answer point
into JSON syntax rather than into prose claims. Requests without grounding get JSON in one call.
"""

from __future__ import annotations

from adapters import two_step
from adapters.base import AdapterResult
from adapters.two_step import RESHAPE_INSTRUCTION, RESHAPE_TEMPERATURE, reshape_prompt
from adapters.vertex.citations import VertexReply
from adapters.vertex.reply import json_answer, require_text, single_result

__all__ = [
    "RESHAPE_INSTRUCTION",
    "RESHAPE_TEMPERATURE",
    "reshape_prompt",
    "two_step_from_step1",
    "two_step_result",
]


def two_step_result(step1: VertexReply, step2: VertexReply) -> AdapterResult:
    """Step 2's JSON with step 1's grounding (see :func:`adapters.two_step.two_step_result`)."""
    require_text(step1, step="grounded (step 1)")
    return two_step_from_step1(single_result(step1, wants_json=False), step2)


def two_step_from_step1(step1: AdapterResult, step2: VertexReply) -> AdapterResult:
    """The two-step result from step 1's own result (a call's, or a stream's) and step 2."""
    content = require_text(step2, step="JSON reshape (step 2)")
    reshaped = AdapterResult(
        content=content,
        parsed=json_answer(content, step2.api),
        model_version=step2.model_version,
        usage=step2.usage,
        metadata={"response_id": step2.response_id},
    )
    result = two_step.two_step_result(step1, reshaped)
    result.metadata["step2_finish_reason"] = step2.finish_reason
    return result
