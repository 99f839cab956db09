"""The tracking parameter data: complete against ClearURLs, and its kept names really kept."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from router.citations import normalize_url
from router.citations.tracking import (
    KEPT_PARAMETERS,
    SITE_TRACKING_PARAMETERS,
    TRACKING_PARAMETERS,
)

ROOT = Path(__file__).parents[3]
CLEARURLS = json.loads((ROOT / "tests" / "data" / "clearurls_excerpt.json").read_text("utf-8"))
# Named by the spec or by real share links: each must be removed.
REQUIRED = (
    "igshid",
    "spm",
    "_hsenc",
    "_hsmi",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "wickedid",
    "yclid",
    "ttclid",
    "twclid",
    "li_fat_id",
    "s_cid",
    "srsltid",
)


def _comparison_script() -> ModuleType:
    path = ROOT / "scripts" / "tracking_vs_clearurls.py"
    spec = importlib.util.spec_from_file_location("tracking_vs_clearurls", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COMPARISON = _comparison_script()
RULES = list(COMPARISON.rules_to_compare(CLEARURLS))


@pytest.mark.parametrize(("where", "rule", "site"), RULES, ids=[r[1] for r in RULES])
def test_every_clearurls_rule_is_removed_or_kept_on_purpose(
    where: str, rule: str, site: str
) -> None:
    """Each ClearURLs global and per-site rule compared has an entry: removed, or kept with why."""
    assert COMPARISON.verdict(rule, site) != "MISSING"


@pytest.mark.parametrize("name", REQUIRED)
def test_required_names_are_removed_everywhere(name: str) -> None:
    """Every tracking name the spec lists is removed on any host."""
    assert name in TRACKING_PARAMETERS
    assert normalize_url(f"https://example.com/a?{name}=x&id=7") == "https://example.com/a?id=7"


@pytest.mark.parametrize("site", ["youtube.com", "youtu.be", "spotify.com"])
def test_share_id_si_is_removed_on_its_sites(site: str) -> None:
    """`si`, the YouTube and Spotify share id, is one of those sites' parameters."""
    assert "si" in SITE_TRACKING_PARAMETERS[site]
    assert normalize_url(f"https://www.{site}/x?si=abc") == f"https://www.{site}/x"


@pytest.mark.parametrize("name", sorted(KEPT_PARAMETERS))
def test_kept_names_survive_normalisation(name: str) -> None:
    """The names kept on purpose (ref, source, id, ...) stay in the canonical URL."""
    url = f"https://example.com/a?{name}=1"
    assert normalize_url(url) == url


def test_kept_and_removed_names_do_not_overlap() -> None:
    """No name is both removed everywhere and kept on purpose."""
    assert not KEPT_PARAMETERS & TRACKING_PARAMETERS
