"""``takuzu-lines``: an exact verifier dedicated to takuzu, by line propagation and backtracking.

Each row and column keeps the patterns it may still take (balanced, no three equal in a run,
consistent with its known cells, unequal to every complete line it must differ from); a cell
all of its line's patterns agree on is fixed, to a fixpoint, and the search branches on the
first incomplete row's patterns (``puzzlekit_takuzu.lines``). Solutions come out in
lexicographic order of the cells, so when the cap is reached the reported ones are the first
ones, as the ``sat`` backend reports them.

Reports are built with the helpers every backend shares (``puzzlekit.verifiers.base``), so they
say what the built-ins say in the same words: MULTIPLE with the discriminative gap, UNSOLVABLE
with the conflict shrunk to a minimal set of clues and the rules involved (the solver answers
for any subset of the rules, so rule shrinking is exact too), INVALID_SPEC with the family's
violations, UNDECIDED with the budget when it runs out. ``cartesianSize`` counts the search
space with the givens fixed and nothing propagated (as ``sat`` does).

Not for: other families. It declines them by raising ``NotImplementedError`` (as ``gametree``
declines non-games); ``puzzlekit.quality.checks`` and the golden corpora treat that as "not
this verifier's instance".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from puzzlekit.core.model import Instance, Problem, SpecError
from puzzlekit.core.protocols import SearchBudget, Verifier
from puzzlekit.core.report import Conflict, VerifierReport
from puzzlekit.families import get_family
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    BudgetExceeded,
    Meter,
    cartesian,
    invalid_report,
    outcome_report,
    shrink_conflict,
    source,
    try_resolve,
    undecided_report,
)
from puzzlekit.verifiers.registry import register_verifier

from puzzlekit_takuzu.family import Takuzu
from puzzlekit_takuzu.lines import board, rule_specs, solve

VERSION = "1.0"
#: node budget of one check while shrinking the rules of a conflict (as the built-ins do)
RULE_CHECK_NODES = 20_000


class TakuzuLines(Verifier):
    """Exact takuzu verifier: line propagation and backtracking, counting to the cap."""

    name = "takuzu-lines"
    version = VERSION
    exact = True

    def accepts(self, instance: Instance) -> bool:
        """Takuzu instances only (``check_family`` of another family leaves this backend out)."""
        try:
            return isinstance(get_family(instance.family), Takuzu)
        except SpecError:
            return False

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),  # no report extras: the names asked for are ignored
    ) -> VerifierReport:
        if solution_cap < 2:
            raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
        budget = budget or SearchBudget()
        src = source(self.name, self.version)
        try:
            family = get_family(instance.family)
        except SpecError as exc:
            return invalid_report(instance, exc.violations, src, solution_cap)
        if not isinstance(family, Takuzu):
            raise NotImplementedError(
                f"{self.name} verifies takuzu only, not {instance.family}; use sat or enumerative"
            )
        resolved = try_resolve(instance)
        if not isinstance(resolved, Problem):
            return invalid_report(instance, resolved, src, solution_cap)
        problem = resolved
        n = problem.schema.params_dict()["size"]
        givens = _givens(problem)
        everything = {c: v for cs in givens.values() for c, v in cs}
        domains = {
            v.name: [everything[v.coord]] if v.coord in everything else list(v.domain)
            for v in problem.schema.variables
        }
        cart = cartesian(domains)
        meter = Meter(budget)
        solutions: list[dict[str, int]] = []
        try:
            solve(board(n), everything, solution_cap, meter.tick, found=solutions)
        except BudgetExceeded as exc:
            exc.solutions = solutions  # type: ignore[attr-defined]  # what an UNDECIDED shows
            return undecided_report(
                problem, src, solution_cap, domains, cart, exc, meter.nodes, meter.seconds
            )
        stats = {"nodes": meter.nodes, "seconds": round(meter.seconds, 6)}
        return outcome_report(
            problem,
            src,
            solution_cap,
            solutions,
            cart,
            stats,
            lambda: minimal_conflict(problem, givens, budget),
        )


def _givens(problem: Problem) -> dict[str, tuple[tuple[tuple[int, int], int], ...]]:
    """Each clue id's fixed cells (a given fixes one), read from its resolved constraints."""
    out = {}
    for cid, constraints in problem.clue_constraints:
        cells = []
        for c in constraints:
            coord = problem.schema.var(c.vars[0]).coord
            cells.append((coord, c.rhs))
        out[cid] = tuple(cells)
    return out


def minimal_conflict(
    problem: Problem,
    givens: Mapping[str, Sequence[tuple[tuple[int, int], int]]],
    budget: SearchBudget,
) -> Conflict:
    """The clues, then the rules, of an unsatisfiable instance shrunk to a minimal conflict
    (``puzzlekit.verifiers.base.shrink_conflict``: the same order as every backend)."""
    n = problem.schema.params_dict()["size"]
    by_id = {s.id: s for s in rule_specs(n)}
    small = SearchBudget(
        nodes=min(budget.nodes or RULE_CHECK_NODES, RULE_CHECK_NODES), seconds=budget.seconds
    )

    def unsat(clue_ids: Sequence[str], rule_ids: Sequence[str], b: SearchBudget) -> bool | None:
        cells = {coord: v for cid in clue_ids for coord, v in givens[cid]}
        try:
            rules = board(n, [by_id[r] for r in rule_ids])
            return not solve(rules, cells, 1, Meter(b).tick, lex=False)
        except BudgetExceeded:
            return None

    return shrink_conflict(
        problem, lambda c, r: unsat(c, r, budget), rule_unsat=lambda c, r: unsat(c, r, small)
    )


register_verifier(TakuzuLines.name, TakuzuLines)
