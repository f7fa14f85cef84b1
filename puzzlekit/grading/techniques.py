"""Difficulty grading for the Latin-square families by a logical solver of named techniques.

:func:`grade` works on pencil marks (every cell's candidates) and applies the techniques of the
family's scale, easiest first, restarting from the easiest after every step; each step records
the technique, the unit or clue it rests on, the cells and values of its pattern and the
candidates it eliminated. It stops when the grid is solved, a cell has no candidate left
(contradiction) or no technique applies (stuck: the open cells and their candidates are
reported). The grade is the hardest technique used and its ``level``, the index of its tier in
the family's scale (:func:`scale`); a puzzle the techniques cannot finish gets the last tier,
``search``. Beside it, search measures: the SAT verifier's conflicts (its ``nodes``) to decide
the puzzle, and the cells that sound propagation alone fixes (``narrow_domains``).

The scale (tiers of equal level, easiest first), of which a family keeps the tiers it has:

====  =========================================  ===============================================
tier  techniques                                 kept for
====  =========================================  ===============================================
0     hidden-single                              every family
1     naked-single                               every family
2     clue-filter                                families with clues beyond givens (cages,
                                                 inequalities, view clues): arc consistency on
                                                 one clue's constraint
3     clue-pointing                              the same families: a value every way of
                                                 satisfying one clue puts among the clue's cells
                                                 in a house leaves the rest of that house
4     pointing, box-line                         families with boxes or regions
5     naked-pair, hidden-pair                    every family
6     naked-triple, hidden-triple                every family
7     x-wing                                     every family
8     swordfish                                  every family
9     search                                     (the techniques got stuck)
====  =========================================  ===============================================

Levels are renumbered 0.. over the tiers a family keeps, so Sudoku runs 0-7 and a Latin square
0-6. Units: an all-different over N cells with N values is a house (row, column, box or
region); naked subsets also use smaller all-different groups (killer cages).

``python -m puzzlekit.grading.validate --validate DIR`` grades every Tatham game ID in
``DIR/<game>/<label>.txt`` whose file name is a Tatham difficulty (basic, intermediate, advanced,
extreme, unreasonable) and prints the table of levels by label and their Spearman rank
correlation (:mod:`puzzlekit.grading.validate`).

Layout: the techniques themselves are methods of :class:`puzzlekit.grading.pencil._PencilTechniques`
(with the constraint supports clue filtering uses); this module holds the pencil-mark state
(:class:`PencilSolver`), the scale, :func:`grade` and its records; the validation against
Tatham's labels is :mod:`puzzlekit.grading.validate`.

Not for: families whose variables are not a Latin square (nonogram, star battle, games).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from puzzlekit.core.deadline import BudgetExceeded
from puzzlekit.core.meter import Meter
from puzzlekit.core.model import (
    AllDifferent,
    Constraint,
    Coord,
    Instance,
    Linear,
    Problem,
)
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import BudgetSpent
from puzzlekit.families import get_family, resolve
from puzzlekit.grading.pencil import ENUM_LIMIT, _Contradiction, _PencilTechniques
from puzzlekit.grading.pencil import _supports as _supports
from puzzlekit.grading.search import search_measures

__all__ = [
    "ENUM_LIMIT",
    "GRADED_FAMILIES",
    "TIERS",
    "Grade",
    "TechniqueStep",
    "StuckCell",
    "PencilSolver",
    "family_scale",
    "grade_of",
    "grade",
    "scale",
]

#: every tier of the scale, easiest first (see the module docstring)
TIERS: tuple[tuple[str, ...], ...] = (
    ("hidden-single",),
    ("naked-single",),
    ("clue-filter",),
    ("clue-pointing",),
    ("pointing", "box-line"),
    ("naked-pair", "hidden-pair"),
    ("naked-triple", "hidden-triple"),
    ("x-wing",),
    ("swordfish",),
    ("search",),
)


@dataclass(frozen=True)
class TechniqueStep:
    """One deduction: what technique, where (unit or clue id, cells, values), what it removed."""

    technique: str
    unit: str
    coords: tuple[Coord, ...]
    values: tuple[int, ...]
    eliminated: tuple[tuple[Coord, int], ...]
    placed: tuple[Coord, int] | None = None

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "technique": self.technique,
            "unit": self.unit,
            "coords": [list(c) for c in self.coords],
            "values": list(self.values),
            "placed": None if self.placed is None else [list(self.placed[0]), self.placed[1]],
            "eliminated": [[list(c), v] for c, v in self.eliminated],
        }


@dataclass(frozen=True)
class StuckCell:
    """An open cell where the techniques stopped: its coordinate, name and candidates."""

    coord: Coord
    name: str
    candidates: tuple[int, ...]

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "coord": list(self.coord),
            "fieldName": self.name,
            "candidates": list(self.candidates),
        }


@dataclass(frozen=True)
class Grade:
    """The grade of one puzzle; ``level`` indexes ``scale`` (0 = easiest)."""

    family: str
    technique: str
    level: int
    status: str  # "solved", "stuck", "contradiction" or "undecided" (the budget ran out)
    scale: tuple[tuple[str, ...], ...]
    counts: Mapping[str, int]
    steps: tuple[TechniqueStep, ...]
    stuck: tuple[StuckCell, ...]
    sat_conflicts: int | None = None
    sat_verdict: str | None = None
    propagation_forced: int = 0
    givens: int = 0
    instance_digest: str = field(default="")
    #: what ran out of the budget (status ``undecided``); None when the grade finished
    budget: BudgetSpent | None = None

    def to_json_obj(self, trace: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "instanceDigest": self.instance_digest,
            "family": self.family,
            "technique": self.technique,
            "level": self.level,
            "maxLevel": len(self.scale) - 1,
            "status": self.status,
            "counts": dict(self.counts),
            "givens": self.givens,
            "propagationForced": self.propagation_forced,
            "satConflicts": self.sat_conflicts,
            "satVerdict": self.sat_verdict,
            "stuck": [s.to_json_obj() for s in self.stuck],
        }
        if self.budget is not None:
            out["budget"] = self.budget.to_json_obj()
        if trace:
            out["steps"] = [s.to_json_obj() for s in self.steps]
        return out


def _line_kind(coords: Sequence[Coord]) -> str:
    if len({c[0] for c in coords}) == 1:
        return "row"
    if len({c[1] for c in coords}) == 1:
        return "col"
    return "box"


class PencilSolver(_PencilTechniques):
    """Pencil marks over one problem and the techniques that narrow them."""

    def __init__(self, problem: Problem) -> None:
        schema = problem.schema
        self.problem = problem
        self.coord = {v.name: v.coord for v in schema.variables}
        self.cand: dict[str, set[int]] = {v.name: set(v.domain) for v in schema.variables}
        self.n = schema.domain_size()
        self.groups: list[tuple[str, tuple[str, ...]]] = []
        self.filters: list[Constraint] = []
        unary: list[Constraint] = []
        for c in problem.all_constraints():
            if isinstance(c, AllDifferent):
                self.groups.append((c.origin.id, c.vars))
            elif len(c.vars) == 1:
                unary.append(c)
            else:
                self.filters.append(c)
        self.houses = [
            (gid, vs)
            for gid, vs in self.groups
            if len(vs) == self.n and len(set().union(*(self.cand[x] for x in vs))) == self.n
        ]
        #: the values of the houses (1..N for the grid families, 0-based for logic grids)
        self.values = tuple(sorted(set().union(*self.cand.values())))
        self.kind = {gid: _line_kind([self.coord[x] for x in vs]) for gid, vs in self.houses}
        self.peers: dict[str, set[str]] = {name: set() for name in self.cand}
        self.houses_of: dict[str, list[int]] = {name: [] for name in self.cand}
        for _gid, vs in self.groups:
            for x in vs:
                self.peers[x].update(y for y in vs if y != x)
        #: the cells in coordinate order, and each cell's peers in that order
        self.order = tuple(sorted(self.cand, key=lambda x: self.coord[x]))
        #: houses known to hold no hidden single since their candidates last changed
        self.clean: set[int] = set()
        self.peer_order = {
            name: tuple(sorted(ps, key=lambda x: self.coord[x])) for name, ps in self.peers.items()
        }
        for i, (_, vs) in enumerate(self.houses):
            for x in vs:
                self.houses_of[x].append(i)
        self.placed: set[str] = set()
        self.steps: list[TechniqueStep] = []
        for c in unary:
            name = c.vars[0]
            self.cand[name] = {x for x in self.cand[name] if c.holds({name: x})}
        self.givens = sum(1 for c in unary if isinstance(c, Linear) and c.op == "==")
        has_boxes = any(k == "box" for k in self.kind.values())
        kinds = get_family(schema.family).info.clue_kinds
        has_clues = bool(self.filters) or any(k != "given" for k in kinds)
        kept = [
            t
            for t in TIERS
            if not (t[0] in ("clue-filter", "clue-pointing") and not has_clues)
            and not (t[0] == "pointing" and not has_boxes)
        ]
        self.scale = tuple(kept)
        self.level_of = {name: i for i, tier in enumerate(self.scale) for name in tier}
        self.broken = False
        try:
            self._check()
            # givens (cells the clues alone fix) are placed without a step; a cell that their
            # eliminations leave with one candidate is the solver's to find, with a step
            fixed = [name for name, values in self.cand.items() if len(values) == 1]
            for name in sorted(fixed, key=lambda x: self.coord[x]):
                if name not in self.placed:
                    self._place(name, next(iter(self.cand[name])), [])
        except _Contradiction:
            self.broken = True

    def fork(self, givens: Mapping[str, int]) -> PencilSolver:
        """A fresh solver on this one's state plus ``givens`` (placed without steps).

        Built once per problem without its value clues, a template forks in a fraction of the
        cost of building a solver from a resolved instance: houses, peers and the scale are
        shared, only the candidates are copied.
        """
        new = object.__new__(PencilSolver)
        new.__dict__.update(self.__dict__)
        new.cand = {name: set(values) for name, values in self.cand.items()}
        new.placed = set(self.placed)
        new.clean = set()
        new.steps = []
        new.givens = self.givens + len(givens)
        try:
            for name in sorted(givens, key=lambda x: self.coord[x]):
                value = givens[name]
                if value not in new.cand[name]:
                    raise _Contradiction
                if name not in new.placed:
                    new._place(name, value, [])
        except _Contradiction:
            new.broken = True
        return new

    # -- bookkeeping --------------------------------------------------------------------------
    def _check(self) -> None:
        if any(not s for s in self.cand.values()):
            raise _Contradiction

    def _eliminate(self, name: str, value: int, out: list[tuple[Coord, int]]) -> None:
        if value in self.cand[name]:
            self.cand[name].discard(value)
            self.clean.difference_update(self.houses_of[name])
            out.append((self.coord[name], value))
            if not self.cand[name]:
                raise _Contradiction

    def _place(self, name: str, value: int, out: list[tuple[Coord, int]]) -> None:
        for other in sorted(self.cand[name] - {value}):
            self._eliminate(name, other, out)
        self.placed.add(name)
        for peer in self.peer_order[name]:
            self._eliminate(peer, value, out)

    def _record(
        self,
        technique: str,
        unit: str,
        names: Sequence[str],
        values: Sequence[int],
        eliminated: list[tuple[Coord, int]],
        placed: tuple[Coord, int] | None = None,
    ) -> TechniqueStep:
        step = TechniqueStep(
            technique,
            unit,
            tuple(self.coord[x] for x in names),
            tuple(values),
            tuple(eliminated),
            placed,
        )
        self.steps.append(step)
        return step

    def solved(self) -> bool:
        return len(self.placed) == len(self.cand)

    # -- the loop -----------------------------------------------------------------------------
    def run(self, cap: int | None = None, meter: Meter | None = None) -> str:
        """Solve with the techniques of the tiers up to ``cap`` (all when None): the status.

        ``meter`` counts each technique tried as a node and checks the clock before each; a
        budget that runs out raises :class:`~puzzlekit.core.deadline.BudgetExceeded`."""
        techniques = {
            "hidden-single": self.hidden_single,
            "naked-single": self.naked_single,
            "clue-filter": self.clue_filter,
            "clue-pointing": self.clue_pointing,
            "pointing": self.intersections,
            "box-line": lambda: False,  # found together with pointing
            "naked-pair": lambda: self.naked_subset(2),
            "hidden-pair": lambda: self.hidden_subset(2),
            "naked-triple": lambda: self.naked_subset(3),
            "hidden-triple": lambda: self.hidden_subset(3),
            "x-wing": lambda: self.fish(2),
            "swordfish": lambda: self.fish(3),
            "search": lambda: False,
        }
        tiers = self.scale if cap is None else self.scale[: cap + 1]
        order = [t for tier in tiers for t in tier]
        if self.broken:
            return "contradiction"

        def attempt(name: str) -> bool:
            if meter is not None:
                meter.tick()
                meter.check_clock()
            return techniques[name]()

        try:
            while not self.solved():
                if not any(attempt(t) for t in order):
                    return "stuck"
        except _Contradiction:
            return "contradiction"
        return "solved"


def scale(problem: Problem) -> tuple[tuple[str, ...], ...]:
    """The tiers of techniques that apply to ``problem``'s family; a tier's index is its level."""
    return PencilSolver(problem).scale


def grade(instance: Instance, *, search: bool = True, budget: SearchBudget | None = None) -> Grade:
    """Grade ``instance``; raises :class:`~puzzlekit.core.model.SpecError` for an invalid one.

    ``search=False`` skips the SAT measures (``sat_conflicts`` and ``sat_verdict`` stay None).
    ``budget`` (default :class:`~puzzlekit.core.protocols.SearchBudget`'s) bounds the whole
    grade: each technique tried is a node; the SAT measures get the seconds left and the node
    limit for their conflicts. When it runs
    out the grade answers at once with status ``undecided``, the last tier as its level, and
    ``budget`` saying what ran out and what was spent; a SAT search cut short gives
    ``sat_verdict`` UNDECIDED.
    """
    budget = budget if budget is not None else SearchBudget()
    meter = Meter(budget)  # the clock runs from here: reading the clues spends the budget too
    try:
        with meter.within():
            problem = resolve(instance)
    except BudgetExceeded as exc:
        return _unread_grade(instance, exc, meter)
    solver = PencilSolver(problem)
    try:
        with meter.within():  # a rule that searches (a game position) stops on the deadline too
            status = solver.run(meter=meter)
    except BudgetExceeded as exc:
        spent = BudgetSpent(exc.resource, exc.limit, meter.nodes, round(meter.seconds, 6), 0)
        return replace(
            grade_of(solver, "undecided", instance.family, instance.digest), budget=spent
        )
    g = grade_of(solver, status, instance.family, instance.digest)
    if search:
        left = None if budget.seconds is None else max(budget.seconds - meter.seconds, 1e-3)
        conflicts, verdict, forced = search_measures(
            instance, problem, SearchBudget(nodes=budget.nodes, seconds=left)
        )
        g = replace(
            g,
            sat_conflicts=conflicts,
            sat_verdict=verdict,
            propagation_forced=max(0, forced - solver.givens),
        )
    return g


def _unread_grade(instance: Instance, exc: BudgetExceeded, meter: Meter) -> Grade:
    """The ``undecided`` grade of a budget that ran out while the clues were read into
    constraints (a family listing a large cage's tuples stops on the deadline)."""
    schema = get_family(instance.family).schema(instance.params_dict())
    solver = PencilSolver(Problem(instance, schema, ()))
    spent = BudgetSpent(exc.resource, exc.limit, meter.nodes, round(meter.seconds, 6), 0)
    return replace(grade_of(solver, "undecided", instance.family, instance.digest), budget=spent)


def grade_of(solver: PencilSolver, status: str, family: str, digest: str) -> Grade:
    """The grade a solver's finished run gives (no search measures)."""
    counts: dict[str, int] = {}
    for step in solver.steps:
        counts[step.technique] = counts.get(step.technique, 0) + 1
    used = [solver.level_of[t] for t in counts]
    if status == "solved":
        level = max(used, default=0)
    else:
        level = len(solver.scale) - 1
    technique = solver.scale[level][0]
    if status == "solved":
        technique = max(counts, key=lambda t: (solver.level_of[t], t), default="hidden-single")
    stuck = tuple(
        StuckCell(solver.coord[x], x, tuple(sorted(solver.cand[x])))
        for x in sorted(solver.cand, key=lambda y: solver.coord[y])
        if status == "stuck" and len(solver.cand[x]) > 1
    )
    return Grade(
        family=family,
        technique=technique,
        level=level,
        status=status,
        scale=solver.scale,
        counts=counts,
        steps=tuple(solver.steps),
        stuck=stuck,
        givens=solver.givens,
        instance_digest=digest,
    )


# --- generation toward a level --------------------------------------------------------------

#: the families :func:`grade` is meant for (Latin squares with extra clues or regions)
GRADED_FAMILIES = (
    "sudoku",
    "sudoku-jigsaw",
    "sudoku-killer",
    "latin",
    "futoshiki",
    "kenken",
    "skyscrapers",
)


def family_scale(family: str, params: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    """The scale of ``family`` with ``params`` (from a clue-less instance)."""
    fam = get_family(family)
    return scale(resolve(Instance.make(family, fam.normalize_params(params), [])))
