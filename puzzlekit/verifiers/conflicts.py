"""Shrinking an unsatisfiable instance to a small conflict, smallest first, so that every backend
with exact answers reports the same conflict for the same instance:

1. a direct clash between clues, found without search (:func:`direct_clash`): two givens of one
   value in one all-different group (that pair and that rule), or a given outside its domain;
2. otherwise a minimal clue set (deletion in instance order, :func:`shrink`), then a smallest one
   by implicit hitting sets (:func:`smallest`: a minimum hitting set of the correction sets found
   so far, from python-sat's ``Hitman``, is a smallest conflict as soon as it is unsatisfiable
   itself, the scheme of ``pysat.examples.optux``) while the budget and
   ``MINIMUM_CHECKS_PER_CLUE`` last;
3. then the rules, in schema order.

The conflict says which it is (``conflictKind``: ``direct``, ``minimum``, ``minimal``).
:func:`shrink_conflict` takes the backend's satisfiability check; :func:`minimal_conflict` is the
one of a search backend, charged to the verification's own meter so that shrinking honours the
search budget.

Re-exported by :mod:`puzzlekit.verifiers.base`. Not for deciding that an instance is
unsatisfiable: the backends do that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from puzzlekit.core.model import (
    AllDifferent,
    Problem,
)
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import (
    Conflict,
    ConflictClue,
    ConflictRule,
)
from puzzlekit.verifiers.search import BudgetExceeded, Meter, SearchBackend, narrow_domains


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
#: satisfiability checks the search for a smallest conflict may spend, per clue of the instance
#: (a count, not a time, so that the conflict reported depends on the instance alone): it
#: bounds the extra cost to a few times that of shrinking, enough to prove a conflict of one
#: or two clues smallest or to find a small one below a larger minimal conflict; a larger
#: minimal conflict is reported as ``minimal``
MINIMUM_CHECKS_PER_CLUE = 4


def minimal_conflict(
    backend: SearchBackend, problem: Problem, budget: SearchBudget, meter: Meter | None = None
) -> Conflict:
    """Shrink the clues, then the rules, of an unsatisfiable problem to a small conflict.

    Clue checks are charged to ``meter`` (the verification's own, so that shrinking spends what
    is left of the budget, not a new budget per check; a fresh meter of ``budget`` without one).
    Rules are shrunk with a small node budget per check, within the time left (dropping a rule
    can leave a loose problem that a static-order search explores slowly).
    """
    by_rule = {r.origin.id: r for r in problem.schema.rules}
    clue_cs = dict(problem.clue_constraints)
    shared = meter or Meter(budget)

    def small() -> Meter:
        left = None if budget.seconds is None else max(1e-9, budget.seconds - shared.seconds)
        return Meter(
            SearchBudget(
                nodes=min(budget.nodes or RULE_CHECK_NODES, RULE_CHECK_NODES), seconds=left
            )
        )

    def unsat(clue_ids: Sequence[str], rids: Sequence[str], m: Meter) -> bool | None:
        cs = [by_rule[r] for r in rids]
        for cid in clue_ids:
            cs.extend(clue_cs[cid])
        try:
            m.check_clock()  # also before narrowing: a check it settles spends time too
            doms = narrow_domains(problem, cs)
            if doms is None:
                return True
            return not backend.solve(problem, doms, cs, 1, m)
        except BudgetExceeded:
            return None

    return shrink_conflict(
        problem, lambda c, r: unsat(c, r, shared), rule_unsat=lambda c, r: unsat(c, r, small())
    )


def direct_clash(problem: Problem) -> Conflict | None:
    """A conflict found without search: a clue whose value lies outside its variable's domain
    (that clue alone), else the first two clues (in instance order) that give one value to two
    variables of one all-different rule (that pair and that rule); None when there is neither."""
    fixed: dict[str, list[tuple[str, int]]] = {}
    clue_cs = dict(problem.clue_constraints)
    for clue in problem.clues:
        cs = list(clue_cs[clue.id])
        if not cs or any(len(c.vars) != 1 for c in cs):
            continue
        doms = narrow_domains(problem, cs)
        if doms is None:
            return Conflict((conflict_clue(problem, clue.id),), (), True, "direct")
        for name in {c.vars[0] for c in cs}:
            if len(doms[name]) == 1:
                fixed.setdefault(name, []).append((clue.id, doms[name][0]))
    order = {c.id: i for i, c in enumerate(problem.clues)}
    best: tuple[tuple[int, int], str, str, AllDifferent] | None = None
    for rule in problem.schema.rules:
        if not isinstance(rule, AllDifferent):
            continue
        holder: dict[int, str] = {}
        for name in rule.vars:
            for cid, value in fixed.get(name, ()):
                other = holder.setdefault(value, cid)
                if other != cid:
                    key = tuple(sorted((order[other], order[cid])))
                    if best is None or key < best[0]:
                        best = (key, other, cid, rule)  # type: ignore[assignment]
    if best is None:
        return None
    _, a, b, rule = best
    pair = sorted((a, b), key=order.__getitem__)
    return Conflict(
        tuple(conflict_clue(problem, cid) for cid in pair),
        (ConflictRule(rule.origin.id, rule.origin.coords),),
        True,
        "direct",
    )


def smallest(
    items: Sequence[str],
    found: Sequence[str],
    is_unsat: Callable[[Sequence[str]], bool | None],
    max_checks: int | None = None,
) -> tuple[list[str], bool]:
    """A smallest unsatisfiable subset of ``items``, given ``found``, a minimal one.

    Implicit hitting sets: every conflict meets every correction set (the complement of a
    maximal satisfiable subset), so a minimum hitting set of the correction sets found so far is
    a lower bound, and is a smallest conflict as soon as it is unsatisfiable itself. Returns
    (conflict, True) once proven smallest; (``found``, False) when a check ran out of budget or
    ``max_checks`` (default ``MINIMUM_CHECKS_PER_CLUE`` per item) were spent.
    """
    from pysat.examples.hitman import Hitman  # python-sat only where a conflict is minimised

    if max_checks is None:
        max_checks = MINIMUM_CHECKS_PER_CLUE * len(items)
    index = {c: i + 1 for i, c in enumerate(items)}
    checks = 0
    with Hitman(htype="sorted") as hitman:
        while checks < max_checks:
            hit = [items[i - 1] for i in sorted(hitman.get() or ())]
            if len(hit) >= len(found):
                return list(found), True
            checks += 1
            answer = is_unsat(hit)
            if answer is None:
                break
            if answer:
                return hit, True
            sat = list(hit)
            for c in items:  # grow to a maximal satisfiable subset
                if c in sat:
                    continue
                if checks >= max_checks:
                    return list(found), False
                checks += 1
                grown = is_unsat([*sat, c])
                if grown is None:
                    return list(found), False
                if not grown:
                    sat.append(c)
            hitman.hit([index[c] for c in items if c not in sat])
    return list(found), False


def shrink_conflict(
    problem: Problem,
    unsat: Callable[[Sequence[str], Sequence[str]], bool | None],
    *,
    rule_unsat: Callable[[Sequence[str], Sequence[str]], bool | None] | None = None,
) -> Conflict:
    """The smallest conflict the budget allows: a direct clash, else a minimum clue set, else a
    minimal one (the module docstring), then its rules.

    ``unsat(clue_ids, rule_ids)`` answers whether those clues and rules together have no solution
    (None: the budget ran out); ``rule_unsat`` (default ``unsat``) answers while shrinking rules.
    Clues are dropped in instance order and rules in schema order, so every backend with exact
    answers reports the same conflict for the same instance. ``minimal`` speaks of the clues; a
    rule whose check ran out is kept, so the rules reported always suffice for the conflict.
    """
    direct = direct_clash(problem)
    if direct is not None:
        return direct
    rule_unsat = rule_unsat or unsat
    rules = list(problem.schema.rules)
    rule_ids = [r.origin.id for r in rules]
    by_rule = dict(zip(rule_ids, rules, strict=True))
    clue_cs = dict(problem.clue_constraints)
    every = [c.id for c in problem.clues]
    clue_ids, clues_minimal = shrink(every, lambda s: unsat(s, rule_ids))
    kind = "minimal"
    if clues_minimal and len(clue_ids) > 1:
        clue_ids, least = smallest(every, clue_ids, lambda s: unsat(s, rule_ids))
        kind = "minimum" if least else kind
    elif clues_minimal:
        kind = "minimum"  # one clue (or none): nothing smaller conflicts
    # First try dropping, at once, every rule that shares no variable with the conflict's clues.
    touched = {v for cid in clue_ids for c in clue_cs[cid] for v in c.vars}
    near = [r for r in rule_ids if touched & set(by_rule[r].vars)]
    candidates = near if rule_unsat(clue_ids, near) is True else rule_ids
    kept_rules, _ = shrink(candidates, lambda s: rule_unsat(clue_ids, s))
    return Conflict(
        tuple(conflict_clue(problem, cid) for cid in clue_ids),
        tuple(ConflictRule(r, by_rule[r].origin.coords) for r in kept_rules),
        clues_minimal,
        kind,
    )
