"""The enumerative verifier: the reference backend, on python-constraint2.

It handles every constraint kind of the vocabulary, opaque ``Predicate`` oracles included, and
enumerates solutions up to the cap. Domains are first narrowed soundly
(``puzzlekit.verifiers.base``),
then python-constraint2's ``BacktrackingSolver`` enumerates; a guard constraint on every
variable counts search nodes and enforces the budget.

Solver choice, measured on this project's 2-core machine (``/tmp``-free: rerun with
``python -m puzzlekit.verifiers.enumerative --measure``) on the first ten 17-clue puzzles of
``shared/data/sudoku`` counting to two solutions, without domain narrowing:
``BacktrackingSolver`` median 1,557 ms, default ``OptimizedBacktrackingSolver`` 50,423 ms for
one puzzle (the rest were not run), ``RecursiveBacktrackingSolver`` 1,903 ms. With narrowing
(singletons and hidden singles), ``BacktrackingSolver`` median 9.7 ms on 17-clue puzzles and
921 ms on forum-hardest ones. All-different units over as many variables as values then got
hidden singles inside the search (``_Permutation``): on 15 puzzles each, measured on a loaded
machine in one run, the median went from 15.8 to 11.4 ms (17-clue) and from 788 to 172 ms
(top1465), and the worst 17-clue case from 3.9 s to 94 ms; a sparse unsatisfiable 12×12 whose
minimal conflict took 162 s to shrink now takes 0.7 s. This backend is the reference, not the
fast one: see ``sat``.

Not for: speed on large grids, or families it cannot enumerate within the budget.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence

import constraint as pc

from puzzlekit.core import dispatch, protocols
from puzzlekit.core.model import (
    AllDifferent,
    Automaton,
    Compare,
    Constraint,
    Count,
    Instance,
    Linear,
    Predicate,
    Problem,
    Regular,
    Table,
    compare,
)
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import VerifierReport
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    DEFAULT_MAX_CARTESIAN_LOG10,
    BudgetExceeded,
    Meter,
    search_order,
    sort_solutions,
    source,
    verify_with,
)

VERSION = "1.0"


class _Guard(pc.Constraint):
    """Always satisfied; called once per assignment, so it counts nodes and enforces the budget."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def __call__(self, variables, domains, assignments, forwardcheck=False, _unassigned=None):
        self.meter.tick()
        return True

    def preProcess(self, variables, domains, constraints, vconstraints):  # noqa: N802
        return None


class _Permutation(pc.Constraint):
    """All-different over as many variables as values, with hidden singles in forward checking.

    python-constraint2's ``AllDifferentConstraint`` removes an assigned value from the other
    domains; a permutation unit also knows that every value must go somewhere: a value with no
    place left fails the branch, and a value with one place left pins that variable. This is the
    reasoning that makes sparse but unsatisfiable grids provable without exponential search.
    """

    def __init__(self, values: frozenset[int]) -> None:
        self.values = values

    def __call__(self, variables, domains, assignments, forwardcheck=False, _unassigned=None):
        seen = set()
        free = []
        for variable in variables:
            if variable in assignments:
                value = assignments[variable]
                if value in seen:
                    return False
                seen.add(value)
            else:
                free.append(variable)
        if not forwardcheck:
            return True
        for variable in free:
            domain = domains[variable]
            for value in seen:
                if value in domain:
                    domain.hideValue(value)
                    if not domain:
                        return False
        for value in self.values - seen:
            places = [v for v in free if value in domains[v]]
            if not places:
                return False
            if len(places) == 1:
                domain = domains[places[0]]
                for other in [x for x in domain if x != value]:
                    domain.hideValue(other)
        return True


class _RegularConstraint(pc.Constraint):
    """A ``Regular`` line checked on partial assignments, with forward checking.

    ``FunctionConstraint`` can only test a line once every cell of it is assigned, which leaves
    nonogram and skyscraper lines to blind search. Here the automaton runs over the assigned
    values and the current domains of the unassigned ones: no accepting state reachable means
    no completion (sound), and under forward checking every value on no accepting path is hidden
    (generalized arc consistency on the line). The solutions are those of testing the full word.
    """

    def __init__(self, automaton: Automaton) -> None:
        self.start = automaton.start
        self.accepting = automaton.accepting
        self.delta: dict[int, list[tuple[int, int]]] = {}
        for s, a, t in automaton.transitions:
            self.delta.setdefault(s, []).append((a, t))

    def __call__(self, variables, domains, assignments, forwardcheck=False, _unassigned=None):
        allowed = [(assignments[v],) if v in assignments else tuple(domains[v]) for v in variables]
        layers = [{self.start}]
        for vals in allowed:
            nxt = {t for s in layers[-1] for a, t in self.delta.get(s, ()) if a in vals}
            if not nxt:
                return False
            layers.append(nxt)
        alive = layers[-1] & self.accepting
        if not alive:
            return False
        if not forwardcheck:
            return True
        for i in range(len(variables) - 1, -1, -1):
            supported: set[int] = set()
            back: set[int] = set()
            for s in layers[i]:
                for a, t in self.delta.get(s, ()):
                    if t in alive and a in allowed[i]:
                        supported.add(a)
                        back.add(s)
            v = variables[i]
            if v not in assignments:
                domain = domains[v]
                for value in domain[:]:
                    if value not in supported:
                        domain.hideValue(value)
                if not domain:
                    return False
            alive = back
        return True


class _CountConstraint(pc.Constraint):
    """``Count(vars, value, op, k)`` for ``==``, ``<=`` and ``>=``, checked on partial assignments.

    Counts the variables fixed to ``value`` and those that may still take it: a bound that can
    no longer be met fails the branch, and under forward checking a met upper bound hides
    ``value`` from the rest while a tight lower bound pins them to it (star battle rows).
    """

    def __init__(self, value: int, op: str, k: int) -> None:
        self.value, self.op, self.k = value, op, k

    def __call__(self, variables, domains, assignments, forwardcheck=False, _unassigned=None):
        value, k = self.value, self.k
        fixed = 0
        maybe = []
        for v in variables:
            if v in assignments:
                fixed += assignments[v] == value
            elif value in domains[v]:
                maybe.append(v)
        upper = self.op in ("==", "<=")
        lower = self.op in ("==", ">=")
        if (upper and fixed > k) or (lower and fixed + len(maybe) < k):
            return False
        if not forwardcheck:
            return True
        if upper and fixed == k:
            for v in maybe:
                domains[v].hideValue(value)
                if not domains[v]:
                    return False
        elif lower and fixed + len(maybe) == k:
            for v in maybe:
                domain = domains[v]
                for other in [x for x in domain if x != value]:
                    domain.hideValue(other)
        return True


class _ExactSum(pc.ExactSumConstraint):
    """python-constraint2's exact sum, whose preprocessing fails on an empty domain (an earlier
    sum constraint may empty one); an empty domain already means no solution, so skip it."""

    def preProcess(self, variables, domains, constraints, vconstraints):  # noqa: N802
        if all(domains[v] for v in variables):
            super().preProcess(variables, domains, constraints, vconstraints)


def _to_pc(c: Constraint, domains: Mapping[str, Sequence[int]]) -> pc.Constraint:
    if isinstance(c, AllDifferent):
        values = frozenset(x for v in c.vars for x in domains[v])
        if len(values) == len(c.vars):
            return _Permutation(values)
        return pc.AllDifferentConstraint()
    if isinstance(c, Linear):
        if c.op == "==" and all(k == 1 for k in c.coeffs):
            return _ExactSum(c.rhs)
        coeffs, op, rhs = c.coeffs, c.op, c.rhs
        return pc.FunctionConstraint(
            lambda *xs: compare(sum(k * x for k, x in zip(coeffs, xs, strict=True)), op, rhs)
        )
    if isinstance(c, Compare):
        op = c.op
        return pc.FunctionConstraint(lambda a, b: compare(a, op, b))
    if isinstance(c, Table):
        allowed = c.allowed
        return pc.FunctionConstraint(lambda *xs: xs in allowed)
    if isinstance(c, Count) and c.op in ("==", "<=", ">="):
        return _CountConstraint(c.value, c.op, c.k)
    if isinstance(c, Count):
        value, op, k = c.value, c.op, c.k
        return pc.FunctionConstraint(lambda *xs: compare(sum(1 for x in xs if x == value), op, k))
    if isinstance(c, Regular):
        return _RegularConstraint(c.automaton)
    if isinstance(c, Predicate):
        fn, rule = c.fn, c.origin.id

        def holds(*xs: int) -> bool:
            try:
                return bool(fn(*xs))
            except BudgetExceeded:  # the deadline passed inside the rule: no answer
                raise
            except Exception:  # a dispatch error: in the verification's tally, not a solution
                dispatch.record(rule, xs)
                return False

        return pc.FunctionConstraint(holds)
    raise TypeError(f"not a constraint of the vocabulary: {c!r}")


class _Backend:
    def solve(
        self,
        problem: Problem,
        domains: Mapping[str, Sequence[int]],
        constraints: Sequence[Constraint],
        cap: int,
        meter: Meter,
    ) -> list[dict[str, int]]:
        p = pc.Problem(pc.BacktrackingSolver())
        names = problem.schema.names
        # the solver breaks ties between equally constrained variables by the order they were
        # added: an order drawn from the instance digest keeps the solutions reported at the cap
        # free of reading-order bias (search_order)
        order = search_order(names, problem.instance.digest)
        for name in order:
            p.addVariable(name, list(domains[name]))
        for c in constraints:
            if len(c.vars) > 1:  # unary constraints are already applied to the domains
                p.addConstraint(_to_pc(c, domains), list(c.vars))
        p.addConstraint(_Guard(meter), list(names))
        found: list[dict[str, int]] = []
        try:
            for sol in itertools.islice(p.getSolutionIter(), cap):
                found.append({n: sol[n] for n in names})
                meter.check_clock()
        except BudgetExceeded as exc:
            exc.solutions = found  # type: ignore[attr-defined]
            raise
        return sort_solutions(found, order)  # a history-free order, as sat reports them


class EnumerativeVerifier(protocols.Verifier):
    """Reference verifier: every constraint kind, exact, slow on hard instances."""

    name = "enumerative"
    version = VERSION
    exact = True
    holdout_name = "sat"

    def __init__(self, *, max_cartesian_log10: float | None = DEFAULT_MAX_CARTESIAN_LOG10) -> None:
        self.max_cartesian_log10 = max_cartesian_log10
        self._backend = _Backend()

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        """Verify ``instance``; ``dispatchErrorCount`` counts the distinct inputs on which a
        ``Predicate`` (an oracle) raised, among those the search reached (domain narrowing
        included: a one-field rule is only called there)."""
        return verify_with(
            self._backend,
            instance,
            source(self.name, self.version),
            solution_cap=solution_cap,
            budget=budget,
            max_cartesian_log10=self.max_cartesian_log10,
        )
