"""The OpenAI provider: the Responses API with the hosted ``web_search`` tool (``openai`` SDK).

``adapter`` sends each call (the OpenAI-compatible base adapter with OpenAI's Responses body and
its one changed request, ``fallbacks``), ``request`` builds its body, ``errors`` names its
errors, ``reply`` (``map_openai_reply``) and ``citations`` (the spec's
``_extract_openai_citations``) read a reply, and ``stream`` reads Responses streams (and Chat
Completions chunks, with the shared reader). The reading of OpenAI's reply shape itself lives in
:mod:`adapters.openai_compatible`, since OpenRouter's chat completions come in it too.
Importing this package loads no SDK.
"""
