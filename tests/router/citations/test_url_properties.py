"""Properties of normalize_url and dedup_key that must hold for any input (hypothesis)."""

from __future__ import annotations

from random import Random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.provisional import domains

from router.citations import TRACKING_PARAMETERS, dedup_key, normalize_url

# Pieces that exercise every rule: escapes good and bad, dot segments, text fragments,
# authorities with ports and credentials, IDNA, controls, lone surrogates.
_PIECES = [
    "/", "?", "#", "&", "=", "%", "%2", "%41", "%7e", "%2E", "%2F", "%zz", ":~:", "..", ".",
    "@", ":", "[", "]", "::1", "www.", "b.com", " ", "\t", "\\", "utm_source=x", "é", "\u3002",
    "xn--", "-", "_", "+", "%25", "%3A", "%7E", "\x00", "\x7f", "\ud800", ":80", ":443",
]  # fmt: skip
_url_like = st.tuples(
    st.sampled_from(["http://", "https://", "HTTPS://", "ftp://", "", " "]),
    st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=3)), max_size=20).map("".join),
).map("".join)

_PROPERTY_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@_PROPERTY_SETTINGS
@given(st.one_of(st.text(), _url_like))
def test_normalize_url_never_raises_and_is_idempotent(text: str) -> None:
    """Any string gives None or an ASCII URL that normalises to itself."""
    canonical = normalize_url(text)
    if canonical is not None:
        assert canonical.isascii()
        assert normalize_url(canonical) == canonical


@_PROPERTY_SETTINGS
@given(st.one_of(st.none(), st.integers(), st.binary(), st.lists(st.text())))
def test_normalize_url_never_raises_on_non_strings(value: object) -> None:
    """Anything that is not a string gives None."""
    assert normalize_url(value) is None


_name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).filter(
    lambda name: not name.startswith(("utm_", "mtm_")) and name not in TRACKING_PARAMETERS
)
_value = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._~%2F", max_size=8)
_parameters = st.lists(st.tuples(_name, _value).map("=".join), min_size=0, max_size=6)
_path = st.lists(st.text(alphabet="abcdefghij-_.", min_size=1, max_size=6), max_size=4).map(
    lambda segments: "/" + "/".join(segments)
)
_tracking = st.lists(
    st.tuples(
        st.sampled_from([*sorted(TRACKING_PARAMETERS), "utm_source", "utm_medium", "UTM_Term"]),
        _value,
    ).map("=".join),
    min_size=1,
    max_size=4,
)


def _url(host: str, path: str, parameters: list[str]) -> str:
    query = "&".join(parameters)
    return f"https://{host}{path}" + (f"?{query}" if query else "")


@_PROPERTY_SETTINGS
@given(domains(), _path, _parameters, _tracking, st.randoms(use_true_random=False))
def test_dedup_key_ignores_tracking_parameters(
    host: str, path: str, parameters: list[str], tracking: list[str], random: Random
) -> None:
    """Adding tracking parameters anywhere in the query leaves the dedup key unchanged."""
    mixed = list(parameters)
    for parameter in tracking:
        mixed.insert(random.randint(0, len(mixed)), parameter)
    assert dedup_key(_url(host, path, mixed)) == dedup_key(_url(host, path, parameters))


@_PROPERTY_SETTINGS
@given(domains(), _path, _parameters, st.randoms(use_true_random=False))
def test_dedup_key_ignores_query_order(
    host: str, path: str, parameters: list[str], random: Random
) -> None:
    """Reordering the query parameters leaves the dedup key unchanged."""
    shuffled = list(parameters)
    random.shuffle(shuffled)
    assert dedup_key(_url(host, path, shuffled)) == dedup_key(_url(host, path, parameters))


@_PROPERTY_SETTINGS
@given(domains(), _path, _parameters, st.sampled_from(["http", "https"]), st.booleans())
def test_dedup_key_ignores_scheme_www_and_fragment(
    host: str, path: str, parameters: list[str], scheme: str, www: bool
) -> None:
    """Scheme, a leading www. and the fragment never separate two sources."""
    plain = _url(host, path, parameters)
    variant = plain.replace("https://", f"{scheme}://{'www.' if www else ''}", 1) + "#part"
    assert dedup_key(variant) == dedup_key(plain)
