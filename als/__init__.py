"""Ambient Location Signals: TLD and domain counts over the sources grounded answers rest on."""

__all__: list[str] = []
