"""One puzzle's rules compiled once for judging many answers at a time with numpy.

A resolved instance becomes arrays: the domain of every cell as a mask, the givens (clues that
fix one cell outright) as index and value, every ``AllDifferent`` of one length as one index
matrix, every ``Linear`` of one length and operator as index, coefficient and bound matrices.
A batch of answers (a matrix of values and a matrix of filled flags) is then judged by a few
array operations for all answers and rules at once; the other constraint kinds (tables, counts,
automata, opaque predicates) are asked one answer at a time through their own ``holds``.

A constraint is judged only on cells that are filled and in their domain: an all-different unit
is broken by two such cells with one value, any other rule only when all its cells are.

Not for reading answers (:mod:`puzzlekit.answers.reading`) nor for building reports
(:mod:`puzzlekit.answers.check`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from puzzlekit.answers.reading import fixed_value
from puzzlekit.core.model import (
    AllDifferent,
    Compare,
    Constraint,
    Coord,
    Count,
    Instance,
    Linear,
    Problem,
    Regular,
    Table,
    compare,
)

#: a value no cell holds: where a cell does not take part in an all-different check
_SENTINEL = -(1 << 50)


class Broken(NamedTuple):
    """One broken constraint of one answer: its position in the puzzle's order, and its cells
    (for an all-different unit, only the cells that repeat a value). A named tuple: a batch of
    wrong answers makes one per broken unit, and a tuple is made several times faster."""

    position: int
    cells: tuple[int, ...]
    detail: str


class Compiled:
    """The arrays of one resolved instance (see the module docstring)."""

    def __init__(self, problem: Problem) -> None:
        schema = problem.schema
        self.problem = problem
        self.names = schema.names
        self.coords: tuple[Coord, ...] = tuple(v.coord for v in schema.variables)
        self.n = len(self.names)
        index = {name: i for i, name in enumerate(self.names)}
        values = [x for v in schema.variables for x in v.domain] or [0]
        self.lo, self.hi = min(values), max(values)
        self.mask = np.zeros((self.n, self.hi - self.lo + 1), dtype=bool)
        for i, v in enumerate(schema.variables):
            self.mask[i, [x - self.lo for x in v.domain]] = True
        self.uniform = bool(self.mask.all())
        self.correct: Any = None  # the CORRECT report, made once (answers.check)
        #: what judging a batch has made already, by what decides it (a unit's repeated cells
        #: and values -> its Broken; a Broken, or a given and the value over it -> the
        #: violation): wrong answers repeat most of it, and it is immutable, so shared
        self.made: dict[Any, Any] = {}
        self.arange = np.arange(self.n)
        givens: dict[int, tuple[int, str]] = {}
        constraints: list[tuple[Constraint, str]] = [(r, "rule") for r in schema.rules]
        for clue_id, cs in problem.clue_constraints:
            fv = fixed_value(cs[0]) if len(cs) == 1 else None
            if fv is not None and fv[0] in index and index[fv[0]] not in givens:
                givens[index[fv[0]]] = (fv[1], clue_id)
            else:
                constraints.extend((c, "clue") for c in cs)
        self.given_idx = np.array(sorted(givens), dtype=np.int64)
        self.given_val = np.array([givens[i][0] for i in sorted(givens)], dtype=np.int64)
        self.given_clue = [givens[i][1] for i in sorted(givens)]
        self.constraints = [c for c, _ in constraints]
        self.kinds = [k for _, k in constraints]
        self.origin_ids = [c.origin.id for c in self.constraints]
        self.scopes = [tuple(index[v] for v in c.vars) for c in self.constraints]
        self._group(index)
        self._plain()

    def _group(self, index: dict[str, int]) -> None:
        alldiff: dict[int, list[int]] = {}
        linear: dict[tuple[int, str], list[int]] = {}
        self.others: list[int] = []
        self._ad: list[int] = []
        self._lin: list[int] = []
        for pos, c in enumerate(self.constraints):
            if isinstance(c, AllDifferent) and len(c.vars) > 1:
                alldiff.setdefault(len(c.vars), []).append(pos)
                self._ad.append(pos)
            elif isinstance(c, Linear):
                linear.setdefault((len(c.vars), c.op), []).append(pos)
                self._lin.append(pos)
            else:
                self.others.append(pos)
        self.alldiff = [
            (np.array(ps), np.array([self.scopes[p] for p in ps], dtype=np.int64))
            for _, ps in sorted(alldiff.items())
        ]
        self.linear = []
        for (_, op), ps in sorted(linear.items()):
            cs = [self.constraints[p] for p in ps]
            self.linear.append(
                (
                    np.array(ps),
                    op,
                    np.array([self.scopes[p] for p in ps], dtype=np.int64),
                    np.array([c.coeffs for c in cs], dtype=np.int64),  # type: ignore[union-attr]
                    np.array([c.rhs for c in cs], dtype=np.int64),  # type: ignore[union-attr]
                )
            )

    def _plain(self) -> None:
        """What :meth:`right` needs: every unit as an ``itemgetter``, the givens as pairs."""
        self.plain = self.uniform and not self.others and self.hi < 254 and self.lo >= 0
        self.getters = [(itemgetter(*self.scopes[p]), len(self.scopes[p])) for p in self._ad]
        self.pairs = list(zip(self.given_idx.tolist(), self.given_val.tolist(), strict=True))
        self.sums = [(itemgetter(*self.scopes[p]), self.constraints[p]) for p in self._lin]

    def right(self, cells: list[int]) -> bool | None:
        """Whether one answer with every cell filled in range is right, in plain Python (for one
        answer faster than arrays); None when this puzzle needs :meth:`judge`."""
        if not self.plain:
            return None
        for i, v in self.pairs:
            if cells[i] != v:
                return False
        for get, k in self.getters:
            if len(set(get(cells))) != k:
                return False
        for get, c in self.sums:
            vals = get(cells)
            vals = vals if isinstance(vals, tuple) else (vals,)
            total = sum(a * x for a, x in zip(c.coeffs, vals, strict=True))  # type: ignore[union-attr]
            if not compare(total, c.op, c.rhs):  # type: ignore[union-attr]
                return False
        return True

    # -- judging ------------------------------------------------------------------------------
    def judge(
        self, vals: np.ndarray, filled: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, dict[int, list[Broken]]]:
        """For a batch (B, n): the cells in their domain, the givens overwritten (B, givens),
        and the broken constraints of each answer that has some (row -> in the puzzle's
        order)."""
        dom_ok = filled & (vals >= self.lo) & (vals <= self.hi)
        if not self.uniform:
            dom_ok &= self.mask[self.arange, np.clip(vals - self.lo, 0, self.mask.shape[1] - 1)]
        every = bool(dom_ok.all())
        if len(self.given_idx):
            overwritten = vals[:, self.given_idx] != self.given_val
            if not every:
                overwritten &= filled[:, self.given_idx]
        else:
            overwritten = np.zeros((vals.shape[0], 0), dtype=bool)
        broken: dict[int, list[Broken]] = {}
        bits = self._bits(vals, dom_ok, every) if self.alldiff else None
        for positions, idx in self.alldiff:
            dup = self._duplicates(vals, dom_ok, every, idx, bits)
            if dup.any():
                keyed = vals[:, idx]
                if not every:
                    keyed = np.where(dom_ok[:, idx], keyed, _SENTINEL + np.arange(idx.shape[1]))
                self._repeats(positions, idx, keyed, dup, broken)
        for positions, op, idx, coef, rhs in self.linear:
            total = (vals[:, idx] * coef).sum(-1)
            bad = ~_compare(total, op, rhs)
            if not every:
                bad &= dom_ok[:, idx].all(-1)
            if bad.any():
                for row, g in zip(*np.nonzero(bad), strict=True):
                    pos = int(positions[g])
                    detail = self._sum_detail(pos, int(total[row, g]))
                    broken.setdefault(int(row), []).append(Broken(pos, self.scopes[pos], detail))
        if self.others:
            self._others(vals, dom_ok, broken)
        for found in broken.values():
            found.sort(key=lambda x: x.position)
        return dom_ok, overwritten, broken

    def _bits(self, vals: np.ndarray, dom_ok: np.ndarray, every: bool) -> np.ndarray | None:
        """One bit per value (``1 << value``, 0 where a cell is not filled in its domain) when
        every value fits in 62 bits, for :meth:`_duplicates`; None otherwise."""
        if self.lo < 0 or self.hi > 61:
            return None
        bits = np.left_shift(1, np.clip(vals, 0, 61))
        return bits if every else np.where(dom_ok, bits, 0)

    def _duplicates(
        self,
        vals: np.ndarray,
        dom_ok: np.ndarray,
        every: bool,
        idx: np.ndarray,
        bits: np.ndarray | None,
    ) -> np.ndarray:
        """(B, units): whether two cells of a unit (filled, in their domain) share a value. By
        bits: a unit's sum of its cells' bits exceeds their union exactly when two share one
        (no sort); else by sorting the unit's values."""
        if bits is not None:
            picked = bits[:, idx]
            return picked.sum(-1) != np.bitwise_or.reduce(picked, axis=-1)
        keyed = vals[:, idx]
        if not every:
            keyed = np.where(dom_ok[:, idx], keyed, _SENTINEL + np.arange(idx.shape[1]))
        ordered = np.sort(keyed, axis=-1)
        return (ordered[..., 1:] == ordered[..., :-1]).any(-1)

    def _others(
        self, vals: np.ndarray, dom_ok: np.ndarray, broken: dict[int, list[Broken]]
    ) -> None:
        for row in range(vals.shape[0]):
            ok = dom_ok[row]
            assignment = None
            for pos in self.others:
                scope = self.scopes[pos]
                if not all(ok[i] for i in scope):
                    continue
                if assignment is None:
                    assignment = {
                        name: int(x) for name, x in zip(self.names, vals[row], strict=True)
                    }
                if not self.constraints[pos].holds(assignment):
                    detail = _detail(self.constraints[pos], assignment)
                    broken.setdefault(row, []).append(Broken(pos, scope, detail))

    def _repeats(
        self,
        positions: np.ndarray,
        idx: np.ndarray,
        keyed: np.ndarray,
        dup: np.ndarray,
        broken: dict[int, list[Broken]],
    ) -> None:
        """The all-different units of one length broken in a batch (``dup``: answer x unit):
        for each, the cells (in their domain) that repeat a value, found for all at once."""
        rows, gs = np.nonzero(dup)
        sub = keyed[rows, gs]  # (M, L): the broken units' values
        repeats = (sub[:, :, None] == sub[:, None, :]).sum(-1) > 1
        counts = repeats.sum(1).tolist()
        far = np.iinfo(np.int64).max
        cells = np.sort(np.where(repeats, idx[gs], far), axis=1).tolist()
        twice = np.sort(np.where(repeats, sub, far), axis=1).tolist()
        where = positions[gs].tolist()
        origin = self.origin_ids
        made = self.remember()
        for row, pos, k, cs, vs in zip(rows.tolist(), where, counts, cells, twice, strict=True):
            key = (pos, *cs[:k], *vs[:k])
            found = made.get(key)
            if found is None:
                values = ", ".join(map(str, sorted(set(vs[:k]))))
                detail = f"{origin[pos]}: {values} more than once (all different)"
                found = made[key] = Broken(pos, tuple(cs[:k]), detail)
            broken.setdefault(row, []).append(found)

    def remember(self) -> dict[Any, Any]:
        """:attr:`made`, emptied when it grows past :data:`MADE_CAP` entries (a bound on memory:
        up to MAX_COMPILED puzzles keep theirs)."""
        if len(self.made) > MADE_CAP:
            self.made.clear()
        return self.made

    def _sum_detail(self, pos: int, total: int) -> str:
        c = self.constraints[pos]
        assert isinstance(c, Linear)
        what = "sum" if all(x == 1 for x in c.coeffs) else "weighted sum"
        return f"{c.origin.id}: the {what} is {total}, the rule needs {c.op} {c.rhs}"


#: entries a puzzle's :attr:`Compiled.made` holds at most (some 0.5 KB each)
MADE_CAP = 10_000


def _detail(c: Constraint, assignment: dict[str, int]) -> str:
    """What a broken table, count, automaton or predicate says, in words."""
    if isinstance(c, Count):
        have = sum(1 for v in c.vars if assignment[v] == c.value)
        return f"{c.origin.id}: {have} cells hold {c.value}, the rule needs {c.op} {c.k}"
    if isinstance(c, Regular):
        return f"{c.origin.id}: the line does not read as its clue"
    if isinstance(c, Compare):
        a, b = assignment[c.a], assignment[c.b]
        return f"{c.origin.id}: {a} {c.op} {b} is false"
    if isinstance(c, Table):
        return f"{c.origin.id}: these values are not among the allowed ones"
    return f"{c.origin.id}: the rule does not hold"


def _compare(total: np.ndarray, op: str, rhs: np.ndarray) -> np.ndarray:
    if op == "==":
        return total == rhs
    if op == "!=":
        return total != rhs
    if op == "<":
        return total < rhs
    if op == "<=":
        return total <= rhs
    if op == ">":
        return total > rhs
    return total >= rhs


#: compiled puzzles kept, by instance digest (judging many answers to one puzzle compiles once)
MAX_COMPILED = 256
_CACHE: OrderedDict[str, Compiled] = OrderedDict()


def compiled(instance: Instance) -> Compiled:
    """The compiled rules of ``instance`` (resolved once per digest, kept for the process);
    raises :class:`~puzzlekit.core.model.SpecError` for a puzzle that does not resolve."""
    from puzzlekit.families import resolve

    key = instance.digest
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    made = Compiled(resolve(instance))
    _CACHE[key] = made
    while len(_CACHE) > MAX_COMPILED:
        _CACHE.popitem(last=False)
    return made


#: the largest magnitude a value keeps when read into arrays (larger ones are out of every domain)
BIG = 1 << 40


def as_arrays(rows: Sequence[Sequence[int | None]], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Values and filled flags (B, n) of answers read as one value or None per cell; a value
    beyond ``BIG`` becomes ``BIG`` (out of every domain, and no int64 overflow)."""
    vals = np.zeros((len(rows), n), dtype=np.int64)
    filled = np.zeros((len(rows), n), dtype=bool)
    for r, cells in enumerate(rows):
        if len(cells) != n:
            raise ValueError(f"{len(cells)} cells read for {n}")
        for i, x in enumerate(cells):
            if x is not None:
                vals[r, i] = x if -BIG < x < BIG else BIG
                filled[r, i] = True
    return vals, filled
