"""The OpenRouter provider: chat completions with the web plugin, through the ``openai`` SDK.

``adapter`` sends each call, ``request`` builds its body (the web plugin) and names the service,
``reply`` maps a reply and ``stream`` reads a stream. Importing this package loads no SDK.

OpenRouter answers in OpenAI's Chat Completions shape (``message.annotations[].url_citation``,
``delta.annotations`` in streams), which :mod:`adapters.openai_compatible` reads for
OpenAI's search-preview models as well: ``reply`` and ``stream`` run that reader under
OpenRouter's name (``adapters.openai_compatible.reply.map_compatible_reply`` and
``adapters.openai_compatible.stream.ChatStreamReader`` with the ``OPENROUTER`` service) instead of
copying it. What is OpenRouter's own stays here: the request, its names and settings, and what its
replies add to OpenAI's shape (the cost it reports in ``usage.cost``, and
``usage.server_tool_use_details.web_search_requests``, the searches its plugin ran). Nothing here
imports the OpenAI package, and it knows nothing of OpenRouter.
"""
