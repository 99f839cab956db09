"""The price book: built-in tables, a user's price file laid over them, and what gets no cost."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from adapters.registry import PROVIDERS, ProviderRow
from router.errors import ConfigurationError
from router.pricing import Metered, parse_price_file, search_units
from router.respond import builtin_prices, load_prices
from router.types import Usage
from support.logs import capture_logs

USAGE = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
SEARCHED = Metered(USAGE, tool_calls=2, queries=["a", "b"])


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "row",
    [row for row in PROVIDERS.values() if row.price_file() is not None],
    ids=lambda row: row.vendor,
)
def test_builtin_price_file_is_dated_and_sourced(row: ProviderRow) -> None:
    """A provider's price file prices its vendor, with a date and its sources in comments."""
    resource = row.price_file()
    assert resource is not None
    text = resource.read_text("utf-8")
    prices = parse_price_file(text, source=str(resource))[row.vendor]
    assert prices.as_of is not None
    date.fromisoformat(prices.as_of)
    assert prices.models
    assert prices.search_fees
    assert re.search(r"^# Sources", text, re.MULTILINE)
    assert re.search(r"^#.*https://", text, re.MULTILINE)


def test_a_user_file_replaces_adds_and_keeps(tmp_path: Path) -> None:
    """Named models are replaced, new ones added, the rest and the search fees kept."""
    path = write(
        tmp_path,
        """
        [openai.models]
        "gpt-5" = { input_per_mtok = 1.0, output_per_mtok = 2.0 }
        "my-finetune" = { input_per_mtok = 3.0, output_per_mtok = 4.0, aliases = ["ft:mine"] }
        """,
    )
    book = load_prices(path)
    gpt5 = book.cost("openai", ["gpt-5"], SEARCHED)
    assert gpt5 is not None
    assert (gpt5.tokens, gpt5.searches) == pytest.approx((3.0, 0.02))
    mine = book.cost("openai", ["ft:mine"], SEARCHED)
    assert mine is not None
    assert (mine.priced_as, mine.tokens) == ("my-finetune", pytest.approx(7.0))
    kept = book.cost("openai", ["gpt-4o"], SEARCHED)
    assert kept is not None
    assert kept.tokens == pytest.approx(12.5)
    assert kept.prices_as_of == builtin_prices()["openai"].as_of


def test_a_user_file_can_replace_search_fees_and_currency(tmp_path: Path) -> None:
    """Search fees given in the user file replace the vendor's; so does its currency."""
    path = write(
        tmp_path,
        """
        [vertex]
        currency = "EUR"
        as_of = "2027-01-01"
        [[vertex.search_fees]]
        unit = "query"
        per_1k = 5.0
        """,
    )
    cost = load_prices(path).cost("vertex", ["gemini-2.5-flash"], SEARCHED)
    assert cost is not None
    assert (cost.currency, cost.prices_as_of, cost.search_unit) == ("EUR", "2027-01-01", "query")
    assert (cost.search_units, cost.searches) == (2, pytest.approx(0.01))


def test_the_router_reads_the_price_file_setting(tmp_path: Path) -> None:
    """GROUNDING_ROUTER_PRICES names the user file the router's price book lays over."""
    from router.router import UnifiedLLMAdapter
    from router.settings import RouterSettings

    path = write(tmp_path, '[openai.models]\n"gpt-5" = { input_per_mtok = 0, output_per_mtok = 0 }')
    settings = RouterSettings(_env_file=None, prices=path)  # type: ignore[call-arg]
    cost = UnifiedLLMAdapter(settings).prices.cost("openai", ["gpt-5"], SEARCHED)
    assert cost is not None
    assert cost.tokens == 0


def test_the_price_file_setting_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The setting is GROUNDING_ROUTER_PRICES."""
    from router.settings import RouterSettings

    monkeypatch.setenv("GROUNDING_ROUTER_PRICES", str(tmp_path / "p.toml"))
    assert RouterSettings(_env_file=None).prices == tmp_path / "p.toml"  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[openai.models\n", "not valid TOML"),
        ('[openai.models]\n"gpt-5" = { input_per_mtok = 1 }', "models.gpt-5.output_per_mtok"),
        ('[openai.models]\n"gpt-5" = { input = 1, output_per_mtok = 1 }', "gpt-5.input"),
        ('[openai.models]\n"gpt-5" = { input_per_mtok = -1, output_per_mtok = 1 }', "greater"),
        ('[[openai.search_fees]]\nunit = "page"\nper_1k = 1', "openai.search_fees.0.unit"),
        ('[opnai.models]\n"gpt-5" = { input_per_mtok = 1, output_per_mtok = 1 }', "'opnai'"),
        ("openai = 3", "must be a table"),
    ],
    ids=["toml", "missing", "unknown_key", "negative", "unit", "vendor", "not_a_table"],
)
def test_a_malformed_user_file_is_a_configuration_error(
    tmp_path: Path, text: str, fragment: str
) -> None:
    """A user file that cannot price correctly is refused, naming the file and the place."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigurationError) as caught:
        load_prices(path)
    assert fragment in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_missing_user_file_is_a_configuration_error_at_router_construction(
    tmp_path: Path,
) -> None:
    """A price file that cannot be read stops the router from being built, saying which."""
    from router.router import UnifiedLLMAdapter
    from router.settings import RouterSettings

    settings = RouterSettings(_env_file=None, prices=tmp_path / "none.toml")  # type: ignore[call-arg]
    with pytest.raises(ConfigurationError, match=r"none\.toml: cannot be read"):
        UnifiedLLMAdapter(settings)


def test_an_unknown_model_has_no_cost_and_one_warning_per_model() -> None:
    """No price: cost None, and a single price_unknown warning per vendor and model."""
    book = load_prices()
    with capture_logs() as logs:
        for _ in range(3):
            assert book.cost("openai", ["gpt-unknown"], SEARCHED) is None
        assert book.cost("openai", ["gpt-other"], SEARCHED) is None
        assert book.cost("vertex", ["gpt-unknown"], SEARCHED) is None
    warned = [(log["vendor"], log["model"]) for log in logs if log["event"] == "price_unknown"]
    assert warned == [("openai", "gpt-unknown"), ("openai", "gpt-other"), ("vertex", "gpt-unknown")]
    assert all(log["log_level"] == "warning" for log in logs)


def test_a_reported_cost_is_taken_as_it_is() -> None:
    """A cost the provider states (Perplexity's usage.cost) is used, not estimated."""
    usage = Usage(
        input_tokens=8, output_tokens=178, reported_cost=0.00519, reported_search_cost=0.005
    )
    cost = load_prices().cost("openai", ["no-such-model"], Metered(usage))
    assert cost is not None
    assert (cost.total, cost.searches, cost.estimated) == (0.00519, 0.005, False)
    assert cost.tokens == pytest.approx(0.00019)


def test_long_prompts_use_the_long_context_prices() -> None:
    """Above the model's threshold every token is priced at the long-context rates."""
    book = load_prices()
    short = Metered(Usage(input_tokens=200_000, output_tokens=1_000))
    long = Metered(Usage(input_tokens=200_001, output_tokens=1_000))
    short_cost = book.cost("vertex", ["gemini-2.5-pro"], short)
    long_cost = book.cost("vertex", ["gemini-2.5-pro"], long)
    assert short_cost is not None
    assert long_cost is not None
    assert short_cost.tokens == pytest.approx(200_000 * 1.25e-6 + 1_000 * 10e-6)
    assert long_cost.tokens == pytest.approx(200_001 * 2.50e-6 + 1_000 * 15e-6)


def test_cached_input_without_a_cached_price_is_priced_as_input() -> None:
    """A model with no cached input price bills its cached tokens at the input price."""
    usage = Usage(input_tokens=1_000_000, cached_input_tokens=400_000, output_tokens=0)
    cost = load_prices().cost("vertex", ["gemini-2.0-flash"], Metered(usage))
    assert cost is not None
    assert cost.tokens == pytest.approx(0.10)


def test_counts_the_reply_did_not_report_count_as_zero() -> None:
    """A reply without usage is priced on its searches alone."""
    cost = load_prices().cost("openai", ["gpt-5"], Metered(Usage(), tool_calls=1))
    assert cost is not None
    assert (cost.tokens, cost.searches) == (0.0, pytest.approx(0.01))


@pytest.mark.parametrize(
    ("unit", "metered", "units"),
    [
        ("call", Metered(USAGE, tool_calls=3, queries=["a"]), 3),
        ("query", Metered(USAGE, tool_calls=1, queries=["a", " a ", "", "b"]), 2),
        ("grounded_prompt", Metered(USAGE, tool_calls=1, queries=["a", "b"]), 1),
        ("grounded_prompt", Metered(USAGE, tool_calls=1, queries=["", " "]), 0),
        ("query", Metered(USAGE, tool_calls=0, queries=[]), 0),
    ],
    ids=["calls", "distinct_queries", "one_prompt", "no_query_no_prompt", "nothing"],
)
def test_search_units(unit: str, metered: Metered, units: int) -> None:
    """Calls count every tool call, queries the distinct non-empty ones, prompts at most one."""
    assert search_units(unit, metered) == units  # type: ignore[arg-type]
