"""What the adapter sends to the Messages API: the calls a request needs and their parameters.

System messages become ``system``; user and assistant messages become ``messages`` (text, or a
list of blocks when a message has parts). Document parts become ``document`` blocks with
citations enabled: plain text (``source.type: "text"``), a base64 PDF, or a list of text chunks
(``source.type: "content"``, each chunk a citable block), with their ``title`` and ``context``.

A grounded call carries the web search server tool, in its newest version that the SDK's types
name (:data:`WEB_SEARCH_TOOL_TYPE`), with ``max_uses`` from the settings, the caller's approximate
``user_location`` (only the fields given) and the request's ``allowed_domains`` or
``blocked_domains`` (the API refuses both together, and so does the adapter, before any call).
REQUIRED grounding does not force the tool (``tool_choice`` is left alone): the router's
post-validation enforces it, as for every provider.

JSON: a schema goes to ``output_config.format`` (structured outputs); JSON mode without a schema
asks for a JSON object in the system prompt. Structured outputs are refused together with
citations, which web search and documents always produce, so a grounded (or document) request
that wants JSON takes two calls (:mod:`adapters.two_step`): prose with the tool and the
documents, then the reshape with neither.

``temperature`` is not sent: ``messages.create`` of the ``anthropic`` SDK (2.x) has no sampling
parameters, the current models choose their own. The reshape step cannot ask for temperature 0
either; its prompt alone keeps it a transformation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from adapters.two_step import reshape_prompt
from router.errors import RequestValidationError
from router.types import DocumentPart, LLMRequest, Message, PdfSource, UserLocation

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "JSON_OBJECT_INSTRUCTION",
    "WEB_SEARCH_TOOL_NAME",
    "WEB_SEARCH_TOOL_TYPE",
    "Step",
    "build_message_params",
    "plan_steps",
]

WEB_SEARCH_TOOL_TYPE = "web_search_20260318"
"""The newest web search tool version of the ``anthropic`` SDK's ``ToolUnionParam`` (a test
keeps this in step with the installed SDK)."""
WEB_SEARCH_TOOL_NAME = "web_search"
# The API needs max_tokens on every call; this is what the router asks for when the request
# does not say (enough for a cited answer of a few pages).
DEFAULT_MAX_TOKENS = 4096
JSON_OBJECT_INSTRUCTION = "Reply with a single JSON object and nothing else."

StepName = Literal["answer", "grounded_text", "reshape"]


@dataclass(frozen=True, slots=True)
class Step:
    """One Messages call: whether it searches (and sends documents) and answers in JSON."""

    name: StepName
    search: bool
    documents: bool
    json_output: bool


def plan_steps(request: LLMRequest) -> tuple[Step, ...]:
    """Citations and JSON do not mix: grounded or document requests wanting JSON take two."""
    has_documents = bool(request.documents)
    if request.wants_json and (request.grounded or has_documents):
        return (
            Step(
                "grounded_text", search=request.grounded, documents=has_documents, json_output=False
            ),
            Step("reshape", search=False, documents=False, json_output=True),
        )
    return (
        Step(
            "answer",
            search=request.grounded,
            documents=has_documents,
            json_output=request.wants_json,
        ),
    )


def build_message_params(
    request: LLMRequest, step: Step, *, max_uses: int | None, answer: str | None = None
) -> dict[str, Any]:
    """``messages.create`` keyword arguments for ``step`` (no timeout, no client options).

    ``answer`` is step 1's text, which the reshape step sends back before asking for JSON.
    """
    system = [message.text for message in request.messages if message.role == "system"]
    messages = [
        {"role": message.role, "content": _content(message, documents=step.documents)}
        for message in request.messages
        if message.role != "system"
    ]
    if step.name == "reshape":
        messages.append({"role": "assistant", "content": answer or ""})
        prompt = reshape_prompt(has_schema=request.json_schema is not None)
        messages.append({"role": "user", "content": prompt})
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_output_tokens or DEFAULT_MAX_TOKENS,
        "messages": messages,
    }
    if step.json_output:
        if request.json_schema is not None:
            params["output_config"] = {
                "format": {"type": "json_schema", "schema": request.json_schema}
            }
        elif not any("json" in text.lower() for text in system):
            system.append(JSON_OBJECT_INSTRUCTION)
    if system:
        params["system"] = "\n\n".join(system)
    if step.search:
        params["tools"] = [web_search_tool(request, max_uses=max_uses)]
    return params


def web_search_tool(request: LLMRequest, *, max_uses: int | None) -> dict[str, Any]:
    """The web search server tool of a grounded call."""
    if request.allowed_domains is not None and request.blocked_domains is not None:
        raise RequestValidationError(
            "allowed_domains: Anthropic's web search takes allowed_domains or blocked_domains, "
            "not both in one request",
            field="allowed_domains",
            request_id=request.request_id,
        )
    tool: dict[str, Any] = {"type": WEB_SEARCH_TOOL_TYPE, "name": WEB_SEARCH_TOOL_NAME}
    if max_uses is not None:
        tool["max_uses"] = max_uses
    location = _user_location(request.user_location)
    if location is not None:
        tool["user_location"] = location
    if request.allowed_domains is not None:
        tool["allowed_domains"] = list(request.allowed_domains)
    if request.blocked_domains is not None:
        tool["blocked_domains"] = list(request.blocked_domains)
    return tool


def _user_location(location: UserLocation | None) -> dict[str, Any] | None:
    if location is None:
        return None
    given = {
        key: value
        for key, value in location.model_dump().items()
        if key in ("city", "region", "country", "timezone") and value
    }
    return {"type": "approximate", **given} if given else None


def _content(message: Message, *, documents: bool) -> str | list[dict[str, Any]]:
    """A message's content: its text, or its blocks (documents only where the step sends them)."""
    if isinstance(message.content, str):
        return message.content
    if not documents:
        return message.text
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, DocumentPart):
            blocks.append(document_block(part))
        else:
            blocks.append({"type": "text", "text": part.text})
    return blocks


def document_block(part: DocumentPart) -> dict[str, Any]:
    """A ``document`` block with citations enabled."""
    source = part.source
    if isinstance(source, PdfSource):
        wire_source: dict[str, Any] = {
            "type": "base64",
            "media_type": source.media_type,
            "data": "".join(source.data.split()),
        }
    elif isinstance(source, list):
        wire_source = {
            "type": "content",
            "content": [{"type": "text", "text": chunk} for chunk in source],
        }
    else:
        wire_source = {"type": "text", "media_type": "text/plain", "data": source}
    block: dict[str, Any] = {
        "type": "document",
        "source": wire_source,
        "citations": {"enabled": True},
    }
    if part.title is not None:
        block["title"] = part.title
    if part.context is not None:
        block["context"] = part.context
    return block
