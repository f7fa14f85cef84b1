"""The named techniques of the grader, as steps over pencil marks: singles, clue filtering and
pointing, intersections, naked and hidden subsets, fish; and the sound supports of one constraint
that clue filtering and clue pointing use.

:class:`_PencilTechniques` is a mixin: the pencil-mark state it works on (candidates, houses,
peers, the step record) is :class:`puzzlekit.grading.techniques.PencilSolver`, which also runs the
techniques tier by tier. Private to :mod:`puzzlekit.grading`; not for grading (that is
:func:`puzzlekit.grading.techniques.grade`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

from puzzlekit.core.model import (
    Compare,
    Constraint,
    Coord,
    Linear,
    Regular,
    Table,
    compare,
)

#: largest product of domain sizes a clue's constraint is filtered on by enumeration
ENUM_LIMIT = 4096


class _Stuck(Exception):
    pass


class _Contradiction(Exception):
    pass


class _PencilTechniques:
    """The techniques of the scale, each a method that makes at most one step and says whether it
    made one; mixed into :class:`~puzzlekit.grading.techniques.PencilSolver`."""

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
