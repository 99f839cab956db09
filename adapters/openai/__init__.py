"""The OpenAI provider: the Responses API with the hosted ``web_search`` tool (``openai`` SDK).

``adapter`` sends each call, ``request`` builds its body, ``errors`` names its errors, ``reply``
maps a reply to an ``AdapterResult`` with the answer text of ``answer`` and the citations of
``citations`` (reading SDK objects or dicts through ``values``); ``stream`` reads Responses
streams and ``chat_stream`` Chat Completions streams. The reader also reads OpenAI's Chat
Completions shape (search-preview models), which OpenRouter's package reuses under its own name.
Importing this package loads no SDK.
"""
