"""Sending through a provider's SDK, with no provider named: what every adapter's calls share.

``calls`` (:class:`~adapters.sdk.calls.SdkCalls`: clients per key and base URL, SDK retries
off, the generic ``post`` and its stream), ``errors`` (the translation every SDK's errors go
through), ``http_clients`` (the deadline-bounded HTTP stack under each SDK), ``loop_clients``
and ``loop_shutdown`` (async clients per event loop, closed when their loop shuts down),
``malformed_http`` (a reply that was not valid HTTP) and ``values`` (SDK models read as the
dicts they were built from). Importing this package loads no SDK.
"""
