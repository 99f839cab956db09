"""Gemini with Google Search through ``google-genai``: two registry rows, one package.

``vertex`` is Vertex AI (``vertexai=True``: a project, a location, OAuth credentials);
``gemini`` is the Gemini Developer API (``vertexai=False``: an API key). Both send the same
``generateContent`` request and get the same reply, so everything but the clients is shared:
``adapter`` sends each call through the SDK clients of ``clients`` or ``gemini_clients``
(``errors`` translates their failures, naming the API ``apis`` describes), ``request`` plans and
builds the call (grounded JSON takes the two steps of ``two_step``), and a reply is read in two
pure steps: ``reply`` (``map_vertex_reply`` and ``map_gemini_reply``, the registry's mappers)
builds the result from what ``citations`` read (the citations, with ``grounding`` for the
grounding metadata and ``spans`` for Gemini's UTF-8 byte segments as character spans) out of
the body in the REST spelling ``body`` gives; ``stream`` reads streams.
Importing this package loads no SDK.

Where the two APIs differ (google-genai 3.4 types, sdk-notes section 2, and the recordings):

- ``GroundingChunkWeb.domain`` is Vertex-only: the Gemini API never sends ``web.domain``
  (provider-quirks section 2), so its source domains come from the chunk title, as they do on
  Vertex when the field is missing.
- ``GoogleSearch.exclude_domains`` (and ``blocking_confidence``) are Vertex-only;
  ``GoogleSearch.time_range_filter`` is Gemini-API-only. The router sends none of them: neither
  API has an allow-list, so neither row takes the request's domain filters.
- google-genai 3.x calls the Gemini API's ``v1`` by default (2.x called ``v1beta``); the Gemini
  row pins ``v1beta`` (``GROUNDING_ROUTER_GEMINI_API_VERSION``), the version Google's grounding
  documentation and every recorded grounded Gemini API exchange use. Vertex stays on the SDK's
  ``v1beta1``.
- Errors: the Gemini API answers a bad key with 400 ``API_KEY_INVALID`` (an ``auth`` error
  here), a missing one with 403, and says when to retry a 429 in ``RetryInfo``; Vertex's
  credentials come from Application Default Credentials or a token, and fail as such.
"""
