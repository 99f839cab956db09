"""Grounding validation, claim by claim (DESIGN.md section 10).

``verify(response)`` splits the answer into claims, pairs each with the attributions that cite
it, scores each claim against its quoted passages and reports coverage, support, verdicts and
the cited domains; ``GroundingPolicy`` says how grounded an answer must be, and the router
enforces it after the REQUIRED checks (:mod:`router.grounding.enforce`).

Segmentation: ``sentencex`` (Wikimedia's rule-based segmenter, ~300 languages). Compared with
pysbd, syntok, segtok, blingfire, uniseg and NLTK's punkt, it is the one still released
regularly (pysbd, syntok, segtok and blingfire last shipped in 2021-2022), needs no model or
data download (punkt's trained data would be fetched at run time), keeps abbreviations and
decimals ("Dr.", "U.S.", "3.5") inside sentences, ends sentences at CJK and Arabic
terminators (U+3002, U+FF01, U+061F), and gives character offsets. None of them reads markdown, so
:mod:`router.grounding.segment` cuts blocks (code fences, headings, list items) first and
masks inline code and link markers before the segmenter sees the text.

Stemming for the ``lexical`` scorer: PyStemmer (``Stemmer``), the Snowball project's own
stemmers compiled to C, maintained with Snowball's releases. The pure-Python
``snowballstemmer`` gives the same stems but cost 20 times ``extract()`` on replies that quote
many passages; NLTK's Porter stemmer is pure Python too. No model is involved.

The names are loaded on first access, so ``router.types`` can import the report models
(:mod:`router.grounding.report`) without loading the segmenter.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.grounding.enforce import enforce_policy
    from router.grounding.report import (
        Claim,
        GroundingPolicy,
        GroundingReport,
        PolicyRule,
        Verdict,
        Violation,
    )
    from router.grounding.scorers import Scorer, lexical, provider_confidence
    from router.grounding.verification import verify

_EXPORTS: dict[str, str] = {
    "Claim": "router.grounding.report",
    "GroundingPolicy": "router.grounding.report",
    "GroundingReport": "router.grounding.report",
    "PolicyRule": "router.grounding.report",
    "Scorer": "router.grounding.scorers",
    "Verdict": "router.grounding.report",
    "Violation": "router.grounding.report",
    "enforce_policy": "router.grounding.enforce",
    "lexical": "router.grounding.scorers",
    "provider_confidence": "router.grounding.scorers",
    "verify": "router.grounding.verification",
}

__all__ = [
    "Claim",
    "GroundingPolicy",
    "GroundingReport",
    "PolicyRule",
    "Scorer",
    "Verdict",
    "Violation",
    "enforce_policy",
    "lexical",
    "provider_confidence",
    "verify",
]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'router.grounding' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
