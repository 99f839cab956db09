"""What the adapter sends to Vertex: the calls a request needs, their contents and config.

System messages become ``system_instruction``; user and assistant messages become ``contents``
with the roles ``user`` and ``model``. A grounded call carries the Google Search tool. Gemini
has no way to force the search (``FunctionCallingConfig`` applies only to declared functions),
so REQUIRED grounding is enforced by the router's post-validation alone.

``user_location`` is prompt-only on Vertex: Google Search grounding has no field for a country
or city (only Google Maps grounding takes coordinates), so a grounded call gets one sentence
in its system instruction, such as "The user is located in: Berlin, BE, DE."

``blocked_domains`` become ``GoogleSearch.exclude_domains``, Vertex's one domain filter (there
is no allowed list; the router refuses ``allowed_domains`` for Vertex before any call).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from adapters.two_step import RESHAPE_TEMPERATURE, reshape_prompt
from router.types import LLMRequest, UserLocation

if TYPE_CHECKING:
    from google.genai import types

__all__ = ["Step", "build_config", "build_contents", "location_sentence", "plan_steps"]

StepName = Literal["answer", "grounded_text", "reshape"]


@dataclass(frozen=True, slots=True)
class Step:
    """One generateContent call: whether it searches and whether it answers in JSON."""

    name: StepName
    search: bool
    json_output: bool


def plan_steps(request: LLMRequest) -> tuple[Step, ...]:
    """Grounded + JSON takes two calls (see ``two_step``); everything else one."""
    if request.grounded and request.wants_json:
        return (
            Step("grounded_text", search=True, json_output=False),
            Step("reshape", search=False, json_output=True),
        )
    return (Step("answer", search=request.grounded, json_output=request.wants_json),)


def location_sentence(location: UserLocation | None) -> str | None:
    """The sentence that tells the model where the user is, or None when nothing is known."""
    if location is None:
        return None
    place = ", ".join(part for part in (location.city, location.region, location.country) if part)
    zone = f"time zone {location.timezone}" if location.timezone else ""
    if place and zone:
        return f"The user is located in: {place} ({zone})."
    if place or zone:
        return f"The user is located in: {place or zone}."
    return None


def _system_instruction(request: LLMRequest, step: Step) -> str | None:
    parts = [message.text for message in request.messages if message.role == "system"]
    if step.search:
        sentence = location_sentence(request.user_location)
        if sentence is not None:
            parts.append(sentence)
    return "\n\n".join(parts) or None


def build_contents(
    request: LLMRequest, step: Step, answer: str | None = None
) -> list[types.Content]:
    """The conversation for ``step``; the reshape step adds ``answer`` and the JSON request."""
    from google.genai import types

    contents = [
        types.Content(
            role="model" if message.role == "assistant" else "user",
            parts=[types.Part(text=message.text)],
        )
        for message in request.messages
        if message.role != "system"
    ]
    if step.name == "reshape":
        contents.append(types.Content(role="model", parts=[types.Part(text=answer or "")]))
        prompt = reshape_prompt(has_schema=request.json_schema is not None)
        contents.append(types.Content(role="user", parts=[types.Part(text=prompt)]))
    return contents


def _google_search(request: LLMRequest) -> types.Tool:
    """The Google Search tool; blocked domains go to ``exclude_domains`` (Vertex only)."""
    from google.genai import types

    excluded = list(request.blocked_domains) if request.blocked_domains is not None else None
    return types.Tool(google_search=types.GoogleSearch(exclude_domains=excluded))


def build_config(
    request: LLMRequest, step: Step, timeout_ms: int, *, streaming: bool = False
) -> types.GenerateContentConfig:
    """The call's settings: tools, JSON output, sampling, a per-call timeout, one request.

    ``streaming``: for ``generate_content_stream``, which refuses to hand back the raw body.
    """
    from google.genai import types

    temperature = RESHAPE_TEMPERATURE if step.name == "reshape" else request.temperature
    return types.GenerateContentConfig(
        system_instruction=_system_instruction(request, step),
        temperature=temperature,
        max_output_tokens=request.max_output_tokens,
        tools=[_google_search(request)] if step.search else None,
        response_mime_type="application/json" if step.json_output else None,
        response_json_schema=request.json_schema if step.json_output else None,
        # One call is one request: no follow-ups for CONTINUATION finishes.
        automatic_continuation=False,
        # Hand back the reply's JSON body: the mappers read the REST form, and letting the SDK
        # build its response model only to dump it again cost about a sixth of each call's CPU.
        should_return_http_response=None if streaming else True,
        http_options=types.HttpOptions(timeout=timeout_ms),
    )
