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
as the enumerative backend), where every assumption core found along the way proves later trials
unsatisfiable without calling the solver. MULTIPLE: the discriminative gap over the solutions
found, and the backbone (the cells with the same value in every solution) as ``forcedCells`` in
the report's stats, found by assumption checks with a bounded conflict budget each.

The report content depends on the instance and the settings alone: solutions are sorted (by
values in schema order) and, when the cap is reached, they are the lexicographically first ones,
by construction rather than by enumerating again: the solver enumerates up to twice the cap (when
that exhausts the solutions, the smallest of all of them are the ones), else solutions are drawn
in lexicographic order, each lowered variable by variable to the smallest one not yet drawn
(unit propagation rules most smaller values out; the solver is asked about the rest), whatever
the solver learnt from earlier instances. One exception: with a node budget small enough to run out,
whether an instance decides can depend on what the schema's solver learnt before. The node
budget counts solver conflicts; the time budget is checked every ``CHUNK`` conflicts.

``cartesianSize`` is the product of the domain sizes with the variables that clues fix counted
once: no propagation, so it is at least the enumerative backend's figure (which counts after
``puzzlekit.verifiers.base.narrow_domains`` and is 0 when narrowing empties a domain); narrowing
costs milliseconds (seconds at 25×25), a check here a fraction of one. ``DOMAIN_TOO_LARGE`` is
decided exactly as the enumerative backend decides it, on ``narrow_domains``, whenever the space
the clues leave (the variables they fix counted once) is over the limit; narrowing only shrinks
that space, so below the limit the pass is skipped.

Not for: ``Predicate`` constraints (oracle families; use the enumerative verifier, see
:func:`encodable`), linear constraints whose partial sums take more than ``MAX_STATES`` values,
or use from several threads at once (one verifier per worker).

Layout: the CNF encodings are in :mod:`~puzzlekit.verifiers.sat.encoding`, the per-schema solver
and one verification's solver calls (enumeration, backbone) in
:mod:`~puzzlekit.verifiers.sat.session`; this module is the verifier (reports, conflict
shrinking, uniqueness sessions, when a schema's solver is rebuilt) and re-exports the public
names and tunables of the other two.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from puzzlekit.core import deadline, protocols
from puzzlekit.core.identity import clue_violations
from puzzlekit.core.model import (
    Instance,
    Problem,
    Schema,
    SpecError,
    Violation,
    freeze,
    typed_key,
)
from puzzlekit.core.protocols import FORCED_CELLS, SearchBudget
from puzzlekit.core.report import Conflict, Verdict, VerifierReport
from puzzlekit.families import MISREAD_ERRORS, get_family
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    DEFAULT_MAX_CARTESIAN_LOG10,
    BudgetExceeded,
    cartesian,
    invalid_report,
    narrow_domains,
    outcome_report,
    shrink_conflict,
    source,
    too_large_report,
    try_resolve,
    undecided_report,
    unread_report,
)
from puzzlekit.verifiers.sat.encoding import (
    AMO_ENCODINGS,
    MAX_FORBIDDEN_TUPLES,
    MAX_STATES,
    NotEncodable,
    encodable,
)
from puzzlekit.verifiers.sat.encoding import _Cnf as _Cnf  # tests build encodings directly
from puzzlekit.verifiers.sat.session import (
    BACKBONE_CONFLICTS,
    CHUNK,
    _backbone,
    _clue_domains,
    _clue_literals_on,
    _Engine,
    _enumerate,
    _Run,
)
from puzzlekit.verifiers.search import LazyOrder

__all__ = [
    "AMO_ENCODINGS",
    "BACKBONE_CONFLICTS",
    "CHUNK",
    "MAX_ENGINES",
    "MAX_FORBIDDEN_TUPLES",
    "MAX_STATES",
    "REBUILD_FACTOR",
    "REBUILD_MIN_VARS",
    "SOLVERS",
    "VERSION",
    "NotEncodable",
    "SatVerifier",
    "encodable",
]

VERSION = "1.0"
#: python-sat solver names this backend is tested with
SOLVERS = ("cadical153", "cadical195", "glucose4", "minisat22")
#: a schema's solver is rebuilt once the variables added after its rules (clue encodings,
#: activation literals: all kept for good) outnumber REBUILD_FACTOR times its own, REBUILD_MIN_VARS
#: and REBUILD_FACTOR times those of the clue encodings of one instance verified on it (nonogram
#: lines, cages); every solver call pays for them (on KenKen 6x6 fresh cage layouts made a call
#: seven times slower within a thousand puzzles)
REBUILD_MIN_VARS, REBUILD_FACTOR = 2_000, 4
#: schemas whose solvers one verifier keeps; the least recently used is closed beyond it (a
#: verifier kept for the life of a process must not grow with every schema it ever saw)
MAX_ENGINES = 32


# --- the verifier ---------------------------------------------------------------------------


class _SatSession:
    """The sat verifier's :class:`~puzzlekit.core.protocols.UniquenessSession`; see
    :meth:`SatVerifier.uniqueness_session`."""

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

    def __enter__(self) -> _SatSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SatVerifier(protocols.Verifier):
    """Exact verifier on an incremental SAT solver, one per schema; fast, no ``Predicate``.

    Settings: ``solver`` (a python-sat name, see :data:`SOLVERS`), ``max_cartesian_log10`` (as
    the enumerative verifier), ``forced_cells`` (compute the backbone for MULTIPLE on every
    call, as if every caller asked for the ``forcedCells`` extra; it costs up to one solver call
    per undetermined cell), ``canonical`` (at the cap, report the lexicographically first
    solutions, a few solver calls per solution; False reports the first ones found, which can
    depend on the instances verified before).

    Report extras (``verify(..., extras=...)``): ``forcedCells``, the backbone of a MULTIPLE
    instance, with ``forcedCellsComplete`` False when the budget or the per-cell conflict limit
    left cells undecided. Not asked (and ``forced_cells`` False), both are absent from ``stats``.
    """

    name = "sat"
    version = VERSION
    exact = True

    def accepts(self, instance: Instance) -> bool:
        """Every rule and clue but ``Predicate`` (:func:`encodable`)."""
        return encodable(instance)

    def __init__(
        self,
        *,
        solver: str = "cadical153",
        max_cartesian_log10: float | None = DEFAULT_MAX_CARTESIAN_LOG10,
        forced_cells: bool = False,
        canonical: bool = True,
        amo: str = "auto",
    ) -> None:
        if solver not in SOLVERS:
            raise ValueError(f"solver must be one of {', '.join(SOLVERS)}, not {solver!r}")
        if amo not in AMO_ENCODINGS:
            raise ValueError(f"amo must be one of {', '.join(AMO_ENCODINGS)}, not {amo!r}")
        self.amo = amo
        self.solver = solver
        self.max_cartesian_log10 = max_cartesian_log10
        self.forced_cells = forced_cells
        self.canonical = canonical
        self._schemas: dict[tuple[str, Any], tuple[protocols.Family, Schema, Any] | None] = {}
        self._engines: OrderedDict[tuple[str, Any, bool], _Engine] = OrderedDict()
        self._src = source(self.name, self.version)

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        """Verify ``instance``, computing the ``extras`` asked for (``forcedCells``). Raises
        :class:`NotEncodable` for a ``Predicate`` constraint."""
        if solution_cap < 2:
            raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
        run = _Run(budget or SearchBudget())
        src, cap = self._src, solution_cap
        try:  # reading the clues spends the budget too (a large cage's tuples)
            with deadline.within(run.deadline, run.budget.seconds):
                prepared = self._prepare(instance)
        except BudgetExceeded as exc:
            return unread_report(instance, src, cap, exc, run.nodes, run.seconds)
        if isinstance(prepared, list):
            return invalid_report(instance, prepared, src, cap)
        engine, clue_lits = prepared
        schema = engine.schema
        problem = _LazyProblem(instance, schema)
        limit = self.max_cartesian_log10
        assumptions = sorted({lit for _, lits in clue_lits for lit in lits})
        cart = engine.clue_cartesian(assumptions)
        # narrowing only shrinks the space: when the clues already bound it, skip the pass
        if limit is not None and cart[1] is not None and cart[1] > limit:
            domains = narrow_domains(problem.get(), problem.get().all_constraints())
            if domains is not None:
                narrowed = cartesian(domains)
                if narrowed[1] > limit:
                    return too_large_report(
                        problem.get(), src, cap, domains, narrowed, limit, run.seconds
                    )
        try:
            order = LazyOrder(engine.names, instance.digest)  # drawn only for two or more
            solutions = _enumerate(engine, assumptions, cap, run, order, lex_first=self.canonical)
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
        if len(solutions) > 1 and (self.forced_cells or FORCED_CELLS in extras):
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

    def uniqueness_session(self, instance: Instance, solution: Mapping[str, int]) -> _SatSession:
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
        return _SatSession(self, engine, dict(clue_lits), act)

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
        key = instance.params_key()  # true is not 1: never a cached schema for invalid params
        if key not in self._schemas:
            try:
                family = get_family(instance.family)
                schema = family.schema(instance.params_dict())
                frozen_params = typed_key(freeze(schema.params_dict()))
                self._schemas[key] = (family, schema, (schema.family, frozen_params))
            except (SpecError, *MISREAD_ERRORS):
                self._schemas[key] = None
        entry = self._schemas[key]
        if entry is None:
            return _violations(instance)
        family, schema, schema_key = entry
        engine = self._engines.get((*schema_key, False))
        if engine is None:
            engine = self._engine(schema, guard_rules=False)
        else:
            self._engines.move_to_end((*schema_key, False))
        try:
            if clue_violations(family, schema, instance.clues):
                return _violations(instance)
        except MISREAD_ERRORS:
            return _violations(instance)
        out = []
        cache, clue_vars = engine.clue_cache, engine.clue_vars
        load = 0
        for clue in instance.clues:
            ckey = clue.content_key()
            lits = cache.get(ckey)
            if lits is None:
                try:
                    constraints = family.clue_constraints(schema, clue)
                except (SpecError, *MISREAD_ERRORS):
                    return _violations(instance)
                lits = engine.clue_literals(ckey, constraints)
            if clue_vars:
                load += clue_vars.get(ckey, 0)
            out.append((clue.id, lits))
        # room for REBUILD_FACTOR instances' worth of clue encodings, so that the next instances
        # (a loop's repairs share most clues) find theirs instead of a rebuilt solver
        engine.rebuild_at = max(engine.rebuild_at, engine.base_vars + REBUILD_FACTOR * load)
        return engine, out

    def _engine(self, schema: Schema, guard_rules: bool) -> _Engine:
        key = (schema.family, typed_key(freeze(schema.params_dict())), guard_rules)
        engine = self._engines.get(key)
        if engine is not None:
            self._engines.move_to_end(key)
        else:
            engine = _Engine(schema, self.solver, guard_rules, self.amo)
            base = engine.base_vars
            engine.rebuild_at = base + max(REBUILD_MIN_VARS, REBUILD_FACTOR * base)
            self._engines[key] = engine
            idle = [k for k, e in self._engines.items() if not e.sessions and e is not engine]
            for old in idle[: max(0, len(self._engines) - MAX_ENGINES)]:
                self._engines.pop(old).close()
        return engine

    def _maybe_rebuild(self, engine: _Engine) -> None:
        # retired activation literals and clue encodings only grow the solver; start afresh
        if engine.outgrown and not engine.sessions:
            for key, e in list(self._engines.items()):
                if e is engine:
                    del self._engines[key]
            engine.close()

    def conflict(self, problem: Problem, budget: SearchBudget | None = None) -> Conflict:
        """The conflict ``sat`` reports for the unsatisfiable ``problem`` (a resolved instance):
        a direct clash when there is one, else the smallest found within ``budget``, else a
        minimal one; what another backend calls to report the same conflict as ``sat``."""
        engine, clue_lits = self._prepare(problem.instance)
        return self._conflict(problem, engine, dict(clue_lits), _Run(budget or SearchBudget()))

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
