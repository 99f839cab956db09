"""Anthropic: Claude through the Messages API with the web search server tool and documents.

``adapter`` sends the calls (``request`` builds them; ``errors`` translates the SDK's
exceptions); the pure mappers read a reply: ``citations`` (sources, citations and grounding)
and ``reply`` (the ``AdapterResult``).
"""
