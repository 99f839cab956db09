"""The HTTP clients provider SDKs run on: bounded by the call's limits, no redirects followed.

Every provider package builds its SDK's HTTP clients here, so that each of them:

- honours the call's deadline (``router.call_limits``). Async calls are bounded by the router
  itself; a sync call cannot be interrupted from outside, so its httpx2 client reads through
  :class:`DeadlineBackend`, which cuts every connect, read and write wait to what the deadline
  leaves: a reply trickled a byte at a time, or a flood of ``100 Continue``, ends on time;
- follows no redirect. Both SDKs would follow a provider's 3xx and send the prompt again (the
  key is dropped across hosts, the prompt is not) to whatever host it names: a 3xx is the call's
  answer, which the provider's error translation reports;
- reads at most ``max_reply_bytes`` of a reply once decompressed. httpx2 replies are decoded
  here, ``max_length`` at a time, and only gzip and deflate are asked for and accepted; aiohttp
  replies (which aiohttp decodes as they arrive) are counted as they are read. A gzip bomb
  stops at the limit instead of filling memory.

httpx2 gives no public way to choose a connection pool's network backend, so
:func:`sync_client` sets the one private attribute it needs (``_pool._network_backend`` of each
transport, proxies included) and fails loudly, at client creation, if httpx2 ever moves it.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from adapters.sdk.reply_tap import ReplyWriter, reply_writer
from router.call_limits import (
    DeadlineExceeded,
    bounded_timeout,
    count_reply_bytes,
    deadline_s,
    note_timeout,
)

if TYPE_CHECKING:
    import aiohttp
    import httpcore2
    import httpx2

    from router.settings import RouterSettings
    from router.types import LLMRequest

__all__ = [
    "ACCEPTED_ENCODINGS",
    "SDK_TIMEOUT_MARGIN_S",
    "aiohttp_session_options",
    "async_client_options",
    "call_sdk_timeout_s",
    "redirect_target",
    "sdk_timeout_s",
    "sync_client",
]

ACCEPTED_ENCODINGS = "gzip, deflate"

SDK_TIMEOUT_MARGIN_S = 1.0
"""How much longer than the call's deadline the SDKs' own timeouts are set: the deadline ends a
silent or slow call first, and its error says that it was the deadline (``sdk_timeout_s``)."""
_DECODE_CHUNK = 1 << 16

C = TypeVar("C")


def sdk_timeout_s(seconds: float) -> float:
    """The timeout to give an SDK for a call whose deadline is ``seconds`` away."""
    return seconds + SDK_TIMEOUT_MARGIN_S


def call_sdk_timeout_s(request: LLMRequest, settings: RouterSettings) -> float:
    """The SDK timeout of one call of ``request``: a margin past the call's deadline."""
    return sdk_timeout_s(deadline_s(request, settings))


def redirect_target(headers: object) -> str:
    """`` to HOST`` for a redirect's ``Location`` (its host only: the rest may carry tokens)."""
    from urllib.parse import urlsplit

    get = getattr(headers, "get", None)
    location = get("location") if callable(get) else None
    if not isinstance(location, str):
        return ""
    try:
        host = urlsplit(location.strip()).hostname
    except ValueError:
        return ""
    return f" to {host}" if host else " to a relative location"


# -- sync: a deadline-aware network backend -----------------------------------------------------


def _deadline_backend(inner: httpcore2.NetworkBackend) -> httpcore2.NetworkBackend:
    import httpcore2

    def bounded(timeout: float | None, timed_out: type[Exception]) -> float | None:
        try:
            return bounded_timeout(timeout)
        except DeadlineExceeded as exc:
            raise timed_out(str(exc)) from exc

    class DeadlineStream(httpcore2.NetworkStream):
        def __init__(self, stream: httpcore2.NetworkStream) -> None:
            self._stream = stream

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            try:
                return self._stream.read(max_bytes, bounded(timeout, httpcore2.ReadTimeout))
            except httpcore2.ReadTimeout:
                note_timeout()
                raise

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            try:
                self._stream.write(buffer, bounded(timeout, httpcore2.WriteTimeout))
            except httpcore2.WriteTimeout:
                note_timeout()
                raise

        def close(self) -> None:
            self._stream.close()

        def start_tls(
            self,
            ssl_context: Any,
            server_hostname: str | None = None,
            timeout: float | None = None,
        ) -> httpcore2.NetworkStream:
            timeout = bounded(timeout, httpcore2.ConnectTimeout)
            return DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, timeout))

        def get_extra_info(self, info: str) -> Any:
            return self._stream.get_extra_info(info)

    class DeadlineBackend(httpcore2.NetworkBackend):
        """Connections whose every wait is cut to what the current call's deadline leaves."""

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore2.NetworkStream:
            timeout = bounded(timeout, httpcore2.ConnectTimeout)
            return DeadlineStream(
                inner.connect_tcp(host, port, timeout, local_address, socket_options)
            )

        def connect_unix_socket(
            self,
            path: str,
            timeout: float | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore2.NetworkStream:
            timeout = bounded(timeout, httpcore2.ConnectTimeout)
            return DeadlineStream(inner.connect_unix_socket(path, timeout, socket_options))

        def sleep(self, seconds: float) -> None:
            inner.sleep(seconds)

    return DeadlineBackend()


def _install_deadline_backend(client: httpx2.Client) -> None:
    """Put every connection pool of ``client`` (proxy mounts included) on the deadline backend."""
    transports = [client._transport, *client._mounts.values()]  # private: see the module doc
    for transport in transports:
        if transport is None:  # a NO_PROXY mount: requests go through the default transport
            continue
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is None:
            raise RuntimeError(
                f"httpx2 transport {type(transport).__name__} has no connection pool backend to "
                "bound by the call deadline; this httpx2 version is not supported"
            )
        pool._network_backend = _deadline_backend(backend)  # type: ignore[union-attr]


def sync_client(factory: Callable[..., C], **options: Any) -> C:
    """An httpx2 client made by ``factory`` (``httpx2.Client`` or an SDK's subclass of it) that
    honours the call's limits and follows no redirect."""
    client = factory(
        follow_redirects=False,
        event_hooks={"request": [_ask_for_known_encodings], "response": [_bound_reply]},
        **options,
    )
    _install_deadline_backend(client)  # type: ignore[arg-type]
    return client


def async_client_options() -> dict[str, Any]:
    """Keyword arguments for an httpx2 ``AsyncClient`` (any transport) with the same rules."""
    return {
        "follow_redirects": False,
        "event_hooks": {"request": [_aask_for_known_encodings], "response": [_abound_reply]},
    }


# -- httpx2: bounded decoding ----------------------------------------------------------------


def _ask_for_known_encodings(request: httpx2.Request) -> None:
    request.headers["Accept-Encoding"] = ACCEPTED_ENCODINGS


async def _aask_for_known_encodings(request: httpx2.Request) -> None:
    _ask_for_known_encodings(request)


def _decoder(response: httpx2.Response) -> Callable[[bytes, bool], Iterator[bytes]]:
    """A bounded decoder for the reply's encoding; it takes the encoding off the reply, since
    the body handed on is decoded."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        return _identity
    if encoding not in ("gzip", "x-gzip", "deflate"):
        import httpx2

        raise httpx2.DecodingError(f"the reply is encoded with {encoding!r}, which was not asked")
    del response.headers["content-encoding"]
    response.headers.pop("content-length", None)
    return _zlib_decoder(encoding)


def _identity(data: bytes, final: bool) -> Iterator[bytes]:
    del final
    if data:
        yield data


def _zlib_decoder(encoding: str) -> Callable[[bytes, bool], Iterator[bytes]]:
    # gzip: wbits 16+15; deflate: zlib-wrapped (auto-detected with 32+15) or raw, as httpx reads it
    wbits = zlib.MAX_WBITS | 16 if "gzip" in encoding else zlib.MAX_WBITS | 32
    state = {"decompressor": zlib.decompressobj(wbits), "first": True}

    def decode(data: bytes, final: bool) -> Iterator[bytes]:
        decompressor = state["decompressor"]
        try:
            while data:
                # max_length: never more than one chunk of output at a time, however much
                # a few input bytes unpack to.
                out = decompressor.decompress(data, _DECODE_CHUNK)  # type: ignore[attr-defined]
                data = decompressor.unconsumed_tail  # type: ignore[attr-defined]
                state["first"] = False
                if out:
                    yield out
                elif not data:
                    break
            if final:
                rest = decompressor.flush()  # type: ignore[attr-defined]
                if rest:
                    yield rest
        except zlib.error as exc:
            if encoding == "deflate" and state["first"]:
                state["decompressor"] = zlib.decompressobj(-zlib.MAX_WBITS)
                state["first"] = False
                yield from decode(data, final)
                return
            import httpx2

            raise httpx2.DecodingError(f"the reply's {encoding} data is broken: {exc}") from exc

    return decode


def _bound_reply(response: httpx2.Response) -> None:
    """Replace the reply's stream by one that decodes it, counting what it gives."""
    writer = reply_writer(str(response.request.url))
    response.stream = _stream_classes()[0](response.stream, _decoder(response), writer)


async def _abound_reply(response: httpx2.Response) -> None:
    writer = reply_writer(str(response.request.url))
    response.stream = _stream_classes()[1](response.stream, _decoder(response), writer)


Decode = Callable[[bytes, bool], Iterator[bytes]]


class _ReplyCounter:
    """Decodes a reply's chunks, counting the decoded bytes against the reply limit."""

    __slots__ = ("_decode", "_total", "_writer")

    def __init__(self, decode: Decode, writer: ReplyWriter | None) -> None:
        self._decode = decode
        self._total = 0
        self._writer = writer

    def pieces(self, chunk: bytes, final: bool) -> Iterator[bytes]:
        for piece in self._decode(chunk, final):
            self._total += len(piece)
            count_reply_bytes(self._total)
            if self._writer is not None:
                self._writer(piece)
            yield piece


@lru_cache(maxsize=1)
def _stream_classes() -> tuple[type[Any], type[Any]]:
    """The bounded sync and async byte streams, made once: httpx2 is imported on first use, and
    a class made per reply cost every call a class creation."""
    import httpx2

    class BoundedStream(httpx2.SyncByteStream):
        def __init__(self, raw: Any, decode: Decode, writer: ReplyWriter | None) -> None:
            self._raw, self._decode, self._writer = raw, decode, writer

        def __iter__(self) -> Iterator[bytes]:
            counter = _ReplyCounter(self._decode, self._writer)
            for chunk in self._raw:
                yield from counter.pieces(chunk, False)
            yield from counter.pieces(b"", True)

        def close(self) -> None:
            self._raw.close()

    class AsyncBoundedStream(httpx2.AsyncByteStream):
        def __init__(self, raw: Any, decode: Decode, writer: ReplyWriter | None) -> None:
            self._raw, self._decode, self._writer = raw, decode, writer

        async def __aiter__(self) -> AsyncIterator[bytes]:
            counter = _ReplyCounter(self._decode, self._writer)
            async for chunk in self._raw:
                for piece in counter.pieces(chunk, False):
                    yield piece
            for piece in counter.pieces(b"", True):
                yield piece

        async def aclose(self) -> None:
            await self._raw.aclose()

    return BoundedStream, AsyncBoundedStream


# -- aiohttp: counted reads -----------------------------------------------------------------


def aiohttp_session_options() -> dict[str, Any]:
    """Keyword arguments for an ``aiohttp.ClientSession`` that counts what replies give."""
    return {"response_class": _counted_response_class()}


@lru_cache(maxsize=1)
def _counted_response_class() -> type[Any]:
    """A ``ClientResponse`` whose body reader counts what is read against the reply limit.

    A response class (``ClientSession(response_class=...)``) rather than a trace hook: with any
    ``TraceConfig`` set, aiohttp builds and sends a trace event for every step of every request,
    which cost a Vertex call about 150 µs of CPU (scripts/bench/route.py).
    """
    import aiohttp

    class CountedResponse(aiohttp.ClientResponse):
        async def start(self, connection: aiohttp.connector.Connection) -> CountedResponse:
            await super().start(connection)
            writer = reply_writer(str(self.url))
            self.content = _CountedContent(self.content, writer)  # type: ignore[assignment]
            return self

    return CountedResponse


class _CountedContent:
    """An aiohttp body reader that counts what is read (decoded) against the reply limit."""

    def __init__(self, content: Any, writer: ReplyWriter | None) -> None:
        self._content = content
        self._total = 0
        self._writer = writer

    def _counted(self, data: bytes) -> bytes:
        self._total += len(data)
        count_reply_bytes(self._total)
        if self._writer is not None and data:
            self._writer(data)
        return data

    async def read(self, n: int = -1) -> bytes:
        if n >= 0:
            return self._counted(await self._content.read(n))
        chunks: list[bytes] = []
        while chunk := await self._content.readany():
            chunks.append(self._counted(chunk))
        return b"".join(chunks)

    async def readany(self) -> bytes:
        return self._counted(await self._content.readany())

    async def readline(self) -> bytes:
        return self._counted(await self._content.readline())

    async def readchunk(self) -> tuple[bytes, bool]:
        data, end = await self._content.readchunk()
        return self._counted(data), end

    async def readexactly(self, n: int) -> bytes:
        return self._counted(await self._content.readexactly(n))

    def iter_any(self) -> AsyncIterator[bytes]:
        return self._iterate(self.readany)

    def iter_chunked(self, n: int) -> AsyncIterator[bytes]:
        return self._iterate(lambda: self.read(n))

    def iter_chunks(self) -> AsyncIterator[tuple[bytes, bool]]:
        async def chunks() -> AsyncIterator[tuple[bytes, bool]]:
            while True:
                data, end = await self.readchunk()
                if not data and not end:
                    return
                yield data, end

        return chunks()

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate(self.readline)

    @staticmethod
    async def _iterate(step: Callable[[], Any]) -> AsyncIterator[bytes]:
        while data := await step():
            yield data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._content, name)
