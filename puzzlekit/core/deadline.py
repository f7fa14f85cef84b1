"""A search's deadline, visible to the code the search calls.

A verifier's budget is enforced by its meter (:class:`puzzlekit.core.meter.Meter`), which
sees the nodes it counts. Some of the work of a search happens where no meter reaches: an opaque
rule of a family (an only-winning-move position solves its game inside a ``Predicate``), the
random solution search a sampling verifier restarts. :func:`within` makes the search's deadline
known to that code for the duration of a block; :func:`check` raises :class:`BudgetExceeded`
once it has passed, :func:`remaining` says how much is left (None: no deadline), so that a
family can hand the rest of the budget to its own solver.

Outside any :func:`within` block nothing changes: :func:`check` never raises and
:func:`remaining` is None (generation and the family's own oracles keep their own bounds).
Deadlines nest to the earlier of the two. One deadline per thread and task (a
:class:`contextvars.ContextVar`).

Not for: measuring durations (``time.perf_counter``) or wall-clock stamps (:mod:`.clock`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["BudgetExceeded", "check", "remaining", "within"]


class BudgetExceeded(Exception):
    """Raised inside a search when a budget runs out: which resource, and its limit."""

    def __init__(self, resource: str, limit: float) -> None:
        super().__init__(resource)
        self.resource = resource
        self.limit = limit


#: (the deadline as a ``time.perf_counter`` reading, the budget's seconds it stands for)
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("puzzlekit_deadline", default=None)


@contextmanager
def within(at: float | None, seconds: float | None = None) -> Iterator[None]:
    """Make ``at`` (a ``time.perf_counter`` reading; None: no deadline of its own) the deadline
    of the code run in the block, or keep an earlier one already set. ``seconds`` is the budget
    it stands for (reported by :class:`BudgetExceeded`)."""
    outer = _DEADLINE.get()
    mine = outer
    if at is not None and (outer is None or at < outer[0]):
        mine = (at, float(seconds if seconds is not None else 0.0))
    token = _DEADLINE.set(mine)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current deadline (0.0 once passed), or None outside a deadline."""
    current = _DEADLINE.get()
    if current is None:
        return None
    return max(0.0, current[0] - time.perf_counter())


def check() -> None:
    """Raise :class:`BudgetExceeded` ("seconds") when the current deadline has passed."""
    current = _DEADLINE.get()
    if current is not None and time.perf_counter() > current[0]:
        raise BudgetExceeded("seconds", current[1])
