"""Each provider reply of a request, kept as the provider sent it, for ``extract`` to replay.

``--save-replies DIR`` (``route`` and ``batch``) writes every reply read while a request was
routed (retries and a two-step call's second reply included) to
``DIR/<request_id>/<NN>-<host>.body``, numbered in the order the replies started: a JSON body,
or the event stream of a streamed call, decompressed but otherwise untouched, so that a
``DEBUG_GROUNDING`` investigation is replayed with ``grounding-router extract --vendor V FILE``
instead of paying for the call again. One change is made: a configured secret that the provider
quoted back is cut, as everywhere the router writes (:mod:`router.text.redaction`).
The bytes come from the one hook in the SDKs' HTTP clients, :mod:`adapters.sdk.reply_tap`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit

from adapters.sdk.reply_tap import ReplyWriter, observing_replies
from router.text.redaction import redact_text

__all__ = ["ReplySaver", "folder_name"]

_MAX_NAME = 120


def folder_name(request_id: str) -> str:
    """A file-system-safe folder name for ``request_id``, the id itself when it is one already."""
    name = quote(request_id, safe="-_.@+=")
    if not name or name.startswith(".") or len(name) > _MAX_NAME:
        digest = hashlib.sha256(request_id.encode()).hexdigest()[:16]
        name = f"{name.lstrip('.')[: _MAX_NAME - 17]}-{digest}"
    return name


class ReplySaver:
    """Keeps the replies of each request routed in :meth:`saving` under ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextmanager
    def saving(self, request_id: str) -> Iterator[None]:
        """Keep every reply read in this context as a file of ``request_id``'s folder."""
        replies: list[tuple[str, bytearray]] = []

        def observe(url: str) -> ReplyWriter:
            body = bytearray()
            replies.append((urlsplit(url).hostname or "reply", body))
            return body.extend

        try:
            with observing_replies(observe):
                yield
        finally:
            if replies:
                self._write(request_id, replies)

    def _write(self, request_id: str, replies: list[tuple[str, bytearray]]) -> None:
        target = self.folder / folder_name(request_id)
        target.mkdir(parents=True, exist_ok=True)
        for stale in target.glob("*.body"):  # an earlier run's replies of the same id
            stale.unlink()
        for number, (host, body) in enumerate(replies, start=1):
            text = redact_text(bytes(body).decode("utf-8", "surrogateescape"), shapes=False)
            path = target / f"{number:02d}-{host}.body"
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
