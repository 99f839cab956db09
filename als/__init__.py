"""Ambient Location Signals: TLD and domain counts over the sources grounded answers rest on.

``als.als_ambient_utils`` counts over a list of citations; ``als.report`` builds the per-group
report over a batch output file; ``als.table`` and ``als.chart`` show it (rich, matplotlib).
"""

from als.als_ambient_utils import (
    cctld_for_country,
    extract_domain_counts,
    extract_redirector_counts,
    extract_tld_counts,
    is_redirect_citation,
    split_redirect_citations,
)
from als.report import ALSReport, GroupReport, build_report

__all__ = [
    "ALSReport",
    "GroupReport",
    "build_report",
    "cctld_for_country",
    "extract_domain_counts",
    "extract_redirector_counts",
    "extract_tld_counts",
    "is_redirect_citation",
    "split_redirect_citations",
]
