"""Providers and proxies that echo the credential back: the router's errors never carry it.

Each reply of ``tests/data/secret_echoes.json`` quotes the sentinel key (OpenAI) or access
token (Vertex) the request was sent with, in an error message, an HTML page or the first
characters of a body that cannot be parsed. The router's error keeps its type and reason, and
neither its message, its fields nor ``to_dict()`` hold the secret.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import router.errors as router_errors
from router.emulator import Emulator
from router.errors import RouterError
from router.unified_llm_adapter import UnifiedLLMAdapter
from support.emulated import VENDORS, emulator_settings, grounded_request
from support.secret_watch import SENTINEL_OPENAI_KEY, SENTINEL_VERTEX_TOKEN, sentinel_findings

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "secret_echoes.json").read_text(encoding="utf-8")
)
SECRETS = {"openai": SENTINEL_OPENAI_KEY, "vertex": SENTINEL_VERTEX_TOKEN}


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    # One attempt: each row's reply is served once, and a retry would get a normal answer.
    with UnifiedLLMAdapter(emulator_settings(emulator, max_attempts=1)) as built:
        yield built


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_echoed_secret_stays_out_of_the_error(
    row: dict[str, Any], vendor: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """The error keeps its type and reason and holds no trace of the echoed credential."""
    body = row[vendor].replace("{secret}", SECRETS[vendor])
    emulator.enqueue_reply(
        vendor, body.encode(), status=row["status"], content_type=row["content_type"]
    )
    with pytest.raises(RouterError) as caught:
        router.route(grounded_request(vendor, f"echo test {row['id']}"))
    error = caught.value
    assert type(error) is getattr(router_errors, row["error"])
    assert error.reason == row["reason"]
    assert sentinel_findings(error) == []
