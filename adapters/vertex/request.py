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

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

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
) -> list[dict[str, Any]]:
    """The conversation for ``step``; the reshape step adds ``answer`` and the JSON request.

    Plain dicts in the REST form: google-genai validates them into its ``Content`` models once,
    where typed ``Content`` objects sent its request converters through about 200 pydantic
    ``__getattr__`` fallbacks per call (tests/adapters/vertex/test_sdk_call.py counts them).
    """
    contents = [
        _turn("model" if message.role == "assistant" else "user", message.text)
        for message in request.messages
        if message.role != "system"
    ]
    if step.name == "reshape":
        contents.append(_turn("model", answer or ""))
        contents.append(_turn("user", reshape_prompt(has_schema=request.json_schema is not None)))
    return contents


def _turn(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def _google_search(blocked_domains: tuple[str, ...] | None) -> types.Tool:
    """The Google Search tool; blocked domains go to ``exclude_domains`` (Vertex only)."""
    from google.genai import types

    excluded = list(blocked_domains) if blocked_domains is not None else None
    return types.Tool(google_search=types.GoogleSearch(exclude_domains=excluded))


def build_config(
    request: LLMRequest, step: Step, timeout_ms: int | None = None, *, streaming: bool = False
) -> types.GenerateContentConfig:
    """The call's settings: tools, JSON output, sampling, one request, and a timeout of its own.

    ``timeout_ms``: for a call whose timeout is not its client's (the request sets its own);
    None leaves the client's. A config's ``http_options`` cost each call about a fifth of the
    SDK's CPU (google-genai merges them into a deep copy of the client's options per call).

    ``streaming``: for ``generate_content_stream``, which refuses to hand back the raw body.
    Calls that need the same config share one (see ``_shared_config``); the SDK copies a
    config before it changes anything in it.
    """
    shape = _ConfigShape(
        system=_system_instruction(request, step),
        temperature=RESHAPE_TEMPERATURE if step.name == "reshape" else request.temperature,
        max_output_tokens=request.max_output_tokens,
        blocked_domains=(
            tuple(request.blocked_domains) if request.blocked_domains is not None else None
        ),
        step=step,
        timeout_ms=timeout_ms,
        streaming=streaming,
    )
    schema = request.json_schema if step.json_output else None
    schema_json = None if schema is None else json.dumps(schema, ensure_ascii=False)
    if _too_long(shape.system) or _too_long(schema_json):
        return _new_config(shape, schema)
    return _shared_config(shape, schema_json)


class _ConfigShape(NamedTuple):
    """What a call's config depends on, besides a JSON schema."""

    system: str | None
    temperature: float | None
    max_output_tokens: int | None
    blocked_domains: tuple[str, ...] | None
    step: Step
    timeout_ms: int | None
    streaming: bool


def _new_config(shape: _ConfigShape, schema: dict[str, Any] | None) -> types.GenerateContentConfig:
    from google.genai import types

    step = shape.step
    return types.GenerateContentConfig(
        system_instruction=shape.system,
        temperature=shape.temperature,
        max_output_tokens=shape.max_output_tokens,
        tools=[_google_search(shape.blocked_domains)] if step.search else None,
        response_mime_type="application/json" if step.json_output else None,
        response_json_schema=schema,
        # One call is one request: no follow-ups for CONTINUATION finishes.
        automatic_continuation=False,
        # No function is declared, so no automatic function calling; saying so spares each call
        # the SDK's deep copy of the config (its AFC loop copies it before every request).
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        # Hand back the reply's JSON body: the mappers read the REST form, and letting the SDK
        # build its response model only to dump it again cost about a sixth of each call's CPU.
        should_return_http_response=None if shape.streaming else True,
        http_options=(
            types.HttpOptions(timeout=shape.timeout_ms) if shape.timeout_ms is not None else None
        ),
    )


# Building the SDK's config models cost about as much as mapping a reply's citations, and
# nearly every call of a process asks for one of a few configs: those are shared, a JSON schema
# keyed by its JSON text (the config is built from a copy of that text, so a caller changing
# its schema dict later changes no shared config). A config with a long system instruction or
# schema is built afresh for its call, so the cache's memory stays small.
_SHARED_CHARS = 4_096


def _too_long(text: str | None) -> bool:
    return text is not None and len(text) > _SHARED_CHARS


@lru_cache(maxsize=256)
def _shared_config(shape: _ConfigShape, schema_json: str | None) -> types.GenerateContentConfig:
    return _new_config(shape, None if schema_json is None else json.loads(schema_json))
