"""Share trackers seen in real answers: LinkedIn's and the ``src_trk`` email tracker.

OpenAI answers cite pages with the query a share or mailing left on them
(``https://openai.com/api/?src_trk=em662f...``, ``?trk=...``); ClearURLs' LinkedIn rules
(``refId``, ``trk``, ``li[a-z]{2}``, ``trackingId``) name the ones LinkedIn adds to its own links.
A page cited under such queries is one source, not several.
"""

from __future__ import annotations

import pytest

from router.citations import dedup_key, dedupe_citations, make_citation, normalize_url
from router.citations.tracking import SITE_TRACKING_PARAMETERS, TRACKING_PARAMETERS

# The openai.com URL has the form the issue quotes (https://openai.com/api/?src_trk=em662f...;
# the rest of its value is filler of that form); the bls.gov and anthropic.com URLs are quoted
# as answers with web search cited them, in public documents. src_trk is em<hex>.<digits>.
SHARED = [
    (
        "https://openai.com/api/?src_trk=em662f0b2f4c3c71.12345678901234567",
        "https://openai.com/api/",
    ),
    (
        "https://www.bls.gov/ooh/computer-and-information-technology/software-developers.htm"
        "?src_trk=em660a36e03bd628.190663611969543673",
        "https://www.bls.gov/ooh/computer-and-information-technology/software-developers.htm",
    ),
    (
        "https://www.anthropic.com/news/claude-opus-5?src_trk=em67d16f9bd6e9e5.43146414656243079"
        "&utm_source=chatgpt.com",
        "https://www.anthropic.com/news/claude-opus-5",
    ),
    ("https://openai.com/api/?trk=public_post-text&src_trk=em1.2", "https://openai.com/api/"),
]
LINKEDIN = [
    (
        "https://www.linkedin.com/posts/openai_abc?trk=public_profile&trackingId=xyz%3D%3D",
        "https://www.linkedin.com/posts/openai_abc",
    ),
    (
        "https://www.linkedin.com/in/someone?lipi=urn%3Ali%3Apage&lici=q1&refId=r2",
        "https://www.linkedin.com/in/someone",
    ),
    (
        "https://www.linkedin.com/jobs/view/123?trkInfo=a&trkEmail=b&currentJobId=123",
        "https://www.linkedin.com/jobs/view/123?currentJobId=123",
    ),
]


@pytest.mark.parametrize(("url", "expected"), SHARED, ids=["openai", "bls", "anthropic", "both"])
def test_src_trk_and_trk_are_removed_everywhere(url: str, expected: str) -> None:
    """``src_trk`` (an email share tracker) and ``trk`` leave the canonical URL on any host."""
    assert normalize_url(url) == expected


@pytest.mark.parametrize(("url", "expected"), LINKEDIN, ids=["posts", "profile", "jobs"])
def test_linkedin_share_trackers_are_removed_on_linkedin(url: str, expected: str) -> None:
    """LinkedIn's trackers (trackingId, lipi, lici, refId, trkInfo, trkEmail) leave its URLs."""
    assert normalize_url(url) == expected


@pytest.mark.parametrize("name", ["trackingId", "lipi", "refId", "lici"])
def test_linkedin_names_stay_on_other_sites(name: str) -> None:
    """The LinkedIn-only names are ordinary names elsewhere, so other sites keep them."""
    url = f"https://example.com/a?{name}=7"
    assert normalize_url(url) == url


def test_one_page_under_three_share_queries_is_one_citation() -> None:
    """The same page cited bare, with ``trk`` and with ``src_trk`` dedupes to one citation."""
    urls = [
        "https://openai.com/api/",
        "https://openai.com/api/?trk=public_post",
        "https://openai.com/api/?src_trk=em662f0b2f4c3c71.12345678901234567",
    ]
    citations = [
        make_citation(provider="openai", url=url, rank=rank, cited=True)
        for rank, url in enumerate(urls, 1)
    ]
    kept = dedupe_citations([c for c in citations if c is not None])
    assert [c["url"] for c in kept] == ["https://openai.com/api/"]
    assert len({dedup_key(url) for url in urls}) == 1


def test_each_new_name_says_who_sets_it() -> None:
    """The new names are in the data, global or LinkedIn's, each with its source."""
    assert "src_trk" in TRACKING_PARAMETERS
    assert {"trackingid", "lipi", "lici", "refid", "trkinfo", "trkemail"} <= {
        name.lower() for name in SITE_TRACKING_PARAMETERS["linkedin.com"]
    }
