"""The Vertex AI provider: Gemini through ``google-genai`` (``vertexai=True``) with Google Search.

``adapter`` sends each call through the SDK clients of ``clients`` (``errors`` translates their
failures), ``request`` plans and builds the call (grounded JSON takes the two steps of
``two_step``), and the pure mappers read a reply: ``body`` turns it into the REST spelling,
``grounding`` and ``mapping`` read its grounding metadata and citations, ``spans`` turns Gemini's
UTF-8 byte segments into character spans, ``results`` checks the answer text. Importing this
package loads no SDK.
"""
