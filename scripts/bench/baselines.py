"""The raw ways of calling each vendor that the benches read the router against.

For every vendor of the registry, the same request body the adapter sends (built by the
provider package's own request builder), with the emulator's credentials, several ways, sync
and async:

- ``default``: the SDK exactly as its README shows it: the default client, the typed
  response. openai: ``client.responses.create(...)``; Perplexity and OpenRouter (the openai SDK
  at their base URLs): ``client.chat.completions.create(...)``, the provider's own fields in
  ``extra_body`` as their documentation shows; google-genai: ``genai.Client(vertexai=True,
  ...)`` (Vertex AI) or ``genai.Client(api_key=...)`` (Gemini API, the API version the adapter
  pins) and ``client.models.generate_content(...)`` with the prompt as a string; anthropic:
  ``client.messages.create(...)``;
- ``raw response`` (and for the openai and anthropic SDKs ``generic post``): the fast ways to
  drive the same SDK: one client reused, async on the SDK's aiohttp transport, and the untyped
  body as a dict instead of the typed response. For the openai and anthropic SDKs:
  ``with_raw_response.create`` with the JSON of its ``http_response``, and the generic
  ``client.post`` their READMEs document for any endpoint, with ``cast_to=object`` (what the
  adapters send through). For google-genai: ``should_return_http_response`` and
  ``json.loads`` of the body, async on an aiohttp session of the caller's that does not look
  the proxy variables up again on every request. The benches read the router against the
  cheapest SDK way of each run, the default included ("fastest raw SDK");
- ``floor``: no SDK at all, the same body POSTed and its reply decoded with ``json.loads``:
  aiohttp (async) and ``http.client`` on one kept-alive connection (sync). What any Python
  client must pay at least.

``check_reply`` reads a way's reply with the vendor's own reply mapper and refuses one that is
not a grounded answer with citations, so a way that reached an error path or another endpoint
(which would flatter the router) stops the bench instead of timing it.

A vendor of the registry without a row here is left out of the benches that read against these
(``covered`` says which are in); they say so in their output.
"""

from __future__ import annotations

import asyncio
import http.client
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from adapters.anthropic.adapter import MESSAGES_PATH
from adapters.anthropic.request import build_message_params
from adapters.anthropic.request import plan_steps as anthropic_steps
from adapters.openai.request import build_response_params
from adapters.openrouter.request import CHAT_PATH as OPENROUTER_PATH
from adapters.openrouter.request import build_openrouter_params
from adapters.perplexity.request import CHAT_PATH as PERPLEXITY_PATH
from adapters.perplexity.request import build_chat_params
from adapters.registry import provider
from adapters.vertex.request import build_contents, plan_steps
from router.emulated import EMULATOR_API_KEY, EMULATOR_TOKEN
from router.settings import RouterSettings
from router.types import LLMRequest

__all__ = ["AsyncRaw", "SyncRaw", "async_raw", "check_reply", "covered", "sync_raw"]

SyncCall = Callable[[LLMRequest], Any]
AsyncCall = Callable[[LLMRequest], Awaitable[Any]]
Body = Callable[[LLMRequest], dict[str, Any]]


@dataclass
class SyncRaw:
    """A vendor's raw sync callers by name, and what closes them."""

    vendor: str
    calls: dict[str, SyncCall]
    closers: list[Callable[[], Any]] = field(default_factory=list)

    def check(self, request: LLMRequest) -> None:
        """Send ``request`` every way once; raise unless each gets a grounded, cited answer."""
        for way, call in self.calls.items():
            check_reply(self.vendor, way, call(request), request)

    def close(self) -> None:
        for closer in self.closers:
            closer()


@dataclass
class AsyncRaw:
    """A vendor's raw async callers by name, and what closes them (on their loop)."""

    vendor: str
    calls: dict[str, AsyncCall]
    closers: list[Callable[[], Awaitable[Any]]] = field(default_factory=list)

    async def check(self, request: LLMRequest) -> None:
        """The async twin of :meth:`SyncRaw.check`."""
        for way, call in self.calls.items():
            check_reply(self.vendor, way, await call(request), request)

    async def aclose(self) -> None:
        for closer in self.closers:
            await closer()


def check_reply(vendor: str, way: str, reply: Any, request: LLMRequest) -> None:
    """Raise unless ``reply`` (typed or a dict) is a grounded answer with citations, as the
    vendor's own reply mapper reads it."""
    mapper = provider(vendor).reply_mapper()
    assert mapper is not None, f"{vendor} has no reply mapper to check its baselines with"
    result = mapper(reply, request, strict=False)
    if not (result.grounded_effective and result.citations and result.content.strip()):
        raise RuntimeError(
            f"baseline {vendor} {way!r} got no grounded, cited answer "
            f"(grounded {result.grounded_effective}, {len(result.citations)} citations, "
            f"warnings {result.warnings}): {str(reply)[:300]}"
        )


def _path_of(url: str | None) -> str:
    """The path part of a base URL ("" for a bare origin)."""
    return urlsplit(url or "").path


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


# -- OpenAI: the Responses API through the openai SDK -------------------------------------


def _openai_sync(settings: RouterSettings) -> SyncRaw:
    from openai import OpenAI

    client = OpenAI(api_key=EMULATOR_API_KEY, base_url=settings.openai_base_url)
    floor = _SyncFloor(settings.openai_base_url, _bearer(EMULATOR_API_KEY))
    path = f"{_path_of(settings.openai_base_url)}/responses"
    return SyncRaw(
        "openai",
        {
            "floor": lambda request: floor.post(path, build_response_params(request)),
            "default": lambda request: client.responses.create(**build_response_params(request)),
            "raw response": lambda request: client.responses.with_raw_response.create(
                **build_response_params(request)
            ).http_response.json(),
            "generic post": lambda request: client.post(
                "/responses", body=build_response_params(request), cast_to=object
            ),
        },
        [client.close, floor.close],
    )


def _openai_async(settings: RouterSettings) -> AsyncRaw:
    import aiohttp
    from openai import AsyncOpenAI, DefaultAioHttpClient

    default = AsyncOpenAI(api_key=EMULATOR_API_KEY, base_url=settings.openai_base_url)
    fast = AsyncOpenAI(
        api_key=EMULATOR_API_KEY,
        base_url=settings.openai_base_url,
        http_client=DefaultAioHttpClient(),
    )
    session = aiohttp.ClientSession()
    url = f"{settings.openai_base_url}/responses"
    headers = _bearer(EMULATOR_API_KEY)

    async def floor(request: LLMRequest) -> Any:
        body = json.dumps(build_response_params(request))
        async with session.post(url, data=body, headers=headers) as response:
            return json.loads(await response.read())

    async def raw_response(request: LLMRequest) -> Any:
        raw = await fast.responses.with_raw_response.create(**build_response_params(request))
        return raw.http_response.json()

    return AsyncRaw(
        "openai",
        {
            "floor": floor,
            "default": lambda request: default.responses.create(**build_response_params(request)),
            "raw response": raw_response,
            "generic post": lambda request: fast.post(
                "/responses", body=build_response_params(request), cast_to=object
            ),
        },
        [default.close, fast.close, session.close],
    )


# -- Perplexity, OpenRouter: chat completions through the openai SDK ----------------------

# What ``chat.completions.create`` takes by name; a provider's own fields (Perplexity's
# ``disable_search``, OpenRouter's ``plugins``) go in ``extra_body``, as their documentation
# shows. The body on the wire is the adapter's either way.
_CHAT_NAMED = frozenset({"model", "messages", "response_format", "temperature", "max_tokens"})


def _chat_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """``chat.completions.create`` keyword arguments that send ``body``."""
    named = {key: value for key, value in body.items() if key in _CHAT_NAMED}
    extra = {key: value for key, value in body.items() if key not in _CHAT_NAMED}
    return {**named, "extra_body": extra} if extra else named


def _chat_sync(vendor: str, base_url: str | None, path: str, build: Body) -> SyncRaw:
    from openai import OpenAI

    client = OpenAI(api_key=EMULATOR_API_KEY, base_url=base_url)
    floor = _SyncFloor(base_url, _bearer(EMULATOR_API_KEY))
    floor_path = f"{_path_of(base_url)}{path}"
    return SyncRaw(
        vendor,
        {
            "floor": lambda request: floor.post(floor_path, build(request)),
            "default": lambda request: client.chat.completions.create(
                **_chat_arguments(build(request))
            ),
            "raw response": lambda request: client.chat.completions.with_raw_response.create(
                **_chat_arguments(build(request))
            ).http_response.json(),
            "generic post": lambda request: client.post(path, body=build(request), cast_to=object),
        },
        [client.close, floor.close],
    )


def _chat_async(vendor: str, base_url: str | None, path: str, build: Body) -> AsyncRaw:
    import aiohttp
    from openai import AsyncOpenAI, DefaultAioHttpClient

    default = AsyncOpenAI(api_key=EMULATOR_API_KEY, base_url=base_url)
    fast = AsyncOpenAI(
        api_key=EMULATOR_API_KEY, base_url=base_url, http_client=DefaultAioHttpClient()
    )
    session = aiohttp.ClientSession()
    url = f"{base_url}{path}"
    headers = _bearer(EMULATOR_API_KEY)

    async def floor(request: LLMRequest) -> Any:
        async with session.post(url, data=json.dumps(build(request)), headers=headers) as reply:
            return json.loads(await reply.read())

    async def raw_response(request: LLMRequest) -> Any:
        raw = await fast.chat.completions.with_raw_response.create(
            **_chat_arguments(build(request))
        )
        return raw.http_response.json()

    return AsyncRaw(
        vendor,
        {
            "floor": floor,
            "default": lambda request: default.chat.completions.create(
                **_chat_arguments(build(request))
            ),
            "raw response": raw_response,
            "generic post": lambda request: fast.post(path, body=build(request), cast_to=object),
        },
        [default.close, fast.close, session.close],
    )


def _perplexity_sync(settings: RouterSettings) -> SyncRaw:
    return _chat_sync(
        "perplexity", settings.perplexity_base_url, PERPLEXITY_PATH, build_chat_params
    )


def _perplexity_async(settings: RouterSettings) -> AsyncRaw:
    return _chat_async(
        "perplexity", settings.perplexity_base_url, PERPLEXITY_PATH, build_chat_params
    )


def _openrouter_sync(settings: RouterSettings) -> SyncRaw:
    return _chat_sync(
        "openrouter", settings.openrouter_base_url, OPENROUTER_PATH, build_openrouter_params
    )


def _openrouter_async(settings: RouterSettings) -> AsyncRaw:
    return _chat_async(
        "openrouter", settings.openrouter_base_url, OPENROUTER_PATH, build_openrouter_params
    )


# -- Anthropic: the Messages API through the anthropic SDK ---------------------------------


def _anthropic_body(settings: RouterSettings) -> Body:
    """The adapter's body for a request's (first and, for the benches' requests, only) call."""

    def body(request: LLMRequest) -> dict[str, Any]:
        step = anthropic_steps(request)[0]
        return build_message_params(request, step, max_uses=settings.anthropic_max_searches)

    return body


def _anthropic_headers(client: Any) -> dict[str, str]:
    """The API key, and the API version the SDK sends (the API requires one)."""
    return {
        "x-api-key": EMULATOR_API_KEY,
        "anthropic-version": client.default_headers["anthropic-version"],
        "Content-Type": "application/json",
    }


def _anthropic_sync(settings: RouterSettings) -> SyncRaw:
    from anthropic import Anthropic

    build = _anthropic_body(settings)
    client = Anthropic(api_key=EMULATOR_API_KEY, base_url=settings.anthropic_base_url)
    floor = _SyncFloor(settings.anthropic_base_url, _anthropic_headers(client))
    floor_path = f"{_path_of(settings.anthropic_base_url)}{MESSAGES_PATH}"
    return SyncRaw(
        "anthropic",
        {
            "floor": lambda request: floor.post(floor_path, build(request)),
            "default": lambda request: client.messages.create(**build(request)),
            "raw response": lambda request: client.messages.with_raw_response.create(
                **build(request)
            ).http_response.json(),
            "generic post": lambda request: client.post(
                MESSAGES_PATH, body=build(request), cast_to=object
            ),
        },
        [client.close, floor.close],
    )


def _anthropic_async(settings: RouterSettings) -> AsyncRaw:
    import aiohttp
    from anthropic import AsyncAnthropic, DefaultAioHttpClient

    build = _anthropic_body(settings)
    base_url = settings.anthropic_base_url
    default = AsyncAnthropic(api_key=EMULATOR_API_KEY, base_url=base_url)
    fast = AsyncAnthropic(
        api_key=EMULATOR_API_KEY, base_url=base_url, http_client=DefaultAioHttpClient()
    )
    session = aiohttp.ClientSession()
    url = f"{base_url}{MESSAGES_PATH}"
    headers = _anthropic_headers(default)

    async def floor(request: LLMRequest) -> Any:
        async with session.post(url, data=json.dumps(build(request)), headers=headers) as reply:
            return json.loads(await reply.read())

    async def raw_response(request: LLMRequest) -> Any:
        raw = await fast.messages.with_raw_response.create(**build(request))
        return raw.http_response.json()

    return AsyncRaw(
        "anthropic",
        {
            "floor": floor,
            "default": lambda request: default.messages.create(**build(request)),
            "raw response": raw_response,
            "generic post": lambda request: fast.post(
                MESSAGES_PATH, body=build(request), cast_to=object
            ),
        },
        [default.close, fast.close, session.close],
    )


# -- Vertex AI and the Gemini API: Gemini through google-genai ----------------------------


@dataclass(frozen=True)
class _GoogleApi:
    """One of google-genai's two APIs: its vendor, its client, its REST URL and credentials."""

    vendor: str
    client: Callable[..., Any]
    """``client(settings, **http_options)``: a ``genai.Client`` for the emulator."""
    url: Callable[[RouterSettings, str], str]
    """``url(settings, model)``: the ``generateContent`` URL the SDK posts to."""
    headers: dict[str, str]


def _vertex_client(settings: RouterSettings, **http: Any) -> Any:
    from google import genai
    from google.genai import types
    from google.oauth2.credentials import Credentials

    return genai.Client(
        vertexai=True,
        project=settings.google_cloud_project,
        location=settings.google_cloud_location,
        credentials=Credentials(token=EMULATOR_TOKEN),  # type: ignore[no-untyped-call]
        http_options=types.HttpOptions(base_url=settings.vertex_base_url, **http),
    )


def _vertex_url(settings: RouterSettings, model: str) -> str:
    return (
        f"{settings.vertex_base_url}/v1beta1/projects/{settings.google_cloud_project}/locations/"
        f"{settings.google_cloud_location}/publishers/google/models/{model}:generateContent"
    )


def _gemini_client(settings: RouterSettings, **http: Any) -> Any:
    from google import genai
    from google.genai import types

    # The API version the adapter pins (GROUNDING_ROUTER_GEMINI_API_VERSION), so every way
    # reaches the endpoint the router's calls go to.
    return genai.Client(
        vertexai=False,
        api_key=EMULATOR_API_KEY,
        http_options=types.HttpOptions(
            base_url=settings.gemini_base_url, api_version=settings.gemini_api_version, **http
        ),
    )


def _gemini_url(settings: RouterSettings, model: str) -> str:
    return (
        f"{settings.gemini_base_url}/{settings.gemini_api_version}/models/{model}:generateContent"
    )


_VERTEX = _GoogleApi("vertex", _vertex_client, _vertex_url, _bearer(EMULATOR_TOKEN))
_GEMINI = _GoogleApi(
    "gemini",
    _gemini_client,
    _gemini_url,
    {"x-goog-api-key": EMULATOR_API_KEY, "Content-Type": "application/json"},
)


def _prompt(request: LLMRequest) -> str:
    return "\n\n".join(message.text for message in request.messages)


def _search_config(*, raw: bool) -> Any:
    from google.genai import types

    return types.GenerateContentConfig(
        tools=[types.Tool(google_search=types.GoogleSearch())],
        should_return_http_response=True if raw else None,
    )


def _genai_body(request: LLMRequest) -> dict[str, Any]:
    """The body google-genai sends for the benches' requests (one user turn, grounded)."""
    return {
        "contents": [{"role": "user", "parts": [{"text": _prompt(request)}]}],
        "generationConfig": {},
        "tools": [{"googleSearch": {}}],
    }


def _body_of(response: Any) -> Any:
    return json.loads(response.sdk_http_response.body)


def _genai_sync(api: _GoogleApi, settings: RouterSettings) -> SyncRaw:
    client = api.client(settings)
    typed, raw = _search_config(raw=False), _search_config(raw=True)
    floor = _SyncFloor(api.url(settings, ""), api.headers)

    def fastest(request: LLMRequest) -> Any:
        contents = build_contents(request, plan_steps(request)[0])
        return _body_of(
            client.models.generate_content(model=request.model, contents=contents, config=raw)
        )

    return SyncRaw(
        api.vendor,
        {
            "floor": lambda request: floor.post(
                _path_of(api.url(settings, request.model)), _genai_body(request)
            ),
            "default": lambda request: client.models.generate_content(
                model=request.model, contents=_prompt(request), config=typed
            ),
            "raw response": fastest,
        },
        [client.close, floor.close],
    )


def _genai_async(api: _GoogleApi, settings: RouterSettings) -> AsyncRaw:
    import aiohttp

    session = aiohttp.ClientSession()
    default = api.client(settings)
    fast = api.client(settings, aiohttp_client=session)
    typed, raw = _search_config(raw=False), _search_config(raw=True)

    async def floor(request: LLMRequest) -> Any:
        body = json.dumps(_genai_body(request))
        url = api.url(settings, request.model)
        async with session.post(url, data=body, headers=api.headers) as response:
            return json.loads(await response.read())

    async def fastest(request: LLMRequest) -> Any:
        contents = build_contents(request, plan_steps(request)[0])
        return _body_of(
            await fast.aio.models.generate_content(
                model=request.model, contents=contents, config=raw
            )
        )

    async def close() -> None:
        await default.aio.aclose()
        await session.close()

    return AsyncRaw(
        api.vendor,
        {
            "floor": floor,
            "default": lambda request: default.aio.models.generate_content(
                model=request.model, contents=_prompt(request), config=typed
            ),
            "raw response": fastest,
        },
        [close],
    )


class _SyncFloor:
    """POSTs over one kept-alive ``http.client`` connection: the least a sync call costs."""

    def __init__(self, url: str | None, headers: dict[str, str]) -> None:
        """A connection to the server of ``url`` (any URL on it: only its host and port count)."""
        parts = urlsplit(url or "")
        assert parts.hostname is not None, f"no host in {url!r}"
        self._connection = http.client.HTTPConnection(parts.hostname, parts.port)
        self._headers = headers

    def post(self, path: str, body: dict[str, Any]) -> Any:
        self._connection.request("POST", path, body=json.dumps(body), headers=self._headers)
        return json.loads(self._connection.getresponse().read())

    def close(self) -> None:
        self._connection.close()


_SYNC: dict[str, Callable[[RouterSettings], SyncRaw]] = {
    "openai": _openai_sync,
    "vertex": partial(_genai_sync, _VERTEX),
    "gemini": partial(_genai_sync, _GEMINI),
    "perplexity": _perplexity_sync,
    "openrouter": _openrouter_sync,
    "anthropic": _anthropic_sync,
}
_ASYNC: dict[str, Callable[[RouterSettings], AsyncRaw]] = {
    "openai": _openai_async,
    "vertex": partial(_genai_async, _VERTEX),
    "gemini": partial(_genai_async, _GEMINI),
    "perplexity": _perplexity_async,
    "openrouter": _openrouter_async,
    "anthropic": _anthropic_async,
}


def covered(vendors: Iterable[str]) -> tuple[list[str], list[str]]:
    """(the vendors with raw baselines here, those without), each in the order given."""
    names = list(vendors)
    return [v for v in names if v in _SYNC], [v for v in names if v not in _SYNC]


def sync_raw(vendor: str, settings: RouterSettings) -> SyncRaw:
    """The raw sync callers of ``vendor`` against the emulator ``settings`` point at."""
    return _SYNC[vendor](settings)


def async_raw(vendor: str, settings: RouterSettings) -> AsyncRaw:
    """The raw async callers of ``vendor``; make them on the loop that will use them."""
    asyncio.get_running_loop()  # aiohttp sessions belong to the running loop
    return _ASYNC[vendor](settings)
