"""Request, response and citation types shared by the router, the adapters and ALS.

``LLMRequest`` accepts a model or a plain dict; whatever way it is built, bad input raises
``RequestValidationError`` with a message that names the field and what was wrong with it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Required, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails
from typing_extensions import TypedDict

from router.errors import RequestValidationError
from router.grounding.report import GroundingPolicy, GroundingReport
from router.schema import SCHEMA_VERSION, check_schema_version
from router.text.nesting import nesting_depth

__all__ = [
    "MAX_METADATA_DEPTH",
    "MAX_TIMEOUT_S",
    "Attribution",
    "Citation",
    "ContentPart",
    "Cost",
    "DocumentPart",
    "Fallback",
    "GroundingMode",
    "LLMRequest",
    "LLMResponse",
    "Location",
    "LocationType",
    "Message",
    "PdfSource",
    "Role",
    "SearchContextSize",
    "SearchRecency",
    "SearchUnit",
    "SourceType",
    "Span",
    "TextPart",
    "Usage",
    "UserLocation",
    "Vendor",
]

Vendor = Literal["openai", "vertex", "gemini", "perplexity", "openrouter", "anthropic"]
GroundingMode = Literal["AUTO", "REQUIRED"]
Role = Literal["system", "user", "assistant"]
SourceType = Literal["web", "doc", "news", "video", "unknown"]
LocationType = Literal[
    "char_location",
    "page_location",
    "content_block_location",
    "url_citation",
    "grounding_chunk",
    "search_result",
]
SearchUnit = Literal["call", "query", "grounded_prompt"]
# How much search context the provider feeds the model, and how recent its sources must be.
SearchContextSize = Literal["low", "medium", "high"]
SearchRecency = Literal["hour", "day", "week", "month", "year"]

VENDORS: tuple[Vendor, ...] = get_args(Vendor)

MAX_TIMEOUT_S = 86_400.0
"""The longest timeout a request or the settings may ask for: one day. Larger values (``1e308``,
``inf``) would overflow the SDKs' millisecond and event-loop arithmetic."""

MAX_METADATA_DEPTH = 32
"""How deep a request's ``metadata`` may nest: tags, not documents."""


class Span(TypedDict):
    """Character offsets ``[start, end)`` into ``LLMResponse.content`` and the text they cover."""

    start: int
    end: int
    text: str


class Location(TypedDict, total=False):
    """Where in its source a cited passage is, typed as the provider gives it.

    ``type`` says which of the provider's location kinds it is; the other keys are that kind's
    own indices, as the provider reports them (not converted): Anthropic's document locations
    (``char_location``: ``start_char_index`` / ``end_char_index``; ``page_location``:
    ``start_page_number`` / ``end_page_number``; ``content_block_location``:
    ``start_block_index`` / ``end_block_index``; each with ``document_index`` and
    ``document_title``), OpenAI's ``url_citation`` (``start_index`` / ``end_index`` in the
    answer part), Gemini's ``grounding_chunk`` (``chunk_index``), and a ``search_result``
    (``search_result_index``: the position among that search's results, and Anthropic's
    ``encrypted_index``; for Anthropic's ``search_result_location`` citations of search results
    given in the request, the provider's ``search_result_index`` and the block range
    ``start_block_index`` / ``end_block_index``). ``file_id`` names an uploaded file a document
    location points into, when the provider gives one.
    """

    type: Required[LocationType]
    document_index: int
    document_title: str | None
    start_char_index: int
    end_char_index: int
    start_page_number: int
    end_page_number: int
    start_block_index: int
    end_block_index: int
    start_index: int
    end_index: int
    chunk_index: int
    search_result_index: int
    encrypted_index: str
    file_id: str | None


class Citation(TypedDict):
    """The uniform citation: exactly these twelve keys, whatever the provider (DESIGN.md 3)."""

    provider: Vendor
    url: str | None
    source_domain: str
    title: str | None
    snippet: str | None
    source_type: SourceType
    rank: int | None
    raw: dict[str, Any]
    spans: list[Span]
    cited: bool
    cited_text: str | None
    location: Location | None


class Attribution(TypedDict):
    """One place where the answer cites a source (DESIGN.md section 10), in answer order.

    ``start``/``end``/``text`` are character offsets into ``LLMResponse.content`` and the text
    they cover, as in a span; ``citation`` is the index into ``LLMResponse.citations`` of the
    source cited; ``cited_text`` the passage quoted at this place and ``location`` where it is in
    the source (or None); ``confidence`` the provider's own score in [0, 1] where it gives one
    (Gemini's ``confidenceScores``), else None. Merging duplicate sources keeps every one.
    """

    start: int
    end: int
    text: str
    citation: int
    cited_text: str | None
    location: Location | None
    confidence: float | None


class _StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _not_blank_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or only whitespace")
    return value


class TextPart(_StrictModel):
    """A piece of a message's text."""

    type: Literal["text"] = "text"
    text: str

    _not_blank = field_validator("text")(_not_blank_text)


_BASE64 = re.compile(r"^[A-Za-z0-9+/\s]*={0,2}\s*$")


class PdfSource(_StrictModel):
    """A PDF document, base64-encoded (the providers' own form for an inline file)."""

    type: Literal["base64"] = "base64"
    media_type: Literal["application/pdf"] = "application/pdf"
    data: str = Field(min_length=1)

    @field_validator("data")
    @classmethod
    def _base64(cls, value: str) -> str:
        if not _BASE64.match(value):
            raise ValueError("must be the base64 text of the PDF file")
        return value


class DocumentPart(_StrictModel):
    """A document the model may quote and cite: plain text, a PDF, or a list of text chunks.

    ``title`` and ``context`` go to the provider with it (``context`` is not cited from). Only
    providers whose registry row says ``documents`` accept document parts; citations of a
    document have ``url: None`` and ``source_domain`` ``"document:<title>"`` (or
    ``"document:<n>"``, its 1-based position among the request's documents, when untitled).
    """

    type: Literal["document"] = "document"
    source: str | list[str] | PdfSource
    title: str | None = None
    context: str | None = None

    @field_validator("source")
    @classmethod
    def _has_text(cls, value: str | list[str] | PdfSource) -> str | list[str] | PdfSource:
        if isinstance(value, str):
            return _not_blank_text(value)
        if isinstance(value, list):
            if not value:
                raise ValueError("a list of text chunks needs at least one chunk")
            for chunk in value:
                _not_blank_text(chunk)
        return value


ContentPart = Annotated[TextPart | DocumentPart, Field(discriminator="type")]


class Message(_StrictModel):
    """One chat turn: text, or a list of parts (text and documents)."""

    role: Role
    content: str | list[ContentPart]

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str | list[ContentPart]) -> str | list[ContentPart]:
        if isinstance(value, str):
            return _not_blank_text(value)
        if not value:
            raise ValueError("needs at least one part")
        return value

    @property
    def text(self) -> str:
        """The message's text: the content itself, or its text parts joined by blank lines."""
        if isinstance(self.content, str):
            return self.content
        return "\n\n".join(part.text for part in self.content if isinstance(part, TextPart))

    @property
    def documents(self) -> list[DocumentPart]:
        """The document parts of this message, in order."""
        if isinstance(self.content, str):
            return []
        return [part for part in self.content if isinstance(part, DocumentPart)]


_ISO_COUNTRY = re.compile(r"^[A-Za-z]{2}$")


class UserLocation(_StrictModel):
    """Where the end user is; passed to the provider's search where it has a field for it."""

    country: str | None = None
    region: str | None = None
    city: str | None = None
    timezone: str | None = None

    @field_validator("country")
    @classmethod
    def _iso_country(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not _ISO_COUNTRY.match(value):
            raise ValueError(
                f"must be a two-letter ISO 3166-1 country code such as 'DE', not {value!r}"
            )
        return value.upper()


class Fallback(_StrictModel):
    """A vendor to try next when the call before it fails in a way another vendor may not.

    ``model`` None: ``GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>``, else the registry's default
    (:mod:`router.fallback`). A plain string is read as a vendor name.
    """

    vendor: Vendor
    model: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _vendor_name(cls, value: Any) -> Any:
        return {"vendor": value} if isinstance(value, str) else value

    @field_validator("vendor", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("model")
    @classmethod
    def _model_name(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None


class LLMRequest(_StrictModel):
    """What a pipeline asks for. ``json_schema`` implies ``json_mode``.

    ``allowed_domains`` / ``blocked_domains``, ``search_context_size`` and ``search_recency``
    shape the provider's search; a vendor whose registry row lacks one refuses it before any
    call (``router.capabilities.check_request``).
    """

    vendor: Vendor
    model: str
    messages: list[Message] = Field(min_length=1)
    grounded: bool = False
    grounding_mode: GroundingMode = "AUTO"
    json_mode: bool = False
    json_schema: dict[str, Any] | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_output_tokens: int | None = Field(default=None, gt=0)
    timeout_s: float | None = Field(default=None, gt=0.0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    request_id: str | None = Field(default=None, min_length=1)
    user_location: UserLocation | None = None
    allowed_domains: list[str] | None = None
    blocked_domains: list[str] | None = None
    search_context_size: SearchContextSize | None = None
    search_recency: SearchRecency | None = None
    # Checked on the answer after the call (router.grounding); None: the settings' default.
    grounding_policy: GroundingPolicy | None = None
    # Tried in order when this vendor fails as another may not (router.fallback).
    fallbacks: list[Fallback] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator(
        "vendor", "grounding_mode", "search_context_size", "search_recency", mode="before"
    )
    @classmethod
    def _case_insensitive(cls, value: Any, info: Any) -> Any:
        if isinstance(value, str):
            return value.upper() if info.field_name == "grounding_mode" else value.lower()
        return value

    @field_validator("model")
    @classmethod
    def _model_name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must name a model, such as 'gpt-5' or 'gemini-2.5-flash'")
        return value.strip()

    @field_validator("metadata")
    @classmethod
    def _json_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = _not_json(value)
        if problem is not None:
            raise ValueError(
                f"must be JSON (it is echoed in the response and batch rows): {problem}"
            )
        return value

    @field_validator("allowed_domains", "blocked_domains")
    @classmethod
    def _domains(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        cleaned = [domain.strip().lower() for domain in value]
        if not cleaned or any(not domain or any(c.isspace() for c in domain) for domain in cleaned):
            raise ValueError("must be a non-empty list of domains such as 'example.com'")
        return cleaned

    @field_validator("json_schema")
    @classmethod
    def _object_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        declared = value.get("type")
        if declared != "object" and not (declared is None and "properties" in value):
            raise ValueError(
                'must be a JSON Schema for an object (with "type": "object"), '
                f"got a schema of type {declared!r}"
            )
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _report_as_request_error(
        cls, data: Any, handler: ModelWrapValidatorHandler[LLMRequest]
    ) -> LLMRequest:
        if isinstance(data, Mapping) and type(data) is not dict:
            data = _plain_dict(data)
        request_id = data.get("request_id") if isinstance(data, Mapping) else None
        if data is not None and not isinstance(data, Mapping | LLMRequest):
            raise RequestValidationError(
                f"request: expected an object with vendor, model and messages, "
                f"got {type(data).__name__}",
                field="request",
            )
        if isinstance(data, Mapping) and data.get("json_schema") is not None:
            data = {**data, "json_mode": True}  # a schema implies JSON mode
        try:
            request = handler(data)
        except ValidationError as exc:
            raise _request_error(exc, request_id) from None
        return _check_consistency(request)

    @property
    def wants_json(self) -> bool:
        """True when the caller asked for a JSON answer (``json_mode`` or a schema)."""
        return self.json_mode or self.json_schema is not None

    @property
    def documents(self) -> list[DocumentPart]:
        """Every document part of the conversation, in order (their citations count from 1)."""
        return [document for message in self.messages for document in message.documents]

    @property
    def requires_grounding(self) -> bool:
        """True when REQUIRED grounding applies and must be post-validated."""
        return self.grounded and self.grounding_mode == "REQUIRED"


_JSON_SCALARS = (str, int, float, bool, type(None))


def _plain_dict(data: Mapping[Any, Any]) -> dict[Any, Any]:
    """A caller's own mapping read once into a dict; one whose methods raise is a request error."""
    try:
        return dict(data.items())
    except Exception as exc:
        raise RequestValidationError(
            f"request: the mapping given could not be read ({type(exc).__name__})",
            field="request",
        ) from exc


def _not_json(value: dict[str, Any]) -> str | None:
    """What keeps ``value`` from being written as JSON, or None when nothing does.

    JSON here means what the response's serialiser writes: objects with string keys, arrays,
    strings that UTF-8 can encode, finite numbers, booleans and null, at most
    ``MAX_METADATA_DEPTH`` levels deep. A caller-built mapping that fails to be read is not JSON.
    """
    try:
        if nesting_depth(value, stop_at=MAX_METADATA_DEPTH) > MAX_METADATA_DEPTH:
            return f"nested deeper than {MAX_METADATA_DEPTH} levels"
        pending: list[tuple[str, Any]] = [("metadata", value)]
        while pending:
            where, item = pending.pop()
            if isinstance(item, Mapping):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return f"{where} has a key that is not a string ({type(key).__name__})"
                    pending.append((f"{where}.{key}", child))
            elif isinstance(item, list | tuple):
                pending.extend((f"{where}[{index}]", child) for index, child in enumerate(item))
            elif not isinstance(item, _JSON_SCALARS):
                return f"{where} is a {type(item).__name__}"
            elif isinstance(item, float) and not math.isfinite(item):
                return f"{where} is {item!r}, which JSON cannot hold"
            elif isinstance(item, str) and _LONE_SURROGATE.search(item):
                return f"{where} holds a lone surrogate, which UTF-8 cannot encode"
    except Exception as exc:  # a caller's mapping whose methods raise
        return f"it could not be read ({type(exc).__name__})"
    return None


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _check_consistency(request: LLMRequest) -> LLMRequest:
    """Cross-field rules that single fields cannot express."""
    if request.grounding_mode == "REQUIRED" and not request.grounded:
        raise RequestValidationError(
            "grounding_mode: REQUIRED needs grounded=True (REQUIRED grounding of an ungrounded "
            "request can never pass); set grounded=True or use grounding_mode='AUTO'",
            field="grounding_mode",
            request_id=request.request_id,
        )
    if not any(message.role == "user" for message in request.messages):
        raise RequestValidationError(
            "messages: needs at least one message with role 'user'",
            field="messages",
            request_id=request.request_id,
        )
    return request


def _request_error(exc: ValidationError, request_id: Any) -> RequestValidationError:
    errors = exc.errors(include_url=False)
    parts = [_describe(error) for error in errors]
    first_field = _location(errors[0]) if errors else None
    return RequestValidationError(
        "; ".join(parts),
        field=first_field,
        request_id=request_id if isinstance(request_id, str) else None,
    )


def _location(error: ErrorDetails) -> str:
    return ".".join(str(part) for part in error["loc"]) or "request"


def _describe(error: ErrorDetails) -> str:
    where = _location(error)
    kind = error["type"]
    if kind == "missing":
        return f"{where}: is required"
    if kind == "extra_forbidden":
        return f"{where}: unknown field"
    if where == "vendor" and kind == "literal_error":
        choices = ", ".join(repr(v) for v in VENDORS)
        return f"vendor: unknown vendor {error['input']!r}; expected one of {choices}"
    message = error["msg"].removeprefix("Value error, ")
    if kind == "value_error":  # our own validators already say what they got
        return f"{where}: {message}"
    shown = repr(error["input"])
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{where}: {message} (got {shown})"


class Cost(BaseModel):
    """What one response cost, estimated from the price table (or as the provider reported it).

    ``tokens`` prices the input, cached input and output tokens the reply reports; ``searches``
    the search fees (``search_units`` of ``search_unit``: per search call, per search query or
    per grounded prompt, as the vendor bills them); ``total`` is their sum. ``estimated`` is
    True for figures computed from the price table, False for a cost the provider reported
    itself. ``priced_as`` names the price table entry used and ``prices_as_of`` its date.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens: float
    searches: float
    total: float
    currency: str = "USD"
    estimated: bool = True
    search_unit: SearchUnit | None = None
    search_units: int = 0
    priced_as: str | None = None
    prices_as_of: str | None = None


class Usage(BaseModel):
    """What the provider metered for the call, as its reply reports it (None when it did not).

    ``input_tokens`` counts every input token, ``cached_input_tokens`` of them read from the
    provider's prompt cache; ``output_tokens`` counts every output token, ``reasoning_tokens``
    of them spent thinking. ``search_tool`` names the provider's search tool that ran when its
    fee depends on it (OpenAI ``web_search`` or ``web_search_preview``). ``reported_cost`` is a
    total cost the provider states in its reply (Perplexity's ``usage.cost.total_cost``) and
    ``reported_search_cost`` the part of it for searches, in the currency of the vendor's price
    table. ``cost`` is the router's figure for the call (None when its model has no price).
    """

    model_config = ConfigDict(extra="forbid")

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    search_tool: str | None = None
    reported_cost: float | None = None
    reported_search_cost: float | None = None
    cost: Cost | None = None


class LLMResponse(BaseModel):
    """The router's answer: text (or JSON), uniform citations, and grounding evidence.

    ``metadata`` always holds ``citations`` and ``grounded_effective`` (the same values as the
    fields), ``two_step``, ``tool_call_count`` and the extraction ``warnings``.
    ``attributions`` lists each place the answer cites a source; ``grounding`` is the claim-level
    report (:func:`router.verify`) whenever a grounding policy applied or verification was asked
    for, else None. ``schema_version`` is the version of this shape (:mod:`router.schema`): a
    dump carries it, and validating a dump written by a newer major version is refused.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    request_id: str | None = None
    vendor: Vendor
    model: str
    model_version: str | None = None
    content: str
    parsed: Any = None
    grounded_effective: bool = False
    tool_call_count: int = 0
    web_search_queries: list[str] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    search_entry_point: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    attempts: int = 1
    metadata: dict[str, Any] = Field(default_factory=dict)
    attributions: list[Attribution] = Field(default_factory=list)
    grounding: GroundingReport | None = None

    @field_validator("schema_version", mode="before")
    @classmethod
    def _readable_version(cls, value: Any) -> Any:
        """A dump from a newer major version is refused, saying so; older ones read as today's."""
        check_schema_version({"schema_version": value}, "the response")
        return SCHEMA_VERSION

    @classmethod
    def assembled(cls, values: dict[str, Any]) -> LLMResponse:
        """``model_construct(**values)`` for a response the router assembled itself from values
        of the fields' types, where ``values`` names every field but ``schema_version`` and
        ``grounding``: the same instance (fields, their order, ``model_fields_set``), without
        model_construct's look-up of aliases and defaults per field, a tenth of a route() call's
        own work. Anything else goes through ``model_construct``.
        """
        if values.keys() != _ASSEMBLED_FIELDS:
            return cls.model_construct(**values)
        response = cls.__new__(cls)
        fields: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
        for name in _ASSEMBLED_ORDER:
            fields[name] = values[name]
        fields["grounding"] = None
        _set = object.__setattr__
        _set(response, "__dict__", fields)
        _set(response, "__pydantic_fields_set__", set(values))
        _set(response, "__pydantic_extra__", None)
        _set(response, "__pydantic_private__", None)
        return response


_ASSEMBLED_ORDER = tuple(
    name for name in LLMResponse.model_fields if name not in ("schema_version", "grounding")
)
_ASSEMBLED_FIELDS = frozenset(_ASSEMBLED_ORDER)
