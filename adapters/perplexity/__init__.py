"""The Perplexity provider: Sonar chat completions, search-first, through the ``openai`` SDK.

``adapter`` sends each call, ``request`` builds its body, ``citations`` reads the sources and
``[n]`` markers of a reply, ``reply`` maps a reply to an ``AdapterResult`` and ``stream`` reads
a stream. Importing this package loads no SDK.

Why the ``openai`` SDK against Perplexity's OpenAI-compatible endpoint rather than the official
``perplexityai`` SDK (0.46): both report the reply completely. Run against the recorded Sonar
bodies, JSON and streamed, both clients hand back every field as sent: ``perplexityai`` as typed
fields (``search_results``, ``citations``, ``usage.cost``, ``usage.num_search_queries``), the
``openai`` client as its models' extra fields. The adapter reads the reply's JSON as plain data
either way (the generic ``post`` with ``cast_to=object``, as for OpenAI), so the typed fields would
go unused, while ``perplexityai`` would bring a second HTTP stack (classic ``httpx`` with httpcore,
h11 and certifi, and aiohttp only through ``httpx-aiohttp``) whose timeouts and transport errors
would need a translation and a hardening of their own. Through the ``openai`` SDK Perplexity shares
the clients, the aiohttp transport and the error translation of the other OpenAI-compatible
providers (:mod:`adapters.openai_compatible.calls`, :mod:`adapters.openai_compatible.errors`).

Perplexity's errors, as its API sends them: a bad or missing key is an HTML 401 page from its
proxy (``auth``), an unknown model a 400 ``invalid_model`` JSON error (``bad_request``).
"""
