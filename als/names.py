"""Domain names for people: internationalised ones in Unicode beside their ASCII (punycode) form.

Counts and JSON keep the ASCII form (``xn--bcher-kva.de``), which is what the citations carry
and what compares exactly; tables and charts show ``bücher.de (xn--bcher-kva.de)`` so a reader
recognises the name. A name that does not decode is shown as it is.
"""

from __future__ import annotations

import idna

__all__ = ["display_name"]

_ACE_PREFIX = "xn--"


def display_name(name: str) -> str:
    """``bücher.de (xn--bcher-kva.de)`` for an IDN, ``рф (xn--p1ai)`` for an IDN TLD, else as is."""
    if _ACE_PREFIX not in name.lower():
        return name
    try:
        unicode = idna.decode(name)
    except (idna.IDNAError, UnicodeError, ValueError):
        return name
    return name if unicode == name else f"{unicode} ({name})"
