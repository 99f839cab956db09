"""Citations of supplied documents (``document:<label>``) are counted apart from web sources."""

from __future__ import annotations

from als.als_ambient_utils import (
    extract_document_counts,
    extract_domain_counts,
    extract_tld_counts,
    split_document_citations,
)
from router.citations import make_citation

WEB = make_citation(provider="anthropic", url="https://www.bbc.co.uk/news", cited=True)
MEMO = make_citation(provider="anthropic", url=None, title="Q3 memo", document="Q3 memo")
SECOND = make_citation(provider="anthropic", url=None, document="2")


def test_document_citations_are_not_web_domains() -> None:
    """A document citation adds to no TLD and no domain count."""
    citations = [WEB, MEMO, SECOND, MEMO]
    assert extract_tld_counts(citations) == {"uk": 1}
    assert extract_domain_counts(citations) == {"bbc.co.uk": 1}


def test_document_citations_are_counted_by_label() -> None:
    """Documents are counted per document: label, most cited first."""
    assert extract_document_counts([WEB, MEMO, SECOND, MEMO]) == {
        "document:Q3-memo": 2,
        "document:2": 1,
    }


def test_split_keeps_web_and_documents_apart() -> None:
    """split_document_citations gives (web, documents) in their order."""
    assert split_document_citations([MEMO, WEB, SECOND]) == ([WEB], [MEMO, SECOND])
