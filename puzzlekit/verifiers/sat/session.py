"""The sat verifier's solver sessions: one incremental solver per schema (:class:`_Engine`, the
encoding loaded once, clue literals cached), one verification's solver calls against its budget
(:class:`_Run`), and what is asked of them: enumerating solutions under retired blocking clauses,
the backbone of a MULTIPLE instance, the domains the clues leave.

Private machinery of :mod:`puzzlekit.verifiers.sat.backend`; the verifier owns the engines and
decides when one is rebuilt. Not for encoding rules (:mod:`puzzlekit.verifiers.sat.encoding`) or for
building reports.
"""

from __future__ import annotations

import atexit
import math
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from pysat.solvers import Solver

from puzzlekit.core import deadline
from puzzlekit.core.model import (
    Constraint,
    Count,
    Problem,
    Schema,
)
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.verifiers.base import BudgetExceeded, cartesian, sort_solutions
from puzzlekit.verifiers.sat.encoding import _check_encodable, _Cnf, _rule_groups

#: conflicts per solver call between two looks at the clock
CHUNK = 20_000
#: conflicts allowed to one backbone check before the cell is left out as undetermined
BACKBONE_CONFLICTS = 1_000


#: clauses added to a solver between two readings of the clock
CLAUSES_PER_CHECK = 4096


def add_clauses(solver: Solver, clauses: Sequence[Sequence[int]]) -> None:
    """Add ``clauses`` to ``solver``, checking the deadline of the verification
    (:mod:`puzzlekit.core.deadline`) every :data:`CLAUSES_PER_CHECK` of them."""
    for start in range(0, len(clauses), CLAUSES_PER_CHECK):
        deadline.check()
        for clause in clauses[start : start + CLAUSES_PER_CHECK]:
            solver.add_clause(clause)


class _Engine:
    """One solver holding one schema's encoding; rules hard, or each rule under a selector."""

    def __init__(
        self, schema: Schema, solver_name: str, guard_rules: bool, amo: str = "auto"
    ) -> None:
        cnf = _Cnf(schema, amo)
        cnf.exactly_one_per_variable()
        self.rule_selector: dict[str, int] = {}
        for rid, rules in _rule_groups(schema).items():
            guard = cnf.new_var() if guard_rules else None
            if guard is not None:
                self.rule_selector[rid] = guard
            for r in rules:
                cnf.encode(r, guard)
        self.cnf = cnf
        self.schema = schema
        self.solver = Solver(name=solver_name)
        try:
            add_clauses(self.solver, cnf.clauses)
        except BaseException:  # out of time: no half-built engine is kept
            self.solver.delete()
            raise
        _LIVE.add(self)
        cnf.clauses = []
        self.clue_cache: dict[tuple[Any, ...], tuple[int, ...]] = {}
        #: variables each guarded clue's encoding added (clues that fix values add none)
        self.clue_vars: dict[tuple[Any, ...], int] = {}
        self.base_vars = cnf.top
        self.rebuild_at: float = math.inf  # the verifier that owns the engine sets it
        self.sessions = 0  # open uniqueness sessions: the solver must outlive them
        self.names = schema.names
        self.value = [a for _, a in cnf.value_of]
        self.full_log10 = sum(math.log10(len(v.domain)) for v in schema.variables if v.domain)
        # with equal domain sizes the clue cartesian depends only on how many variables are fixed
        self.uniform = len({len(v.domain) for v in schema.variables}) <= 1
        self.cart_cache: dict[int, tuple[int | float | None, float]] = {}
        self.below_cache: dict[tuple[str, int], int] = {}

    def clue_literals(
        self, key: tuple[Any, ...], constraints: Sequence[Constraint]
    ) -> tuple[int, ...]:
        """The assumptions that make ``constraints`` (one clue's) hold, encoding them once."""
        lits = self.clue_cache.get(key)
        if lits is not None:
            return lits
        cnf = self.cnf
        for c in constraints:
            _check_encodable(c, cnf.schema)
        if all(len(set(c.vars)) == 1 and not isinstance(c, Count) for c in constraints):
            allowed: dict[str, set[int]] = {}
            for c in constraints:
                (name,) = set(c.vars)
                vals = set(cnf.allowed_values(c))
                allowed[name] = allowed[name] & vals if name in allowed else vals
            if all(len(vals) == 1 for vals in allowed.values()):
                lits = tuple(sorted(cnf.lit[n][next(iter(vals))] for n, vals in allowed.items()))
        if lits is None:
            before = cnf.top
            guard = cnf.new_var()
            try:  # out of time halfway: what was added is under a guard never assumed
                for c in constraints:
                    cnf.encode(c, guard)
                add_clauses(self.solver, cnf.clauses)
            finally:
                cnf.clauses = []
            self.clue_vars[key] = cnf.top - before
            lits = (guard,)
        self.clue_cache[key] = lits
        return lits

    def decode(self, model: Sequence[int]) -> dict[str, int]:
        # exactly one value literal per variable is true, and value literals are numbered
        # variable by variable: the largest len(names) of them are the true ones, in order
        value = self.value
        true = sorted(model[: self.cnf.nx])[-len(self.names) :]
        return dict(zip(self.names, [value[lit] for lit in true], strict=True))

    def clue_cartesian(self, assumptions: Sequence[int]) -> tuple[int | float | None, float]:
        """``cartesian`` of the domains with the clue-fixed variables counted once (cached)."""
        nx = self.cnf.nx
        fixed = sum(1 for lit in assumptions if lit <= nx) if self.uniform else -1
        cart = self.cart_cache.get(fixed)
        if cart is None:
            cart = cartesian(_clue_domains(self, assumptions))
            if fixed >= 0:
                self.cart_cache[fixed] = cart
        return cart

    def blocking(self, solution: Mapping[str, int]) -> list[int]:
        lit = self.cnf.lit
        return [-lit[n][solution[n]] for n in self.names]

    def below(self, name: str, value: int) -> int:
        """A selector that, assumed, makes variable ``name`` take a value below ``value``."""
        key = (name, value)
        sel = self.below_cache.get(key)
        if sel is None:
            sel = self.cnf.new_var()
            row = self.cnf.lit[name]
            self.solver.add_clause([-sel, *(lit for a, lit in row.items() if a < value)])
            self.below_cache[key] = sel
        return sel

    def new_activation(self) -> int:
        return self.cnf.new_var()

    @property
    def outgrown(self) -> bool:
        """Whether the variables added since the rules passed the rebuild threshold."""
        return self.cnf.top > self.rebuild_at

    def close(self) -> None:
        self.solver.delete()
        _LIVE.discard(self)


#: engines whose solvers are still open; closed before interpreter shutdown, when python-sat's
#: own finalizer would run against half-torn-down modules and print a traceback
_LIVE: weakref.WeakSet[_Engine] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for engine in list(_LIVE):
        engine.close()


class _Run:
    """One verification's solver calls against its budget: conflicts as nodes, and the clock."""

    def __init__(self, budget: SearchBudget) -> None:
        self.budget = budget
        self.start = time.perf_counter()
        self.deadline = self.start + budget.seconds if budget.seconds is not None else None
        self.nodes = 0
        self.calls = 0

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start

    def solve(self, engine: _Engine, assumptions: Sequence[int], limit: int | None = None) -> bool:
        """Satisfiable under ``assumptions``; BudgetExceeded when the budget (or ``limit``) ends.

        The clock is read before the call and after every ``CHUNK`` conflicts, so that many
        short calls (the lexicographic descent, the backbone) honour the time budget too."""
        solver = engine.solver
        spent = 0
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise BudgetExceeded("seconds", self.budget.seconds)
        while True:
            allowed = CHUNK
            if self.budget.nodes is not None:
                allowed = min(allowed, self.budget.nodes - self.nodes)
            if limit is not None:
                allowed = min(allowed, limit - spent)
            if allowed <= 0:
                if limit is not None and spent >= limit:
                    raise BudgetExceeded("backbone", limit)
                raise BudgetExceeded("nodes", self.budget.nodes)
            before = solver.accum_stats()["conflicts"]
            solver.conf_budget(allowed)
            answer = solver.solve_limited(assumptions=assumptions)
            used = solver.accum_stats()["conflicts"] - before
            self.calls += 1
            self.nodes += used
            spent += used
            if answer is not None:
                return answer
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise BudgetExceeded("seconds", self.budget.seconds)


def _enumerate(
    engine: _Engine,
    assumptions: list[int],
    cap: int,
    run: _Run,
    order: Sequence[str],
    lex_first: bool = True,
) -> list[dict[str, int]]:
    """Up to ``cap`` solutions, sorted lexicographically over ``order``.

    The variables are taken in ``order`` (the verifier passes
    :func:`~puzzlekit.verifiers.search.search_order`, a permutation drawn from the instance
    digest, so that the solutions reported at the cap do not all differ in the last cells of
    reading order). ``lex_first``: the first ``cap`` solutions in that lexicographic order,
    which depend on the instance alone, not on what the solver learnt before. Canonical by
    construction: the solver first enumerates up to twice the cap; when that exhausts the
    solutions, the smallest ``cap`` of all of them are the ones; otherwise the solutions are
    drawn in lexicographic order (:func:`_lex_first`), starting from the models already found.
    Without it, the first ``cap`` found, which can depend on the solver's history.
    """
    try:
        found = _blocked_enumeration(engine, assumptions, 2 * cap if lex_first else cap, run, order)
        if len(found) <= cap or len(found) < 2 * cap:
            return found[:cap]
        return _lex_first(engine, assumptions, cap, run, found, order)
    except BudgetExceeded as exc:  # an UNDECIDED report shows at most ``cap`` found so far
        exc.solutions = getattr(exc, "solutions", [])[:cap]  # type: ignore[attr-defined]
        raise


def _blocked_enumeration(
    engine: _Engine, assumptions: list[int], cap: int, run: _Run, order: Sequence[str]
) -> list[dict[str, int]]:
    """Up to ``cap`` solutions in the order found, each blocked under one activation literal
    retired afterwards; sorted."""
    found: list[dict[str, int]] = []
    act = None
    try:
        while len(found) < cap:
            if not run.solve(engine, assumptions if act is None else [*assumptions, act]):
                break
            found.append(engine.decode(engine.solver.get_model()))
            if len(found) < cap:
                if act is None:
                    act = engine.new_activation()
                engine.solver.add_clause([-act, *engine.blocking(found[-1])])
    except BudgetExceeded as exc:
        exc.solutions = sort_solutions(found, order)  # type: ignore[attr-defined]
        raise
    finally:
        if act is not None:
            engine.solver.add_clause([-act])
    return sort_solutions(found, order)


def _lex_first(
    engine: _Engine,
    assumptions: list[int],
    cap: int,
    run: _Run,
    known: list[dict[str, int]],
    order: Sequence[str],
) -> list[dict[str, int]]:
    """The first ``cap`` solutions in lexicographic order over ``order``; ``known``: solutions
    already found (sorted), from which each descent starts. Each solution drawn is blocked under one
    activation literal, so the next descent finds the smallest of the rest."""
    out: list[dict[str, int]] = []
    act = engine.new_activation()
    prefix = [*assumptions, act]
    pending = list(known)
    try:
        while len(out) < cap:
            if not out:
                start, same = pending.pop(0), 0
            else:
                nxt = pending[0] if pending else None
                found = _next_start(engine, prefix, out[-1], nxt, run, order)
                if found is None:
                    break
                start, same = found
            out.append(_lowest(engine, prefix, start, run, order, same))
            pending = [s for s in pending if s != out[-1]]
            if len(out) < cap:
                engine.solver.add_clause([-act, *engine.blocking(out[-1])])
    except BudgetExceeded as exc:
        exc.solutions = sort_solutions(out or known, order)  # type: ignore[attr-defined]
        raise
    finally:
        engine.solver.add_clause([-act])
    return out


def _next_start(
    engine: _Engine,
    prefix: list[int],
    last: Mapping[str, int],
    candidate: Mapping[str, int] | None,
    run: _Run,
    order: Sequence[str],
) -> tuple[dict[str, int], int] | None:
    """A solution left (``last`` and those below it blocked) sharing the longest prefix with
    ``last`` any solution left shares, and that prefix's length; None when none is left.

    Every solution left is above ``last``, so the smallest one shares that longest prefix, whose
    values the descent of ``last`` proved minimal. Its length is found by bisection: the clues
    plus ``last``'s first ``k`` values are satisfiable for ``k`` up to it and not beyond.
    """
    names, lit = order, engine.cnf.lit
    if candidate is None:
        if not run.solve(engine, prefix):
            return None
        candidate = engine.decode(engine.solver.get_model())
    best, lo, hi = dict(candidate), _common(names, candidate, last), len(names)
    lits = [lit[n][last[n]] for n in names]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if run.solve(engine, [*prefix, *lits[:mid]]):
            best = engine.decode(engine.solver.get_model())
            lo = _common(names, best, last)
        else:
            hi = mid
    return best, lo


def _common(names: Sequence[str], a: Mapping[str, int], b: Mapping[str, int]) -> int:
    """How many variables (taken in ``names``) ``a`` and ``b`` agree on before they first
    differ."""
    n = 0
    for name in names:
        if a[name] != b[name]:
            break
        n += 1
    return n


def _lowest(
    engine: _Engine,
    assumptions: list[int],
    model: dict[str, int],
    run: _Run,
    order: Sequence[str],
    known: int = 0,
) -> dict[str, int]:
    """The lexicographically smallest solution under ``assumptions`` (variables taken in
    ``order``), starting from ``model``.

    Variable by variable the value is fixed once no smaller one is possible:
    unit propagation under the values fixed so far rules most out for free; otherwise the
    solver is asked for a smaller value until it says there is none. The first ``known``
    values of ``model`` are known to be minimal already.
    """
    solver, lit = engine.solver, engine.cnf.lit
    prefix = list(assumptions)
    implied: set[int] | None = None  # what propagation under ``prefix`` fixes, when known
    for i, name in enumerate(order):
        row = lit[name]
        value = model[name]
        smaller = [-row[a] for a in row if a < value] if i >= known else ()
        if smaller:
            if implied is None:
                implied = set(solver.propagate(assumptions=prefix)[1])
            if not all(x in implied for x in smaller):
                while run.solve(engine, [*prefix, engine.below(name, value)]):
                    model = engine.decode(solver.get_model())
                    value = model[name]
                implied = None  # the prefix grows by a value propagation had not fixed
        prefix.append(row[value])
    return model


def _backbone(
    engine: _Engine,
    assumptions: list[int],
    solutions: Sequence[Mapping[str, int]],
    run: _Run,
) -> tuple[list[dict[str, Any]], bool]:
    """Cells with the same value in every solution (``forcedCells``), and whether all were decided.

    Candidates are the cells on which the found solutions agree; a candidate is forced when unit
    propagation fixes it or the solver refutes its negation within ``BACKBONE_CONFLICTS``. The
    verification's budget holds: when its time or nodes run out, the cells proved so far are
    returned, marked incomplete.
    """
    schema = engine.schema
    lit = engine.cnf.lit
    first = solutions[0]
    candidates = {
        v.name: first[v.name]
        for v in schema.variables
        if all(s[v.name] == first[v.name] for s in solutions)
    }
    complete = True
    forced: set[str] = set()
    # unit propagation (with what the solver has learnt, all of it implied) fixes many for free
    implied = set(engine.solver.propagate(assumptions=assumptions)[1])
    for v in schema.variables:
        name = v.name
        if name not in candidates:
            continue
        if lit[name][candidates[name]] in implied:
            forced.add(name)
            continue
        if run.deadline is not None and time.perf_counter() > run.deadline:
            return _forced_out(schema, forced, first), False  # out of time: what was found
        try:
            sat = run.solve(
                engine, [*assumptions, -lit[name][candidates[name]]], BACKBONE_CONFLICTS
            )
        except BudgetExceeded as exc:
            if exc.resource != "backbone":  # the verification's own budget ran out
                return _forced_out(schema, forced, first), False
            complete = False
            continue
        if not sat:
            forced.add(name)
            continue
        other = engine.decode(engine.solver.get_model())
        for n in [n for n, a in candidates.items() if other[n] != a]:
            del candidates[n]
    return _forced_out(schema, forced, first), complete


def _forced_out(schema: Schema, forced: set[str], first: Mapping[str, int]) -> list[dict[str, Any]]:
    return [
        {"coord": list(v.coord), "fieldName": v.name, "value": first[v.name]}
        for v in schema.variables
        if v.name in forced
    ]


def _clue_domains(engine: _Engine, assumptions: list[int]) -> dict[str, Sequence[int]]:
    """Each variable's domain, a single value where a clue fixes it (no propagation)."""
    out: dict[str, Sequence[int]] = {v.name: v.domain for v in engine.schema.variables}
    value_of, names, nx = engine.cnf.value_of, engine.names, engine.cnf.nx
    for lit in assumptions:
        if lit <= nx:
            i, a = value_of[lit]
            out[names[i]] = (a,)
    return out


def _clue_literals_on(engine: _Engine, problem: Problem) -> dict[str, tuple[int, ...]]:
    """Each clue's assumption literals on ``engine`` (selectors differ from solver to solver)."""
    clues = {c.id: c for c in problem.clues}
    out = {}
    for cid, cs in problem.clue_constraints:
        clue = clues[cid]
        out[cid] = engine.clue_literals((clue.kind, clue.data, clue.coords), cs)
    return out
