"""The ALS report over the hand-written batch output tests/data/als/batch_output.jsonl.

The file holds ten rows and two lines that are not rows (a blank line, a cut-off last line):

| line | vendor / model / country | outcome | citations (redirect-only marked R) |
|---|---|---|---|
| 1 | openai gpt-5 DE | ok | spiegel.de, tagesschau.de, bücher.de, wikipedia.org |
| 2 | openai gpt-5 DE | ok | spiegel.de, reuters.com, bbc.co.uk |
| 3 | openai gpt-5 DE | GroundingRequiredFailedError not_invoked | |
| 4 | vertex gemini-2.5-flash DE | ok | google.com R, google.com R, zeit.de, heise.de |
| 5 | vertex gemini-2.5-flash GB | ok | bbc.co.uk, theguardian.com, ons.gov.uk, google.com R |
| 6 | vertex gemini-2.5-flash GB | ProviderTransientError (429) | |
| 7 | vertex gemini-2.5-flash RU | ok | пример.рф, yandex.ru, wikipedia.org |
| 8 | (bad input line, no request) | RequestValidationError | |
| 9 | openai gpt-5 (no location) | ok | nature.com |
| 10 | vertex gemini-2.5-flash GB | GroundingRequiredFailedError no_citations | |

Every expected number below is counted by hand from this table.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from als.report import ALSReport, GroupReport, build_report
from router.batch.output import error_row, row_text, success_row
from router.citations import make_citation
from router.errors import GroundingRequiredFailedError, ProviderTransientError
from router.types import LLMRequest, LLMResponse
from support.logs import capture_logs

BATCH = Path(__file__).parents[1] / "data" / "als" / "batch_output.jsonl"


def _groups(report: ALSReport) -> dict[str, GroupReport]:
    return {group.label(): group for group in report.groups}


@pytest.fixture(scope="module")
def report() -> ALSReport:
    return build_report(BATCH)


def test_rows_are_counted_by_outcome(report: ALSReport) -> None:
    """Six answered rows, four failed, and one cut-off line that is not a row."""
    assert (report.answered, report.failed, report.rows) == (6, 4, 10)
    assert report.unreadable_lines == 1


def test_default_groups_and_their_order(report: ALSReport) -> None:
    """Rows group by vendor, model and country, sorted, with missing values last."""
    assert report.by == ("vendor", "model", "country")
    assert [group.label() for group in report.groups] == [
        "openai · gpt-5 · DE",
        "openai · gpt-5 · no country",
        "vertex · gemini-2.5-flash · DE",
        "vertex · gemini-2.5-flash · GB",
        "vertex · gemini-2.5-flash · RU",
        "no vendor · no model · no country",
    ]
    assert report.groups[0].values == {"vendor": "openai", "model": "gpt-5", "country": "DE"}


def test_group_counts_and_top_lists(report: ALSReport) -> None:
    """openai/gpt-5/DE: 2 answers, 7 citations on 6 domains, .de first with 4 of 7."""
    group = _groups(report)["openai · gpt-5 · DE"]
    assert (group.responses, group.citations, group.distinct_domains) == (2, 7, 6)
    assert group.top_tlds(2) == [("de", 4, 4 / 7), ("co.uk", 1, 1 / 7)]
    assert group.top_domains(2) == [("spiegel.de", 2, 2 / 7), ("bbc.co.uk", 1, 1 / 7)]
    assert dict(group.tld_counts) == {"de": 4, "co.uk": 1, "com": 1, "org": 1}


def test_own_cctld_share(report: ALSReport) -> None:
    """The German rows of openai cite .de 4 times out of 7 (bücher.de included)."""
    group = _groups(report)["openai · gpt-5 · DE"]
    assert group.own_cctlds == {"de"}
    assert (group.own_cctld_citations, group.own_cctld_base) == (4, 7)
    assert group.own_cctld_share == pytest.approx(4 / 7)


def test_uk_share_counts_every_uk_suffix(report: ALSReport) -> None:
    """For GB, bbc.co.uk and ons.gov.uk are both on .uk: 2 of the 3 known sources."""
    group = _groups(report)["vertex · gemini-2.5-flash · GB"]
    assert dict(group.own_cctld_counts) == {"co.uk": 1, "gov.uk": 1}
    assert group.own_cctld_share == pytest.approx(2 / 3)


def test_idn_cctld_is_own_for_russia(report: ALSReport) -> None:
    """For RU, пример.рф (xn--p1ai) and yandex.ru are both own-ccTLD: 2 of 3."""
    group = _groups(report)["vertex · gemini-2.5-flash · RU"]
    assert dict(group.own_cctld_counts) == {"ru": 1, "xn--p1ai": 1}
    assert group.own_cctlds == {"ru"}
    assert group.own_cctld_share == pytest.approx(2 / 3)


def test_redirect_only_citations_are_counted_apart(report: ALSReport) -> None:
    """Vertex DE: 2 of 4 citations are redirect-only; TLDs and domains hold only the other 2."""
    group = _groups(report)["vertex · gemini-2.5-flash · DE"]
    assert (group.citations, group.redirector_citations) == (4, 2)
    assert group.redirector_share == pytest.approx(0.5)
    assert dict(group.redirector_domain_counts) == {"google.com": 2}
    assert dict(group.tld_counts) == {"de": 2}
    assert dict(group.domain_counts) == {"heise.de": 1, "zeit.de": 1}
    assert group.own_cctld_share == pytest.approx(1.0)


def test_no_country_has_no_own_share(report: ALSReport) -> None:
    """A request without user_location has no own ccTLD: the share is None, not 0."""
    group = _groups(report)["openai · gpt-5 · no country"]
    assert (group.responses, group.citations) == (1, 1)
    assert group.own_cctld_share is None
    assert group.redirector_share == 0.0


def test_failures_by_type_and_reason(report: ALSReport) -> None:
    """Failed rows are counted per group by error type, REQUIRED failures also by reason."""
    groups = _groups(report)
    gb = groups["vertex · gemini-2.5-flash · GB"]
    assert dict(gb.failures) == {"GroundingRequiredFailedError": 1, "ProviderTransientError": 1}
    assert dict(gb.required_failure_reasons) == {"no_citations": 1}
    assert dict(groups["openai · gpt-5 · DE"].required_failure_reasons) == {"not_invoked": 1}
    bad_line = groups["no vendor · no model · no country"]
    assert (bad_line.responses, dict(bad_line.failures)) == (0, {"RequestValidationError": 1})


def test_group_by_vendor_keeps_each_row_against_its_own_country() -> None:
    """By vendor, vertex's own-ccTLD share is 6 of 8: 2/2 for DE, 2/3 for GB, 2/3 for RU."""
    groups = _groups(build_report(BATCH, by=["vendor"]))
    assert list(groups) == ["openai", "vertex", "no vendor"]
    vertex = groups["vertex"]
    assert (vertex.responses, vertex.citations, vertex.redirector_citations) == (3, 11, 3)
    assert (vertex.own_cctld_citations, vertex.own_cctld_base) == (6, 8)
    assert vertex.own_cctlds == {"de", "uk", "ru"}
    assert vertex.failed == 2
    openai = groups["openai"]
    # The answer without a country adds its citation, but not to the own-ccTLD base.
    assert (openai.citations, openai.own_cctld_citations, openai.own_cctld_base) == (8, 4, 7)


def test_group_by_country() -> None:
    """By country, DE gathers both vendors: 3 answers, 11 citations, 6 of 9 on .de."""
    groups = _groups(build_report(BATCH, by=["country"]))
    assert list(groups) == ["DE", "GB", "RU", "no country"]
    de = groups["DE"]
    assert (de.responses, de.citations, de.failed) == (3, 11, 1)
    assert (de.own_cctld_citations, de.own_cctld_base) == (6, 9)
    unlocated = groups["no country"]
    assert (unlocated.responses, dict(unlocated.failures)) == (1, {"RequestValidationError": 1})


def test_no_group_keys_give_one_group() -> None:
    """by=() puts every row in one group labelled "all rows"."""
    report = build_report(BATCH, by=())
    assert [group.label() for group in report.groups] == ["all rows"]
    (group,) = report.groups
    assert (group.responses, group.failed, group.citations, group.redirector_citations) == (
        6,
        4,
        19,
        3,
    )


@pytest.mark.parametrize("by", [["region"], ["vendor", "vendor"]], ids=["unknown", "repeated"])
def test_bad_group_keys_are_refused(by: list[str]) -> None:
    """An unknown or repeated group key raises ValueError naming the problem."""
    with pytest.raises(ValueError, match=r"group key|repeat"):
        build_report(BATCH, by=by)


def test_parsed_rows_give_the_same_report(report: ALSReport) -> None:
    """build_report over rows already parsed equals the report over the file."""
    rows = [json.loads(line) for line in BATCH.read_text(encoding="utf-8").splitlines()[:10]]
    assert build_report(rows).to_dict() == {**report.to_dict(), "unreadable_lines": 0}


def test_missing_file_raises() -> None:
    """A path that does not exist raises FileNotFoundError."""
    with pytest.raises(FileNotFoundError):
        build_report(BATCH.with_name("no-such-file.jsonl"))


def test_to_dict_is_json_with_shares(report: ALSReport) -> None:
    """to_dict is JSON-able, rounds shares to 4 places and cuts the top lists at ``top``."""
    data = json.loads(json.dumps(report.to_dict(top=2)))
    assert (data["rows"], data["answered"], data["failed"], data["unreadable_lines"]) == (
        10,
        6,
        4,
        1,
    )
    gb = data["groups"][3]
    assert gb["key"] == {"vendor": "vertex", "model": "gemini-2.5-flash", "country": "GB"}
    assert gb["top_tlds"] == [
        {"tld": "co.uk", "citations": 1, "share": 0.3333},
        {"tld": "com", "citations": 1, "share": 0.3333},
    ]
    assert gb["own_cctld"] == {
        "tlds": ["uk"],
        "citations": 2,
        "of": 3,
        "share": 0.6667,
        "suffixes": {"co.uk": 1, "gov.uk": 1},
    }
    assert gb["redirector"] == {"citations": 1, "share": 0.25, "domains": {"google.com": 1}}
    assert gb["failures"] == {
        "total": 2,
        "by_type": {"GroundingRequiredFailedError": 1, "ProviderTransientError": 1},
        "required_reasons": {"no_citations": 1},
    }
    assert gb["citations_per_response"] == 4.0


def _request(country: str | None) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": "vertex",
            "model": "gemini-2.5-flash",
            "messages": [{"role": "user", "content": "Wetter?"}],
            "grounded": True,
            "grounding_mode": "REQUIRED",
            "request_id": "q-1",
            "user_location": {"country": country} if country else None,
        }
    )


def test_rows_written_by_the_batch_runner() -> None:
    """Rows built by the batch writer from real citations report like the hand-written ones."""
    redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"
    citations: list[Any] = [
        make_citation(provider="vertex", url=redirect + "1", title="Wetter heute", rank=1),
        make_citation(provider="vertex", url=redirect + "2", title="wetter.de", rank=2),
        make_citation(provider="vertex", url="https://www.dwd.de/DE/wetter", rank=3),
    ]
    response = LLMResponse(
        vendor="vertex", model="gemini-2.5-flash", content="…", citations=citations
    )
    request = _request("DE")
    failure = GroundingRequiredFailedError("no search", reason="not_invoked")
    transient = ProviderTransientError("rate limited", status_code=429)
    rows = [
        success_row(1, request, response),
        error_row(2, "q-2", failure, request),
        error_row(3, "q-3", transient, request),
    ]
    rows = [json.loads(row_text(row)) for row in rows]  # as read back from the file
    (group,) = build_report(rows).groups
    assert group.values == {"vendor": "vertex", "model": "gemini-2.5-flash", "country": "DE"}
    assert (group.citations, group.redirector_citations) == (3, 1)
    assert dict(group.domain_counts) == {"dwd.de": 1, "wetter.de": 1}
    assert group.own_cctld_share == pytest.approx(1.0)
    assert dict(group.failures) == {"GroundingRequiredFailedError": 1, "ProviderTransientError": 1}


def test_file_is_read_streaming(tmp_path: Path) -> None:
    """Building the report over a file of several megabytes never holds more than a small part."""
    row = json.loads(BATCH.read_text(encoding="utf-8").splitlines()[0])
    row["response"]["content"] = "x" * 4000
    line = json.dumps(row) + "\n"
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for _ in range(1500):
            handle.write(line)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        report = build_report(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.answered == 1500
    assert peak < size / 20


def test_report_logs_its_counts() -> None:
    """Building a report emits one als_report_built event with counts and no payload."""
    with capture_logs() as events:
        build_report(BATCH)
    built = [event for event in events if event["event"] == "als_report_built"]
    assert built == [
        {
            "event": "als_report_built",
            "log_level": "info",
            "rows": 10,
            "answered": 6,
            "failed": 4,
            "fanout_rows": 0,
            "groups": 6,
            "unreadable_lines": 1,
        }
    ]


def test_a_directory_of_shards_reads_as_one_file(report: ALSReport, tmp_path: Path) -> None:
    """The shards of ``batch --engine ray`` give the report their merged file would give."""
    lines = BATCH.read_bytes().splitlines(keepends=True)
    (tmp_path / "000001.jsonl").write_bytes(b"".join(lines[:5]))
    (tmp_path / "000002.jsonl").write_bytes(b"".join(lines[5:]))
    (tmp_path / "notes.txt").write_text("not a shard, not read\n")
    assert build_report(tmp_path).to_dict() == report.to_dict()
