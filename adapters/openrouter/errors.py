"""OpenRouter's errors: the ``openai`` SDK's translation (:mod:`adapters.openai_compatible.errors`)
under OpenRouter's names (the vendor, ``OPENROUTER_API_KEY``, ``OPENROUTER_BASE_URL``)."""

from __future__ import annotations

from adapters.openai_compatible.errors import OpenAIService

__all__ = ["KEY_SETTING", "OPENROUTER"]

OPENROUTER = OpenAIService("openrouter", "OpenRouter", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL")
KEY_SETTING = OPENROUTER.key_setting
