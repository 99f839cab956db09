"""Serialised responses and batch rows for report and terminal-block tests, and the bench.

``grounded_response`` holds attributions (several per place, overlapping places), cited
passages and a verification report as DESIGN section 10 shapes them; ``spans_only_response``
is what a file written before attributions existed holds. ``hostile_response`` carries what a
page or a terminal must never act on in every string a provider controls. ``batch_rows`` makes
batch output rows, answers and failures, over several vendors.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CANARY",
    "HOSTILE_STRINGS",
    "batch_rows",
    "grounded_response",
    "hostile_response",
    "spans_only_response",
]

CONTENT = (
    "The Zugspitze is 2,962 m high. It lies on the border of Bavaria and Tyrol. "
    "A rack railway climbs it — and a cable car."
)


def _citation(rank: int, url: str, domain: str, title: str, **extra: Any) -> dict[str, Any]:
    return {
        "provider": "vertex",
        "url": url,
        "source_domain": domain,
        "title": title,
        "snippet": None,
        "source_type": "web",
        "rank": rank,
        "raw": {},
        "spans": [],
        "cited": True,
        "cited_text": None,
        "location": None,
        **extra,
    }


def _span(content: str, text: str) -> dict[str, Any]:
    start = content.index(text)
    return {"start": start, "end": start + len(text), "text": text}


def grounded_response(request_id: str = "zugspitze", vendor: str = "vertex") -> dict[str, Any]:
    """A verified answer: three sources, four attributions (two on one sentence), claims."""
    first, second, third = (
        "The Zugspitze is 2,962 m high.",
        "It lies on the border of Bavaria and Tyrol.",
        "A rack railway climbs it — and a cable car.",
    )
    citations = [
        _citation(
            1,
            "https://en.wikipedia.org/wiki/Zugspitze",
            "wikipedia.org",
            "Zugspitze - Wikipedia",
            cited_text="The Zugspitze, at 2,962 m above sea level, is the highest peak",
        ),
        _citation(
            2,
            "https://www.zugspitze.de/en",
            "zugspitze.de",
            "Zugspitze: Top of Germany",
            cited_text="on the border between Bavaria and Tyrol",
        ),
        _citation(
            3,
            "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC",
            "bergfex.com",
            "Zugspitzbahn",
            raw={"redirect": True},
        ),
        _citation(
            4, "https://www.example.org/searched", "example.org", "Only searched", cited=False
        ),
    ]
    attributions = [
        {
            **_span(CONTENT, first),
            "citation": 0,
            "cited_text": citations[0]["cited_text"],
            "location": None,
            "confidence": 0.93,
        },
        {
            **_span(CONTENT, second),
            "citation": 0,
            "cited_text": None,
            "location": None,
            "confidence": 0.5,
        },
        {
            **_span(CONTENT, second),
            "citation": 1,
            "cited_text": citations[1]["cited_text"],
            "location": None,
            "confidence": 0.88,
        },
        {
            **_span(CONTENT, "A rack railway climbs it"),
            "citation": 2,
            "cited_text": None,
            "location": None,
            "confidence": None,
        },
    ]
    claims = [
        {**_span(CONTENT, first), "attributions": [0], "support": 0.9, "verdict": "supported"},
        {
            **_span(CONTENT, second),
            "attributions": [1, 2],
            "support": 0.2,
            "verdict": "unsupported",
        },
        {**_span(CONTENT, third), "attributions": [3], "support": None, "verdict": "unknown"},
    ]
    return {
        "schema_version": 2,
        "request_id": request_id,
        "vendor": vendor,
        "model": "gemini-2.5-flash",
        "content": CONTENT,
        "grounded_effective": True,
        "web_search_queries": ["Zugspitze height"],
        "citations": citations,
        "attributions": attributions,
        "grounding": {
            "claims": claims,
            "coverage": 0.81,
            "support_rate": 0.5,
            "counts": {"supported": 1, "unsupported": 1, "uncited": 0, "unknown": 1},
            "scorer": "lexical",
        },
        "usage": {"cost": {"tokens": 0.001, "searches": 0.035, "total": 0.036, "currency": "USD"}},
    }


def spans_only_response(request_id: str = "spans-only", vendor: str = "openai") -> dict[str, Any]:
    """A response as saved before attributions existed: spans on the citations only."""
    response = grounded_response(request_id, vendor)
    del response["attributions"], response["grounding"]
    response["citations"][0]["spans"] = [_span(CONTENT, "The Zugspitze is 2,962 m high.")]
    response["citations"][1]["spans"] = [_span(CONTENT, "Bavaria and Tyrol")]
    return response


CANARY = "__reportCanary"
HOSTILE_STRINGS = [
    f"<script>window.{CANARY}=1</script>",
    f'"><img src=x onerror="window.{CANARY}=1">',
    f"</script><script>window.{CANARY}=2</script>",
    f"</style><style>body{{display:none}}</style><svg onload=window.{CANARY}=3>",
    "\x1b]8;;https://evil.example/\x1b\\forged link\x1b]8;;\x1b\\ \x1b[31mred\x1b[0m \x9b2J",
    "\u202egnp.exe\u202c \u2066isolated\u2069 \u200fmark",
    "<!-- {{ 7*7 }} ${7*7} &lt;b&gt; &amp; -->",
]
HOSTILE_URLS = [
    f"javascript:window.{CANARY}=4",
    f"JaVaScRiPt:window.{CANARY}=5",
    f"data:text/html,<script>window.{CANARY}=6</script>",
    f'https://ok.example/"onmouseover="window.{CANARY}=7',
    "https://evil.example/\x1b]0;title\x07path",
]


def hostile_response(request_id: str = "hostile") -> dict[str, Any]:
    """Every provider string hostile, a 100 KB title and passage, URLs of other schemes."""
    joined = " ".join(HOSTILE_STRINGS)
    content = f"{joined} Claim one. {joined} Claim two."
    huge = "W" * 100_000
    citations = [
        _citation(
            index + 1,
            url,
            f"{HOSTILE_STRINGS[index % len(HOSTILE_STRINGS)]}.example",
            HOSTILE_STRINGS[index % len(HOSTILE_STRINGS)] + (huge if index == 0 else ""),
            cited_text=joined + (huge if index == 1 else ""),
            snippet=joined,
            raw={"redirect": index == 2},
        )
        for index, url in enumerate(HOSTILE_URLS)
    ]
    one, two = _span(content, "Claim one."), _span(content, "Claim two.")
    attributions = [
        {**one, "citation": index, "cited_text": joined, "location": None, "confidence": None}
        for index in range(len(citations))
    ] + [{**two, "citation": 0, "cited_text": None, "location": None, "confidence": None}]
    return {
        "request_id": f"{request_id}{HOSTILE_STRINGS[0]}",
        "vendor": "openai",
        "model": HOSTILE_STRINGS[1],
        "content": content,
        "grounded_effective": True,
        "web_search_queries": HOSTILE_STRINGS,
        "citations": citations,
        "attributions": attributions,
        "grounding": {
            "claims": [{**one, "attributions": [0], "support": 0.1, "verdict": "unsupported"}],
            "coverage": 0.1,
            "support_rate": 0.0,
            "counts": {"supported": 0, "unsupported": 1, "uncited": 0, "unknown": 0},
            "scorer": HOSTILE_STRINGS[0],
            "violations": HOSTILE_STRINGS[:2],
        },
    }


VENDORS = ("openai", "vertex", "anthropic", "perplexity")


def batch_rows(count: int) -> list[dict[str, Any]]:
    """``count`` batch output rows: every fifth a failure, vendors in turn."""
    rows: list[dict[str, Any]] = []
    for number in range(count):
        vendor = VENDORS[number % len(VENDORS)]
        request_id = f"row-{number:05d}"
        request = {"vendor": vendor, "model": "m", "grounded": True, "grounding_mode": "AUTO"}
        if number % 5 == 4:
            rows.append(
                {
                    "request_id": request_id,
                    "ok": False,
                    "line": number + 1,
                    "request": request,
                    "error": {
                        "type": "GroundingRequiredFailedError",
                        "message": "the model did not search",
                        "reason": "no_search" if number % 2 else "no_citations",
                        "vendor": vendor,
                        "model": "m",
                        "request_id": request_id,
                        "status_code": None,
                    },
                }
            )
            continue
        response = (
            grounded_response(request_id, vendor)
            if number % 3
            else spans_only_response(request_id, vendor)
        )
        rows.append(
            {
                "request_id": request_id,
                "ok": True,
                "line": number + 1,
                "request": request,
                "response": response,
            }
        )
    return rows
