"""Deadlines a test chooses per provider call, so no answer races a deadline on a busy machine.

A cell that recovers after a deadline (``hang*1``, ``trickle_body:10*1``) needs its first attempt
ended by the deadline and its retry answered. With one ``timeout_s`` for both, the retry's answer
races that same short deadline, and on two cores shared with other busy processes an answered
call once took longer than 1 s. :class:`FirstCallDeadline` gives the faulted first call a short
deadline and every later call the request's own, long ``timeout_s``.
"""

from __future__ import annotations

import threading

from router.types import LLMRequest

__all__ = ["FirstCallDeadline"]


class FirstCallDeadline:
    """For ``router.call_limits.deadlines_chosen_by``: the first provider call made gets
    ``first_s``; every later one (retries, re-asks, redirect resolution) its ``timeout_s``.
    Without ``first_s``, every call gets its ``timeout_s``.

    Use one per route, stream or test cell; :attr:`given` lists the deadlines handed out.
    """

    def __init__(self, first_s: float | None) -> None:
        self.first_s = first_s
        self.given: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, request: LLMRequest, seconds: float) -> float:
        with self._lock:
            first = not self.given and self.first_s is not None
            chosen = self.first_s if first and self.first_s is not None else seconds
            self.given.append(chosen)
        return chosen

    def first_call_had_its_deadline(self) -> bool:
        """Whether a call was made and the first one got ``first_s`` (when one was given)."""
        return bool(self.given) and (self.first_s is None or self.given[0] == self.first_s)
