"""The meter a search counts its nodes on: :class:`Meter` enforces a
:class:`~puzzlekit.core.protocols.SearchBudget` (nodes, seconds), raising
:class:`~puzzlekit.core.deadline.BudgetExceeded`, and makes its deadline the search's deadline
for the code the search calls (:meth:`Meter.within`).

On the ground floor so that every search uses one meter: the verifiers (which name it in
:mod:`puzzlekit.verifiers.search` and :mod:`puzzlekit.verifiers.base` for backends) and the
grader's technique solver, which no verifier backs. Not for timing (``time.perf_counter``).
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager

from puzzlekit.core import deadline
from puzzlekit.core.deadline import BudgetExceeded
from puzzlekit.core.protocols import SearchBudget

__all__ = ["Meter"]


class Meter:
    """Counts search nodes and enforces a :class:`SearchBudget` (checks the clock every 256)."""

    def __init__(self, budget: SearchBudget) -> None:
        self.budget = budget
        self.nodes = 0
        self.start = time.perf_counter()
        self._deadline = self.start + budget.seconds if budget.seconds is not None else None

    def tick(self, n: int = 1) -> None:
        self.nodes += n
        b = self.budget
        if b.nodes is not None and self.nodes > b.nodes:
            raise BudgetExceeded("nodes", b.nodes)
        if self._deadline is not None and (self.nodes & 255) == 0:
            if time.perf_counter() > self._deadline:
                raise BudgetExceeded("seconds", b.seconds)

    def check_clock(self) -> None:
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise BudgetExceeded("seconds", self.budget.seconds)

    def within(self) -> AbstractContextManager[None]:
        """The block in which this meter's deadline is the search's deadline
        (:func:`puzzlekit.core.deadline.within`): an opaque rule, or a solver the search calls,
        stops on it too."""
        return deadline.within(self._deadline, self.budget.seconds)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start
