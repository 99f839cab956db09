"""The OpenAI provider: the Responses API with the hosted ``web_search`` tool (``openai`` SDK).

``adapter`` sends each call, ``request`` builds its body, ``errors`` translates SDK errors into
router errors, ``reply`` maps a reply to an ``AdapterResult`` with the answer text of ``answer``
and the citations of ``citations`` (reading SDK objects or dicts through ``values``). Importing
this package loads no SDK.
"""
