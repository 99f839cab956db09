"""The HTML report: one self-contained file, nothing fetched, no provider string able to run.

The page is a Jinja2 template with autoescaping on. The overview (counts by vendor, status and
reason, the coverage distribution, the ALS TLD chart, cost by vendor) is drawn by the template
as inline SVG; the rows are data: one JSON document in a ``<script type="application/json">``
element, with ``<``, ``>`` and ``&`` written as JSON escapes so no text in it can close the
element, which the page's own script reads with ``JSON.parse`` and renders a page at a time with
``textContent`` and ``setAttribute`` only (never ``innerHTML``). A link's ``href`` is set only
for an http(s) URL, checked here and again in the page. The Content-Security-Policy allows the
page's one style sheet and one script by their SHA-256 hashes and nothing else: no remote
source, no inline event handler, no other script.

Every provider string is cleaned of control characters and bidirectional overrides
(:func:`router.text.terminal.terminal_safe`) before it is written, so a title cannot reorder the
text around it; very long strings are cut for display, not for links.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from router.render.report_input import InputCounts, ReportRow, iter_report_rows
from router.render.view import (
    VERDICTS,
    answer_segments,
    attribution_verdicts,
    attributions_of,
    citations_of,
    coverage_of,
    is_redirect,
    safe_href,
    verification_summary,
)
from router.text.terminal import terminal_safe

__all__ = [
    "ReportSummary",
    "embedded_json",
    "report_entry",
    "write_report",
    "write_report_file",
    "write_rows_file",
]

_TITLE_CHARS = 300
_PASSAGE_CHARS = 2000
_URL_TEXT_CHARS = 2000
_MESSAGE_CHARS = 2000
_COVERAGE_BINS = 10
_TOP_TLDS = 20


def _clean(text: Any, limit: int | None = None, *, single_line: bool = True) -> str:
    cleaned = terminal_safe(text if isinstance(text, str) else "", single_line=single_line)
    if limit is not None and len(cleaned) > limit:
        cleaned = cleaned[: limit - 1] + "…"
    return cleaned


def report_entry(row: ReportRow) -> dict[str, Any]:
    """The compact view of one row the page's script renders (no provider ``raw`` objects)."""
    entry: dict[str, Any] = {
        "id": _clean(row.request_id, 200),
        "vendor": _clean(row.vendor, 50) or "?",
        "model": _clean(row.model, 100),
        "ok": row.ok,
        "line": row.line,
    }
    if not row.ok or row.response is None:
        error = row.error or {}
        entry["error"] = {
            "type": _clean(error.get("type"), 100) or "error",
            "reason": _clean(error.get("reason"), 100) or None,
            "status": error.get("status_code")
            if isinstance(error.get("status_code"), int)
            else None,
            "message": _clean(error.get("message"), _MESSAGE_CHARS),
        }
        return entry
    response = row.response
    text = response.get("content")
    content = text if isinstance(text, str) else ""
    attributions = attributions_of(response)
    verdicts = attribution_verdicts(response, attributions)
    entry["segments"] = [
        {**piece, "t": terminal_safe(piece["t"])}
        for piece in answer_segments(content, attributions)
    ]
    entry["attributions"] = [
        {
            "c": attribution["citation"],
            "s": attribution["start"],
            "e": attribution["end"],
            "q": _clean(attribution["cited_text"], _PASSAGE_CHARS) or None,
            "v": verdict,
            "f": attribution["confidence"],
        }
        for attribution, verdict in zip(attributions, verdicts, strict=True)
    ]
    entry["sources"] = [_source(citation) for citation in citations_of(response)]
    queries = response.get("web_search_queries")
    entry["queries"] = (
        [_clean(q, 300) for q in queries if isinstance(q, str)] if isinstance(queries, list) else []
    )
    entry["grounded"] = bool(response.get("grounded_effective"))
    entry["verification"] = verification_summary(response)
    if entry["verification"] is not None:
        entry["verification"]["scorer"] = _clean(entry["verification"]["scorer"], 100) or None
        entry["verification"]["violations"] = [
            _clean(v, 300) for v in entry["verification"]["violations"]
        ]
    coverage = coverage_of(response)
    entry["coverage"] = None if coverage is None else round(coverage, 4)
    cost = _cost(response)
    entry["cost"] = None if cost is None else {"total": cost[1], "currency": cost[0]}
    return entry


def _source(citation: Mapping[str, Any]) -> dict[str, Any]:
    url = citation.get("url")
    return {
        "title": _clean(citation.get("title"), _TITLE_CHARS),
        "url": _clean(url, _URL_TEXT_CHARS),
        "href": safe_href(url),
        "domain": _clean(citation.get("source_domain"), 200) or "?",
        "type": _clean(citation.get("source_type"), 20) or None,
        "rank": citation.get("rank") if isinstance(citation.get("rank"), int) else None,
        "cited": bool(citation.get("cited")),
        "redirect": is_redirect(citation),
        "q": _clean(citation.get("cited_text"), _PASSAGE_CHARS) or None,
    }


def _cost(response: Mapping[str, Any]) -> tuple[str, float] | None:
    usage = response.get("usage")
    cost = usage.get("cost") if isinstance(usage, dict) else None
    if not isinstance(cost, dict):
        return None
    total = cost.get("total")
    if not isinstance(total, int | float) or isinstance(total, bool) or not math.isfinite(total):
        return None
    return _clean(cost.get("currency"), 10) or "USD", float(total)


@dataclass
class ReportSummary:
    """The overview of a report's rows, counted as they stream past."""

    rows: int = 0
    ok: int = 0
    by_vendor: Counter[str] = field(default_factory=Counter)
    by_vendor_failed: Counter[str] = field(default_factory=Counter)
    by_reason: Counter[str] = field(default_factory=Counter)
    coverage_bins: list[int] = field(default_factory=lambda: [0] * _COVERAGE_BINS)
    coverage_missing: int = 0
    tlds: Counter[str] = field(default_factory=Counter)
    cost: dict[tuple[str, str], float] = field(default_factory=dict)
    verdicts: Counter[str] = field(default_factory=Counter)
    citations: int = 0

    def add(self, row: ReportRow, entry: Mapping[str, Any]) -> None:
        """Count one row into the overview."""
        from als.als_ambient_utils import extract_tld_counts

        self.rows += 1
        vendor = entry["vendor"]
        self.by_vendor[vendor] += 1
        if not entry["ok"]:
            self.by_vendor_failed[vendor] += 1
            error = entry["error"]
            self.by_reason[error["reason"] or error["type"]] += 1
            return
        self.ok += 1
        coverage = entry["coverage"]
        if coverage is None:
            self.coverage_missing += 1
        else:
            self.coverage_bins[min(int(coverage * _COVERAGE_BINS), _COVERAGE_BINS - 1)] += 1
        citations = citations_of(row.response or {})
        self.citations += len(citations)
        self.tlds.update(extract_tld_counts(citations))
        if entry["cost"] is not None:
            key = (vendor, entry["cost"]["currency"])
            self.cost[key] = self.cost.get(key, 0.0) + entry["cost"]["total"]
        if entry["verification"] is not None:
            self.verdicts.update(entry["verification"]["counts"])


def embedded_json(data: Any) -> str:
    """JSON text safe inside a ``<script type="application/json">`` element.

    ``<``, ``>`` and ``&`` become JSON escapes, so no ``</script>`` or ``<!--`` can appear;
    ``JSON.parse`` gives back the same values.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _asset(name: str) -> str:
    return (resources.files("router.render") / "templates" / name).read_text("utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def _bars(counter: Mapping[str, float], limit: int | None = None) -> list[dict[str, Any]]:
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:limit]
    top = max((value for _, value in ranked), default=0) or 1
    return [{"label": label, "value": value, "share": value / top} for label, value in ranked]


def write_report(rows: Iterable[ReportRow], *, title: str, source: str = "") -> str:
    """The whole HTML page of ``rows``."""
    import jinja2
    from markupsafe import Markup

    summary = ReportSummary()
    entries: list[dict[str, Any]] = []
    for row in rows:
        entry = report_entry(row)
        summary.add(row, entry)
        entries.append(entry)
    style, script = _asset("report.css"), _asset("report.js")
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("router.render", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    coverage_labels = [f"{10 * i}-{10 * (i + 1)}%" for i in range(_COVERAGE_BINS)]
    costs = [
        {"vendor": vendor, "currency": currency, "total": total}
        for (vendor, currency), total in sorted(summary.cost.items())
    ]
    cost_by_vendor = {vendor: total for (vendor, _), total in summary.cost.items()}
    currencies = {currency for _, currency in summary.cost}
    return environment.get_template("report.html.j2").render(
        title=_clean(title, 200),
        source=_clean(source, 500),
        summary=summary,
        vendors=sorted(summary.by_vendor),
        vendor_bars=_bars(summary.by_vendor),
        reason_bars=_bars(summary.by_reason),
        coverage_bars=[
            {"label": label, "value": count, "share": count / (max(summary.coverage_bins) or 1)}
            for label, count in zip(coverage_labels, summary.coverage_bins, strict=True)
        ],
        tld_bars=_bars(summary.tlds, _TOP_TLDS),
        cost_bars=_bars(cost_by_vendor) if len(currencies) == 1 else [],
        costs=costs,
        verdicts=[(verdict, summary.verdicts.get(verdict, 0)) for verdict in VERDICTS],
        batch=summary.rows > 1,
        style=Markup(style),
        script=Markup(script),
        data=Markup(embedded_json({"rows": entries})),
        csp=(
            "default-src 'none'; "
            f"script-src '{_sha256(script)}'; style-src '{_sha256(style)}'; "
            "img-src data:; base-uri 'none'; form-action 'none'"
        ),
    )


def write_report_file(
    source: Path, target: Path, *, title: str | None = None
) -> tuple[InputCounts, int]:
    """Read ``source`` (any accepted file) and write its report to ``target``.

    Returns what reading skipped and how many rows the page holds.
    """
    counts = InputCounts()
    seen = 0

    def counted() -> Iterable[ReportRow]:
        nonlocal seen
        for row in iter_report_rows(source, counts):
            seen += 1
            yield row

    page = write_report(
        counted(), title=title or f"grounding report: {source.name}", source=source.name
    )
    target.write_text(page, encoding="utf-8")
    return counts, seen


def write_rows_file(rows: Iterable[ReportRow], target: Path, *, title: str) -> None:
    """Write the report of rows already in hand (``route --html``, ``compare --html``)."""
    target.write_text(write_report(rows, title=title), encoding="utf-8")
