"""Grounded JSON in two calls, for any provider: search and answer, then reshape into JSON.

Some providers cannot search (or cite) and answer in JSON in one call: Gemini 2.x on Vertex
rejects tools together with a JSON response MIME type, and Anthropic's structured outputs are
refused together with citations, which its web search and documents always produce. Where the
combination is accepted, citations of a JSON answer point into JSON syntax rather than into
prose claims. So such a request takes two calls:

1. the conversation with the search tool (and documents) and no JSON settings: the model
   searches and answers in prose, with full grounding evidence;
2. the conversation, step 1's answer as the model's turn and a user turn asking for that answer
   as JSON (:func:`reshape_prompt`), with no tools, at temperature 0 (a transformation, not a
   new answer), in the provider's JSON mode (the schema when the request has one).

The result (:func:`two_step_result`) is step 2's JSON (``content`` and ``parsed``) with step
1's grounding: citations, search queries, the search entry point, ``grounded_effective``, tool
calls and warnings. Citation spans point into step 1's text, kept in
``metadata["step1"]["content"]``. ``usage`` is the sum of both calls. When REQUIRED grounding
already failed in step 1 the reshape is skipped (:func:`reshape_is_pointless`,
:func:`step2_skipped`): the router will reject the answer whatever step 2 says.
"""

from __future__ import annotations

from adapters.base import AdapterResult
from router.types import LLMRequest, Usage

__all__ = [
    "RESHAPE_INSTRUCTION",
    "RESHAPE_TEMPERATURE",
    "STEP2_SKIPPED",
    "reshape_is_pointless",
    "reshape_prompt",
    "step2_skipped",
    "sum_usage",
    "two_step_result",
]

RESHAPE_TEMPERATURE = 0.0
STEP2_SKIPPED = "required grounding failed in step 1"
RESHAPE_INSTRUCTION = (
    "Rewrite your previous answer as JSON{schema_clause}. Use only facts stated in that answer; "
    "do not add, drop or change facts. Reply with the JSON only."
)


def reshape_prompt(*, has_schema: bool) -> str:
    """The user turn of step 2 (step 1's answer precedes it as the model's turn)."""
    clause = " that follows the given JSON schema" if has_schema else ""
    return RESHAPE_INSTRUCTION.format(schema_clause=clause)


_COUNTS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cached_input_tokens",
    "reasoning_tokens",
)


def sum_usage(first: Usage, second: Usage) -> Usage:
    """Token counts of two calls added up (a count neither call reported stays None)."""

    def add(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return Usage.model_validate(
        {name: add(getattr(first, name), getattr(second, name)) for name in _COUNTS}
    )


def reshape_is_pointless(request: LLMRequest, *, grounded_effective: bool, cited: bool) -> bool:
    """REQUIRED grounding already failed in step 1 (no search, or no citation): no reshape can
    make the answer pass."""
    return request.requires_grounding and not (grounded_effective and cited)


def two_step_result(step1: AdapterResult, step2: AdapterResult) -> AdapterResult:
    """Step 2's JSON with step 1's grounding, as the module docstring describes.

    ``step1`` is the prose answer's result, ``step2`` the reshape's (with ``parsed`` set).
    """
    step1_metadata = {key: value for key, value in step1.metadata.items() if key != "two_step"}
    return AdapterResult(
        content=step2.content,
        parsed=step2.parsed,
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
            # The citations' spans and the attributions are offsets into this text, not into
            # the JSON ``content``: the response's own attributions stay empty.
            "step1": {
                "content": step1.content,
                "attributions": step1.attributions,
                "usage": step1.usage.model_dump(),
                "response_id": step1.metadata.get("response_id"),
            },
            # The reply that gave the JSON is the response; step 1's id is kept beside it.
            "response_id": step2.metadata.get("response_id"),
        },
    )


def step2_skipped(step1: AdapterResult) -> AdapterResult:
    """Step 1's prose when the reshape was skipped, so REQUIRED post-validation can reject it
    with the grounding evidence intact, without paying for a reshape nobody can use."""
    step1.metadata.update(two_step=True, step2_skipped=STEP2_SKIPPED)
    return step1
