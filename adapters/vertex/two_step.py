"""Grounded JSON on Vertex in two calls: search and answer, then reshape the answer into JSON.

Step 1 sends the conversation with the Google Search tool and no JSON settings, so the model
searches and answers in prose with full grounding metadata. Step 2 sends the conversation, step
1's answer as the model's turn and a user turn asking for that answer as JSON, with no tools and
``response_mime_type="application/json"`` (and ``response_json_schema`` when the request has a
schema), at temperature 0: it is a transformation, not a new answer.

The result is step 2's JSON (``content`` and ``parsed``) with step 1's grounding: citations,
search queries, the Search Suggestions HTML, ``grounded_effective``, tool calls and warnings.
Citation spans point into step 1's text, which is kept in ``metadata["step1"]["content"]``; the
JSON has no offsets a claim could be traced to. ``usage`` is the sum of both calls.

Why two calls: Gemini 2.x models on Vertex reject tools together with a JSON response MIME type,
and where the combination is accepted (Gemini 3), the supports of a JSON answer point into JSON
syntax rather than into prose claims. Requests without grounding get JSON in one call.
"""

from __future__ import annotations

from adapters.base import AdapterResult
from adapters.vertex.mapping import VertexReply
from adapters.vertex.results import json_answer, require_text, single_result, sum_usage

__all__ = [
    "RESHAPE_INSTRUCTION",
    "RESHAPE_TEMPERATURE",
    "reshape_prompt",
    "two_step_from_step1",
    "two_step_result",
]

RESHAPE_TEMPERATURE = 0.0
RESHAPE_INSTRUCTION = (
    "Rewrite your previous answer as JSON{schema_clause}. Use only facts stated in that answer; "
    "do not add, drop or change facts. Reply with the JSON only."
)


def reshape_prompt(*, has_schema: bool) -> str:
    """The user turn of step 2 (step 1's answer precedes it as the model's turn)."""
    clause = " that follows the given JSON schema" if has_schema else ""
    return RESHAPE_INSTRUCTION.format(schema_clause=clause)


def two_step_result(step1: VertexReply, step2: VertexReply) -> AdapterResult:
    """Step 2's JSON with step 1's grounding, as the module docstring describes."""
    require_text(step1, step="grounded (step 1)")
    return two_step_from_step1(single_result(step1, wants_json=False), step2)


def two_step_from_step1(step1: AdapterResult, step2: VertexReply) -> AdapterResult:
    """The two-step result from step 1's own result (a call's, or a stream's) and step 2."""
    content = require_text(step2, step="JSON reshape (step 2)")
    step1_metadata = {key: value for key, value in step1.metadata.items() if key != "two_step"}
    return AdapterResult(
        content=content,
        parsed=json_answer(content, step2.api),
        model_version=step2.model_version or step1.model_version,
        grounded_effective=step1.grounded_effective,
        tool_call_count=step1.tool_call_count,
        web_search_queries=list(step1.web_search_queries),
        citations=step1.citations,
        search_entry_point=step1.search_entry_point,
        usage=sum_usage(step1.usage, step2.usage),
        warnings=list(step1.warnings),
        metadata={
            **step1_metadata,
            "two_step": True,
            "response_id": step2.response_id,
            # The citations' spans are offsets into this text, not into the JSON ``content``.
            "step1": {
                "content": step1.content,
                "usage": step1.usage.model_dump(),
                "response_id": step1.metadata.get("response_id"),
            },
            "step2_finish_reason": step2.finish_reason,
        },
    )
