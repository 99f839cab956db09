"""OpenAI's errors: the ``openai`` SDK's translation (:mod:`adapters.openai_compatible.errors`)
under OpenAI's names (the vendor, ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``)."""

from __future__ import annotations

from adapters.openai_compatible.errors import (
    OPENAI,
    parse_retry_after,
    provider_message,
    translate_openai_errors,
)

__all__ = ["KEY_SETTING", "parse_retry_after", "provider_message", "translate_openai_errors"]

KEY_SETTING = OPENAI.key_setting
