"""Property tests: random and mutated replies of every provider never make attributions or
verify() raise; every attribution is a span of the content and names a citation; coverage and
support stay in [0, 1]."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from router import extract, verify
from router.types import LLMResponse
from support.emulated import VENDORS
from support.mutations import Corpus, mutated_case
from support.recorded import files_for_vendor, load_final_body
from support.replies import reply_body, require_builder


def _corpus(vendor: str) -> Corpus:
    paths = files_for_vendor(vendor)
    streams = [path for path in paths if path.name.endswith(".sse.txt")]
    return Corpus(
        names=[path.name for path in paths],
        bodies=[json.dumps(load_final_body(path)) for path in paths],
        streams=[(path.name, path.read_text(encoding="utf-8")) for path in streams],
    )


CORPORA = {vendor: _corpus(vendor) for vendor in VENDORS}
_TEXT = st.lists(
    st.one_of(
        st.text(max_size=15),
        st.sampled_from(["[1]", "[2]", "[9]", ". ", "\n\n", "Café ", "東京。", "😀", "- "]),
    ),
    max_size=20,
).map("".join)
_URLS = st.lists(
    st.sampled_from(
        [
            "https://example.org/a",
            "https://www.example.org/a?utm_source=x",
            "https://other.net/b",
            "https://例え.jp/パス",
            "http://[::1",
            "notaurl",
        ]
    ),
    max_size=5,
)


def _check(response: LLMResponse) -> None:
    for each in response.attributions:
        assert 0 <= each["start"] <= each["end"] <= len(response.content)
        assert response.content[each["start"] : each["end"]] == each["text"]
        assert 0 <= each["citation"] < len(response.citations)
        confidence = each["confidence"]
        assert confidence is None or 0.0 <= confidence <= 1.0
    report = verify(response)
    assert 0.0 <= report.coverage <= 1.0
    assert report.support_rate is None or 0.0 <= report.support_rate <= 1.0


@pytest.mark.parametrize("vendor", VENDORS)
@settings(max_examples=60)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_mutated_recorded_replies_give_well_formed_attributions(vendor: str, seed: int) -> None:
    """A mutated recorded reply (or stream) of the vendor: extract and verify hold."""
    case = mutated_case(CORPORA[vendor], f"attributions:{vendor}:{seed}")
    _check(extract(vendor, case.body.decode("utf-8", "surrogatepass")))


@pytest.mark.parametrize("vendor", VENDORS)
@settings(max_examples=60)
@given(text=_TEXT, sources=_URLS)
def test_random_replies_give_well_formed_attributions(
    vendor: str, text: str, sources: list[str]
) -> None:
    """A reply built from random text and sources: extract and verify hold."""
    require_builder(vendor)
    _check(extract(vendor, reply_body(vendor, text, sources)))
