"""The search measures a grade records beside its techniques: the SAT conflicts and verdict of a
bounded search (UNDECIDED when its budget runs out) and the cells sound propagation fixes.

Read by :func:`puzzlekit.grading.techniques.grade` (``search=True``). Not for: the techniques
themselves (:mod:`puzzlekit.grading.techniques`, :mod:`puzzlekit.grading.pencil`).
"""

from __future__ import annotations

from typing import Any

from puzzlekit.core.model import Instance, Problem
from puzzlekit.core.protocols import SearchBudget


def search_measures(
    instance: Instance, problem: Problem, budget: SearchBudget
) -> tuple[int | None, str | None, int]:
    """SAT conflicts and verdict (UNDECIDED when ``budget`` runs out), and the cells sound
    propagation fixes."""
    from puzzlekit.verifiers.base import narrow_domains

    domains = narrow_domains(problem, problem.all_constraints())
    forced = 0
    if domains is not None:
        forced = sum(1 for d in domains.values() if len(d) == 1)
    try:
        rep = _sat().verify(instance, solution_cap=2, budget=budget)
    except Exception:  # no SAT encoding (Predicate): the measures stay unknown
        return None, None, forced
    return int(rep.stats.get("nodes", 0)), rep.verdict.value, forced


_SAT: list[Any] = []


def _sat() -> Any:
    if not _SAT:
        from puzzlekit.verifiers.registry import get_verifier

        _SAT.append(get_verifier("sat", forced_cells=False))
    return _SAT[0]
