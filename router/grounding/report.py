"""The grounding report and policy: the contract part of :mod:`router.grounding`.

These models stand on pydantic alone, so ``router.types`` (``LLMResponse.grounding``,
``LLMRequest.grounding_policy``) and ``router.settings`` can hold them without importing the
segmenter or the scorers.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "Claim",
    "GroundingPolicy",
    "GroundingReport",
    "PolicyRule",
    "Verdict",
    "Violation",
]

Verdict = Literal["supported", "unsupported", "uncited", "unknown"]
PolicyRule = Literal[
    "min_coverage",
    "min_support_rate",
    "min_citations",
    "min_domains",
    "allowed_domains",
    "blocked_domains",
    "max_uncited_claims",
]


@dataclass(frozen=True, slots=True)
class Claim:
    """One sentence of the answer and what backs it.

    ``start``/``end`` are character offsets into ``LLMResponse.content`` (``text`` is that
    slice); ``attributions`` are indices into ``LLMResponse.attributions`` of the attributions
    whose span overlaps the claim; ``support`` is the best score the scorer gave any of their
    passages (None when no attribution had anything to compare with). A dataclass, not a model:
    a report holds one per sentence and building them is most of what ``verify`` costs.
    """

    start: int
    end: int
    text: str
    verdict: Verdict
    attributions: list[int] = field(default_factory=list)
    support: float | None = None


# The slot descriptors of Claim's fields, in order: setting a slot through its descriptor is what
# the dataclass's __init__ does (object.__setattr__, past the frozen __setattr__), minus a
# Python call per field.
_CLAIM_SLOTS: tuple[Any, ...] = tuple(
    getattr(Claim, name).__set__
    for name in ("start", "end", "text", "verdict", "attributions", "support")
)


def claims_of(
    starts: list[int],
    ends: list[int],
    texts: list[str],
    *,
    verdicts: Iterable[Verdict],
    attributions: Iterable[list[int]],
    supports: Iterable[float | None],
) -> list[Claim]:
    """Claims from their fields' columns: what ``Claim(*fields)`` makes of each row.

    A report holds one claim per sentence, and a frozen dataclass's ``__init__`` sets each field
    by a Python-level ``object.__setattr__``: the claims are made empty and each column is
    set through its slot's descriptor in one C-level pass.
    """
    claims: list[Claim] = list(map(object.__new__, repeat(Claim, len(texts))))
    columns = (starts, ends, texts, verdicts, attributions, supports)
    for setter, column in zip(_CLAIM_SLOTS, columns, strict=True):
        deque(map(setter, claims, column), maxlen=0)
    return claims


class Violation(BaseModel):
    """One policy rule the answer broke: what was found against what the policy allows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: PolicyRule
    message: str
    actual: float | int | list[str]
    limit: float | int | list[str]


def _domain_list(value: list[str] | None) -> list[str] | None:
    if value is None:
        return None
    cleaned = [domain.strip().strip(".").lower() for domain in value]
    if any(not domain or any(c.isspace() for c in domain) for domain in cleaned):
        raise ValueError("must be a list of domains such as 'example.com'")
    return cleaned


class GroundingPolicy(BaseModel):
    """How grounded an answer must be (DESIGN.md section 10); every rule unset passes.

    Shares are in [0, 1]. ``allowed_domains`` / ``blocked_domains`` are checked on the cited
    sources' registrable ``source_domain``: a listed domain covers its subdomains.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_coverage: float | None = Field(default=None, ge=0.0, le=1.0)
    min_support_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    min_citations: int | None = Field(default=None, ge=0)
    min_domains: int | None = Field(default=None, ge=0)
    allowed_domains: list[str] | None = None
    blocked_domains: list[str] | None = None
    max_uncited_claims: int | None = Field(default=None, ge=0)
    support_threshold: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="The score from which a claim's passage counts as supporting it.",
    )

    _domains = field_validator("allowed_domains", "blocked_domains")(_domain_list)


class GroundingReport(BaseModel):
    """What :func:`router.grounding.verification` found, claim by claim, and the policy's verdict.

    ``coverage`` is the share of the answer's non-blank characters inside cited claims;
    ``support_rate`` the share of scorable cited claims (verdict ``supported`` or
    ``unsupported``) that are supported, None when there is none. ``unknown`` claims (cited, but
    no passage to compare with) never count as supported. ``violations`` lists the rules of
    ``policy`` that the answer broke (empty when none was set or all passed).
    """

    model_config = ConfigDict(extra="forbid")

    claims: list[Claim] = Field(default_factory=list)
    coverage: float = 0.0
    support_rate: float | None = None
    supported: int = 0
    unsupported: int = 0
    uncited: int = 0
    unknown: int = 0
    citations_cited: int = 0
    cited_domains: list[str] = Field(default_factory=list)
    scorer: str
    support_threshold: float = 0.5
    policy: GroundingPolicy | None = None
    violations: list[Violation] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when no policy rule was broken."""
        return not self.violations
