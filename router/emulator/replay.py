"""Serve recorded provider bodies verbatim instead of synthesised ones.

Files under the replay directory are sorted by what they hold, as each API's row recognises
its recorded bodies (OpenAI Responses, Vertex generateContent, Perplexity chat completions,
Anthropic Messages), each as ``*.json`` (one body) or ``*.sse.txt`` (a raw stream). A
request gets the next file that fits its endpoint and streaming mode, in turn, or the file its
``X-Emulator-Replay`` header names (a path relative to the directory).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from router.emulator.apis import APIS, ProviderApi
from router.emulator.reply import JSON_CONTENT_TYPE, SSE_CONTENT_TYPE, Reply

__all__ = ["REPLAY_HEADER", "ReplayLibrary", "ReplayMiss"]

REPLAY_HEADER = "X-Emulator-Replay"
_STREAM_SUFFIX = ".sse.txt"


class ReplayMiss(LookupError):
    """No recorded body fits the request, or the named file is not in the directory."""


class ReplayLibrary:
    """The recorded bodies of one directory, indexed by API and streaming mode."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"replay directory not found: {root}")
        self._files: dict[tuple[str, bool], list[Path]] = {}
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            kind = _classify(path)
            if kind is not None:
                self._files.setdefault(kind, []).append(path)
        self._turn: dict[tuple[str, bool], int] = {}
        self._lock = threading.Lock()

    def count(self, api: ProviderApi, *, stream: bool) -> int:
        """How many recorded bodies fit this API and mode."""
        return len(self._files.get((_body_kind(api), stream), []))

    def pick(self, api: ProviderApi, *, stream: bool, name: str | None = None) -> Reply:
        """The named file, or the next file in turn that fits ``api`` and ``stream``."""
        if name:
            path = (self.root / name).resolve()
            if not path.is_relative_to(self.root) or not path.is_file():
                raise ReplayMiss(f"no recorded body named {name!r} in the replay directory")
        else:
            files = self._files.get((_body_kind(api), stream))
            if not files:
                mode = "stream" if stream else "JSON"
                raise ReplayMiss(f"no recorded {api.name} {mode} body in the replay directory")
            with self._lock:
                turn = self._turn.get((api.name, stream), 0)
                self._turn[(api.name, stream)] = turn + 1
            path = files[turn % len(files)]
        stream_file = path.name.endswith(_STREAM_SUFFIX)
        return Reply(
            200,
            path.read_bytes(),
            content_type=SSE_CONTENT_TYPE if stream_file else JSON_CONTENT_TYPE,
        )


def _body_kind(api: ProviderApi) -> str:
    """The API whose recorded bodies ``api`` is served (the Gemini API: Vertex AI's)."""
    return api.replays_as or api.name


def _classify(path: Path) -> tuple[str, bool] | None:
    """Which API and mode a recorded file answers, or None for bodies no API recognises."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if path.name.endswith(_STREAM_SUFFIX):
        return next(
            ((api.name, True) for api in APIS if api.replays_stream and api.replays_stream(text)),
            None,
        )
    if path.suffix != ".json":
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    return next(
        ((api.name, False) for api in APIS if api.replays_json and api.replays_json(body)), None
    )
