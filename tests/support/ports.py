"""A loopback address where connections are refused at once."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def refusing_base_url() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a port bound but not listening: every connect is refused.

    Keeping the socket bound (rather than closing it) means no other process can take the port
    while the test runs.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}"


@contextmanager
def refusing_proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``HTTP_PROXY`` names a proxy that refuses every connection; ``NO_PROXY`` is unset."""
    with refusing_base_url() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        yield
