"""Claims built from their fields' columns are the claims ``Claim(...)`` makes: same fields,
equality, repr, immutability and pickling."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from router.grounding import Claim
from router.grounding.report import claims_of

ROWS = [
    Claim(0, 5, "Paris", "uncited"),
    Claim(6, 20, "It has a river.", "supported", [0, 2], 0.75),
    Claim(21, 30, "东京是首都。", "unknown", [1], None),
]


def _columns() -> list[Claim]:
    return claims_of(
        [claim.start for claim in ROWS],
        [claim.end for claim in ROWS],
        [claim.text for claim in ROWS],
        verdicts=[claim.verdict for claim in ROWS],
        attributions=[list(claim.attributions) for claim in ROWS],
        supports=[claim.support for claim in ROWS],
    )


def test_claims_from_columns_equal_the_constructed_ones() -> None:
    built = _columns()
    assert built == ROWS
    assert [repr(claim) for claim in built] == [repr(claim) for claim in ROWS]
    assert [dataclasses.asdict(claim) for claim in built] == [
        dataclasses.asdict(claim) for claim in ROWS
    ]
    assert pickle.loads(pickle.dumps(built)) == ROWS


def test_claims_from_columns_stay_frozen() -> None:
    claim = _columns()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.start = 3  # type: ignore[misc]
