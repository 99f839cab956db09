"""What a provider API module tells the emulator: one :class:`ProviderApi` row.

The server, the synthesis, the fault and error-reply steps and the replay library loop over
the rows instead of testing API names, so a new API is one new module under ``apis/`` and one
entry in :data:`router.emulator.apis.APIS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from router.emulator.catalogue import Answer
from router.emulator.fault_kinds import FaultKind
from router.emulator.reply import Reply
from router.emulator.wire import Ask

__all__ = [
    "CLOUDFLARE_PAGE",
    "Endpoint",
    "ErrorShapes",
    "ProviderApi",
    "Synthesiser",
    "bearer_token",
    "exact_path",
    "no_headers",
]


@dataclass(frozen=True)
class Endpoint:
    """What the path of a request says besides its API: Google's APIs name the model and
    whether to stream there (``:streamGenerateContent``, ``?alt=sse``); the others in the body.
    """

    model: str = ""
    stream: bool = False
    sse: bool = False


class Synthesiser(Protocol):
    """Builds the answer to ``ask``: stream frames, or one complete reply.

    ``fault`` is a content fault shaping the answer; ``serial`` seeds the reply's ids; ``sse``
    is Google's ``alt=sse``.
    """

    def __call__(
        self, ask: Ask, answer: Answer, fault: FaultKind | None, serial: str, sse: bool, /
    ) -> list[bytes] | Reply: ...


@dataclass(frozen=True, slots=True)
class ErrorShapes:
    """How an API answers what goes wrong, each in its own body, status and headers.

    ``fault(status, retry_after_s, model)`` answers a status fault (429, 500, 503, 529, 400,
    401); ``bad_request(message, param, code)`` a request the service would refuse;
    ``unparseable_body()`` a body that is not JSON; ``missing_auth()`` a request without a
    credential; ``not_found(method, path)`` a path it does not serve. ``proxy_page`` is the
    HTML page (``{status}``, ``{reason}``) of the proxy in front of it.
    """

    fault: Callable[[int, float | None, str], Reply]
    bad_request: Callable[[str, str | None, str | None], Reply]
    unparseable_body: Callable[[], Reply]
    missing_auth: Callable[[], Reply]
    not_found: Callable[[str, str], Reply]
    proxy_page: str


def no_headers() -> dict[str, str]:
    """No extra reply headers."""
    return {}


@dataclass(frozen=True, slots=True)
class ProviderApi:
    """One provider API the emulator speaks.

    ``name`` is the API as the router names its vendor (``@API`` in a fault spec, the key of
    :meth:`Emulator.enqueue_reply`); ``base_path`` follows the emulator's origin in the
    ``base_url`` its SDK is given. ``match(path, query)`` is the :class:`Endpoint` of a request
    this API serves, else None; ``claims_path(path)`` says whose error shape a path nobody
    serves gets (the row with ``answers_unknown_paths`` takes the rest).
    ``authorised(headers, query)`` says whether a credential came; ``read_request(body,
    endpoint)`` is the :class:`Ask` (raising ``BadRequest`` as the service would);
    ``synthesise`` answers it and ``errors`` shapes what goes wrong. ``request_headers()``
    are the headers naming each reply (request ids); ``stream_opening`` is the event line a
    client waits for before the first data of a stream (named events).
    ``replays_json(body)`` / ``replays_stream(text)`` recognise a recorded body of this API;
    ``replays_as`` names the API whose recorded bodies this one is served.
    """

    name: str
    base_path: str
    match: Callable[[str, Mapping[str, str]], Endpoint | None]
    authorised: Callable[[Mapping[str, str], Mapping[str, str]], bool]
    read_request: Callable[[Mapping[str, Any], Endpoint], Ask]
    synthesise: Synthesiser
    errors: ErrorShapes
    claims_path: Callable[[str], bool] | None = None
    request_headers: Callable[[], dict[str, str]] = no_headers
    stream_opening: bytes = b""
    replays_json: Callable[[Mapping[str, Any]], bool] | None = None
    replays_stream: Callable[[str], bool] | None = None
    replays_as: str | None = None
    answers_unknown_paths: bool = False


def exact_path(path: str) -> Callable[[str, Mapping[str, str]], Endpoint | None]:
    """A matcher for an API served at one fixed path (model and streaming in the body)."""

    def match(requested: str, _query: Mapping[str, str]) -> Endpoint | None:
        return Endpoint() if requested == path else None

    return match


def bearer_token(headers: Mapping[str, str]) -> bool:
    """Whether ``Authorization: Bearer`` carries a non-empty token."""
    bearer = headers.get("Authorization", "")
    return bearer.startswith("Bearer ") and bool(bearer[7:].strip())


CLOUDFLARE_PAGE = (
    "<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n"
    "<center><h1>{status} {reason}</h1></center>\r\n<hr><center>cloudflare</center>\r\n"
    "</body>\r\n</html>\r\n"
)
"""The HTML error page of the Cloudflare proxy in front of most APIs."""
