"""Internationalised names for people: Unicode beside the ASCII form, in tables and charts."""

from __future__ import annotations

import pytest

from als.chart import suffix_label
from als.names import display_name


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("xn--bcher-kva.de", "bücher.de (xn--bcher-kva.de)"),
        ("xn--p1ai", "рф (xn--p1ai)"),
        ("xn--d1acpjx3f.xn--p1ai", "яндекс.рф (xn--d1acpjx3f.xn--p1ai)"),
        ("bbc.co.uk", "bbc.co.uk"),
        ("xn--broken-.de", "xn--broken-.de"),
    ],
    ids=["idn-domain", "idn-tld", "idn-both", "ascii", "undecodable"],
)
def test_display_name(name: str, shown: str) -> None:
    """An IDN shows in Unicode with its ASCII form beside it; anything else as it is."""
    assert display_name(name) == shown


def test_chart_labels_show_idn_suffixes_in_unicode() -> None:
    """The chart's suffix labels decode internationalised suffixes too."""
    assert suffix_label("xn--p1ai") == ".рф (xn--p1ai)"
    assert suffix_label("co.uk") == ".co.uk"
