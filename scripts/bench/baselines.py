"""The raw ways of calling each vendor that the benches read the router against.

For each vendor, the same request the adapter sends, three ways, sync and async:

- ``default``: the SDK exactly as its README shows it: the default client, the typed
  response (``client.responses.create(...)``; ``genai.Client(vertexai=True, ...)`` and
  ``client.models.generate_content(...)`` with the prompt as a string);
- ``raw response`` (and for the openai SDK ``generic post``): the fast ways to drive the same
  SDK: one client reused, async on the SDK's aiohttp transport, and the untyped body as a dict
  instead of the typed response. For the openai SDK: ``responses.with_raw_response.create``
  with the JSON of its ``http_response``, and the generic ``client.post`` its README documents
  for any endpoint, with ``cast_to=object``. For google-genai: ``should_return_http_response``
  and ``json.loads`` of the body, async on an aiohttp session of the caller's that does not
  look the proxy variables up again on every request. The benches read the router against
  the cheapest SDK way of each run, the default included ("fastest raw SDK");
- ``floor``: no SDK at all, the same body POSTed and its reply decoded with ``json.loads``:
  aiohttp (async) and ``http.client`` on one kept-alive connection (sync). What any Python
  client must pay at least.

A vendor of the registry without a row here is left out of the benches that read against these
(``covered`` says which are in); they say so in their output.
"""

from __future__ import annotations

import asyncio
import http.client
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from adapters.openai.request import build_response_params
from adapters.vertex.request import build_contents, plan_steps
from router.emulated import EMULATOR_API_KEY, EMULATOR_TOKEN
from router.settings import RouterSettings
from router.types import LLMRequest

__all__ = ["AsyncRaw", "SyncRaw", "async_raw", "covered", "sync_raw"]

SyncCall = Callable[[LLMRequest], Any]
AsyncCall = Callable[[LLMRequest], Awaitable[Any]]


@dataclass
class SyncRaw:
    """A vendor's raw sync callers by name, and what closes them."""

    calls: dict[str, SyncCall]
    closers: list[Callable[[], Any]] = field(default_factory=list)

    def close(self) -> None:
        for closer in self.closers:
            closer()


@dataclass
class AsyncRaw:
    """A vendor's raw async callers by name, and what closes them (on their loop)."""

    calls: dict[str, AsyncCall]
    closers: list[Callable[[], Awaitable[Any]]] = field(default_factory=list)

    async def aclose(self) -> None:
        for closer in self.closers:
            await closer()


# -- OpenAI: the Responses API through the openai SDK -------------------------------------


def _openai_sync(settings: RouterSettings) -> SyncRaw:
    from openai import OpenAI

    client = OpenAI(api_key=EMULATOR_API_KEY, base_url=settings.openai_base_url)
    floor = _SyncFloor(settings.openai_base_url, _openai_headers())
    path = f"{urlsplit(settings.openai_base_url).path}/responses"
    return SyncRaw(
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
    headers = _openai_headers()

    async def floor(request: LLMRequest) -> Any:
        body = json.dumps(build_response_params(request))
        async with session.post(url, data=body, headers=headers) as response:
            return json.loads(await response.read())

    async def raw_response(request: LLMRequest) -> Any:
        raw = await fast.responses.with_raw_response.create(**build_response_params(request))
        return raw.http_response.json()

    return AsyncRaw(
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


def _openai_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {EMULATOR_API_KEY}", "Content-Type": "application/json"}


# -- Vertex AI: Gemini through google-genai ------------------------------------------------


def _prompt(request: LLMRequest) -> str:
    return "\n\n".join(message.content for message in request.messages)


def _genai_client(settings: RouterSettings, **http: Any) -> Any:
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


def _search_config(*, raw: bool) -> Any:
    from google.genai import types

    return types.GenerateContentConfig(
        tools=[types.Tool(google_search=types.GoogleSearch())],
        should_return_http_response=True if raw else None,
    )


def _vertex_url(settings: RouterSettings, model: str) -> str:
    return (
        f"{settings.vertex_base_url}/v1beta1/projects/{settings.google_cloud_project}/locations/"
        f"{settings.google_cloud_location}/publishers/google/models/{model}:generateContent"
    )


def _vertex_body(request: LLMRequest) -> dict[str, Any]:
    return {
        "contents": [{"role": "user", "parts": [{"text": _prompt(request)}]}],
        "tools": [{"googleSearch": {}}],
    }


def _vertex_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {EMULATOR_TOKEN}", "Content-Type": "application/json"}


def _body_of(response: Any) -> Any:
    return json.loads(response.sdk_http_response.body)


def _vertex_sync(settings: RouterSettings) -> SyncRaw:
    client = _genai_client(settings)
    typed, raw = _search_config(raw=False), _search_config(raw=True)
    floor = _SyncFloor(settings.vertex_base_url, _vertex_headers())

    def fastest(request: LLMRequest) -> Any:
        contents = build_contents(request, plan_steps(request)[0])
        return _body_of(
            client.models.generate_content(model=request.model, contents=contents, config=raw)
        )

    return SyncRaw(
        {
            "floor": lambda request: floor.post(
                urlsplit(_vertex_url(settings, request.model)).path, _vertex_body(request)
            ),
            "default": lambda request: client.models.generate_content(
                model=request.model, contents=_prompt(request), config=typed
            ),
            "raw response": fastest,
        },
        [client.close, floor.close],
    )


def _vertex_async(settings: RouterSettings) -> AsyncRaw:
    import aiohttp

    session = aiohttp.ClientSession()
    default = _genai_client(settings)
    fast = _genai_client(settings, aiohttp_client=session)
    typed, raw = _search_config(raw=False), _search_config(raw=True)
    headers = _vertex_headers()

    async def floor(request: LLMRequest) -> Any:
        body = json.dumps(_vertex_body(request))
        url = _vertex_url(settings, request.model)
        async with session.post(url, data=body, headers=headers) as response:
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

    def __init__(self, base_url: str | None, headers: dict[str, str]) -> None:
        parts = urlsplit(base_url)
        assert parts.hostname is not None
        self._connection = http.client.HTTPConnection(parts.hostname, parts.port)
        self._headers = headers

    def post(self, path: str, body: dict[str, Any]) -> Any:
        self._connection.request("POST", path, body=json.dumps(body), headers=self._headers)
        return json.loads(self._connection.getresponse().read())

    def close(self) -> None:
        self._connection.close()


_SYNC: dict[str, Callable[[RouterSettings], SyncRaw]] = {
    "openai": _openai_sync,
    "vertex": _vertex_sync,
}
_ASYNC: dict[str, Callable[[RouterSettings], AsyncRaw]] = {
    "openai": _openai_async,
    "vertex": _vertex_async,
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
