"""Perplexity's errors: the ``openai`` SDK's translation (:mod:`adapters.openai_compatible.errors`)
under Perplexity's names (the vendor, ``PERPLEXITY_API_KEY``, ``PERPLEXITY_BASE_URL``).

As its API sends them: a bad or missing key is an HTML 401 page from its proxy (``auth``), an
unknown model a 400 ``invalid_model`` JSON error (``bad_request``).
"""

from __future__ import annotations

from adapters.openai_compatible.errors import OpenAIService

__all__ = ["KEY_SETTING", "PERPLEXITY"]

PERPLEXITY = OpenAIService("perplexity", "Perplexity", "PERPLEXITY_API_KEY", "PERPLEXITY_BASE_URL")
KEY_SETTING = PERPLEXITY.key_setting
