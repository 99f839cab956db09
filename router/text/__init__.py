"""Untrusted text and secrets: what the router does to text it did not write.

- :mod:`~router.text.redaction`: secrets (keys, tokens) removed from any text that leaves;
- :mod:`~router.text.lone_surrogates`: lone surrogates (JSON escapes) scrubbed, so a response
  can always be written out;
- :mod:`~router.text.nesting`: how deep a JSON value nests, counted without recursion;
- :mod:`~router.text.terminal`: provider text made safe to print (control sequences removed);
- :mod:`~router.text.jsonl`: hostile JSON lines read one by one (shared by ALS and the batch
  runner; it imports nothing of the project).

The package imports nothing itself: each module is imported by its own name.
"""
