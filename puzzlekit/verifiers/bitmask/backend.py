"""The bitmask verifier: an exact compiled search for the all-different families.

Sudoku of every size and box shape, jigsaw and killer Sudoku, Latin squares, KenKen,
Futoshiki, and any family (a plugin's too) whose rules are all-different units and what
compiles beside them (:func:`accepts`, asked by the registry's default choice). Domains are bit
masks, the search (naked and hidden singles, arc-consistent tables, bounds-consistent sums,
fewest values first) runs compiled with numba
(:mod:`~puzzlekit.verifiers.bitmask.kernel`; schemas and clues are turned into its arrays once,
:mod:`~puzzlekit.verifiers.bitmask.compile`). It counts solutions up to the cap and returns them,
so a MULTIPLE report keeps its discriminative gap.

The search order depends on the instance alone (fewest values first, ties broken in the
instance's own variable order, :func:`~puzzlekit.verifiers.search.search_order`), so the same
instance gives the same solutions whatever was verified before (reported sorted over that order;
at the cap the first ones in the search's order, not the lexicographically first ones ``sat``
reports). An UNSOLVABLE report's minimal conflict comes from ``sat``'s conflict shrinking (the
same clues as ``sat`` and ``enumerative`` name). ``DOMAIN_TOO_LARGE`` is decided as the other
backends decide it, on the domains ``narrow_domains`` leaves (computed here by the search's
all-different rules, the same fixpoint). ``cartesianSize`` is counted as ``sat`` counts it:
domains after the clues that restrict one variable, no propagation. Search nodes are the
budget's nodes; the clock is read every :data:`~puzzlekit.verifiers.bitmask.search.CHUNK` nodes.

Extras (``verify(..., extras=...)``): ``"forcedCells"`` puts the cells with one value in every
solution in ``stats`` on a MULTIPLE report (as ``sat``): exact, with one search for a differing
value per cell still in doubt when the cap was reached. Unknown extra names are ignored.

First call: compiling the search takes seconds once per machine; later processes load it from
numba's cache (``cache=True``).

Not for: ``Count``, ``Regular`` or ``Predicate`` constraints, more than 62 distinct values
(:func:`compilable` says whether an instance fits; :meth:`BitmaskVerifier.verify` raises
:class:`NotCompilable` otherwise), or use from several threads at once.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from puzzlekit.core import deadline, protocols
from puzzlekit.core.identity import clue_violations
from puzzlekit.core.model import Instance, Problem, SpecError, Violation
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Conflict, VerifierReport
from puzzlekit.families.grid import GridLine
from puzzlekit.verifiers.bitmask.compile import (
    ClueEffect,
    CompiledSchema,
    NotCompilable,
    ReportView,
    Structure,
    cartesian_of,
    compiled_for,
    family_units,
    plain_givens,
)
from puzzlekit.verifiers.bitmask.sample import SAMPLE_NODES as SAMPLE_NODES
from puzzlekit.verifiers.bitmask.sample import SAMPLE_TRIES as SAMPLE_TRIES
from puzzlekit.verifiers.bitmask.sample import sample_solution as sample_solution
from puzzlekit.verifiers.reports import (
    invalid_report,
    outcome_report,
    source,
    too_large_report,
    try_resolve,
    undecided_report,
    unread_report,
)
from puzzlekit.verifiers.search import (
    DEFAULT_CAP,
    DEFAULT_MAX_CARTESIAN_LOG10,
    STREAM_ORDER,
    BudgetExceeded,
    digest_permutation,
)

if TYPE_CHECKING:
    from puzzlekit.verifiers.bitmask.minimize import CountingSession

__all__ = [
    "VERSION",
    "BitmaskVerifier",
    "NotCompilable",
    "accepts",
    "compilable",
    "sample_solution",
]

VERSION = "1.0"


def accepts(instance: Instance) -> bool:
    """Whether ``instance``'s schema has all-different rules (what the search's singles work on)
    and its rules and clues compile (:func:`compilable`). Params that do not resolve are judged
    on the family's first schema (:func:`~puzzlekit.verifiers.bitmask.compile.family_units`)."""
    try:
        _, cs = compiled_for(instance)
    except NotCompilable:
        return False
    except SpecError:
        return family_units(instance.family)
    return bool(cs.rules.units) and compilable(instance)


def compilable(instance: Instance) -> bool:
    """Whether the bitmask backend can verify ``instance`` (its rules and clues compile).

    An instance that does not resolve counts as compilable: the backend reports it as
    ``INVALID_SPEC`` as the others do.
    """
    if _grid_line(instance) is not None:  # the choice is the schema's (cached with it)
        try:
            family, _ = compiled_for(instance)
        except SpecError:
            return True
        except NotCompilable:
            return False
        if plain_givens(family):
            return True
    try:
        prepare_instance(instance)
    except NotCompilable:
        return False
    return True


def _grid_line(instance: Instance) -> GridLine | None:
    """The grid line ``instance`` was read from, while nothing has built its clue objects."""
    grid = instance.clue_source
    if isinstance(grid, GridLine) and "clues" not in instance.__dict__:
        return grid
    return None


#: the last instance prepared and what it gave (``pk.verify`` asks :func:`compilable` first)
_LAST: list[Any] = [None, None]


def prepare_instance(
    instance: Instance,
) -> tuple[CompiledSchema, dict[str, ClueEffect]] | list[Violation]:
    """The compiled schema and each clue's effect, or the instance's violations. Raises
    :class:`NotCompilable`."""
    if _LAST[0] is instance:
        return _LAST[1]  # type: ignore[no-any-return]
    try:
        family, cs = compiled_for(instance)
    except SpecError:
        return _violations(instance)
    grid = _grid_line(instance)
    if grid is not None and plain_givens(family):
        # a grid line: one given per cell, so no clue check can fail; effects by cell and value
        names, cached, effect = cs.names, cs.given_cache, cs.given_effect
        effects = {names[i]: cached.get((i, v)) or effect(i, v) for i, v in grid.givens()}
        _LAST[:] = [instance, (cs, effects)]
        return cs, effects
    if clue_violations(family, cs.schema, instance.clues):
        return _violations(instance)
    effects: dict[str, ClueEffect] = {}
    for clue in instance.clues:
        try:
            effects[clue.id] = cs.clue_effect(clue)
        except SpecError:
            return _violations(instance)
    _LAST[:] = [instance, (cs, effects)]
    return cs, effects


class BitmaskVerifier(protocols.Verifier):
    """Exact compiled verifier for the all-different families (see the module docstring).

    Settings: ``max_cartesian_log10`` (as the other backends), ``forced_cells`` (always compute
    ``forcedCells`` on MULTIPLE, as if every call asked for the extra).
    """

    name = "bitmask"
    version = VERSION
    exact = True
    #: CDCL on a CNF encoding shares no code or search with this backend, and is faster than
    #: the enumerative reference by two orders of magnitude
    holdout_name = "sat"

    def __init__(
        self,
        *,
        max_cartesian_log10: float | None = DEFAULT_MAX_CARTESIAN_LOG10,
        forced_cells: bool = False,
    ) -> None:
        self.max_cartesian_log10 = max_cartesian_log10
        self.forced_cells = forced_cells
        self._src = source(self.name, self.version)
        self._sat: Any = None

    def accepts(self, instance: Instance) -> bool:
        """All-different rules, and rules and clues that compile (module :func:`accepts`)."""
        return accepts(instance)

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        """Verify ``instance``. Raises :class:`NotCompilable` for a constraint it cannot take."""
        budget = budget or _BUDGET
        ran = self._searched(instance, solution_cap, budget)
        if isinstance(ran, VerifierReport):
            return ran
        cs, dom, structure, search, cart = ran
        try:
            search.run(dom, budget.nodes, budget.seconds)
            stats: dict[str, Any] = {}
            if search.found > 1 and (self.forced_cells or "forcedCells" in extras):
                stats["forcedCells"], stats["forcedCellsComplete"] = _forced(
                    cs, structure, dom, search, budget
                )
        except BudgetExceeded as exc:
            view: Any = ReportView(instance, cs.schema)
            return undecided_report(
                view,
                self._src,
                solution_cap,
                _domains(cs, dom),
                cart,
                exc,
                search.nodes,
                search.seconds,
            )
        stats.update(nodes=search.nodes, seconds=round(search.seconds, 6))
        if not search.found:
            return self.outcome(instance, cs, solution_cap, [], cart, stats, budget)
        bits = search.bits().copy()  # the workspace is reused: the report keeps its rows
        order = search.order if search.found > 1 else None  # one solution: none drawn
        return _lined().found_report(self, instance, cs, solution_cap, bits, order, cart, stats)

    def verify_found(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
    ) -> np.ndarray | None:
        """The solutions :meth:`verify`'s search finds (the same set, up to the cap, unsorted:
        one row per solution, its values in the schema's variable order) when the verdict is
        UNIQUE (one row) or MULTIPLE (more), without building the report (no gap ranking, no
        frozen copies); None when the report would say anything else (INVALID_SPEC,
        DOMAIN_TOO_LARGE, UNDECIDED, UNSOLVABLE): call :meth:`verify` for it. For a caller that
        reads only the verdict and the solutions, such as the generator environment
        (:class:`puzzlekit.envs.GenerateEnv`)."""
        budget = budget or _BUDGET
        ran = self._searched(instance, solution_cap, budget)
        if isinstance(ran, VerifierReport):
            return None
        cs, dom, _structure, search, _cart = ran
        try:
            search.run(dom, budget.nodes, budget.seconds)
        except BudgetExceeded:
            return None
        return cs.values[search.bits()] if search.found else None

    def _searched(self, instance: Instance, cap: int, budget: SearchBudget) -> Any:
        """:meth:`verify`'s steps before the search: the report when it ends there (clues not
        read within the budget, an invalid instance, a domain too large), else ``(cs, dom,
        structure, search, cart)``, the workspace set to the instance's search order."""
        from puzzlekit.verifiers.bitmask.search import start_domains

        if cap < 2:
            raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
        if type(self)._prepare is BitmaskVerifier._prepare:  # a grid line: from its values
            lined = _lined().searched(self, instance, cap)
            if lined is not None:
                return lined
        start = time.perf_counter()
        try:  # reading the clues spends the budget too (a large cage's tuples)
            ends = None if budget.seconds is None else start + budget.seconds
            with deadline.within(ends, budget.seconds):
                prepared = self._prepare(instance)
        except BudgetExceeded as exc:
            return unread_report(instance, self._src, cap, exc, 0, time.perf_counter() - start)
        if isinstance(prepared, list):
            return invalid_report(instance, prepared, self._src, cap)
        cs, effects = prepared
        dom = start_domains(cs, effects)
        structure = cs.structure(list(effects.values()))
        from puzzlekit.verifiers.bitmask.search import workspace

        search = workspace(cs, structure, cap)
        search.reset()
        search.set_order(variable_order(cs, instance.digest))
        limit = self.max_cartesian_log10
        if limit is not None and cs.full_log10 > limit:
            narrowed = search.narrowed(dom)
            if narrowed is not None:
                cart = cartesian_of(cs, narrowed)
                if cart[1] > limit:
                    view: Any = ReportView(instance, cs.schema)
                    domains = _domains(cs, narrowed)
                    return too_large_report(
                        view, self._src, cap, domains, cart, limit, search.seconds
                    )
        return cs, dom, structure, search, cartesian_of(cs, dom)

    def verify_batch(
        self,
        instances: Sequence[Instance],
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> list[VerifierReport]:
        """The reports of :meth:`verify` for each of ``instances``, the searches of those whose
        clues only restrict domains run in one compiled call per chunk
        (:mod:`~puzzlekit.verifiers.bitmask.batch`)."""
        from puzzlekit.verifiers.bitmask.batch import verify_batch

        lines = type(self)._prepare is BitmaskVerifier._prepare  # grid lines started from values
        return verify_batch(self, instances, solution_cap, budget, extras, lines=lines)

    def verify_lines(
        self, lines: Any, solution_cap: int, budget: SearchBudget | None, extras: Collection[str]
    ) -> list[VerifierReport] | None:
        """``verify_many``'s reports of grid lines of one schema read together (a
        :class:`~puzzlekit.families.linechunk.LineChunk`), asking for ``extras`` (checked): on
        the 9×9 band search from their cell values
        (:func:`~puzzlekit.verifiers.bitmask.batch.verify_values`); None for a subclass, whose
        instances ``verify_many`` verifies one by one."""
        if type(self) is not BitmaskVerifier:
            return None
        cap, first = solution_cap, lines.instance(0)
        if len(lines) == 1:
            return [self.verify(first, solution_cap=cap, budget=budget, extras=extras)]
        plain = not extras and not self.forced_cells and cap >= 2
        plan = _lined().batch_member(self, first) if plain else None
        if plan is None or not plan.band9(cap):
            return self.verify_batch(
                lines.instances(), solution_cap=cap, budget=budget, extras=extras
            )
        values = np.frombuffer(lines.values, np.uint8).reshape(len(lines), -1)
        return _lazy("batch").verify_values(self, plan, values, lines.instance, cap, budget)

    def outcome(
        self,
        instance: Instance,
        cs: CompiledSchema,
        cap: int,
        solutions: list[dict[str, int]],
        cart: tuple[int | float | None, float],
        stats: dict[str, Any],
        budget: SearchBudget,
    ) -> VerifierReport:
        """The UNIQUE, MULTIPLE or UNSOLVABLE report of a finished search."""
        view: Any = ReportView(instance, cs.schema)
        return outcome_report(
            view, self._src, cap, solutions, cart, stats, lambda: self._conflict(instance, budget)
        )

    def uniqueness_session(
        self, instance: Instance, solution: Mapping[str, int]
    ) -> CountingSession:
        """Ask, for many subsets of ``instance``'s clues, whether ``solution`` stays the only one.

        Each question is one compiled search counting to two, on the schema's arrays when every
        clue only restricts domains (givens), else on arrays built for the clues asked about; a
        whole minimization is one compiled call (``remove_in_order``).
        """
        prepared = self._prepare(instance)
        if isinstance(prepared, list):
            raise ValueError(f"instance {instance.digest} does not resolve; verify it first")
        cs, effects = prepared
        from puzzlekit.verifiers.bitmask.minimize import CountingSession

        return CountingSession(cs, effects)

    # -- steps -------------------------------------------------------------------------------
    def _prepare(
        self, instance: Instance
    ) -> tuple[CompiledSchema, dict[str, ClueEffect]] | list[Violation]:
        """The compiled schema and each clue's effect, or the instance's violations."""
        return prepare_instance(instance)

    def _conflict(self, instance: Instance, budget: SearchBudget) -> Conflict:
        """A minimal conflict, shrunk by the sat backend's machinery (as ``sat`` reports it)."""
        from puzzlekit.verifiers.sat.backend import SatVerifier

        if self._sat is None:
            self._sat = SatVerifier(forced_cells=False)
        problem = try_resolve(instance)
        assert isinstance(problem, Problem)
        return self._sat.conflict(problem, budget)


_BUDGET = SearchBudget()  # frozen: the default, made once
#: modules of this package imported on first use (they load numba), by name
_LAZY: dict[str, Any] = {}


def _lazy(name: str) -> Any:
    """The module ``puzzlekit.verifiers.bitmask.<name>``, imported on first use."""
    found = _LAZY.get(name)
    if found is None:
        found = _LAZY[name] = importlib.import_module(f"puzzlekit.verifiers.bitmask.{name}")
    return found


def _lined() -> Any:
    return _lazy("line")


def variable_order(cs: CompiledSchema, digest: str) -> np.ndarray:
    """The variable indices in the instance's own search order
    (:func:`~puzzlekit.verifiers.search.search_order`, as ``sat`` and ``enumerative`` use)."""
    return np.array(digest_permutation(digest, STREAM_ORDER, len(cs.names)), np.int64)


def _violations(instance: Instance) -> list[Violation]:
    resolved = try_resolve(instance)
    if isinstance(resolved, Problem):  # the fast path and resolve() disagree: a family bug
        raise RuntimeError(f"family {instance.family!r}: clue checks differ from resolve()")
    return resolved


def _domains(cs: CompiledSchema, dom: np.ndarray) -> dict[str, list[int]]:
    values = cs.values
    return {
        name: [int(values[b]) for b in range(len(values)) if int(m) >> b & 1]
        for name, m in zip(cs.names, dom, strict=True)
    }


def _forced(
    cs: CompiledSchema,
    structure: Structure,
    dom: np.ndarray,
    search: Any,
    budget: SearchBudget,
) -> tuple[list[dict[str, Any]], bool]:
    """The cells with one value in every solution (``forcedCells``, as sat's), and whether all
    were decided: the cells on which the solutions found agree, each checked by a search for
    another value when the cap was reached (the enumeration was complete otherwise)."""
    sols = search.bits()
    first = sols[0]
    candidates = set(np.flatnonzero((sols == first).all(axis=0)).tolist())
    if search.found >= search.cap:
        from puzzlekit.verifiers.bitmask.search import Search

        probe = Search(cs, structure, 1)
        probe.ordered = False  # any other solution narrows the candidates: order is moot
        for v in sorted(candidates):
            if v not in candidates:
                continue
            trial = dom.copy()
            trial[v] &= ~(1 << int(first[v]))
            probe.run(trial, budget.nodes, budget.seconds, search)
            if probe.found:
                other = probe.bits()[0]
                candidates -= set(np.flatnonzero(other != first).tolist())
    variables = cs.schema.variables
    values = cs.values
    out = [
        {
            "coord": list(variables[v].coord),
            "fieldName": cs.names[v],
            "value": int(values[first[v]]),
        }
        for v in sorted(candidates)
    ]
    return out, True
