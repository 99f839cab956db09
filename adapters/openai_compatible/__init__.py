"""What the providers reached with the ``openai`` SDK share: OpenAI, OpenRouter and Perplexity.

``adapter`` (the base adapter: one call or stream to one path, the clients' closing), ``calls``
(the ``openai`` clients of one service), ``errors`` (the SDK's errors translated under a
service's names: :class:`~adapters.openai_compatible.errors.OpenAIService`), ``json_schema``
(a caller's schema as these APIs take it), and the reading of OpenAI's reply shape, which
OpenRouter's chat completions share: ``citations``, ``answer`` and ``annotations`` (answer text
and ``url_citation`` entries), ``reply`` (``map_compatible_reply``, run by each provider under
its own service), ``stream`` (the Chat Completions stream reader) and ``stream_text``.
A provider package imports from here, never from another provider's package. Importing this
package loads no SDK.
"""
