"""Grounding checks run on every response, as a pipeline of small callables. They fail closed.

A validator takes the request and the response and returns nothing when the response may pass;
it raises to reject. A validator that crashes (raises anything that is not a ``RouterError``)
rejects too: nothing passes by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from router.errors import GroundingRequiredFailedError, GroundingValidationError, RouterError
from router.types import LLMRequest, LLMResponse

__all__ = ["DEFAULT_VALIDATORS", "Validator", "require_grounding", "run_validators"]

Validator = Callable[[LLMRequest, LLMResponse], None]


def require_grounding(request: LLMRequest, response: LLMResponse) -> None:
    """REQUIRED grounding (DESIGN.md section 5): the model must have searched and cited."""
    if request.grounding_mode == "REQUIRED" and request.grounded:
        if not response.grounded_effective:
            raise GroundingRequiredFailedError(
                "Model did not invoke grounding tools",
                reason="not_invoked",
                response=response,
            )
        if not response.metadata.get("citations"):
            raise GroundingRequiredFailedError(
                "Grounding tools invoked but no citations extracted",
                reason="no_citations",
                response=response,
            )


DEFAULT_VALIDATORS: tuple[Validator, ...] = (require_grounding,)


def run_validators(
    validators: Sequence[Validator], request: LLMRequest, response: LLMResponse
) -> None:
    """Run each validator in order; the first that raises rejects the response."""
    for validator in validators:
        try:
            validator(request, response)
        except RouterError as error:
            error.with_context(
                vendor=request.vendor, model=request.model, request_id=request.request_id
            )
            raise
        except Exception as exc:
            name = getattr(validator, "__name__", type(validator).__name__)
            raise GroundingValidationError(
                f"validator {name} crashed ({type(exc).__name__}: {exc}); "
                "the response is rejected rather than passed unchecked",
                reason="validator_error",
                response=response,
                vendor=request.vendor,
                model=request.model,
                request_id=request.request_id,
            ) from exc
