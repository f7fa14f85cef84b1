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

``python -m puzzlekit.grading.techniques --validate DIR`` grades every Tatham game ID in
``DIR/*.txt`` whose
file name is a Tatham difficulty (basic, intermediate, advanced, extreme, unreasonable) and prints
the table of levels by label and their Spearman rank correlation.

Not for: families whose variables are not a Latin square (nonogram, star battle, games).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from puzzlekit.core.model import (
    AllDifferent,
    Compare,
    Constraint,
    Coord,
    Instance,
    Linear,
    Problem,
    Regular,
    Table,
    compare,
)
from puzzlekit.families import get_family, resolve

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
#: Tatham's difficulties per game, easiest first (the labels of ``--validate``)
TATHAM_LABELS: dict[str, tuple[str, ...]] = {
    "solo": ("basic", "intermediate", "advanced", "extreme", "unreasonable"),
    "keen": ("easy", "normal", "hard", "extreme", "unreasonable"),
    "towers": ("easy", "hard", "extreme", "unreasonable"),
    "unequal": ("trivial", "easy", "tricky", "extreme", "recursive"),
}
#: largest product of domain sizes a clue's constraint is filtered on by enumeration
ENUM_LIMIT = 4096


@dataclass(frozen=True)
class Step:
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
    status: str  # "solved", "stuck" or "contradiction"
    scale: tuple[tuple[str, ...], ...]
    counts: Mapping[str, int]
    steps: tuple[Step, ...]
    stuck: tuple[StuckCell, ...]
    sat_conflicts: int | None = None
    sat_verdict: str | None = None
    propagation_forced: int = 0
    givens: int = 0
    instance_digest: str = field(default="")

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
        if trace:
            out["steps"] = [s.to_json_obj() for s in self.steps]
        return out


class _Stuck(Exception):
    pass


class _Contradiction(Exception):
    pass


def _line_kind(coords: Sequence[Coord]) -> str:
    if len({c[0] for c in coords}) == 1:
        return "row"
    if len({c[1] for c in coords}) == 1:
        return "col"
    return "box"


class _Solver:
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
        self.steps: list[Step] = []
        for c in unary:
            name = c.vars[0]
            self.cand[name] = {x for x in self.cand[name] if c.holds({name: x})}
        self.givens = sum(1 for c in unary if isinstance(c, Linear) and c.op == "==")
        has_boxes = any(k == "box" for k in self.kind.values())
        kinds = get_family(schema.family).clue_kinds
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

    def fork(self, givens: Mapping[str, int]) -> _Solver:
        """A fresh solver on this one's state plus ``givens`` (placed without steps).

        Built once per problem without its value clues, a template forks in a fraction of the
        cost of building a solver from a resolved instance: houses, peers and the scale are
        shared, only the candidates are copied.
        """
        new = object.__new__(_Solver)
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
    ) -> Step:
        step = Step(
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

    # -- techniques ---------------------------------------------------------------------------
    def naked_single(self) -> bool:
        for name in self.order:
            if name not in self.placed and len(self.cand[name]) == 1:
                (value,) = self.cand[name]
                out: list[tuple[Coord, int]] = []
                try:
                    self._place(name, value, out)
                finally:
                    self._record(
                        "naked-single", "", [name], [value], out, (self.coord[name], value)
                    )
                return True
        return False

    def hidden_single(self) -> bool:
        cand, placed, clean = self.cand, self.placed, self.clean
        for h, (gid, vs) in enumerate(self.houses):
            if h in clean:
                continue
            where: dict[int, list[str]] = {}
            for x in vs:
                for value in cand[x]:
                    where.setdefault(value, []).append(x)
            for value in self.values:
                places = where.get(value)
                if not places:
                    raise _Contradiction
                if len(places) == 1 and places[0] not in placed:
                    name = places[0]
                    out: list[tuple[Coord, int]] = []
                    try:
                        self._place(name, value, out)
                    finally:
                        self._record(
                            "hidden-single", gid, [name], [value], out, (self.coord[name], value)
                        )
                    return True
            clean.add(h)
        return False

    def clue_filter(self) -> bool:
        for c in self.filters:
            supported = _supports(c, self.cand)
            if supported is None:
                continue
            out: list[tuple[Coord, int]] = []
            try:
                for name, keep in zip(c.vars, supported, strict=True):
                    for value in sorted(self.cand[name] - keep):
                        self._eliminate(name, value, out)
            finally:
                if out:
                    self._record("clue-filter", c.origin.id, list(dict.fromkeys(c.vars)), [], out)
            if out:
                return True
        return False

    def clue_pointing(self) -> bool:
        """A value every way of satisfying a clue puts inside one house, among the clue's own
        cells there, cannot stand in the rest of that house (a cage's pointing)."""
        for c in self.filters:
            names = list(dict.fromkeys(c.vars))
            if len(names) != len(c.vars) or len(names) < 2:
                continue
            doms = [sorted(self.cand[x]) for x in names]
            if math.prod(len(d) for d in doms) > ENUM_LIMIT:
                continue
            ways = [
                combo
                for combo in itertools.product(*doms)
                if c.holds(dict(zip(names, combo, strict=True)))
            ]
            if not ways:
                continue
            inside: dict[int, list[int]] = {}
            for i, x in enumerate(names):
                for h in self.houses_of[x]:
                    inside.setdefault(h, []).append(i)
            for h, idx in sorted(inside.items()):
                if len(idx) < 2:
                    continue
                gid, vs = self.houses[h]
                forced = set.intersection(*({combo[i] for i in idx} for combo in ways))
                mine = {names[i] for i in idx}
                out: list[tuple[Coord, int]] = []
                try:
                    for value in sorted(forced):
                        for x in vs:
                            if x not in mine:
                                self._eliminate(x, value, out)
                finally:
                    if out:
                        cells = [names[i] for i in idx]
                        self._record(
                            "clue-pointing", f"{c.origin.id}/{gid}", cells, sorted(forced), out
                        )
                if out:
                    return True
        return False

    def intersections(self) -> bool:
        for a, (gid, vs) in enumerate(self.houses):
            for value in self.values:
                places = [x for x in vs if value in self.cand[x] and x not in self.placed]
                if len(places) < 2:
                    continue
                common = set(self.houses_of[places[0]])
                for x in places[1:]:
                    common &= set(self.houses_of[x])
                for b in sorted(common - {a}):
                    bid, bvs = self.houses[b]
                    ka, kb = self.kind[gid], self.kind[bid]
                    if (ka == "box") == (kb == "box"):
                        continue  # two lines meet in one cell; two boxes never overlap
                    out: list[tuple[Coord, int]] = []
                    try:
                        for x in bvs:
                            if x not in vs:
                                self._eliminate(x, value, out)
                    finally:
                        if out:
                            tech = "pointing" if ka == "box" else "box-line"
                            self._record(tech, f"{gid}/{bid}", places, [value], out)
                    if out:
                        return True
        return False

    def naked_subset(self, k: int) -> bool:
        tech = "naked-pair" if k == 2 else "naked-triple"
        for gid, vs in self.groups:
            open_ = [x for x in vs if 2 <= len(self.cand[x]) <= k and x not in self.placed]
            for combo in itertools.combinations(open_, k):
                union = set().union(*(self.cand[x] for x in combo))
                if len(union) != k:
                    continue
                out: list[tuple[Coord, int]] = []
                try:
                    for x in vs:
                        if x not in combo:
                            for value in sorted(union & self.cand[x]):
                                self._eliminate(x, value, out)
                finally:
                    if out:
                        self._record(tech, gid, combo, sorted(union), out)
                if out:
                    return True
        return False

    def hidden_subset(self, k: int) -> bool:
        tech = "hidden-pair" if k == 2 else "hidden-triple"
        for gid, vs in self.houses:
            where = {
                value: frozenset(x for x in vs if value in self.cand[x] and x not in self.placed)
                for value in self.values
            }
            values = [v for v, ps in where.items() if 2 <= len(ps) <= k]
            for combo in itertools.combinations(values, k):
                cells = frozenset().union(*(where[v] for v in combo))
                if len(cells) != k:
                    continue
                out: list[tuple[Coord, int]] = []
                try:
                    for x in sorted(cells, key=lambda y: self.coord[y]):
                        for value in sorted(self.cand[x] - set(combo)):
                            self._eliminate(x, value, out)
                finally:
                    if out:
                        names = sorted(cells, key=lambda y: self.coord[y])
                        self._record(tech, gid, names, combo, out)
                if out:
                    return True
        return False

    def fish(self, k: int) -> bool:
        tech = "x-wing" if k == 2 else "swordfish"
        for base_kind, cover_axis in (("row", 1), ("col", 0)):
            lines = [vs for gid, vs in self.houses if self.kind[gid] == base_kind]
            cover_kind = "col" if base_kind == "row" else "row"
            covers = {
                self.coord[vs[0]][cover_axis]: vs
                for gid, vs in self.houses
                if self.kind[gid] == cover_kind
            }
            for value in self.values:
                rows = []
                for vs in lines:
                    ps = [x for x in vs if value in self.cand[x]]
                    if any(x in self.placed for x in ps):
                        continue
                    if 2 <= len(ps) <= k:
                        rows.append((vs, ps))
                for combo in itertools.combinations(rows, k):
                    axis = {self.coord[x][cover_axis] for _, ps in combo for x in ps}
                    if len(axis) != k or not axis <= set(covers):
                        continue
                    base_cells = {x for vs, _ in combo for x in vs}
                    out: list[tuple[Coord, int]] = []
                    try:
                        for a in sorted(axis):
                            for x in covers[a]:
                                if x not in base_cells:
                                    self._eliminate(x, value, out)
                    finally:
                        if out:
                            pattern = [x for _, ps in combo for x in ps]
                            self._record(tech, f"{base_kind}s", pattern, [value], out)
                    if out:
                        return True
        return False

    # -- the loop -----------------------------------------------------------------------------
    def run(self, cap: int | None = None) -> str:
        """Solve with the techniques of the tiers up to ``cap`` (all when None): the status."""
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
        try:
            while not self.solved():
                if not any(techniques[t]() for t in order):
                    return "stuck"
        except _Contradiction:
            return "contradiction"
        return "solved"


def _supports(c: Constraint, cand: Mapping[str, set[int]]) -> list[set[int]] | None:
    """The values of each variable of ``c`` that some assignment satisfying ``c`` uses (sound)."""
    doms = [cand[x] for x in c.vars]
    if isinstance(c, Compare):
        da, db = doms
        return [
            {x for x in da if any(compare(x, c.op, y) for y in db)},
            {y for y in db if any(compare(x, c.op, y) for x in da)},
        ]
    if isinstance(c, Table):
        rows = [t for t in c.allowed if all(v in d for v, d in zip(t, doms, strict=True))]
        return [{t[i] for t in rows} for i in range(len(doms))]
    if isinstance(c, Regular):
        return _regular_supports(c, doms)
    if len(set(c.vars)) == len(c.vars) and math.prod(len(d) for d in doms) <= ENUM_LIMIT:
        out: list[set[int]] = [set() for _ in doms]
        for combo in itertools.product(*(sorted(d) for d in doms)):
            if c.holds(dict(zip(c.vars, combo, strict=True))):
                for i, v in enumerate(combo):
                    out[i].add(v)
        return out
    if isinstance(c, Linear):
        terms = [
            (k, min(k * v for v in d), max(k * v for v in d))
            for k, d in zip(c.coeffs, doms, strict=True)
        ]
        lo_all, hi_all = sum(t[1] for t in terms), sum(t[2] for t in terms)
        out = []
        for (k, lo, hi), d in zip(terms, doms, strict=True):
            keep = set()
            for v in d:
                lo_v, hi_v = lo_all - lo + k * v, hi_all - hi + k * v
                if _interval_can(lo_v, hi_v, c.op, c.rhs):
                    keep.add(v)
            out.append(keep)
        return out
    return None


def _interval_can(lo: int, hi: int, op: str, rhs: int) -> bool:
    if op == "==":
        return lo <= rhs <= hi
    if op == "!=":
        return not lo == hi == rhs
    if op in ("<", "<="):
        return compare(lo, op, rhs)
    return compare(hi, op, rhs)


def _regular_supports(c: Regular, doms: Sequence[set[int]]) -> list[set[int]]:
    delta: dict[int, list[tuple[int, int]]] = {}
    for s, a, t in c.automaton.transitions:
        delta.setdefault(s, []).append((a, t))
    forward = [{c.automaton.start}]
    for d in doms:
        forward.append({t for s in forward[-1] for a, t in delta.get(s, ()) if a in d})
    backward = [set()] * len(doms) + [set(c.automaton.accepting)]
    for i in range(len(doms) - 1, -1, -1):
        backward[i] = {
            s
            for s in forward[i]
            for a, t in delta.get(s, ())
            if a in doms[i] and t in backward[i + 1]
        }
    return [
        {
            a
            for s in backward[i]
            for a, t in delta.get(s, ())
            if a in doms[i] and t in backward[i + 1]
        }
        for i in range(len(doms))
    ]


def scale(problem: Problem) -> tuple[tuple[str, ...], ...]:
    """The tiers of techniques that apply to ``problem``'s family; a tier's index is its level."""
    return _Solver(problem).scale


def _search_measures(instance: Instance, problem: Problem) -> tuple[int | None, str | None, int]:
    from puzzlekit.verifiers.base import narrow_domains

    domains = narrow_domains(problem, problem.all_constraints())
    forced = 0
    if domains is not None:
        forced = sum(1 for d in domains.values() if len(d) == 1)
    try:
        rep = _sat().verify(instance, solution_cap=2)
    except Exception:  # no SAT encoding (Predicate): the measures stay unknown
        return None, None, forced
    return int(rep.stats.get("nodes", 0)), rep.verdict.value, forced


_SAT: list[Any] = []


def _sat() -> Any:
    if not _SAT:
        from puzzlekit.verifiers.registry import get_verifier

        _SAT.append(get_verifier("sat", forced_cells=False))
    return _SAT[0]


def grade(instance: Instance, *, search: bool = True) -> Grade:
    """Grade ``instance``; raises :class:`~puzzlekit.core.model.SpecError` for an invalid one.

    ``search=False`` skips the SAT measures (``sat_conflicts`` and ``sat_verdict`` stay None).
    """
    problem = resolve(instance)
    solver = _Solver(problem)
    status = solver.run()
    g = _grade_of(solver, status, instance.family, instance.digest)
    if search:
        conflicts, verdict, forced = _search_measures(instance, problem)
        g = replace(
            g,
            sat_conflicts=conflicts,
            sat_verdict=verdict,
            propagation_forced=max(0, forced - solver.givens),
        )
    return g


def _grade_of(solver: _Solver, status: str, family: str, digest: str) -> Grade:
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


# --- validation against Tatham's labelled sets ----------------------------------------------


def validate(directory: str) -> tuple[Any, dict[str, float]]:
    """Grade every game ID of ``directory/<game>/<label>.txt`` (``<game>`` a key of
    :data:`TATHAM_LABELS`, ``<label>`` one of its difficulties); the rows and Spearman's rho
    per game."""
    import pathlib

    import pandas as pd

    from puzzlekit.io.inputs import iter_tatham_items

    rows = []
    for game, labels in TATHAM_LABELS.items():
        for path in sorted((pathlib.Path(directory) / game).glob("*.txt")):
            label = path.stem
            if label not in labels:
                continue
            for item in iter_tatham_items(path.read_text(encoding="utf-8")):
                if item.instance is None:
                    continue
                g = grade(item.instance)
                rows.append(
                    {
                        "game": game,
                        "family": g.family,
                        "label": label,
                        "rank": labels.index(label),
                        "level": g.level,
                        "technique": g.technique,
                        "status": g.status,
                        "satConflicts": g.sat_conflicts,
                        "propagationForced": g.propagation_forced,
                    }
                )
    df = pd.DataFrame(rows)
    rho = {game: spearman(part, "level") for game, part in df.groupby("game")} if rows else {}
    return df, rho


def spearman(df: Any, column: str) -> float:
    """Spearman's rho between Tatham's label rank and ``column`` (pandas, no SciPy needed)."""
    if len(df) < 2:
        return math.nan
    return float(df[["rank", column]].astype(float).corr(method="spearman").iloc[0, 1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m puzzlekit.grading.techniques", description=__doc__
    )
    parser.add_argument("--validate", metavar="DIR", required=True, help="labelled game IDs")
    args = parser.parse_args(argv)
    import pandas as pd

    df, rho = validate(args.validate)
    if df.empty:
        print(f"no labelled game IDs in {args.validate}", file=sys.stderr)
        return 2
    for game, part in df.groupby("game", sort=False):
        order = [lab for lab in TATHAM_LABELS[game] if lab in set(part["label"])]
        family = part["family"].iloc[0]
        print(f"## {game} ({family}): puzzles by Tatham label (rows) and level (columns)")
        print(pd.crosstab(part["label"], part["level"]).reindex(order).to_string())
        print()
        summary = part.groupby("label", sort=False).agg(
            puzzles=("level", "size"),
            mean_level=("level", "mean"),
            median_sat_conflicts=("satConflicts", "median"),
            mean_propagation_forced=("propagationForced", "mean"),
        )
        print(summary.reindex(order).round(2).to_string())
        print()
        rho_c = spearman(part, "satConflicts")
        print(f"spearman(level, label) = {rho[game]:.3f} over {len(part)} puzzles")
        print(f"spearman(sat conflicts, label) = {rho_c:.3f}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())


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
