"""Shrinking an unsatisfiable instance to a minimal conflict: clues dropped in instance order
(under every rule), then rules in schema order, so that every backend with exact answers reports
the same conflict for the same instance (:func:`shrink_conflict`, :func:`minimal_conflict` for a
search backend, :func:`shrink` for deletion-based shrinking of any list).

Re-exported by :mod:`puzzlekit.verifiers.base`. Not for deciding that an instance is
unsatisfiable: the backends do that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from puzzlekit.core.model import (
    Problem,
)
from puzzlekit.core.report import (
    Conflict,
    ConflictClue,
    ConflictRule,
)
from puzzlekit.verifiers.search import (
    BudgetExceeded,
    Meter,
    SearchBackend,
    SearchBudget,
    narrow_domains,
)


def conflict_clue(problem: Problem, clue_id: str) -> ConflictClue:
    clue = next(c for c in problem.clues if c.id == clue_id)
    coord = clue.coords[0] if clue.coords else None
    var = problem.schema.var_at(coord) if coord is not None else None
    return ConflictClue(
        clue.id,
        clue.kind,
        coord,
        var.name if var else f"clue {clue.id}",
        clue.coords,
        clue.data_dict(),
    )


def shrink(
    items: Sequence[str], is_unsat: Callable[[Sequence[str]], bool | None]
) -> tuple[list[str], bool]:
    """Deletion-based shrinking to a minimal unsatisfiable subset.

    ``is_unsat(subset)`` answers True (unsatisfiable), False, or None (budget ran out). An item
    is dropped when the rest stays unsatisfiable; the result is minimal when no answer was None.
    """
    kept = list(items)
    minimal = True
    i = 0
    while i < len(kept):
        trial = kept[:i] + kept[i + 1 :]
        answer = is_unsat(trial)
        if answer is True:
            kept = trial
        else:
            minimal = minimal and answer is False
            i += 1
    return kept, minimal


#: node budget of one satisfiability check while shrinking the rules of a conflict
RULE_CHECK_NODES = 20_000


def minimal_conflict(backend: SearchBackend, problem: Problem, budget: SearchBudget) -> Conflict:
    """Shrink the clues, then the rules, of an unsatisfiable problem to a minimal conflict.

    Clues are shrunk under the full budget. Rules are shrunk with a small node budget per check
    (dropping a rule can leave a loose problem that a static-order search explores slowly).
    """
    by_rule = {r.origin.id: r for r in problem.schema.rules}
    clue_cs = dict(problem.clue_constraints)
    small = SearchBudget(
        nodes=min(budget.nodes or RULE_CHECK_NODES, RULE_CHECK_NODES), seconds=budget.seconds
    )

    def unsat(clue_ids: Sequence[str], rids: Sequence[str], b: SearchBudget) -> bool | None:
        cs = [by_rule[r] for r in rids]
        for cid in clue_ids:
            cs.extend(clue_cs[cid])
        doms = narrow_domains(problem, cs)
        if doms is None:
            return True
        try:
            return not backend.solve(problem, doms, cs, 1, Meter(b))
        except BudgetExceeded:
            return None

    return shrink_conflict(
        problem, lambda c, r: unsat(c, r, budget), rule_unsat=lambda c, r: unsat(c, r, small)
    )


def shrink_conflict(
    problem: Problem,
    unsat: Callable[[Sequence[str], Sequence[str]], bool | None],
    *,
    rule_unsat: Callable[[Sequence[str], Sequence[str]], bool | None] | None = None,
) -> Conflict:
    """Shrink the clues (under every rule), then the rules, to a minimal conflict.

    ``unsat(clue_ids, rule_ids)`` answers whether those clues and rules together have no solution
    (None: the budget ran out); ``rule_unsat`` (default ``unsat``) answers while shrinking rules.
    Clues are dropped in instance order and rules in schema order, so every backend with exact
    answers reports the same conflict for the same instance. ``minimal`` speaks of the clues; a
    rule whose check ran out is kept, so the rules reported always suffice for the conflict.
    """
    rule_unsat = rule_unsat or unsat
    rules = list(problem.schema.rules)
    rule_ids = [r.origin.id for r in rules]
    by_rule = dict(zip(rule_ids, rules, strict=True))
    clue_cs = dict(problem.clue_constraints)
    clue_ids, clues_minimal = shrink([c.id for c in problem.clues], lambda s: unsat(s, rule_ids))
    # First try dropping, at once, every rule that shares no variable with the conflict's clues.
    touched = {v for cid in clue_ids for c in clue_cs[cid] for v in c.vars}
    near = [r for r in rule_ids if touched & set(by_rule[r].vars)]
    candidates = near if rule_unsat(clue_ids, near) is True else rule_ids
    kept_rules, _ = shrink(candidates, lambda s: rule_unsat(clue_ids, s))
    return Conflict(
        tuple(conflict_clue(problem, cid) for cid in clue_ids),
        tuple(ConflictRule(r, by_rule[r].origin.coords) for r in kept_rules),
        clues_minimal,
    )
