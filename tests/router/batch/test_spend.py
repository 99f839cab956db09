"""What a batch spent: per vendor and model, rejected answers included, unpriced ones apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.base import AdapterResult
from router import LLMRequest, RouterSettings, UnifiedLLMAdapter
from router.batch import LocalEngine, run_batch
from router.batch.spend import Spend, SpendLedger
from router.types import Usage
from support.citations import domain_citation

M = 1e-6
# gemini-2.5-flash: 1,000 input at $0.30 and 100 output at $2.50 per million, plus one grounded
# prompt at $35 per 1,000 when the reply lists a search query.
TOKENS = 1_000 * 0.30 * M + 100 * 2.50 * M
PROMPT = 0.035


class MeteredAdapter:
    """Answers every prompt with the same usage; 'nosearch' answers without searching."""

    vendor = "vertex"

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        raise NotImplementedError("the batch runner is async")

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        usage = Usage(input_tokens=1_000, output_tokens=100)
        if "nosearch" in request.messages[-1].content:
            return AdapterResult(content="from memory", usage=usage)
        return AdapterResult(
            content="grounded",
            grounded_effective=True,
            tool_call_count=1,
            web_search_queries=["q"],
            citations=[domain_citation("example.com")],
            usage=usage,
        )

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass


def line(prompt: str, request_id: str, model: str = "gemini-2.5-flash") -> str:
    return json.dumps(
        {
            "request_id": request_id,
            "vendor": "vertex",
            "model": model,
            "messages": [{"role": "user", "content": prompt}],
            "grounded": True,
            "grounding_mode": "REQUIRED",
        }
    )


@pytest.fixture
def summary(tmp_path: Path) -> dict[str, object]:
    source = tmp_path / "in.jsonl"
    lines = [line(f"question {n}", f"ok{n}") for n in range(3)]
    lines += [line("nosearch", "rejected"), line("q", "unpriced", model="gemini-unlisted")]
    lines += ['{"broken"']
    source.write_text("\n".join(lines) + "\n")
    router = UnifiedLLMAdapter(
        RouterSettings(_env_file=None),  # type: ignore[call-arg]
        adapters={"vertex": MeteredAdapter()},  # type: ignore[dict-item]
    )
    result = run_batch(source, tmp_path / "out.jsonl", engine=LocalEngine(router=router))
    return result.to_dict()["cost"]  # type: ignore[no-any-return]


def test_summary_totals_per_model(summary: dict[str, object]) -> None:
    """Three grounded answers and one rejected answer are priced; their sum is the total."""
    by_model = {entry["model"]: entry for entry in summary["by_model"]}  # type: ignore[attr-defined]
    priced = by_model["gemini-2.5-flash"]
    assert (priced["responses"], priced["unpriced"], priced["currency"]) == (4, 0, "USD")
    assert priced["tokens"] == pytest.approx(4 * TOKENS)
    assert priced["searches"] == pytest.approx(3 * PROMPT)
    assert priced["total"] == pytest.approx(4 * TOKENS + 3 * PROMPT)


def test_unpriced_answers_are_counted_apart(summary: dict[str, object]) -> None:
    """An answer whose model has no price adds to unpriced, never to a total."""
    by_model = {entry["model"]: entry for entry in summary["by_model"]}  # type: ignore[attr-defined]
    assert by_model["gemini-unlisted"]["unpriced"] == 1
    assert by_model["gemini-unlisted"]["currency"] is None
    assert summary["unpriced_responses"] == 1


def test_summary_totals_per_vendor_and_currency(summary: dict[str, object]) -> None:
    """The vendor total and the run total agree; the bad input line cost nothing."""
    (vendor,) = summary["by_vendor"]  # type: ignore[misc]
    (total,) = summary["totals"]  # type: ignore[misc]
    assert (vendor["vendor"], vendor["responses"], vendor["unpriced"]) == ("vertex", 4, 1)
    assert vendor["total"] == total["total"] == pytest.approx(4 * TOKENS + 3 * PROMPT)
    assert total["currency"] == "USD"


def test_ledger_keeps_models_of_one_name_apart_by_vendor() -> None:
    """The same model name under two vendors is two entries."""
    ledger = SpendLedger()
    ledger.add(Spend("openai", "m", "USD", 1.0, 0.5, 1.5))
    ledger.add(Spend("vertex", "m", "USD", 2.0, 0.0, 2.0))
    summary = ledger.summary()
    totals = [(entry["vendor"], entry["total"]) for entry in summary.by_model]
    assert totals == [("openai", 1.5), ("vertex", 2.0)]
    assert summary.totals[0]["total"] == 3.5
