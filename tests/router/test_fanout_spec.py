"""``FanoutResult.to_spec()`` and ``compare --json --spec``: the multi-provider seed's shape.

Top level: ``citations`` (one per cited source: ``canonical_url``, ``domains``,
``providers_cited``, ``title``) and ``providers`` (``{provider, citations}`` per vendor asked,
in request order, with that provider's own citation list).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from router.aggregate import aggregate
from router.citations import make_citation
from router.cli import main
from router.emulated import emulated_environment
from router.emulator import Emulator
from router.errors import ProviderTransientError, RouterError
from router.fanout import FanoutResult
from router.types import Citation, LLMResponse

REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ{}"
SPEC_CITATION_KEYS = {"canonical_url", "domains", "providers_cited", "title"}


def response(vendor: str, citations: list[Citation]) -> LLMResponse:
    return LLMResponse(vendor=vendor, model="m", content="", citations=citations)  # type: ignore[arg-type]


def cite(vendor: str, url: str, rank: int, *, cited: bool = True, **extra: Any) -> Citation:
    citation = make_citation(provider=vendor, url=url, rank=rank, cited=cited, **extra)  # type: ignore[arg-type]
    assert citation is not None
    return citation


def fanout(outcomes: dict[str, LLMResponse | RouterError]) -> FanoutResult:
    return FanoutResult(outcomes=outcomes, aggregate=aggregate(outcomes))


def bbc_answers() -> dict[str, LLMResponse | RouterError]:
    """Vertex asked first (a bbc.co.uk redirect titled by its domain), then OpenAI and Anthropic."""
    return {
        "vertex": response(
            "vertex", [cite("vertex", REDIRECT.format("bbc"), 1, title="bbc.co.uk")]
        ),
        "openai": response(
            "openai",
            [
                cite("openai", "http://www.bbc.co.uk/news", 1, title="BBC News - Home"),
                cite("openai", "https://example.org/seen", 2, cited=False),
            ],
        ),
        "anthropic": response(
            "anthropic", [cite("anthropic", "https://bbc.co.uk/news?utm_source=x", 2)]
        ),
        "perplexity": ProviderTransientError("server error", status_code=500, vendor="perplexity"),
    }


def the_bbc_entry(spec: dict[str, Any]) -> dict[str, Any]:
    (entry,) = [c for c in spec["citations"] if "bbc.co.uk" in (c["canonical_url"] or "")]
    return dict(entry)


def test_spec_has_exactly_the_seed_keys() -> None:
    """Top level citations and providers; each citation exactly the four seed keys."""
    spec = fanout(bbc_answers()).to_spec()
    assert set(spec) == {"citations", "providers"}
    assert spec["citations"]
    assert all(set(entry) == SPEC_CITATION_KEYS for entry in spec["citations"])
    assert all(set(row) == {"provider", "citations"} for row in spec["providers"])


def test_spec_providers_are_a_list_in_request_order_with_their_own_citations() -> None:
    """providers[i] follows the vendors asked, each with its own citation list (failed: empty)."""
    answers = bbc_answers()
    spec = fanout(answers).to_spec()
    assert [row["provider"] for row in spec["providers"]] == [
        "vertex",
        "openai",
        "anthropic",
        "perplexity",
    ]
    openai = answers["openai"]
    assert isinstance(openai, LLMResponse)
    assert spec["providers"][1]["citations"] == json.loads(json.dumps(openai.citations))
    assert spec["providers"][3]["citations"] == []


def test_spec_forces_https_when_the_http_form_was_cited() -> None:
    """OpenAI cited http://www.bbc.co.uk/news: the canonical_url is its https form."""
    assert the_bbc_entry(fanout(bbc_answers()).to_spec())["canonical_url"] == (
        "https://www.bbc.co.uk/news"
    )


def test_spec_domains_are_every_hostname_seen_under_the_entry() -> None:
    """bbc.co.uk (Vertex's redirect's true domain, Anthropic) and www.bbc.co.uk (OpenAI)."""
    assert the_bbc_entry(fanout(bbc_answers()).to_spec())["domains"] == [
        "bbc.co.uk",
        "www.bbc.co.uk",
    ]


def test_spec_providers_cited_follow_the_request_order() -> None:
    """Vertex was asked first, so it comes first, though its link joined by domain."""
    assert the_bbc_entry(fanout(bbc_answers()).to_spec())["providers_cited"] == [
        "vertex",
        "openai",
        "anthropic",
    ]


def test_spec_title_prefers_a_real_title_to_a_domain_like_one() -> None:
    """Vertex's 'bbc.co.uk' loses to OpenAI's page title, though Vertex ranks and asks first."""
    assert the_bbc_entry(fanout(bbc_answers()).to_spec())["title"] == "BBC News - Home"


def test_spec_title_is_the_domain_like_one_when_nothing_better_exists() -> None:
    """A redirect entry titled only by its domain keeps that title."""
    spec = fanout(
        {
            "vertex": response(
                "vertex", [cite("vertex", REDIRECT.format("w"), 1, title="wikipedia.org")]
            )
        }
    ).to_spec()
    (entry,) = spec["citations"]
    assert entry["title"] == "wikipedia.org"
    assert entry["canonical_url"] == REDIRECT.format("w")


def test_spec_lists_cited_sources_only() -> None:
    """A page one provider only found in search is in its own list, not in the citations."""
    spec = fanout(bbc_answers()).to_spec()
    assert all(entry["providers_cited"] for entry in spec["citations"])
    assert "https://example.org/seen" not in [c["canonical_url"] for c in spec["citations"]]
    assert any(c["url"] == "https://example.org/seen" for c in spec["providers"][1]["citations"])


def test_the_default_shape_is_unchanged() -> None:
    """to_dict() keeps the richer shape: its version, providers by vendor, aggregate entries."""
    data = fanout(bbc_answers()).to_dict()
    assert set(data) == {"schema_version", "providers", "aggregate"}
    assert set(data["providers"]) == {"vertex", "openai", "anthropic", "perplexity"}
    assert "entries" in data["aggregate"]


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """A fresh emulator, and the CLI's environment pointing every vendor at it."""
    with Emulator() as running:
        for name, value in emulated_environment(running).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "1")
        yield running


@pytest.mark.usefixtures("emulator")
def test_compare_json_spec_prints_the_seed_shape(capsys: pytest.CaptureFixture[str]) -> None:
    """compare --json --spec prints to_spec(): providers in --vendors order, seed keys only."""
    assert main(["compare", "What is the capital of France?", "--vendors", "vertex,openai",
                 "--json", "--spec"]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"citations", "providers"}
    assert [row["provider"] for row in data["providers"]] == ["vertex", "openai"]
    assert data["citations"]
    assert all(set(entry) == SPEC_CITATION_KEYS for entry in data["citations"])
