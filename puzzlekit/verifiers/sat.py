"""The sat verifier: an incremental SAT backend on python-sat (CaDiCaL by default).

Each schema (family + params) is encoded once into one incremental solver, kept for the life of
the verifier: every variable gets one Boolean per domain value (the direct encoding, exactly one
true), and every rule of the vocabulary except ``Predicate`` becomes clauses: ``AllDifferent`` (at
most one variable per value, at least one when the values are a permutation), ``Linear`` and
``Regular`` (an automaton unrolled layer by layer; for ``Linear`` the states are partial sums, so
negative coefficients are fine), ``Compare`` (forbidden pairs plus supports), ``Table`` (one
clause per forbidden tuple when it forbids fewer tuples than it allows, else one Boolean per
allowed tuple) and ``Count`` (``pysat.card``). A clue does not change the solver: a
clue that fixes variables is passed as the value literals themselves, any other clue as an
activation literal guarding its clauses (added once per distinct clue), so instances of the same
schema reuse the solver and what it has learnt.

Per instance: the clue literals are the assumptions. Solutions are enumerated under a blocking
clause guarded by a fresh activation literal that is retired afterwards (a unit clause of its
negation). UNSOLVABLE: the clues are shrunk in instance order and then the rules in schema order
(``puzzlekit.verifiers.base.shrink_conflict``, as the enumerative backend does, so the same clues
as the
enumerative backend), where every assumption core found along the way proves later trials
unsatisfiable without calling the solver. MULTIPLE: the discriminative gap over the solutions
found, and the backbone (the cells with the same value in every solution) as ``forcedCells`` in
the report's stats, found by assumption checks with a bounded conflict budget each.

The report content depends on the instance and the settings alone: solutions are sorted (by
values in schema order); when the cap is reached, the solutions reported are the lexicographically
first ones (found by asking the solver for smaller values variable by variable), whatever the
solver learnt from earlier instances. One exception: with a node
budget small enough to run out, whether an instance decides can depend on what the schema's solver
learnt before. The node budget counts solver conflicts; the time budget is checked every
``CHUNK`` conflicts.

``cartesianSize`` is the product of the domain sizes with the variables that clues fix counted
once: no propagation, so it is at least the enumerative backend's figure (which counts after
``puzzlekit.verifiers.base.narrow_domains`` and is 0 when narrowing empties a domain); narrowing
costs
milliseconds, a check here a fraction of one. ``DOMAIN_TOO_LARGE`` is decided exactly as the
enumerative backend decides it, on ``narrow_domains``, whenever the full search space is over
the limit.

Not for: ``Predicate`` constraints (oracle families; use the enumerative verifier, see
:func:`encodable`), linear constraints whose partial sums take more than ``MAX_STATES`` values,
or use from several threads at once (one verifier per worker).
"""

from __future__ import annotations

import atexit
import itertools
import math
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from puzzlekit.core.model import (
    AllDifferent,
    Compare,
    Constraint,
    Count,
    Instance,
    Linear,
    Predicate,
    Problem,
    Regular,
    Schema,
    SpecError,
    Table,
    Violation,
    compare,
    freeze,
)
from puzzlekit.core.protocols import Verifier
from puzzlekit.core.report import Conflict, Verdict, VerifierReport
from puzzlekit.families import Family, get_family
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    DEFAULT_MAX_CARTESIAN_LOG10,
    BudgetExceeded,
    SearchBudget,
    cartesian,
    invalid_report,
    narrow_domains,
    outcome_report,
    shrink_conflict,
    source,
    too_large_report,
    try_resolve,
    undecided_report,
)

VERSION = "1.0"
#: python-sat solver names this backend is tested with
SOLVERS = ("cadical153", "cadical195", "glucose4", "minisat22")
#: the most automaton states (partial sums of a ``Linear``) one constraint may unroll to
MAX_STATES = 200_000
#: conflicts per solver call between two looks at the clock
CHUNK = 20_000
#: conflicts allowed to one backbone check before the cell is left out as undetermined
BACKBONE_CONFLICTS = 1_000
#: a schema's solver is rebuilt once the variables added after its rules (clue encodings,
#: activation literals: all kept for good) outnumber REBUILD_FACTOR times its own and
#: REBUILD_MIN_VARS; every solver call pays for them (on KenKen 6x6 fresh cage layouts made a call
#: seven times slower within a thousand puzzles)
REBUILD_MIN_VARS, REBUILD_FACTOR = 2_000, 4
#: a ``Table`` with at most this many forbidden tuples (and no more than it allows) is encoded
#: as one clause per forbidden tuple
MAX_FORBIDDEN_TUPLES = 4_096


class NotEncodable(TypeError):
    """A constraint this backend cannot encode (``Predicate``, or a too wide ``Linear``)."""


def encodable(instance: Instance) -> bool:
    """Whether the sat backend can verify ``instance``: no ``Predicate`` in its rules or clues.

    An instance that does not resolve counts as encodable: the sat backend reports it as
    ``INVALID_SPEC`` just as the enumerative one does.
    """
    try:
        family = get_family(instance.family)
        schema = family.schema(instance.params_dict())
    except SpecError:
        return True
    constraints: list[Constraint] = list(schema.rules)
    for clue in instance.clues:
        try:
            constraints.extend(family.clue_constraints(schema, clue))
        except SpecError:
            continue
    try:
        for c in constraints:
            _check_encodable(c, schema)
    except NotEncodable:
        return False
    return True


def _check_encodable(c: Constraint, schema: Schema) -> None:
    if isinstance(c, Predicate):
        raise NotEncodable(
            f"{c.origin.kind} {c.origin.id!r} is an opaque Predicate, which the sat backend "
            "cannot encode; use the enumerative verifier (get_verifier('enumerative'))"
        )
    if isinstance(c, Linear) and len(set(c.vars)) > 1:
        spread = sum(
            abs(k) * (max(schema.var(v).domain) - min(schema.var(v).domain))
            for v, k in zip(c.vars, c.coeffs, strict=True)
        )
        if (spread + 1) * len(c.vars) > MAX_STATES:
            raise NotEncodable(
                f"{c.origin.kind} {c.origin.id!r}: a linear constraint whose partial sums span "
                f"{spread + 1} values is too wide for the sat backend; use the enumerative verifier"
            )


# --- encoding ------------------------------------------------------------------------------


class _Cnf:
    """Clauses under construction: fresh variable numbers and the direct-encoding literals."""

    def __init__(self, schema: Schema) -> None:
        self.lit: dict[str, dict[int, int]] = {}
        self.value_of: list[tuple[int, int]] = [(-1, 0)]  # lit -> (variable index, value)
        top = 0
        for i, v in enumerate(schema.variables):
            row = {}
            for a in v.domain:
                top += 1
                row[a] = top
                self.value_of.append((i, a))
            self.lit[v.name] = row
        self.nx = top
        self.top = top
        self.clauses: list[list[int]] = []
        self.schema = schema

    def new_var(self) -> int:
        self.top += 1
        return self.top

    def add(self, clause: Iterable[int], guard: int | None) -> None:
        """Add ``clause``; with a guard ``g`` it holds only when ``g`` is true."""
        out = list(clause)
        if guard is not None:
            out.append(-guard)
        if not out:  # an empty clause: the formula is unsatisfiable
            f = self.new_var()
            self.clauses += [[f], [-f]]
            return
        self.clauses.append(out)

    def at_most_one(self, lits: Sequence[int], guard: int | None) -> None:
        if len(lits) <= 16:
            for a, b in itertools.combinations(lits, 2):
                self.add((-a, -b), guard)
            return
        self._card(
            CardEnc.atmost(list(lits), 1, top_id=self.top, encoding=EncType.seqcounter), guard
        )

    def _card(self, enc: Any, guard: int | None) -> None:
        self.top = max(self.top, enc.nv)
        for clause in enc.clauses:
            self.add(clause, guard)

    def exactly_one_per_variable(self) -> None:
        for row in self.lit.values():
            lits = list(row.values())
            self.add(lits, None)
            self.at_most_one(lits, None)

    # -- the vocabulary ----------------------------------------------------------------------
    def encode(self, c: Constraint, guard: int | None) -> None:
        _check_encodable(c, self.schema)
        if len(set(c.vars)) == 1 and not isinstance(c, AllDifferent | Count):
            (name,) = set(c.vars)
            self.add((self.lit[name][a] for a in self.allowed_values(c)), guard)
        else:
            encoders: dict[type, Callable[[Any, int | None], None]] = {
                AllDifferent: self.all_different,
                Linear: self.linear,
                Compare: self.compare,
                Table: self.table,
                Count: self.count,
                Regular: self.regular,
            }
            if type(c) not in encoders:
                raise NotEncodable(f"not a constraint of the vocabulary: {c!r}")
            encoders[type(c)](c, guard)

    def allowed_values(self, c: Constraint) -> list[int]:
        """The values of a one-variable constraint's variable that satisfy it."""
        (name,) = set(c.vars)
        return [a for a in self.schema.var(name).domain if c.holds({name: a})]

    def all_different(self, c: AllDifferent, guard: int | None) -> None:
        by_value: dict[int, list[int]] = {}
        for name in c.vars:
            for a, lit in self.lit[name].items():
                by_value.setdefault(a, []).append(lit)
        if len(by_value) < len(c.vars):
            self.add((), guard)
            return
        for a in sorted(by_value):
            self.at_most_one(by_value[a], guard)
            if len(by_value) == len(c.vars):  # a permutation: every value is somewhere
                self.add(by_value[a], guard)

    def compare(self, c: Compare, guard: int | None) -> None:
        la, lb = self.lit[c.a], self.lit[c.b]
        for a, x in la.items():
            support = [y for b, y in lb.items() if compare(a, c.op, b)]
            self.add([-x, *support], guard)
        for b, y in lb.items():
            self.add([-y, *(x for a, x in la.items() if compare(a, c.op, b))], guard)

    def table(self, c: Table, guard: int | None) -> None:
        """Few forbidden tuples (at most as many as allowed ones, and at most
        ``MAX_FORBIDDEN_TUPLES``): one clause per forbidden tuple, no new variable. Otherwise one
        selector per allowed tuple with its supports."""
        rows = [self.lit[name] for name in c.vars]
        tuples = sorted(
            t
            for t in c.allowed
            if len(t) == len(rows) and all(a in row for a, row in zip(t, rows, strict=True))
        )
        if len(set(c.vars)) == len(c.vars):
            space = math.prod(len(row) for row in rows)
            forbidden = space - len(tuples)
            if forbidden <= min(len(tuples), MAX_FORBIDDEN_TUPLES):
                allowed = set(tuples)
                for t in itertools.product(*(sorted(row) for row in rows)):
                    if t not in allowed:
                        self.add([-row[a] for a, row in zip(t, rows, strict=True)], guard)
                return
        selectors = [self.new_var() for _ in tuples]
        self.add(selectors, guard)
        for t, s in zip(tuples, selectors, strict=True):
            for a, row in zip(t, rows, strict=True):
                self.add((-s, row[a]), None)
        for i, row in enumerate(rows):
            for a, lit in row.items():
                self.add(
                    [-lit, *(s for t, s in zip(tuples, selectors, strict=True) if t[i] == a)], guard
                )

    def count(self, c: Count, guard: int | None) -> None:
        lits = [self.lit[name][c.value] for name in c.vars if c.value in self.lit[name]]
        n, k = len(lits), c.k
        if c.op == "!=" or len(set(c.vars)) < len(c.vars):
            self.layered(
                self.layers(c.vars),
                0,
                lambda i, s, a: min(s + (a == c.value), k + 1),
                lambda s: compare(s, c.op, k),
                guard,
            )
            return
        lo, hi = {"==": (k, k), "<=": (0, k), "<": (0, k - 1), ">=": (k, n), ">": (k + 1, n)}[c.op]
        lo, hi = max(lo, 0), min(hi, n)
        if lo > hi:
            self.add((), guard)
            return
        if lo > 0:
            self._card(
                CardEnc.atleast(lits, lo, top_id=self.top, encoding=EncType.seqcounter), guard
            )
        if hi < n:
            self._card(
                CardEnc.atmost(lits, hi, top_id=self.top, encoding=EncType.seqcounter), guard
            )

    def layers(self, names: Sequence[str]) -> list[list[tuple[int, int]]]:
        return [list(self.lit[name].items()) for name in names]

    def linear(self, c: Linear, guard: int | None) -> None:
        self.layered(
            self.layers(c.vars),
            0,
            lambda i, s, a: s + c.coeffs[i] * a,
            lambda s: compare(s, c.op, c.rhs),
            guard,
        )

    def regular(self, c: Regular, guard: int | None) -> None:
        delta = {(s, a): t for s, a, t in c.automaton.transitions}
        self.layered(
            self.layers(c.vars),
            c.automaton.start,
            lambda i, s, a: delta.get((s, a)),
            lambda s: s in c.automaton.accepting,
            guard,
        )

    def layered(
        self,
        layers: Sequence[Sequence[tuple[int, int]]],
        start: Any,
        step: Callable[[int, Any, int], Any],
        accept: Callable[[Any], bool],
        guard: int | None,
    ) -> None:
        """A deterministic automaton read over ``layers`` (one (value, literal) list per position).

        One Boolean per live state and layer (reachable from the start and able to reach an
        accepting state); a transition into a dead state forbids the value in that state.
        """
        reach: list[set[Any]] = [{start}]
        total = 1
        for i, layer in enumerate(layers):
            nxt = {t for s in reach[i] for a, _ in layer if (t := step(i, s, a)) is not None}
            total += len(nxt)
            if total > MAX_STATES:
                raise NotEncodable(f"more than {MAX_STATES} automaton states; use enumerative")
            reach.append(nxt)
        live: list[set[Any]] = [set() for _ in reach]
        live[-1] = {s for s in reach[-1] if accept(s)}
        for i in range(len(layers) - 1, -1, -1):
            live[i] = {
                s for s in reach[i] if any(step(i, s, a) in live[i + 1] for a, _ in layers[i])
            }
        if start not in live[0]:
            self.add((), guard)
            return
        q = [{s: self.new_var() for s in sorted(states, key=repr)} for states in live]
        self.add((q[0][start],), guard)
        for i, layer in enumerate(layers):
            into: dict[Any, list[int]] = {t: [] for t in q[i + 1]}
            for a, x in layer:
                sources = []
                for s, qs in q[i].items():
                    t = step(i, s, a)
                    if t in q[i + 1]:
                        self.add((-qs, -x, q[i + 1][t]), guard)
                        sources.append(qs)
                        into[t].append(qs)
                    else:
                        self.add((-qs, -x), guard)
                self.add([-x, *sources], guard)
            self.add(q[i + 1].values(), guard)
            for t, qt in q[i + 1].items():
                self.add([-qt, *sorted(set(into[t]))], guard)
            for s, qs in q[i].items():
                self.add([-qs, *(x for a, x in layer if step(i, s, a) in q[i + 1])], guard)


def _rule_groups(schema: Schema) -> dict[str, list[Constraint]]:
    groups: dict[str, list[Constraint]] = {}
    for r in schema.rules:
        groups.setdefault(r.origin.id, []).append(r)
    return groups


class _Engine:
    """One solver holding one schema's encoding; rules hard, or each rule under a selector."""

    def __init__(self, schema: Schema, solver_name: str, guard_rules: bool) -> None:
        cnf = _Cnf(schema)
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
        self.solver = Solver(name=solver_name, bootstrap_with=cnf.clauses)
        _LIVE.add(self)
        cnf.clauses = []
        self.clue_cache: dict[tuple[Any, ...], tuple[int, ...]] = {}
        self.base_vars = cnf.top
        self.rebuild_at = cnf.top + max(REBUILD_MIN_VARS, REBUILD_FACTOR * cnf.top)
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
            guard = cnf.new_var()
            for c in constraints:
                cnf.encode(c, guard)
            for clause in cnf.clauses:
                self.solver.add_clause(clause)
            cnf.clauses = []
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
        """Satisfiable under ``assumptions``; BudgetExceeded when the budget (or ``limit``) ends."""
        solver = engine.solver
        spent = 0
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
    engine: _Engine, assumptions: list[int], cap: int, run: _Run, lex_first: bool = False
) -> list[dict[str, int]]:
    """Up to ``cap`` solutions, each blocked under one activation literal retired afterwards.

    ``lex_first``: the first ``cap`` solutions in lexicographic order (values in schema order),
    which depend on the instance alone, not on what the solver learnt before: variable by
    variable, the solver is asked for a smaller value until it says there is none.
    """
    found: list[dict[str, int]] = []
    fixed = {lit for lit in assumptions if lit <= engine.cnf.nx}
    lit = engine.cnf.lit
    act = None
    try:
        while len(found) < cap:
            prefix = assumptions if act is None else [*assumptions, act]
            if not run.solve(engine, prefix):
                break
            model = engine.decode(engine.solver.get_model())
            prefix = list(prefix) if lex_first else []
            for name in engine.names if lex_first else ():
                value = model[name]
                if lit[name][value] not in fixed:
                    while run.solve(engine, [*prefix, engine.below(name, value)]):
                        model = engine.decode(engine.solver.get_model())
                        value = model[name]
                prefix.append(lit[name][value])
            found.append(model)
            if len(found) < cap:
                if act is None:
                    act = engine.new_activation()
                engine.solver.add_clause([-act, *engine.blocking(model)])
    except BudgetExceeded as exc:
        exc.solutions = _sorted(engine, found)  # type: ignore[attr-defined]
        raise
    finally:
        if act is not None:
            engine.solver.add_clause([-act])
    return _sorted(engine, found)


def _sorted(engine: _Engine, solutions: list[dict[str, int]]) -> list[dict[str, int]]:
    names = engine.names
    return sorted(solutions, key=lambda s: [s[n] for n in names])


# --- the verifier ---------------------------------------------------------------------------


class _UniquenessSession:
    """See :meth:`SatVerifier.uniqueness_session`."""

    def __init__(
        self, verifier: SatVerifier, engine: _Engine, lits: dict[str, tuple[int, ...]], act: int
    ) -> None:
        self._verifier, self._engine, self._lits, self._act = verifier, engine, lits, act
        self._run = _Run(SearchBudget(nodes=None, seconds=None))
        engine.sessions += 1

    def unique_with(self, clue_ids: Iterable[str]) -> bool:
        """True when the solution is the only one of the clues ``clue_ids``."""
        assumptions = sorted({lit for cid in clue_ids for lit in self._lits[cid]})
        return not self._run.solve(self._engine, [*assumptions, self._act])

    def close(self) -> None:
        if self._act:
            self._engine.solver.add_clause([-self._act])
            self._act = 0
            self._engine.sessions -= 1
            self._verifier._maybe_rebuild(self._engine)

    def __enter__(self) -> _UniquenessSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SatVerifier(Verifier):
    """Exact verifier on an incremental SAT solver, one per schema; fast, no ``Predicate``.

    Settings: ``solver`` (a python-sat name, see :data:`SOLVERS`), ``max_cartesian_log10`` (as
    the enumerative verifier), ``forced_cells`` (compute the backbone for MULTIPLE; it costs one
    solver call per undetermined cell), ``canonical`` (at the cap, report the lexicographically
    first solutions, about one solver call per variable; False reports the first ones found, which
    can depend on the instances verified before).
    """

    name = "sat"
    version = VERSION
    exact = True

    def __init__(
        self,
        *,
        solver: str = "cadical153",
        max_cartesian_log10: float | None = DEFAULT_MAX_CARTESIAN_LOG10,
        forced_cells: bool = True,
        canonical: bool = True,
    ) -> None:
        if solver not in SOLVERS:
            raise ValueError(f"solver must be one of {', '.join(SOLVERS)}, not {solver!r}")
        self.solver = solver
        self.max_cartesian_log10 = max_cartesian_log10
        self.forced_cells = forced_cells
        self.canonical = canonical
        self._schemas: dict[tuple[str, Any], tuple[Family, Schema, Any] | None] = {}
        self._engines: dict[tuple[str, Any, bool], _Engine] = {}
        self._src = source(self.name, self.version)

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
    ) -> VerifierReport:
        """Verify ``instance``. Raises :class:`NotEncodable` for a ``Predicate`` constraint."""
        if solution_cap < 2:
            raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
        run = _Run(budget or SearchBudget())
        src, cap = self._src, solution_cap
        prepared = self._prepare(instance)
        if isinstance(prepared, list):
            return invalid_report(instance, prepared, src, cap)
        engine, clue_lits = prepared
        schema = engine.schema
        problem = _LazyProblem(instance, schema)
        limit = self.max_cartesian_log10
        if limit is not None and engine.full_log10 > limit:
            domains = narrow_domains(problem.get(), problem.get().all_constraints())
            if domains is not None:
                cart = cartesian(domains)
                if cart[1] > limit:
                    return too_large_report(
                        problem.get(), src, cap, domains, cart, limit, run.seconds
                    )
        assumptions = sorted({lit for _, lits in clue_lits for lit in lits})
        cart = engine.clue_cartesian(assumptions)
        try:
            solutions = _enumerate(engine, assumptions, cap, run)
            if len(solutions) == cap and self.canonical:  # reported ones: not history's choice
                solutions = _enumerate(engine, assumptions, cap, run, lex_first=True)
        except BudgetExceeded as exc:
            return undecided_report(
                problem.get(),
                src,
                cap,
                _clue_domains(engine, assumptions),
                cart,
                exc,
                run.nodes,
                run.seconds,
            )
        stats: dict[str, Any] = {}
        if len(solutions) > 1 and self.forced_cells:
            forced, complete = _backbone(engine, assumptions, solutions, run)
            stats["forcedCells"] = forced
            stats["forcedCellsComplete"] = complete
        stats.update(nodes=run.nodes, solverCalls=run.calls, seconds=round(run.seconds, 6))
        rep = outcome_report(
            problem,  # type: ignore[arg-type]  # resolves only for a conflict
            src,
            cap,
            solutions,
            cart,
            stats,
            lambda: self._conflict(problem.get(), engine, dict(clue_lits), run),
        )
        if rep.verdict is Verdict.UNSOLVABLE:
            rep = rep.with_stats(nodes=run.nodes, solverCalls=run.calls)
        self._maybe_rebuild(engine)
        return rep

    def uniqueness_session(
        self, instance: Instance, solution: Mapping[str, int]
    ) -> _UniquenessSession:
        """Ask, for many subsets of ``instance``'s clues, whether ``solution`` stays the only one.

        The clues are turned into assumption literals once and ``solution`` is excluded by one
        clause under one activation literal, so each question is one solver call with no report
        (minimization asks one per clue). Close the session (or use it as a context manager).
        """
        prepared = self._prepare(instance)
        if isinstance(prepared, list):
            raise ValueError(f"instance {instance.digest} does not resolve; verify it first")
        engine, clue_lits = prepared
        act = engine.new_activation()
        engine.solver.add_clause([-act, *engine.blocking(solution)])
        return _UniquenessSession(self, engine, dict(clue_lits), act)

    def only_solution(
        self, instance: Instance, solution: Mapping[str, int], budget: SearchBudget | None = None
    ) -> bool | None:
        """Whether ``solution`` (which must satisfy ``instance``) is its only solution.

        One solver call: the clues as assumptions plus a clause excluding ``solution`` under a
        fresh activation literal. A fast verb for minimization, which knows a solution and only
        needs the verdict; None when the budget runs out. Raises ValueError for an instance
        that does not resolve (verify it first).
        """
        prepared = self._prepare(instance)
        if isinstance(prepared, list):
            raise ValueError(f"instance {instance.digest} does not resolve; verify it first")
        engine, clue_lits = prepared
        assumptions = sorted({lit for _, lits in clue_lits for lit in lits})
        act = engine.new_activation()
        engine.solver.add_clause([-act, *engine.blocking(solution)])
        try:
            return not _Run(budget or SearchBudget()).solve(engine, [*assumptions, act])
        except BudgetExceeded:
            return None
        finally:
            engine.solver.add_clause([-act])
            self._maybe_rebuild(engine)

    # -- steps -------------------------------------------------------------------------------
    def _prepare(
        self, instance: Instance
    ) -> tuple[_Engine, list[tuple[str, tuple[int, ...]]]] | list[Violation]:
        """The schema's engine and each clue's assumption literals, or the instance's violations.

        Each clue is turned into constraints once (clue constraints depend on the clue's content,
        not on its id); anything unusable falls back to ``try_resolve`` for the violations, so
        ``INVALID_SPEC`` reports are the enumerative backend's word for word.
        """
        key = (instance.family, instance.params)
        if key not in self._schemas:
            try:
                family = get_family(instance.family)
                schema = family.schema(instance.params_dict())
                self._schemas[key] = (family, schema, (schema.family, freeze(schema.params_dict())))
            except SpecError:
                self._schemas[key] = None
        entry = self._schemas[key]
        if entry is None:
            return _violations(instance)
        family, schema, schema_key = entry
        engine = self._engines.get((*schema_key, False)) or self._engine(schema, guard_rules=False)
        if family.validate_clues(schema, instance.clues):
            return _violations(instance)
        out = []
        cache = engine.clue_cache
        for clue in instance.clues:
            ckey = (clue.kind, clue.data, clue.coords)
            lits = cache.get(ckey)
            if lits is None:
                try:
                    constraints = family.clue_constraints(schema, clue)
                except SpecError:
                    return _violations(instance)
                lits = engine.clue_literals(ckey, constraints)
            out.append((clue.id, lits))
        return engine, out

    def _engine(self, schema: Schema, guard_rules: bool) -> _Engine:
        key = (schema.family, freeze(schema.params_dict()), guard_rules)
        engine = self._engines.get(key)
        if engine is None:
            engine = _Engine(schema, self.solver, guard_rules)
            self._engines[key] = engine
        return engine

    def _maybe_rebuild(self, engine: _Engine) -> None:
        # retired activation literals and clue encodings only grow the solver; start afresh
        if engine.outgrown and not engine.sessions:
            for key, e in list(self._engines.items()):
                if e is engine:
                    del self._engines[key]
            engine.close()

    def _conflict(
        self, problem: Problem, engine: _Engine, clue_lits: Mapping[str, tuple[int, ...]], run: _Run
    ) -> Conflict:
        """A minimal conflict: clues dropped in instance order (under every rule), then rules.

        ``puzzlekit.verifiers.base.shrink_conflict``, as the enumerative backend, so with exact
        answers
        both backends name the same clues.

        Clue trials run on the schema's solver; rule trials on a second solver of the schema
        whose rules sit under selectors. A trial that contains a known core is unsatisfiable
        without a solver call.
        """
        schema = problem.schema
        all_rules = {r.origin.id for r in schema.rules}
        cores: dict[bool, list[frozenset[int]]] = {False: [], True: []}
        guarded: list[_Engine] = []
        guarded_lits: dict[str, tuple[int, ...]] = {}

        def unsat(clue_ids: Sequence[str], rule_ids: Sequence[str]) -> bool | None:
            by_rule = set(rule_ids) != all_rules
            if not by_rule:
                eng, lits = engine, {lit for cid in clue_ids for lit in clue_lits[cid]}
            else:
                if not guarded:
                    guarded.append(self._engine(schema, guard_rules=True))
                    guarded_lits.update(_clue_literals_on(guarded[0], problem))
                eng = guarded[0]
                lits = {lit for cid in clue_ids for lit in guarded_lits[cid]}
                lits |= {eng.rule_selector[r] for r in rule_ids}
            key = frozenset(lits)
            if any(core <= key for core in cores[by_rule]):
                return True
            try:
                if run.solve(eng, sorted(lits)):
                    return False
            except BudgetExceeded:
                return None
            cores[by_rule].append(frozenset(eng.solver.get_core() or lits))
            return True

        return shrink_conflict(problem, unsat)


def _backbone(
    engine: _Engine,
    assumptions: list[int],
    solutions: Sequence[Mapping[str, int]],
    run: _Run,
) -> tuple[list[dict[str, Any]], bool]:
    """Cells with the same value in every solution (``forcedCells``), and whether all were decided.

    Candidates are the cells on which the found solutions agree; a candidate is forced when unit
    propagation fixes it or the solver refutes its negation within ``BACKBONE_CONFLICTS``.
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
        try:
            sat = run.solve(
                engine, [*assumptions, -lit[name][candidates[name]]], BACKBONE_CONFLICTS
            )
        except BudgetExceeded as exc:
            if exc.resource != "backbone":
                raise
            complete = False
            continue
        if not sat:
            forced.add(name)
            continue
        other = engine.decode(engine.solver.get_model())
        for n in [n for n, a in candidates.items() if other[n] != a]:
            del candidates[n]
    out = [
        {"coord": list(v.coord), "fieldName": v.name, "value": first[v.name]}
        for v in schema.variables
        if v.name in forced
    ]
    return out, complete


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


def _violations(instance: Instance) -> list[Violation]:
    resolved = try_resolve(instance)
    if isinstance(resolved, Problem):  # the fast path and resolve() disagree: a family bug
        raise RuntimeError(f"family {instance.family!r}: clue checks differ from resolve()")
    return resolved


class _LazyProblem:
    """The instance's problem for report helpers; ``resolve`` runs only when one needs more
    than the instance and the schema (conflicts, cardinalities)."""

    def __init__(self, instance: Instance, schema: Schema) -> None:
        self.instance = instance
        self.schema = schema
        self._problem: Problem | None = None

    def get(self) -> Problem:
        if self._problem is None:
            resolved = try_resolve(self.instance)
            assert isinstance(resolved, Problem)
            self._problem = resolved
        return self._problem

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)
