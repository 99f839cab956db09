"""The price book: every provider's built-in price table, with a user's price file laid over.

Each provider package may ship a ``prices.toml``; its section named after the vendor holds the
vendor's prices. The tables are handed in (:func:`router.respond.load_prices` reads them through
the provider registry), so pricing stands below the adapters and imports none of them. A user file
(``GROUNDING_ROUTER_PRICES``) in the same format adds models and replaces the ones it names; its
``search_fees``, when given, replace the vendor's. The user file is read in pieces, never past
``MAX_PRICE_FILE_BYTES``: a larger file, a device or a FIFO that never ends, bytes that are not
UTF-8 and anything the file's parser refuses are one ``ConfigurationError`` naming the file (and
the field or line). A model the book cannot price gets no cost
and one ``price_unknown`` warning per vendor and model for the life of the book (the router's),
never an error.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from router.errors import ConfigurationError
from router.logging import get_logger
from router.pricing.estimate import Metered, estimate_cost, reported_cost
from router.pricing.names import find_model
from router.pricing.table import VendorPrices, merge_prices, parse_price_file
from router.types import Cost

__all__ = ["MAX_PRICE_FILE_BYTES", "PriceBook", "read_user_prices"]

log = get_logger(__name__)

_PRICED_MEMO_SIZE = 1_024
# The most a user's price file may hold: a price table is a few kilobytes.
MAX_PRICE_FILE_BYTES = 1024 * 1024
_PIECE = 64 * 1024


class PriceBook:
    """Prices per vendor and the estimate of a reply's cost; safe to share between threads."""

    def __init__(self, tables: Mapping[str, VendorPrices]) -> None:
        self._tables = dict(tables)
        self._names = {vendor: _name_index(prices) for vendor, prices in self._tables.items()}
        self._warned: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        # Which table name prices the names a reply gives: asked on every call, and replies of a
        # process name a handful of models. Names come from replies, so the memo is bounded.
        self._priced: dict[tuple[str, tuple[str | None, ...]], str | None] = {}

    @classmethod
    def load(
        cls,
        builtin: Mapping[str, VendorPrices],
        vendors: Collection[str],
        user_file: Path | None = None,
    ) -> PriceBook:
        """The ``builtin`` prices, with ``user_file`` laid over them when given.

        ``vendors`` are the vendors a user file may name.
        """
        tables = dict(builtin)
        if user_file is not None:
            for vendor, prices in read_user_prices(user_file, vendors).items():
                tables[vendor] = merge_prices(tables.get(vendor), prices)
        return cls(tables)

    def prices(self, vendor: str) -> VendorPrices | None:
        """The vendor's prices, or None when it has none."""
        return self._tables.get(vendor)

    def priced_as(self, vendor: str, names: Sequence[str | None]) -> str | None:
        """The table name that prices the first of ``names`` the vendor's table knows."""
        key = (vendor, tuple(names))
        try:
            return self._priced[key]
        except KeyError:
            pass
        found = self._find(vendor, names)
        if len(self._priced) >= _PRICED_MEMO_SIZE:
            self._priced.clear()
        self._priced[key] = found
        return found

    def _find(self, vendor: str, names: Sequence[str | None]) -> str | None:
        index = self._names.get(vendor, {})
        for name in names:
            if name:
                found = find_model(name, index)
                if found is not None:
                    return found
        return None

    def cost(self, vendor: str, names: Sequence[str | None], metered: Metered) -> Cost | None:
        """The cost of one reply: reported by the provider, else estimated, else None.

        ``names`` are the model names to price by, in order (the model the reply says answered,
        then the model the request asked for).
        """
        prices = self._tables.get(vendor)
        reported = reported_cost(metered.usage, prices.currency if prices else "USD")
        if reported is not None:
            return reported
        priced_as = self.priced_as(vendor, names)
        if prices is None or priced_as is None:
            self._warn_unpriced(vendor, list(dict.fromkeys(name for name in names if name)))
            return None
        return estimate_cost(prices, priced_as, metered)

    def _warn_unpriced(self, vendor: str, names: list[str]) -> None:
        key = (vendor, names[-1] if names else "")
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        log.warning(
            "price_unknown",
            vendor=vendor,
            model=key[1],
            names_tried=names,
            hint="add the model to a price file named by GROUNDING_ROUTER_PRICES",
        )


def read_user_prices(path: Path, known: Collection[str]) -> dict[str, VendorPrices]:
    """The prices of a user's price file; unreadable, malformed or unknown vendors are errors."""
    try:
        data = _read_at_most(path, MAX_PRICE_FILE_BYTES)
    except OSError as exc:
        raise ConfigurationError(
            f"price file {path}: cannot be read ({exc.strerror or exc}); "
            "check GROUNDING_ROUTER_PRICES"
        ) from exc
    if data is None:
        raise ConfigurationError(
            f"price file {path}: larger than {MAX_PRICE_FILE_BYTES} bytes, the most a price "
            "file may hold; check GROUNDING_ROUTER_PRICES"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigurationError(
            f"price file {path}: line {line}: not UTF-8 (byte {exc.start}); "
            "a price file is UTF-8 TOML"
        ) from None
    sections = parse_price_file(text, source=str(path))
    for vendor in sections:
        if vendor not in known:
            choices = ", ".join(known)
            raise ConfigurationError(
                f"price file {path}: unknown vendor {vendor!r}; expected any of {choices}"
            )
    return sections


def _read_at_most(path: Path, limit: int) -> bytes | None:
    """The file's bytes, or None when it holds more than ``limit``; read in pieces.

    A regular file's size is checked before reading; anything else (a device, a FIFO) is read
    up to one byte past the limit, never further.
    """
    with path.open("rb") as stream:
        status = os.fstat(stream.fileno())
        if stat.S_ISREG(status.st_mode) and status.st_size > limit:
            return None
        pieces: list[bytes] = []
        total = 0
        while piece := stream.read(min(_PIECE, limit + 1 - total)):
            pieces.append(piece)
            total += len(piece)
            if total > limit:
                return None
    return b"".join(pieces)


def _name_index(prices: VendorPrices) -> dict[str, str]:
    """Lowercased model names and aliases -> the table name they price as."""
    index = {
        alias.strip().lower(): name
        for name, model in prices.models.items()
        for alias in model.aliases
    }
    index.update((name.strip().lower(), name) for name in prices.models)  # names win over aliases
    return index
