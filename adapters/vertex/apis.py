"""The two Google APIs this package speaks, and how the router names each one.

google-genai talks to Vertex AI (``vertexai=True``: a project, a location, OAuth credentials)
and to the Gemini Developer API (``vertexai=False``: an API key). Their replies are the same
``generateContent`` body, so the mapping, spans, two-step JSON and error translation are shared;
a :class:`GoogleApi` carries what differs in how the router reports them: the vendor its
citations and errors name, the label of its messages, and the settings a failure points at.
"""

from __future__ import annotations

from dataclasses import dataclass

from router.types import Vendor

__all__ = ["GEMINI", "VERTEX", "GoogleApi"]


@dataclass(frozen=True, slots=True)
class GoogleApi:
    """One of the two APIs, as the router's citations, warnings and errors name it."""

    vendor: Vendor
    label: str
    """How messages name the service ("Vertex AI", "Gemini API")."""
    short_label: str
    """How the ``[CITATIONS]`` warning names it (DESIGN.md section 4)."""
    auth_help: str
    """What to check when the service refuses the credentials."""
    not_found_hint: str
    """What to check when the service says the model does not exist."""
    base_url_setting: str
    """The setting that overrides the endpoint."""


VERTEX = GoogleApi(
    vendor="vertex",
    label="Vertex AI",
    short_label="Vertex",
    auth_help=(
        "check the credentials (GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN, or Application Default "
        "Credentials) and that their principal may use Vertex AI in GOOGLE_CLOUD_PROJECT"
    ),
    not_found_hint="check the model name and GOOGLE_CLOUD_LOCATION",
    base_url_setting="GROUNDING_ROUTER_VERTEX_BASE_URL",
)

GEMINI = GoogleApi(
    vendor="gemini",
    label="Gemini API",
    short_label="Gemini",
    auth_help=(
        "check the API key (GOOGLE_API_KEY or GEMINI_API_KEY) and that the Generative Language "
        "API is enabled for its project"
    ),
    not_found_hint="check the model name and GROUNDING_ROUTER_GEMINI_API_VERSION",
    base_url_setting="GROUNDING_ROUTER_GEMINI_BASE_URL",
)
