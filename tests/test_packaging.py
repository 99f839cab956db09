"""Packaging: the import packages, the public API and the import-time promise."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("package", ["router", "adapters", "als"])
def test_package_resolves_to_this_project(package: str) -> None:
    """router, adapters and als are this checkout's packages and ship py.typed."""
    module = importlib.import_module(package)
    assert module.__file__ is not None
    location = Path(module.__file__).resolve().parent
    assert location == ROOT / package
    assert (location / "py.typed").exists()


# The public surface of each module, as DESIGN.md fixes it: adding or dropping a name is a
# decision, so it has to be made here too.
PUBLIC_NAMES = {
    "router": {
        "Aggregate",
        "Attribution",
        "GroundingPolicy",
        "GroundingReport",
        "lexical",
        "provider_confidence",
        "verify",
        "Citation",
        "ConfigurationError",
        "Cost",
        "FanoutError",
        "FanoutResult",
        "GroundingRequiredFailedError",
        "GroundingValidationError",
        "LLMRequest",
        "LLMResponse",
        "Message",
        "ProviderError",
        "ProviderRequestError",
        "ProviderTransientError",
        "RequestValidationError",
        "ResponseParseError",
        "RouterError",
        "Router",
        "RouterSettings",
        "Span",
        "Usage",
        "UnifiedLLMAdapter",
        "UserLocation",
        "__version__",
        "aggregate",
        "aroute",
        "aroute_many",
        "astream",
        "extract",
        "route",
        "route_many",
        "stream",
        "CitationDelta",
        "Completed",
        "SearchStarted",
        "StreamAccumulator",
        "StreamEvent",
        "TextDelta",
    },
    "router.citations": {
        "REDIRECTORS",
        "DOCUMENT_PREFIX",
        "TRACKING_PARAMETERS",
        "TRACKING_PREFIXES",
        "RedirectResolver",
        "Redirector",
        "classify_source_type",
        "dedup_key",
        "dedupe_citations",
        "document_domain",
        "is_redirect_url",
        "looks_like_domain",
        "make_citation",
        "normalize_url",
        "public_suffix",
        "registrable_domain",
        "sanitize_text",
        "unwrap_redirect",
    },
    "router.emulator": {
        "Answer",
        "Emulator",
        "FAULT_HEADER",
        "FAULT_KINDS",
        "FaultKind",
        "FaultPlan",
        "FaultSpec",
        "FaultSpecError",
        "REDIRECT_PREFIX",
        "REPLAY_HEADER",
        "RecordedRequest",
        "SCENARIOS",
        "answer_for",
    },
    "adapters.registry": {
        "PRICE_FILE",
        "PROVIDERS",
        "Capabilities",
        "OffsetUnit",
        "ProviderRow",
        "labels",
        "provider",
        "vendors",
    },
    "router.capabilities": {"check_request"},
    "router.unified_llm_adapter": {
        "Router",
        "UnifiedLLMAdapter",
        "aroute",
        "astream",
        "route",
        "stream",
    },
    "router.batch": {
        "BatchStats",
        "BatchSummary",
        "LocalEngine",
        "ProgressCallback",
        "RayEngine",
        "arun_batch",
        "run_batch",
    },
    # DESIGN.md names the extractors by these modules; the providers live in their packages.
    "adapters.openai_adapter": {
        "OpenAIAdapter",
        "OpenAIGrounding",
        "_extract_openai_citations",
        "extract_openai_grounding",
    },
    "adapters.vertex_adapter": {
        "VertexAdapter",
        "VertexGrounding",
        "_extract_vertex_citations",
        "extract_vertex_grounding",
    },
    "adapters.openai.adapter": {
        "OpenAIAdapter",
        "OpenAIGrounding",
        "_extract_openai_citations",
        "extract_openai_grounding",
    },
    "adapters.vertex.adapter": {
        "GeminiAdapter",
        "VertexAdapter",
        "VertexGrounding",
        "_extract_vertex_citations",
        "extract_vertex_grounding",
    },
}

# What importing (and, for the adapters, extracting from a dict) must leave unloaded: provider
# SDKs and HTTP stacks are loaded by the first call that needs them.
NOTHING_HEAVY_LOADED = {
    "router and its CLI parser": (
        "import router, router.cli; router.cli.build_parser()",
        ("openai", "google.genai", "aiohttp"),
    ),
    "the provider registry and the batch package": (
        "import adapters.registry as r, router.batch; r.vendors(); router.batch.__all__",
        ("openai", "google.genai", "aiohttp", "adapters.openai", "adapters.vertex"),
    ),
    "the OpenAI adapter": (
        "from adapters.openai.adapter import _extract_openai_citations; "
        "_extract_openai_citations({'output': []})",
        ("openai",),
    ),
    "the Vertex adapter": (
        "from adapters.vertex.adapter import _extract_vertex_citations; "
        "_extract_vertex_citations({'candidates': []})",
        ("google.genai", "google.auth", "google.oauth2", "aiohttp", "httpx"),
    ),
}


@pytest.mark.parametrize("module_name", PUBLIC_NAMES)
def test_public_names_are_exact(module_name: str) -> None:
    """The module's __all__ lists exactly its public names, once each, and each one exists."""
    module = importlib.import_module(module_name)
    expected = PUBLIC_NAMES[module_name]
    assert set(module.__all__) == expected
    assert len(module.__all__) == len(expected)
    for name in expected:
        assert hasattr(module, name), name


@pytest.mark.parametrize("what", NOTHING_HEAVY_LOADED)
def test_import_loads_no_sdk(what: str) -> None:
    """Importing it loads no provider SDK and no HTTP stack."""
    statement, prefixes = NOTHING_HEAVY_LOADED[what]
    code = (
        f"import sys; {statement}; heavy = {prefixes!r}; "
        "print(sorted(m for m in sys.modules "
        "if m in heavy or m.startswith(tuple(p + '.' for p in heavy))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"
