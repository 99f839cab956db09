"""RouterSettings from the environment and from .env."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from router.settings import ENV_PREFIX, RouterSettings
from support.settings_names import setting_variables


def test_defaults_without_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing set, keys are absent and retries and timeouts have documented defaults."""
    monkeypatch.delenv("OPENAI_API_KEY")
    settings = RouterSettings(_env_file=None)
    assert settings.openai_api_key is None
    assert settings.google_cloud_location == "global"
    assert settings.max_attempts == 3
    assert settings.timeout_s == 60.0
    assert settings.resolve_redirects is False
    assert settings.openai_force_search is False
    assert settings.debug_grounding is False


def test_customary_and_prefixed_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Provider variables keep their usual names; router settings use GROUNDING_ROUTER_."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-0123456789")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "5")
    monkeypatch.setenv("GROUNDING_ROUTER_VERTEX_BASE_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("DEBUG_GROUNDING", "true")
    settings = RouterSettings(_env_file=None)
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "sk-env-key-0123456789"
    assert settings.google_cloud_project == "proj"
    assert settings.max_attempts == 5
    assert settings.vertex_base_url == "http://127.0.0.1:9/"
    assert settings.debug_grounding is True


def test_dotenv_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values are read from a .env file, and the environment wins over it."""
    monkeypatch.delenv("OPENAI_API_KEY")
    env_file = tmp_path / ".env"
    env_file.write_text("OPENAI_API_KEY=sk-from-dotenv-0123456789\nGROUNDING_ROUTER_TIMEOUT_S=7\n")
    settings = RouterSettings(_env_file=env_file)
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "sk-from-dotenv-0123456789"
    assert settings.timeout_s == 7.0


def test_secrets_are_hidden_in_repr() -> None:
    """Printing settings never shows a key."""
    settings = RouterSettings(
        _env_file=None,
        openai_api_key="sk-secret-value-0123456789",
        vertex_access_token=None,
        gemini_api_key=None,
        perplexity_api_key=None,
        openrouter_api_key=None,
        anthropic_api_key=None,
    )
    assert "sk-secret-value" not in repr(settings)
    assert "sk-secret-value" not in str(settings.model_dump())
    assert settings.secret_values() == ["sk-secret-value-0123456789"]


def test_invalid_value_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """A nonsense retry count is an error at start-up, not a surprise later."""
    monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "0")
    with pytest.raises(ValueError, match="max_attempts"):
        RouterSettings(_env_file=None)


def test_forcing_the_openai_search_is_an_environment_switch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GROUNDING_ROUTER_OPENAI_FORCE_SEARCH=true turns forcing the hosted search on."""
    monkeypatch.setenv("GROUNDING_ROUTER_OPENAI_FORCE_SEARCH", "true")
    assert RouterSettings(_env_file=None).openai_force_search is True


def test_gemini_key_names_follow_google_genai(monkeypatch: pytest.MonkeyPatch) -> None:
    """GEMINI_API_KEY is read, and GOOGLE_API_KEY wins when both are set, as in google-genai."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-key-0123456789")
    settings = RouterSettings(_env_file=None)
    assert settings.gemini_api_key is not None
    assert settings.gemini_api_key.get_secret_value() == "gemini-key-0123456789"
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key-0123456789")
    settings = RouterSettings(_env_file=None)
    assert settings.gemini_api_key is not None
    assert settings.gemini_api_key.get_secret_value() == "google-key-0123456789"
    assert "google-key-0123456789" in settings.secret_values()
    assert settings.gemini_api_version == "v1beta"


def _documented_names() -> set[str]:
    """The variables the Configuration table (docs/configuration.md) lists (its first column)."""
    page = Path(__file__).parents[2] / "docs" / "configuration.md"
    table = page.read_text(encoding="utf-8").split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (`[^|]+`) \|", table, flags=re.MULTILINE)
    return {name for row in rows for name in re.findall(r"`([A-Z_<>]+)`", row)}


def _readme_row(setting: str, variables: tuple[str, ...]) -> str:
    """The variable a setting's README row names: its first; the per-vendor default models
    share one row."""
    if setting.startswith("default_model_"):
        return f"{ENV_PREFIX}DEFAULT_MODEL_<VENDOR>"
    return variables[0]


def test_the_readme_table_lists_every_setting_and_no_other() -> None:
    """Each setting has its row in the Configuration table, and each row a setting."""
    variables = {_readme_row(name, names) for name, names in setting_variables().items()}
    documented = _documented_names()
    assert variables - documented == set()
    assert documented - variables == {"GEMINI_API_KEY"}  # the second name of the Gemini key
