"""TLD, domain and redirector counts over citation lists, from tests/data/als/*.json."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import idna
import pytest

from als.als_ambient_utils import (
    cctld_for_country,
    citation_host,
    country_tlds,
    counts_under_tlds,
    extract_domain_counts,
    extract_redirector_counts,
    extract_tld_counts,
    is_redirect_citation,
    split_redirect_citations,
    top_level_label,
)
from als.cctlds import IDN_CCTLDS
from router.citations import public_suffix

DATA = Path(__file__).parents[1] / "data" / "als"
CITATIONS = json.loads((DATA / "citations.json").read_text(encoding="utf-8"))["rows"]
COUNTRIES = json.loads((DATA / "countries.json").read_text(encoding="utf-8"))

by_row = pytest.mark.parametrize("row", CITATIONS, ids=[row["id"] for row in CITATIONS])


def _as_objects(citations: list[Any]) -> list[Any]:
    """The same citations with attribute access instead of keys (other entries unchanged)."""
    return [SimpleNamespace(**entry) if isinstance(entry, dict) else entry for entry in citations]


@by_row
def test_tld_counts(row: dict[str, Any]) -> None:
    """extract_tld_counts(level="suffix") gives the hand-counted citations per public suffix."""
    assert extract_tld_counts(row["citations"], level="suffix") == row["tlds"]


@by_row
def test_domain_counts(row: dict[str, Any]) -> None:
    """extract_domain_counts gives the hand-counted citations per registrable domain."""
    assert extract_domain_counts(row["citations"]) == row["domains"]


@by_row
def test_redirector_counts(row: dict[str, Any]) -> None:
    """extract_redirector_counts counts only the redirect-only citations, per redirector."""
    assert extract_redirector_counts(row["citations"]) == row["redirectors"]


@by_row
def test_counts_with_redirects(row: dict[str, Any]) -> None:
    """include_redirects=True adds the redirectors' own domains to both counts."""
    citations = row["citations"]
    assert extract_tld_counts(citations, include_redirects=True, level="suffix") == row.get(
        "tlds_with_redirects", row["tlds"]
    )
    assert extract_domain_counts(citations, include_redirects=True) == row.get(
        "domains_with_redirects", row["domains"]
    )


@by_row
def test_objects_count_like_dicts(row: dict[str, Any]) -> None:
    """Citations read by attribute give the same counts as the same citations as dicts."""
    objects = _as_objects(row["citations"])
    assert extract_tld_counts(objects, level="suffix") == row["tlds"]
    assert extract_domain_counts(objects) == row["domains"]
    assert extract_redirector_counts(objects) == row["redirectors"]


def test_tld_counts_count_top_level_domains_by_default() -> None:
    """The spec counts TLDs: co.uk and gov.uk are both uk; level="suffix" keeps them apart."""
    citations = [
        {"source_domain": "bbc.co.uk"},
        {"source_domain": "gov.uk"},
        {"source_domain": "example.com"},
        {"source_domain": "xn--bcher-kva.de"},
        {"source_domain": "xn--d1acpjx3f.xn--p1ai"},
    ]
    assert extract_tld_counts(citations) == {"uk": 2, "com": 1, "de": 1, "xn--p1ai": 1}
    assert extract_tld_counts(citations, level="tld") == extract_tld_counts(citations)
    assert extract_tld_counts(citations, level="suffix") == {
        "co.uk": 1,
        "com": 1,
        "de": 1,
        "gov.uk": 1,
        "xn--p1ai": 1,
    }


def test_unknown_tld_level_is_refused() -> None:
    """A level other than "tld" or "suffix" is a ValueError, not a silent default."""
    with pytest.raises(ValueError, match="level"):
        extract_tld_counts([], level="label")  # type: ignore[arg-type]


def test_redirect_flag_on_an_object_raw() -> None:
    """A raw given as an object with redirect=True alone (older output) marks a redirector."""
    citation = SimpleNamespace(source_domain="google.com", raw=SimpleNamespace(redirect=True))
    assert is_redirect_citation(citation)
    assert extract_tld_counts([citation]) == {}
    assert extract_redirector_counts([citation]) == {"google.com": 1}


def test_redirect_link_with_a_known_domain_counts_as_its_source() -> None:
    """A redirect link whose true domain is known (redirect_only false) counts under it."""
    citation = {"source_domain": "nytimes.com", "raw": {"redirect": True, "redirect_only": False}}
    assert not is_redirect_citation(citation)
    assert extract_domain_counts([citation]) == {"nytimes.com": 1}
    assert extract_redirector_counts([citation]) == {}


def test_redirect_only_flag_marks_an_unknown_source() -> None:
    """redirect_only true is a redirect-only citation, counted apart."""
    citation = {"source_domain": "google.com", "raw": {"redirect": True, "redirect_only": True}}
    assert is_redirect_citation(citation)
    assert extract_domain_counts([citation]) == {}


def test_split_keeps_entries_and_order() -> None:
    """split_redirect_citations returns the same entries, in order, in two lists."""
    citations = next(row for row in CITATIONS if row["id"] == "vertex-redirect-only")["citations"]
    true_source, redirector = split_redirect_citations(citations)
    assert true_source == [citations[2]]
    assert redirector == [citations[0], citations[1]]
    assert all(a is b for a, b in zip(redirector, citations[:2], strict=True))


def test_counts_are_ranked_most_cited_first() -> None:
    """Counts come most cited first, ties in name order."""
    citations = [
        {"source_domain": "spiegel.de"},
        {"source_domain": "zeit.de"},
        {"source_domain": "example.org"},
        {"source_domain": "bbc.co.uk"},
        {"source_domain": "bbc.co.uk"},
    ]
    assert list(extract_tld_counts(citations, level="suffix")) == ["co.uk", "de", "org"]
    assert list(extract_tld_counts(citations)) == ["de", "uk", "org"]
    assert list(extract_domain_counts(citations)) == [
        "bbc.co.uk",
        "example.org",
        "spiegel.de",
        "zeit.de",
    ]


def test_a_generator_is_counted_once_through() -> None:
    """Any iterable of citations works, a generator included."""
    citations = ({"source_domain": name} for name in ("a.de", "b.de", "c.fr"))
    assert extract_tld_counts(citations) == {"de": 2, "fr": 1}


@pytest.mark.parametrize(
    "citations",
    [None, 42, "bbc.co.uk", b"bbc.co.uk", {"source_domain": "bbc.co.uk"}],
    ids=["none", "number", "string", "bytes", "one-dict"],
)
def test_non_lists_give_empty_counts(citations: Any) -> None:
    """Something that is not a list of citations gives empty counts, not an error."""
    assert extract_tld_counts(citations) == {}
    assert extract_domain_counts(citations) == {}
    assert split_redirect_citations(citations) == ([], [])


def test_an_attribute_that_raises_is_skipped() -> None:
    """A citation object whose attribute raises is skipped like any odd entry."""

    class Hostile:
        @property
        def source_domain(self) -> str:
            raise RuntimeError("boom")

        url = "https://www.spiegel.de/x"

    assert extract_tld_counts([Hostile(), {"source_domain": "zeit.de"}]) == {"de": 2}


def test_citation_host_prefers_source_domain() -> None:
    """citation_host returns source_domain when usable, else the url, else None."""
    assert citation_host({"source_domain": "bbc.co.uk", "url": "https://x.org/"}) == "bbc.co.uk"
    assert citation_host({"source_domain": "", "url": "https://x.org/"}) == "https://x.org/"
    assert citation_host({"title": "nothing"}) is None


@pytest.mark.parametrize(
    ("suffix", "label"),
    [("com", "com"), ("co.uk", "uk"), ("gov.uk", "uk"), ("xn--p1ai", "xn--p1ai"), ("a.b.c", "c")],
)
def test_top_level_label(suffix: str, label: str) -> None:
    """top_level_label is the last label of a public suffix."""
    assert top_level_label(suffix) == label


def test_counts_under_tlds_takes_every_suffix_of_the_tld() -> None:
    """counts_under_tlds keeps uk, co.uk and gov.uk for {uk}, and neither com nor co.ua."""
    counts = {"co.uk": 3, "uk": 1, "gov.uk": 2, "com": 5, "co.ua": 1, "xn--p1ai": 4}
    assert counts_under_tlds(counts, {"uk"}) == {"co.uk": 3, "uk": 1, "gov.uk": 2}
    assert counts_under_tlds(counts, {"ru", "xn--p1ai"}) == {"xn--p1ai": 4}
    assert counts_under_tlds(counts, set()) == {}


_CCTLD_ROWS = COUNTRIES["cctld_for_country"]
_TLDS_ROWS = COUNTRIES["country_tlds"]


@pytest.mark.parametrize("row", _CCTLD_ROWS, ids=[row["id"] for row in _CCTLD_ROWS])
def test_cctld_for_country(row: dict[str, Any]) -> None:
    """cctld_for_country maps ISO-2 codes to their ccTLD, with GB -> uk, else None."""
    assert cctld_for_country(row["input"]) == row["expected"]


@pytest.mark.parametrize("row", _TLDS_ROWS, ids=[row["id"] for row in _TLDS_ROWS])
def test_country_tlds(row: dict[str, Any]) -> None:
    """country_tlds lists a country's ccTLD and its IDN ccTLDs in ASCII form."""
    assert country_tlds(row["input"]) == frozenset(row["expected"])


@pytest.mark.parametrize("country", sorted(IDN_CCTLDS))
def test_idn_cctld_table_is_delegated(country: str) -> None:
    """Every IDN ccTLD in the table is a delegated suffix, in ASCII, of a country with a ccTLD."""
    assert cctld_for_country(country) is not None
    for tld in IDN_CCTLDS[country]:
        assert tld.startswith("xn--")
        assert idna.encode(idna.decode(tld)).decode("ascii") == tld
        suffix = public_suffix(f"example.{tld}")
        assert suffix is not None
        assert top_level_label(suffix) == tld
