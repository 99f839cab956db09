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
import importlib
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


# -- openai and anthropic: SDKs of one design ---------------------------------------------
#
# OpenAI's Responses API, Perplexity's and OpenRouter's chat completions (the openai SDK at
# their base URLs) and Anthropic's Messages API: one client class and its async twin, a typed
# ``create`` with ``with_raw_response``, a generic ``post`` and an aiohttp transport
# (``DefaultAioHttpClient``). What differs is described by a ``_SdkApi``.


@dataclass(frozen=True)
class _SdkApi:
    """One API reached through the openai or anthropic SDK, as the benches call it."""

    vendor: str
    sdk: str
    """The SDK's module; its clients are ``client`` and ``async_client``."""
    client: str
    async_client: str
    base_url: Callable[[RouterSettings], str | None]
    path: str
    """The endpoint, under the base URL, the adapter posts to."""
    body: Callable[[RouterSettings], Body]
    """The adapter's request builder for the settings: the body of a request's call."""
    resource: Callable[[Any], Any]
    """The client's resource whose ``create`` the README shows (``client.responses``)."""
    arguments: Callable[[dict[str, Any]], dict[str, Any]]
    """``create``'s keyword arguments that send a body."""
    headers: Callable[[Any], dict[str, str]]
    """The floor's headers, given a client of the SDK: the key, and what the API requires."""


def _sdk_sync(api: _SdkApi, settings: RouterSettings) -> SyncRaw:
    sdk = importlib.import_module(api.sdk)
    base_url, build = api.base_url(settings), api.body(settings)
    client = getattr(sdk, api.client)(api_key=EMULATOR_API_KEY, base_url=base_url)
    typed = api.resource(client)
    floor = _SyncFloor(base_url, api.headers(client))
    floor_path = f"{_path_of(base_url)}{api.path}"
    return SyncRaw(
        api.vendor,
        {
            "floor": lambda request: floor.post(floor_path, build(request)),
            "default": lambda request: typed.create(**api.arguments(build(request))),
            "raw response": lambda request: typed.with_raw_response.create(
                **api.arguments(build(request))
            ).http_response.json(),
            "generic post": lambda request: client.post(
                api.path, body=build(request), cast_to=object
            ),
        },
        [client.close, floor.close],
    )


def _floor_session(connections: int) -> Any:
    """An aiohttp session that may open ``connections`` at once (aiohttp's default is 100).

    At a concurrency above 100 a default session queues calls for a connection: at c=256 the
    floor took 10.5 s where 5.95 s was its due, and every "x floor" figure read 1.8x better.
    """
    import aiohttp

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=max(connections, 1)))


def _sdk_async(api: _SdkApi, settings: RouterSettings, connections: int) -> AsyncRaw:

    sdk = importlib.import_module(api.sdk)
    base_url, build = api.base_url(settings), api.body(settings)
    client_class = getattr(sdk, api.async_client)
    default = client_class(api_key=EMULATOR_API_KEY, base_url=base_url)
    fast = client_class(
        api_key=EMULATOR_API_KEY, base_url=base_url, http_client=sdk.DefaultAioHttpClient()
    )
    typed, fast_typed = api.resource(default), api.resource(fast)
    session = _floor_session(connections)
    url = f"{base_url}{api.path}"
    headers = api.headers(default)

    async def floor(request: LLMRequest) -> Any:
        async with session.post(url, data=json.dumps(build(request)), headers=headers) as reply:
            return json.loads(await reply.read())

    async def raw_response(request: LLMRequest) -> Any:
        raw = await fast_typed.with_raw_response.create(**api.arguments(build(request)))
        return raw.http_response.json()

    return AsyncRaw(
        api.vendor,
        {
            "floor": floor,
            "default": lambda request: typed.create(**api.arguments(build(request))),
            "raw response": raw_response,
            "generic post": lambda request: fast.post(
                api.path, body=build(request), cast_to=object
            ),
        },
        [default.close, fast.close, session.close],
    )


def _settings_free(build: Body) -> Callable[[RouterSettings], Body]:
    """A request builder that needs no settings, as ``_SdkApi.body`` takes one."""
    return lambda _settings: build


def _as_named(body: dict[str, Any]) -> dict[str, Any]:
    """``create`` takes every field of the body by name."""
    return body


def _bearer_key(_client: Any) -> dict[str, str]:
    return _bearer(EMULATOR_API_KEY)


# What ``chat.completions.create`` takes by name; a provider's own fields (Perplexity's
# ``disable_search``, OpenRouter's ``plugins``) go in ``extra_body``, as their documentation
# shows. The body on the wire is the adapter's either way.
_CHAT_NAMED = frozenset({"model", "messages", "response_format", "temperature", "max_tokens"})


def _chat_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """``chat.completions.create`` keyword arguments that send ``body``."""
    named = {key: value for key, value in body.items() if key in _CHAT_NAMED}
    extra = {key: value for key, value in body.items() if key not in _CHAT_NAMED}
    return {**named, "extra_body": extra} if extra else named


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


# The three APIs the openai SDK reaches: its clients, and a bearer key for the floor.
_openai_sdk_api = partial(
    _SdkApi, sdk="openai", client="OpenAI", async_client="AsyncOpenAI", headers=_bearer_key
)
_OPENAI = _openai_sdk_api(
    vendor="openai",
    base_url=lambda settings: settings.openai_base_url,
    path="/responses",
    body=_settings_free(build_response_params),
    resource=lambda client: client.responses,
    arguments=_as_named,
)
_PERPLEXITY = _openai_sdk_api(
    vendor="perplexity",
    base_url=lambda settings: settings.perplexity_base_url,
    path=PERPLEXITY_PATH,
    body=_settings_free(build_chat_params),
    resource=lambda client: client.chat.completions,
    arguments=_chat_arguments,
)
_OPENROUTER = _openai_sdk_api(
    vendor="openrouter",
    base_url=lambda settings: settings.openrouter_base_url,
    path=OPENROUTER_PATH,
    body=_settings_free(build_openrouter_params),
    resource=lambda client: client.chat.completions,
    arguments=_chat_arguments,
)
_ANTHROPIC = _SdkApi(
    vendor="anthropic",
    sdk="anthropic",
    client="Anthropic",
    async_client="AsyncAnthropic",
    base_url=lambda settings: settings.anthropic_base_url,
    path=MESSAGES_PATH,
    body=_anthropic_body,
    resource=lambda client: client.messages,
    arguments=_as_named,
    headers=_anthropic_headers,
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


def _genai_async(api: _GoogleApi, settings: RouterSettings, connections: int) -> AsyncRaw:
    session = _floor_session(connections)  # the floor's and the fast SDK way's
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
    "openai": partial(_sdk_sync, _OPENAI),
    "vertex": partial(_genai_sync, _VERTEX),
    "gemini": partial(_genai_sync, _GEMINI),
    "perplexity": partial(_sdk_sync, _PERPLEXITY),
    "openrouter": partial(_sdk_sync, _OPENROUTER),
    "anthropic": partial(_sdk_sync, _ANTHROPIC),
}
_ASYNC: dict[str, Callable[[RouterSettings, int], AsyncRaw]] = {
    "openai": partial(_sdk_async, _OPENAI),
    "vertex": partial(_genai_async, _VERTEX),
    "gemini": partial(_genai_async, _GEMINI),
    "perplexity": partial(_sdk_async, _PERPLEXITY),
    "openrouter": partial(_sdk_async, _OPENROUTER),
    "anthropic": partial(_sdk_async, _ANTHROPIC),
}


def covered(vendors: Iterable[str]) -> tuple[list[str], list[str]]:
    """(the vendors with raw baselines here, those without), each in the order given."""
    names = list(vendors)
    return [v for v in names if v in _SYNC], [v for v in names if v not in _SYNC]


def sync_raw(vendor: str, settings: RouterSettings) -> SyncRaw:
    """The raw sync callers of ``vendor`` against the emulator ``settings`` point at."""
    return _SYNC[vendor](settings)


def async_raw(vendor: str, settings: RouterSettings, concurrency: int) -> AsyncRaw:
    """The raw async callers of ``vendor`` for ``concurrency`` calls in flight (the aiohttp
    sessions here may open that many connections); make them on the loop that will use them."""
    asyncio.get_running_loop()  # aiohttp sessions belong to the running loop
    return _ASYNC[vendor](settings, concurrency)
