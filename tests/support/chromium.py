"""Debian's headless Chromium driven over the DevTools protocol, with the network off.

:func:`chromium_page` starts ``/usr/bin/chromium`` (package ``chromium``) with a fresh profile,
every background service off, a dead proxy for every non-loopback request and a host resolver
that finds nothing, and yields a :class:`Page`: it opens a file, evaluates JavaScript, takes a
screenshot, and records what the page said went wrong (uncaught exceptions, console errors,
browser log errors such as CSP violations) and every request it made. The DevTools socket is
loopback only; ``websockets`` speaks the protocol.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "MISSING_CHROMIUM", "Page", "chromium_page"]

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
MISSING_CHROMIUM = (
    "headless Chromium is not installed: install Debian's package `chromium` "
    "(apt-get install -y chromium); .ci/run does so in CI"
)
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    # The network off: anything not on loopback goes to a closed port, names resolve to nothing.
    "--proxy-server=127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)
_TIMEOUT_S = 60.0


class Page:
    """One browser tab over its DevTools socket."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._next_id = 0
        self.errors: list[str] = []
        self.requests: list[str] = []
        self._loaded = False
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call a DevTools method and return its result (events meanwhile are recorded)."""
        self._next_id += 1
        ident = self._next_id
        self._socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv(timeout=_TIMEOUT_S))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self._record(message)

    def _record(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(str(details.get("exception", {}).get("description") or details))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(arg.get("value")) for arg in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Page.loadEventFired":
            self._loaded = True

    def open(self, path: Path) -> None:
        """Open a local file and return once its load event fired (its script has run)."""
        self._loaded = False
        self.send("Page.navigate", url=path.resolve().as_uri())
        while not self._loaded:
            self._record(json.loads(self._socket.recv(timeout=_TIMEOUT_S)))

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression evaluated in the page."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        """The visible viewport as PNG bytes."""
        return base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])


@contextmanager
def chromium_page(width: int = 1200, height: int = 900) -> Iterator[Page]:
    """A fresh headless Chromium with one tab; closed (and its profile removed) afterwards."""
    from websockets.sync.client import connect

    if CHROMIUM is None:
        raise RuntimeError(MISSING_CHROMIUM)
    with tempfile.TemporaryDirectory(prefix="report-browser-") as profile:
        process = subprocess.Popen(
            [
                CHROMIUM,
                *_FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        drain: threading.Thread | None = None
        try:
            port = _devtools_port(process)
            drain = threading.Thread(target=_drain, args=(process,), daemon=True)
            drain.start()
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT"
            )
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as reply:
                target = json.load(reply)
            with connect(
                target["webSocketDebuggerUrl"], max_size=None, open_timeout=_TIMEOUT_S
            ) as socket:
                yield Page(socket)
        finally:
            process.kill()
            process.wait(timeout=_TIMEOUT_S)
            if drain is not None:
                drain.join(timeout=_TIMEOUT_S)
            if process.stderr is not None:
                process.stderr.close()


def _devtools_port(process: subprocess.Popen[str]) -> int:
    assert process.stderr is not None
    for line in process.stderr:
        if "DevTools listening on ws://" in line:
            address = line.split("ws://", 1)[1]
            return int(address.split("/", 1)[0].rsplit(":", 1)[1])
    raise RuntimeError(f"chromium exited ({process.wait()}) before opening its DevTools port")


def _drain(process: subprocess.Popen[str]) -> None:
    """Read what Chromium goes on writing to stderr, so a full pipe never blocks it."""
    assert process.stderr is not None
    for _ in process.stderr:
        pass
