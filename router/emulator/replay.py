"""Serve recorded provider bodies verbatim instead of synthesised ones.

Files under the replay directory are sorted by what they hold: OpenAI Responses bodies,
Vertex generateContent bodies and Anthropic Messages bodies, each as ``*.json`` (one body) or
``*.sse.txt`` (a raw stream). A request gets the next file that fits its endpoint and
streaming mode, in turn, or the file its ``X-Emulator-Replay`` header names (a path relative
to the directory).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from router.emulator.reply import JSON_CONTENT_TYPE, SSE_CONTENT_TYPE, Reply
from router.emulator.wire import Api

__all__ = ["REPLAY_HEADER", "ReplayLibrary", "ReplayMiss"]

REPLAY_HEADER = "X-Emulator-Replay"
# APIs that answer with another API's bodies: the Gemini API sends Vertex AI's generateContent.
_BODY_KIND: dict[Api, Api] = {"gemini": "vertex"}
_STREAM_SUFFIX = ".sse.txt"


class ReplayMiss(LookupError):
    """No recorded body fits the request, or the named file is not in the directory."""


class ReplayLibrary:
    """The recorded bodies of one directory, indexed by API and streaming mode."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"replay directory not found: {root}")
        self._files: dict[tuple[Api, bool], list[Path]] = {}
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            kind = _classify(path)
            if kind is not None:
                self._files.setdefault(kind, []).append(path)
        self._turn: dict[tuple[Api, bool], int] = {}
        self._lock = threading.Lock()

    def count(self, api: Api, *, stream: bool) -> int:
        """How many recorded bodies fit this API and mode."""
        return len(self._files.get((_BODY_KIND.get(api, api), stream), []))

    def pick(self, api: Api, *, stream: bool, name: str | None = None) -> Reply:
        """The named file, or the next file in turn that fits ``api`` and ``stream``."""
        if name:
            path = (self.root / name).resolve()
            if not path.is_relative_to(self.root) or not path.is_file():
                raise ReplayMiss(f"no recorded body named {name!r} in the replay directory")
        else:
            files = self._files.get((_BODY_KIND.get(api, api), stream))
            if not files:
                mode = "stream" if stream else "JSON"
                raise ReplayMiss(f"no recorded {api} {mode} body in the replay directory")
            with self._lock:
                turn = self._turn.get((api, stream), 0)
                self._turn[(api, stream)] = turn + 1
            path = files[turn % len(files)]
        stream_file = path.name.endswith(_STREAM_SUFFIX)
        return Reply(
            200,
            path.read_bytes(),
            content_type=SSE_CONTENT_TYPE if stream_file else JSON_CONTENT_TYPE,
        )


def _classify(path: Path) -> tuple[Api, bool] | None:
    """Which endpoint a recorded file answers, or None for other providers' bodies."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if path.name.endswith(_STREAM_SUFFIX):
        if "event: response." in text or '"type":"response.' in text:
            return ("openai", True)
        if text.lstrip().startswith("data:") and '"candidates"' in text:
            return ("vertex", True)
        if "event: message_start" in text:
            return ("anthropic", True)
        if text.lstrip().startswith("data:") and '"chat.completion.chunk"' in text:
            return ("perplexity", True)
        return None
    if path.suffix != ".json":
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    if body.get("object") == "response" or str(body.get("id", "")).startswith("resp_"):
        return ("openai", False)
    if isinstance(body.get("candidates"), list):
        return ("vertex", False)
    if body.get("type") == "message" and isinstance(body.get("content"), list):
        return ("anthropic", False)
    if isinstance(body.get("choices"), list) and ("citations" in body or "search_results" in body):
        return ("perplexity", False)
    return None
