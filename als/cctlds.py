"""Which top-level domains are a country's own: ISO 3166-1 alpha-2 code to country-code TLDs.

Most countries' ASCII ccTLD is their code, lowercased; ``CCTLD_EXCEPTIONS`` lists the others.
``IDN_CCTLDS`` lists the internationalized ccTLDs (Russia's .рф is ``xn--p1ai``), in the ASCII
form public suffixes are counted in. Its rows follow the ICANN section of the Public Suffix List,
whose comments name the country of each IDN ccTLD; a test checks every one is a delegated suffix.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["CCTLD_EXCEPTIONS", "IDN_CCTLDS"]

# The United Kingdom uses .uk; .gb is delegated but closed to registrations. Codes with no
# delegated TLD at all (BL, BQ, EH, MF, UM, XK) need no row: the Public Suffix List says so.
CCTLD_EXCEPTIONS: Mapping[str, str] = {"GB": "uk"}

IDN_CCTLDS: Mapping[str, tuple[str, ...]] = {
    "AE": ("xn--mgbaam7a8h",),
    "AM": ("xn--y9a3aq",),
    "BD": ("xn--54b7fta0cc",),
    "BG": ("xn--90ae",),
    "BH": ("xn--mgbcpq6gpa1a",),
    "BY": ("xn--90ais",),
    "CN": ("xn--fiqs8s", "xn--fiqz9s"),
    "DZ": ("xn--lgbbat1ad8j",),
    "EG": ("xn--wgbh1c",),
    "EU": ("xn--e1a4c", "xn--qxa6a"),
    "GE": ("xn--node",),
    "GR": ("xn--qxam",),
    "HK": ("xn--j6w193g",),
    "IL": ("xn--4dbrk0ce",),
    "IN": (
        "xn--2scrj9c",
        "xn--3hcrj9c",
        "xn--45br5cyl",
        "xn--45brj9c",
        "xn--fpcrj9c3d",
        "xn--gecrj9c",
        "xn--h2breg3eve",
        "xn--h2brj9c",
        "xn--h2brj9c8c",
        "xn--mgbbh1a",
        "xn--mgbbh1a71e",
        "xn--mgbgu82a",
        "xn--rvc1e0am3e",
        "xn--s9brj9c",
        "xn--xkc2dl3a5ee0h",
    ),
    "IQ": ("xn--mgbtx2b",),
    "IR": ("xn--mgba3a4f16a", "xn--mgba3a4fra"),
    "JO": ("xn--mgbayh7gpa",),
    "KR": ("xn--3e0b707e",),
    "KZ": ("xn--80ao21a",),
    "LA": ("xn--q7ce6a",),
    "LK": ("xn--fzc2c9e2c", "xn--xkc2al3hye2a"),
    "MA": ("xn--mgbc0a9azcg",),
    "MK": ("xn--d1alf",),
    "MN": ("xn--l1acc",),
    "MO": ("xn--mix082f", "xn--mix891f"),
    "MR": ("xn--mgbah1a3hjkrd",),
    "MY": ("xn--mgbx4cd0ab",),
    "OM": ("xn--mgb9awbf",),
    "PK": ("xn--mgbai9a5eva00b", "xn--mgbai9azgqp6j"),
    "PS": ("xn--ygbi2ammx",),
    "QA": ("xn--wgbl6a",),
    "RS": ("xn--90a3ac",),
    "RU": ("xn--p1ai",),
    "SA": ("xn--mgberp4a5d4a87g", "xn--mgberp4a5d4ar", "xn--mgbqly7c0a67fbc", "xn--mgbqly7cvafr"),
    "SD": ("xn--mgbpl2fh",),
    "SG": ("xn--clchc0ea0b2g2a9gcd", "xn--yfro4i67o"),
    "SY": ("xn--mgbtf8fl", "xn--ogbpf8fl"),
    "TH": ("xn--o3cw4h",),
    "TN": ("xn--pgbs0dh",),
    "TW": ("xn--kprw13d", "xn--kpry57d", "xn--nnx388a"),
    "UA": ("xn--j1amh",),
    "YE": ("xn--mgb2ddes",),
}
