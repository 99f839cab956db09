"""A grounding policy enforced on a routed response: the router's last validator.

``enforce_policy`` runs after the REQUIRED checks of DESIGN.md section 5. It attaches the report
to ``response.grounding`` and, in REQUIRED mode, raises
``GroundingRequiredFailedError(reason="policy")`` for the first rule broken, so the optional
re-ask applies as it does to the other REQUIRED failures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from router.errors import GroundingRequiredFailedError
from router.grounding.verification import verify

if TYPE_CHECKING:
    from router.grounding.report import GroundingPolicy
    from router.types import LLMRequest, LLMResponse
    from router.validation import Validator

__all__ = ["enforce_policy", "policy_validator"]


def enforce_policy(
    request: LLMRequest, response: LLMResponse, *, default: GroundingPolicy | None = None
) -> None:
    """Check the request's grounding policy (or ``default``) on the response.

    The report goes to ``response.grounding`` whatever the outcome. In REQUIRED mode a broken
    rule raises ``GroundingRequiredFailedError`` with ``reason="policy"``, the rule, the report
    and the response; in AUTO mode the violations stay on the report and nothing is raised.
    """
    policy = request.grounding_policy if request.grounding_policy is not None else default
    if policy is None:
        return
    report = verify(response, policy=policy)
    response.grounding = report
    if report.violations and request.requires_grounding:
        first = report.violations[0]
        raise GroundingRequiredFailedError(
            f"Grounding policy failed ({first.rule}): {first.message}",
            reason="policy",
            rule=first.rule,
            report=report,
            response=response,
        )


def policy_validator(default: GroundingPolicy | None) -> Validator:
    """``enforce_policy`` as a router validator, with the settings' default policy bound."""

    def grounding_policy(request: LLMRequest, response: LLMResponse) -> None:
        enforce_policy(request, response, default=default)

    return grounding_policy
