"""The adaptive strategy's MULTIPLE steps on a givens grid, run on arrays: the same steps, the
same trace and the same random draws as the strategy reading full ``bitmask`` reports, at the
cost of the search.

When the filter is the built-in ``bitmask`` verifier, the strategy the built-in ``adaptive``
and the family a plain givens grid (one given per cell, each a value of the solution), each
MULTIPLE step of a loop is: the instance's canonical bytes and digest, a count to two in the
instance's search order, the cells where the two solutions differ ranked as the report's
``discriminativeGap`` ranks them (ties in the order drawn from the digest), the cells whose
true value rules out the most found solutions (:func:`puzzlekit.generators.adaptive.top_cells`)
and the reveal the strategy's rng picks there. :class:`GivensSteps` does exactly that on a
set of cells, digesting them as the grid line they make (``GridLine``), and builds an
:class:`~puzzlekit.core.model.Instance` only where the loop goes on from it: a UNIQUE step
(its trace entry made here too; its only solution is the one the strategy built towards, and
the filter's report is made only where the loop reports it: no minimization, or one that kept
every clue) or anything else (the general path). The loop's results for a seed are those of
the general path, which the tests compare seed by seed.

Used only where nothing reads the filter reports of the trace (``LoopSpec.trace_reports`` off,
as ``puzzlekit generate`` runs): its trace entries carry no report. No third-party code runs
in these steps (the filter and the strategy are the built-in ones, checked by type), so there
is no evaluation to guard (:func:`~puzzlekit.loop.attempts.guarded_verify` guards the calls of
the general path); what leaves the loop process is serialized afresh at the boundary, as ever.

Not for: other strategies, filters or families, solution caps above two, or extras: they run
the general path (:func:`eligible` says which).
"""

from __future__ import annotations

import bisect
import hashlib
import time
from collections.abc import Collection
from typing import Any

import numpy as np

from puzzlekit.core.jsondata import canonical_json, thaw
from puzzlekit.core.model import Clue, Instance, Schema
from puzzlekit.core.protocols import SearchBudget, Step, pick_in_order
from puzzlekit.core.report import Verdict
from puzzlekit.families.grid import GivensGrid, GridLine
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.generators.base import draw_solution
from puzzlekit.loop.attempts import Attempt
from puzzlekit.loop.budget import LoopBudget, note_progress
from puzzlekit.verifiers import digest_draw
from puzzlekit.verifiers.bitmask.backend import BitmaskVerifier
from puzzlekit.verifiers.bitmask.compile import NotCompilable, compiled_for, plain_givens
from puzzlekit.verifiers.bitmask.gap_draw import ranked_gap
from puzzlekit.verifiers.bitmask.search import workspace
from puzzlekit.verifiers.search import STREAM_ORDER, STREAM_TIES, BudgetExceeded

#: the fast steps of each compiled schema (a few per process: one per schema generated)
_BY_SCHEMA: dict[int, GivensSteps] = {}
#: each schema's family, compiled schema (None: it does not compile) and empty instance, by the
#: schema object's id (checked by identity: the entry holds the object)
_COMPILED: dict[int, tuple[Any, ...]] = {}


def eligible(
    schema: Schema,
    strategy: Any,
    filter: Any,
    extras: Collection[str],
    budget: LoopBudget,
) -> GivensSteps | None:
    """The fast steps for this loop, or None when it runs the general path: the strategy must
    be the built-in ``adaptive`` (no sampler, no fixed region), the filter the built-in
    ``bitmask`` verifier (no forced cells asked for, its cartesian limit not reached by the
    schema), a cap of two, and the family a plain givens grid whose schema compiles."""
    if type(strategy) is not Adaptive or strategy.sampler is not None or strategy.fix_region:
        return None
    if type(filter) is not BitmaskVerifier or filter.forced_cells or "forcedCells" in extras:
        return None
    if budget.solution_cap != 2:
        return None
    compiled = _COMPILED.get(id(schema))
    if compiled is None or compiled[0] is not schema:  # once per schema object
        probe = Instance.make(schema.family, schema.params_dict(), ())
        try:
            compiled = (schema, *compiled_for(probe), probe)
        except Exception:  # noqa: BLE001 - SpecError, NotCompilable: the general path reports it
            compiled = (schema, None, None, probe)
        if len(_COMPILED) > 16:
            _COMPILED.clear()
        _COMPILED[id(schema)] = compiled
    _, family, cs, probe = compiled
    if cs is None:
        return None
    limit = filter.max_cartesian_log10
    if (
        not plain_givens(family)
        or type(family).repair_moves is not GivensGrid.repair_moves
        or (limit is not None and cs.full_log10 > limit)
        or tuple(cs.names) != schema.names
        or cs.schema is not schema
    ):
        return None
    found = _BY_SCHEMA.get(id(cs))
    if found is None or found.cs is not cs:
        if len(_BY_SCHEMA) > 16:
            _BY_SCHEMA.clear()
        try:
            found = _BY_SCHEMA[id(cs)] = GivensSteps(family, cs, probe)
        except NotCompilable:
            return None
    return found


class GivensSteps:
    """The MULTIPLE steps of one givens schema on arrays (see the module docstring)."""

    def __init__(self, family: Any, cs: Any, probe: Instance) -> None:
        import math

        self.family, self.cs, self.schema = family, cs, cs.schema
        self.params = probe.params
        variables = self.schema.variables
        n = self._size = math.isqrt(len(variables))
        if n * n != len(variables) or any(
            tuple(v.coord) != divmod(i, n) for i, v in enumerate(variables)
        ):  # the digest reads the givens as a grid line: one variable a cell, row by row
            raise NotCompilable("not a row-major square grid of cells")
        self._index = {v.coord: i for i, v in enumerate(variables)}
        self._clues: dict[tuple[int, int], Clue] = {}
        self._bit = {int(v): b for b, v in enumerate(cs.values.tolist())}
        # the canonical bytes around the clues (as Instance._joined writes them) and each
        # (cell, value)'s clue bytes, from clue objects made here and held by nothing else
        self._head = b'{"clues":['
        self._tail = (
            b'],"family":'
            + canonical_json(self.schema.family)
            + b',"params":'
            + canonical_json(thaw(self.params), keys_are_strings=True)
            + b"}"
        )
        self._parts: dict[tuple[int, int], bytes] = {}
        grid = type(family)
        #: whether the family's fresh puzzle is the default's draw of ``k`` givens
        #: (:func:`~puzzlekit.families._kit.gridline.kept_givens`), which :meth:`start` makes
        self._kept_start = (
            grid.initial_clues is GivensGrid.initial_clues
            and grid.clues_from_solution is GivensGrid.clues_from_solution
        )

    # -- the start and the cells of an instance ----------------------------------------------
    def start(self, strategy: Any, schema: Schema, rng: np.random.Generator) -> Step:
        """``strategy.start(schema, rng)``: the same draws, solution and instance (equal, with
        the same bytes and digest), the instance kept as its grid line (:meth:`line`) where
        the family's fresh puzzle is the default draw of givens (no clue objects built)."""
        if not self._kept_start or schema is not self.schema:
            return strategy.start(schema, rng)  # type: ignore[no-any-return]
        solution = draw_solution(schema, rng, None)
        kept = pick_in_order(schema.variables, strategy.k, rng)
        values = bytearray(self._size * self._size)
        index = self._index
        for v in kept:
            value = solution[v.name]
            if type(value) is not int or not 0 < value < 256:  # not a cell value: as the default
                clues = [self.family.given(schema, u.coord, solution[u.name]) for u in kept]
                inst = Instance.make(schema.family, schema.params_dict(), clues)
                return Step(inst, "start", None, solution, schema)
            values[index[v.coord]] = value
        return Step(self.line(values), "start", None, solution, schema)

    def line(self, values: bytes | bytearray, canonical: bytes | None = None) -> Instance:
        """The instance whose grid line has ``values`` (one a cell, 0 blank), its clues built
        when first read (as a parsed line's); ``canonical``: its canonical bytes, when the
        caller has just computed them (:meth:`hashed`)."""
        line = GridLine(self.schema.family, self.params, self._size, bytes(values))
        inst = Instance.deferred(self.schema.family, self.params, line)
        if canonical is not None:
            inst.keep_fresh(canonical)
        return inst

    @staticmethod
    def clue_count(inst: Instance) -> int:
        """``len(inst.clues)``, without building the clues of a grid line (:meth:`line`)."""
        line = inst.clue_source
        if type(line) is GridLine and "clues" not in inst.__dict__:
            return len(line.givens())
        return len(inst.clues)

    def _line_cells(self, inst: Instance, solution: Any) -> dict[int, int] | None:
        """:meth:`_cells` of an instance still in its grid line form (no clue objects)."""
        line = inst.clue_source
        if (
            type(line) is not GridLine
            or "clues" in inst.__dict__
            or line.size != self._size
            or line.family != self.schema.family
            or line.params != self.params
        ):
            return None
        names = self.cs.names
        out: dict[int, int] = {}
        for i, v in line.givens():
            if solution.get(names[i]) != v or type(solution.get(names[i])) is not int:
                return None
            out[i] = v
        return out

    def _cells(self, step: Step) -> dict[int, int] | None:
        """``{variable: value}`` of ``step``'s givens, or None when the instance is not a set
        of true givens of the step's solution in this schema (the general path takes it)."""
        solution = step.solution
        if solution is None or step.schema is not self.schema:
            return None
        inst = step.instance
        if inst.family != self.schema.family or inst.params != self.params:
            return None
        if inst.clue_source is not None and "clues" not in inst.__dict__:
            return self._line_cells(inst, solution)
        names = self.cs.names
        out: dict[int, int] = {}
        for clue in inst.clues:
            if clue.kind != "given" or len(clue.coords) != 1:
                return None
            i = self._index.get(clue.coords[0])
            if i is None or clue.id != names[i] or i in out:
                return None
            value = solution.get(names[i])
            if clue.data != (("value", value),) or type(value) is not int:
                return None
            out[i] = value
            self._clues.setdefault((i, value), clue)
        return out

    def _clue(self, i: int, value: int) -> Clue:
        clue = self._clues.get((i, value))
        if clue is None:
            clue = self.family.given(self.schema, self.schema.variables[i].coord, value)
            self._clues[(i, value)] = clue
        return clue

    def _part(self, i: int, value: int) -> bytes:
        """The canonical bytes of the given ``value`` at cell ``i`` (made once, from a clue
        object no instance holds)."""
        part = self._parts.get((i, value))
        if part is None:
            coord = self.schema.variables[i].coord
            part = self._parts[(i, value)] = self.family.given(
                self.schema, coord, value
            ).canonical_json()
        return part

    def digest(self, cells: dict[int, int]) -> str:
        """The digest of the instance of the givens ``cells`` (:meth:`hashed`)."""
        return self.hashed([self._part(i, cells[i]) for i in sorted(cells)])[0]

    def hashed(self, parts: list[bytes]) -> tuple[str, np.ndarray, bytes]:
        """The digest of the instance whose givens' canonical bytes are ``parts`` (in cell
        order, row by row: the canonical order of their ids), as
        :func:`~puzzlekit.core.jsondata.sha256_digest` writes it, its bytes (what the draws
        read) and the instance's canonical bytes (joined as
        :meth:`~puzzlekit.core.model.Instance.canonical_json` joins its clues' bytes)."""
        canonical = self._head + b",".join(parts) + self._tail
        hashed = hashlib.sha256(canonical)
        return "sha256:" + hashed.hexdigest(), np.frombuffer(hashed.digest(), np.uint8), canonical

    def instance(self, cells: dict[int, int]) -> Instance:
        """The instance of the givens ``cells``."""
        return Instance(
            self.schema.family, self.params, tuple(self._clue(i, v) for i, v in cells.items())
        )

    # -- one step ---------------------------------------------------------------------------
    def advance(
        self,
        step: Step,
        rng: np.random.Generator,
        trace: list[Attempt],
        budget: LoopBudget,
        seed: int,
        t0: float,
        noted: float,
    ) -> tuple[Step, float, bool]:
        """Run ``step``'s MULTIPLE steps (each a trace entry) until a step that is not
        MULTIPLE, or until one call is left of ``budget`` (the last call is the general path's:
        an exhausted loop reports its last filter report). Returns the step the general path
        goes on from (``step`` itself when no step ran here; else a grid line, :meth:`line`),
        the time of the last progress line, and whether that step's instance is UNIQUE (its
        trace entry made here: its only solution is the step's, every clue of it true)."""
        cells = self._cells(step)
        if cells is None:
            return step, noted, False
        search_budget = budget.filter_budget or SearchBudget()
        target = step.solution
        assert target is not None
        cs, names, bit = self.cs, self.cs.names, self._bit
        tbits = np.array([bit[target[n]] for n in names], np.int64)
        variables = self.schema.variables
        # the step's state kept as it grows (one reveal a step): the grid line's values, its
        # givens' canonical bytes in cell order, the search's start domains and the search
        values = bytearray(self._size * self._size)
        dom = cs.base_dom.copy()
        for i, v in cells.items():
            values[i] = v
            dom[i] &= 1 << bit[v]
        at = sorted(cells)
        parts = [self._part(i, cells[i]) for i in at]
        search = workspace(cs, cs.base_structure, 2)
        action, coord, ran, unique = step.action, step.coord, False, False
        canonical: bytes | None = None  # the bytes of ``values`` as they are, when hashed
        multiple = Verdict.MULTIPLE.value
        while len(trace) < budget.max_calls - 1:
            t1 = time.perf_counter()
            digest, raw, canonical = self.hashed(parts)
            bits = _count_two(search, dom.copy(), raw, search_budget, band=False)
            if bits is not None and bits.shape[0] == 1:
                seconds = time.perf_counter() - t1
                entry = Attempt(len(trace), digest, len(at), Verdict.UNIQUE.value, action,
                                coord, None, None, 1, seconds)  # fmt: skip
                trace.append(entry)
                noted = note_progress(noted, t0, seed, entry)
                unique = True
                break
            if bits is None or bits.shape[0] != 2:
                break
            # the gap (the cells where the two solutions differ, ranked as the report ranks
            # them: all of one power against either solution, so by the draw from the digest)
            # and the strategy's ranking against its own solution: how many found solutions
            # each cell's true value rules out (top_cells), every best one offered in gap order
            first, offered = ranked_gap(bits, tbits, raw, STREAM_TIES)
            if first < 0:  # no gap between the two (never seen): the general path decides
                break
            chosen = int(offered[int(rng.integers(offered.size))])
            int(rng.integers(1))  # the move among the cell's moves: a reveal is the only one
            seconds = time.perf_counter() - t1
            trace.append(Attempt(len(trace), digest, len(at), multiple, action, coord, multiple,
                                 variables[int(first)].coord, 2, seconds))  # fmt: skip
            noted = note_progress(noted, t0, seed, trace[-1])
            value = target[names[chosen]]
            values[chosen] = value
            dom[chosen] &= 1 << bit[value]
            k = bisect.bisect_left(at, chosen)
            at.insert(k, chosen)
            parts.insert(k, self._part(chosen, value))
            canonical = None
            action, coord, ran = "reveal", variables[chosen].coord, True
        if not ran:
            return step, noted, unique
        return (
            Step(self.line(values, canonical), action, coord, step.solution, step.schema),
            noted,
            unique,
        )


def _draw(raw: np.ndarray, stream: int, n: int) -> np.ndarray:
    """``digest_permutation(digest, stream, n)`` as an array for the digest's bytes ``raw``,
    drawn afresh (every digest of a loop is new: nothing to remember), by the compiled draw the
    filter's own calls use."""
    return digest_draw.digest_permutation(raw, stream, n)


def _count_two(
    search: Any, dom: np.ndarray, raw: np.ndarray, budget: SearchBudget, band: bool = True
) -> Any:
    """The solutions (value bits, one row each) of a count to two by ``search`` from the start
    domains ``dom`` (taken) in the order drawn from the digest bytes ``raw`` (as the filter
    searches); None when the search runs out of its budget. ``band`` False: no band search
    first (:meth:`~puzzlekit.verifiers.bitmask.search.Search.run`): the steps' counts mostly
    reach two, where the 9×9 search runs anyway for the first two solutions in order."""
    search.reset()
    search.set_order(_draw(raw, STREAM_ORDER, dom.shape[0]))
    try:
        search.run(dom, budget.nodes, budget.seconds, band=band)
    except BudgetExceeded:
        return None
    return search.bits()
