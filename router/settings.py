"""Router settings, read from the environment and ``.env`` when built (never at import time).

Provider credentials keep their customary names (``OPENAI_API_KEY``, ``GOOGLE_CLOUD_PROJECT``,
...); everything that belongs to grounding-router itself lives under the ``GROUNDING_ROUTER_``
prefix. ``DEBUG_GROUNDING`` keeps its short name because forensic runs switch it on by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from router.credential_pools import CredentialSet, check_pools, pool_secrets
from router.grounding.report import GroundingPolicy
from router.types import MAX_TIMEOUT_S, Vendor

__all__ = ["ENV_PREFIX", "RouterSettings", "pool_entry_settings", "settings_problems"]

ENV_PREFIX = "GROUNDING_ROUTER_"


def _env(name: str) -> AliasChoices:
    """Accept the customary name and the prefixed one, the customary name first."""
    return AliasChoices(name, f"{ENV_PREFIX}{name}")


class RouterSettings(BaseSettings):
    """Everything the router reads from its environment, built once at the edge and passed down."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        frozen=True,
        # inf and NaN pass "> 0" and then overflow the SDKs' arithmetic; no setting needs them.
        allow_inf_nan=False,
        # A rejected value is not quoted back: it may be a key (credential_pools holds them in
        # plain JSON until validated). The error still names the setting and what is wrong.
        hide_input_in_errors=True,
    )

    # OpenAI
    openai_api_key: SecretStr | None = Field(default=None, validation_alias=_env("OPENAI_API_KEY"))
    openai_base_url: str | None = Field(default=None, validation_alias=_env("OPENAI_BASE_URL"))

    # Anthropic (Claude, Messages API)
    anthropic_api_key: SecretStr | None = Field(
        default=None, validation_alias=_env("ANTHROPIC_API_KEY")
    )
    anthropic_base_url: str | None = Field(
        default=None, validation_alias=_env("ANTHROPIC_BASE_URL")
    )
    anthropic_max_searches: int | None = Field(
        default=5,
        ge=1,
        description="max_uses of Claude's web search tool per call (None: the API's default).",
    )

    # Vertex AI (google-genai with vertexai=True); credentials come from Application Default
    # Credentials unless a static access token is given.
    google_cloud_project: str | None = Field(
        default=None, validation_alias=_env("GOOGLE_CLOUD_PROJECT")
    )
    google_cloud_location: str = Field(
        default="global", validation_alias=_env("GOOGLE_CLOUD_LOCATION")
    )
    vertex_base_url: str | None = Field(
        default=None, description="Override of the Vertex API endpoint (the emulator, a proxy)."
    )
    vertex_access_token: SecretStr | None = Field(
        default=None, description="A ready OAuth access token used instead of ADC."
    )

    # Gemini Developer API (google-genai with vertexai=False): an API key. GOOGLE_API_KEY wins
    # when both names are set, as it does in google-genai and Google's documentation.
    gemini_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "GOOGLE_API_KEY", "GEMINI_API_KEY", f"{ENV_PREFIX}GEMINI_API_KEY"
        ),
    )
    gemini_base_url: str | None = Field(
        default=None, description="Override of the Gemini API endpoint (the emulator, a proxy)."
    )
    gemini_api_version: str = Field(
        default="v1beta",
        min_length=1,
        description="The Gemini API version the calls go to (Google Search grounding: v1beta).",
    )

    # Perplexity (Sonar chat completions through the openai SDK).
    perplexity_api_key: SecretStr | None = Field(
        default=None, validation_alias=_env("PERPLEXITY_API_KEY")
    )
    perplexity_base_url: str | None = Field(
        default=None, validation_alias=_env("PERPLEXITY_BASE_URL")
    )

    # OpenRouter (OpenAI-compatible chat completions with the web plugin, openai SDK).
    openrouter_api_key: SecretStr | None = Field(
        default=None, validation_alias=_env("OPENROUTER_API_KEY")
    )
    openrouter_base_url: str | None = Field(
        default=None, validation_alias=_env("OPENROUTER_BASE_URL")
    )

    # Several keys or projects per vendor (JSON: vendor -> list of credential sets, each setting
    # some of that vendor's credential fields), spread over a batch job's workers and actors,
    # one rate limit each (router.credential_pools).
    credential_pools: dict[Vendor, tuple[CredentialSet, ...]] = Field(default_factory=dict)

    # Calls and retries: one retry layer (the router's); the SDKs' own retries are off.
    timeout_s: float = Field(default=60.0, gt=0, le=MAX_TIMEOUT_S)
    max_attempts: int = Field(default=3, ge=1, le=10)
    retry_initial_delay_s: float = Field(default=0.5, ge=0)
    retry_max_delay_s: float = Field(default=8.0, ge=0)
    retry_after_cap_s: float = Field(default=30.0, ge=0)

    # Replies: the most a reply may hold once decompressed, the most citations one reply gives
    # (the rest are cut, with a warning), and the most forensic events one call logs.
    max_reply_bytes: int = Field(default=32 * 1024 * 1024, ge=1024)
    max_citations: int = Field(default=1000, ge=1)
    max_debug_events: int = Field(default=2000, ge=0)

    # Replies: a JSON answer nested deeper than this is refused (the response could not be
    # written as JSON past about 250 levels, so 200 is the most allowed).
    max_json_depth: int = Field(default=100, ge=1, le=200)

    # REQUIRED grounding: ask once more when the model skipped the search.
    reask_on_required_failure: bool = False
    # The grounding policy of requests that set none (JSON, as GroundingPolicy's fields):
    # enforced after the REQUIRED checks, reported in AUTO mode (router.grounding).
    grounding_policy: GroundingPolicy | None = None
    # OpenAI: force the hosted search (tool_choice="required") for REQUIRED requests. Off: some
    # models and deployments reject a forced hosted tool; REQUIRED is post-validated either way.
    openai_force_search: bool = False

    # Optional resolution of redirect URLs to find the true source domain (network; off).
    resolve_redirects: bool = False
    resolver_timeout_s: float = Field(default=2.0, gt=0, le=MAX_TIMEOUT_S)
    resolver_max_concurrency: int = Field(default=8, ge=1)
    resolver_cache_ttl_s: float = Field(default=3600.0, ge=0)

    # The model a vendor gets when a request names none (route_many, `grounding-router compare`);
    # unset: the provider registry's default model. One per registered vendor.
    default_model_openai: str | None = None
    default_model_vertex: str | None = None
    default_model_gemini: str | None = None
    default_model_anthropic: str | None = None
    default_model_perplexity: str | None = None
    default_model_openrouter: str | None = None

    # The response cache (router.cache): off unless a file is named.
    cache: Path | None = Field(default=None, description="A SQLite file caching responses.")
    cache_ttl_s: float = Field(default=86_400.0, gt=0.0, le=MAX_TIMEOUT_S * 366)
    cache_max_entries: int = Field(default=10_000, ge=1)
    cache_google_grounded: bool = False

    # Cost estimates: a TOML file of prices that overrides and extends the built-in table.
    prices: Path | None = Field(
        default=None, description="A price file (TOML) overriding the built-in prices."
    )

    # Tracing (OpenTelemetry, when the application configures it): search queries and cited
    # URLs and domains go into spans only when asked for, and then capped.
    trace_content: bool = False
    trace_content_max_items: int = Field(default=10, ge=1, le=1000)
    trace_content_max_chars: int = Field(default=256, ge=1, le=10_000)

    # Forensics: debug events for every citation extraction step.
    debug_grounding: bool = Field(default=False, validation_alias=_env("DEBUG_GROUNDING"))

    @field_validator("credential_pools")
    @classmethod
    def _check_pools(
        cls, pools: dict[Vendor, tuple[CredentialSet, ...]]
    ) -> dict[Vendor, tuple[CredentialSet, ...]]:
        return check_pools(pools)

    def default_model(self, vendor: str) -> str | None:
        """``GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>``, or None when it is not set."""
        value = getattr(self, f"default_model_{vendor}", None)
        return value.strip() or None if isinstance(value, str) else None

    def secret_values(self) -> list[str]:
        """The secrets these settings hold, for the log redaction processor."""
        return list(self.named_secrets().values())

    def named_secrets(self) -> dict[str, str]:
        """The secrets these settings hold, by the name of the setting that holds each."""
        fields = (
            "openai_api_key",
            "vertex_access_token",
            "gemini_api_key",
            "perplexity_api_key",
            "openrouter_api_key",
            "anthropic_api_key",
        )
        named: dict[str, str] = {}
        for field in fields:
            secret = getattr(self, field)
            if secret is not None and secret.get_secret_value():
                named[field.upper()] = secret.get_secret_value()
        return named | pool_secrets(self.credential_pools)


def settings_problems(error: ValidationError) -> str:
    """What is wrong with the settings, one problem a line, each naming its environment
    variable: ``GROUNDING_ROUTER_TIMEOUT_S: Input should be a valid number``. No value is
    quoted (``hide_input_in_errors``): a rejected one may be a key."""
    lines = []
    for problem in error.errors():
        field = str(problem["loc"][0]) if problem["loc"] else ""
        where = f"{ENV_PREFIX}{field.upper()}" if field in RouterSettings.model_fields else field
        message = problem["msg"].removeprefix("Value error, ")
        lines.append(f"{where}: {message}" if where else message)
    if len(lines) == 1:
        return lines[0]
    return f"{len(lines)} problems" + "".join(f"\n  {line}" for line in lines)


def pool_entry_settings(settings: RouterSettings, index: int) -> RouterSettings:
    """``settings`` with entry ``index % len(pool)`` of each vendor's pool applied: the
    settings of batch worker (or actor) number ``index``; ``settings`` itself without pools."""
    if not settings.credential_pools:
        return settings
    update: dict[str, Any] = {}
    for pool in settings.credential_pools.values():
        update |= pool[index % len(pool)].overrides()
    return settings.model_copy(update=update)
