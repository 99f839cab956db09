"""A reply that was not valid HTTP, recognised the same way for every provider.

Over aiohttp (the async clients' transport) a malformed status line, header or chunk framing
raises ``aiohttp.ClientResponseError`` (or ``ClientPayloadError``) from the parser's
``HttpProcessingError``; neither SDK translates it, so it would leave the call as an
unexpected error. It is what a broken proxy or a damaged connection produces, as h11 reports it
on the sync path (``RemoteProtocolError``), and a retry may well get through: a transient
``connection`` failure. The parser's text quotes the offending line, which may hold anything
the other end sent, so only the parser error's class is reported.
"""

from __future__ import annotations

import sys

__all__ = ["malformed_http_error"]


def malformed_http_error(exc: BaseException) -> BaseException | None:
    """The aiohttp parser error beneath ``exc`` when the reply was not valid HTTP, else None."""
    parser_errors = sys.modules.get("aiohttp.http_exceptions")
    if parser_errors is None:
        return None
    processing_error: type[BaseException] = parser_errors.HttpProcessingError
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        if isinstance(current, processing_error):
            return current
        seen.append(current)
        current = current.__cause__ or current.__context__
    return None
