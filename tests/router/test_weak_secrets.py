"""Redaction never rewrites provider content for a weak secret (a short value or an ordinary
word such as the emulator block's old ``test`` keys), and still removes strong ones everywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from router.emulator import Emulator
from router.text.redaction import is_strong_secret
from support.emulated import MODELS, cli_environment

_VENDORS = ("openai", "vertex", "gemini", "anthropic", "perplexity", "openrouter")
_KEY_SETTINGS = (
    "OPENAI_API_KEY",
    "GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN",
    "GEMINI_API_KEY",
    "PERPLEXITY_API_KEY",
    "OPENROUTER_API_KEY",
    "ANTHROPIC_API_KEY",
)


@pytest.mark.parametrize(
    ("value", "strong", "why"),
    [
        ("test", False, "an ordinary word"),
        ("dummy-key", False, "shorter than 16 characters"),
        ("testtesttesttest", False, "16 characters, but 2 bits a character"),
        ("aaaaaaaaaaaaaaaaaaaaaaaa", False, "long and constant"),
        ("sk-emu-5c0d9a7e31b2f846", True, "the emulator's key: random hex after a prefix"),
        ("AIzaSyA-1234567890abcdefghijklmnopqrstu", True, "a Google API key's shape"),
        ("f3Kq9ZpL2xWm7RtB", True, "16 random base-62 characters"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 30 else None,
)
def test_secret_strength(value: str, strong: bool, why: str) -> None:
    """A secret is strong only when it is long and random enough that no text holds it by chance."""
    assert is_strong_secret(value) is strong, why


def _run(script: str) -> subprocess.CompletedProcess[str]:
    """``script`` in a fresh interpreter, so the secrets it registers stay out of this one."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_weak_key_never_rewrites_answers_queries_or_search_suggestions() -> None:
    """With every key set to ``test``, every vendor's answer, search queries and Vertex's Search
    Suggestions HTML keep the word ``test`` as the provider wrote it."""
    result = _run(
        """
        import json
        from pydantic import SecretStr
        from router.emulator import Emulator
        from router.unified_llm_adapter import UnifiedLLMAdapter
        from support.emulated import emulator_settings, grounded_request

        weak = SecretStr("test")
        keys = {f: weak for f in ("openai_api_key", "vertex_access_token", "gemini_api_key",
                "perplexity_api_key", "openrouter_api_key", "anthropic_api_key")}
        out = {}
        with Emulator() as emulator, UnifiedLLMAdapter(emulator_settings(emulator, **keys)) as r:
            for vendor in VENDORS:
                response = r.route(grounded_request(vendor, "latest test cricket"))
                out[vendor] = response.model_dump(mode="json")
        print(json.dumps(out))
        """.replace("VENDORS", repr(_VENDORS))
    )
    assert result.returncode == 0, result.stderr
    responses = json.loads(result.stdout)
    for vendor, response in responses.items():
        text = json.dumps(response)
        assert "[REDACTED]" not in text, vendor
        assert "latest test cricket" in response["content"], vendor
        queries = response["web_search_queries"]
        assert not queries or "latest test cricket" in queries, vendor  # Perplexity names none
    entry_point = responses["vertex"]["search_entry_point"]
    assert entry_point
    assert "latest test cricket" in entry_point


def test_weak_key_is_still_redacted_where_secrets_travel() -> None:
    """A weak secret is removed from error messages, headers and URLs as a whole token, never
    from inside a longer word, and a warning names the setting that holds it, once."""
    result = _run(
        """
        import logging, sys
        from router.errors import ProviderRequestError
        from router.text.redaction import redact_text, register_secret
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(message)s")
        register_secret("test", name="OPENAI_API_KEY")
        register_secret("test", name="OPENAI_API_KEY")
        print(redact_text("GET /v1/models?key=test HTTP/1.1; x-api-key: test; latest tests"))
        print(redact_text("latest test cricket", shapes=False))
        print(ProviderRequestError("invalid api key 'test' for the latest model").message)
        """
    )
    assert result.returncode == 0, result.stderr
    url_line, content_line, error_line = result.stdout.splitlines()
    assert url_line == "GET /v1/models?key=[REDACTED] HTTP/1.1; x-api-key: [REDACTED]; latest tests"
    assert content_line == "latest test cricket"
    assert error_line == "invalid api key '[REDACTED]' for the latest model"
    warnings = [line for line in result.stderr.splitlines() if "weak_secret" in line]
    assert len(warnings) == 1
    assert "OPENAI_API_KEY" in warnings[0]
    assert "'test'" not in warnings[0]


def test_strong_key_is_redacted_from_answers_too() -> None:
    """A strong secret, and any 8-character run of it, is removed from provider content as well."""
    result = _run(
        """
        from router.text.redaction import redact_text, register_secret
        register_secret("sk-live-7Hq2Lx9Vw4Zc8Np3", name="OPENAI_API_KEY")
        print(redact_text("your key is sk-live-7Hq2Lx9Vw4Zc8Np3, or ...Lx9Vw4Zc8N", shapes=False))
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "your key is [REDACTED], or ...[REDACTED]"


def test_batch_rows_keep_a_weak_keys_word(tmp_path: Path) -> None:
    """A batch run with every key set to ``test`` writes the answers' ``test`` unchanged."""
    source = tmp_path / "in.jsonl"
    rows = [
        {
            "request_id": vendor,
            "vendor": vendor,
            "model": MODELS[vendor],
            "grounded": True,
            "messages": [{"role": "user", "content": "latest test cricket"}],
        }
        for vendor in ("openai", "vertex")
    ]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    output = tmp_path / "out.jsonl"
    with Emulator() as emulator:
        environment = {**cli_environment(emulator), **dict.fromkeys(_KEY_SETTINGS, "test")}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "router.cli",
                "batch",
                str(source),
                "-o",
                str(output),
                "--no-progress",
            ],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    written = [json.loads(line) for line in output.read_text().splitlines()]
    assert len(written) == 2
    for row in written:
        assert "[REDACTED]" not in json.dumps(row)
        assert "latest test cricket" in row["response"]["content"]
