"""Takuzu lines as bit patterns, the rule table, and the line-propagation search.

A line (row or column) of ``n`` cells is an ``n``-bit integer whose most significant bit is the
first cell, so that sorting patterns as integers sorts them lexicographically (0 before 1).
:func:`rule_specs` is the one table of the rules of an ``n``×``n`` grid: the family turns it
into constraints (``puzzlekit_takuzu.family``) and the verifier into the line patterns and
distinct pairs that :func:`solve` searches (``puzzlekit_takuzu.verifier``), so both always
speak of the same rules under the same ids.

:func:`solve` propagates every line to a fixpoint (a cell that every candidate pattern of its
line agrees on is fixed; a line with no candidate is a contradiction; a complete line excludes
its pattern from the lines it must differ from), then branches. By default it branches on the
first incomplete row, over that row's candidate patterns in increasing order, so solutions come
in lexicographic order of the cells in schema order (row by row); for satisfiability checks over
a subset of the rules it branches on the line with the fewest candidates instead.

Not for: reading instances or building reports (``puzzlekit_takuzu.verifier``); drawing random
grids (``puzzlekit_takuzu.family``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ROW, COL = "row", "col"
LINE, DISTINCT = "line", "distinct"


def cell_name(r: int, c: int) -> str:
    """Players' name of the 0-based cell (r, c): ``r1c1`` is the top-left cell."""
    return f"r{r + 1}c{c + 1}"


def line_cells(axis: str, index: int, n: int) -> list[tuple[int, int]]:
    """The cells of row or column ``index``, in order."""
    if axis == ROW:
        return [(index, c) for c in range(n)]
    return [(r, index) for r in range(n)]


@dataclass(frozen=True)
class RuleSpec:
    """One rule of the grid: its id, kind, axis and line, and for a ``distinct`` rule the other
    line (``other``)."""

    id: str
    kind: str
    axis: str
    line: int
    other: int = -1


@functools.lru_cache(maxsize=32)
def rule_specs(n: int) -> tuple[RuleSpec, ...]:
    """Every rule of the ``n``×``n`` grid, in schema order: each row then each column is a
    valid line (``row3``: balanced, no three equal cells in a run), then every pair of rows and
    every pair of columns differ (``distinct-row1-row2``)."""
    out = [RuleSpec(f"{axis}{i + 1}", LINE, axis, i) for axis in (ROW, COL) for i in range(n)]
    for axis in (ROW, COL):
        for i in range(n):
            for j in range(i + 1, n):
                out.append(RuleSpec(f"distinct-{axis}{i + 1}-{axis}{j + 1}", DISTINCT, axis, i, j))
    return tuple(out)


@functools.lru_cache(maxsize=32)
def line_patterns(n: int) -> tuple[int, ...]:
    """The ``n``-bit patterns of a valid line (``n/2`` ones, no three equal cells in a run),
    ascending."""
    half = n // 2
    out: list[int] = []

    def grow(pos: int, word: int, ones: int) -> None:
        if pos == n:
            out.append(word)
            return
        for bit in (0, 1):
            o = ones + bit
            if o > half or (pos + 1 - o) > half:
                continue
            w = (word << 1) | bit
            if pos >= 2 and (w & 0b111) in (0b000, 0b111):
                continue
            grow(pos + 1, w, o)

    grow(0, 0, 0)
    return tuple(out)


def line_automaton(n: int) -> tuple[int, frozenset[int], tuple[tuple[int, int, int], ...]]:
    """A deterministic automaton over 0/1 that accepts exactly the valid lines of length ``n``:
    (start, accepting states, transitions ``(state, symbol, next)``). A state counts the ones
    and zeros read and the length (1 or 2) of the current run and its value."""
    half = n // 2
    ids: dict[tuple[int, int, int, int], int] = {(0, 0, -1, 0): 0}
    todo = [(0, 0, -1, 0)]
    transitions = []
    while todo:
        state = todo.pop(0)
        ones, zeros, last, run = state
        for v in (0, 1):
            nxt = (ones + v, zeros + 1 - v, v, run + 1 if v == last else 1)
            if nxt[0] > half or nxt[1] > half or nxt[3] > 2:
                continue
            if nxt not in ids:
                ids[nxt] = len(ids)
                todo.append(nxt)
            transitions.append((ids[state], v, ids[nxt]))
    accepting = frozenset(i for (o, z, _, _), i in ids.items() if o == half and z == half)
    return 0, accepting, tuple(sorted(transitions))


@dataclass(frozen=True)
class Board:
    """What :func:`solve` searches: per line its candidate patterns (None: the line's rule is
    off, any pattern will do), and the pairs of lines that must differ (``partners[axis][i]``:
    the lines line ``i`` must differ from)."""

    n: int
    patterns: Mapping[str, tuple[tuple[int, ...] | None, ...]]
    partners: Mapping[str, tuple[tuple[int, ...], ...]]


def board(n: int, active: Iterable[RuleSpec] | None = None) -> Board:
    """The board of the rules in ``active`` (default: every rule of :func:`rule_specs`); a line
    whose ``line`` rule is not active may take any pattern."""
    specs = rule_specs(n) if active is None else tuple(active)
    valid = {ROW: [False] * n, COL: [False] * n}
    pairs: dict[str, list[set[int]]] = {
        ROW: [set() for _ in range(n)],
        COL: [set() for _ in range(n)],
    }
    for s in specs:
        if s.kind == LINE:
            valid[s.axis][s.line] = True
        elif s.kind == DISTINCT:
            pairs[s.axis][s.line].add(s.other)
            pairs[s.axis][s.other].add(s.line)
    patterns = {
        axis: tuple(line_patterns(n) if valid[axis][i] else None for i in range(n))
        for axis in (ROW, COL)
    }
    partners = {axis: tuple(tuple(sorted(p)) for p in pairs[axis]) for axis in (ROW, COL)}
    return Board(n, patterns, partners)


class _State:
    """Known cells per line: ``mask`` bits set where the cell is known, ``bits`` its value."""

    __slots__ = ("mask", "bits")

    def __init__(self, mask: dict[str, list[int]], bits: dict[str, list[int]]) -> None:
        self.mask = mask
        self.bits = bits

    def copy(self) -> _State:
        return _State(
            {ROW: self.mask[ROW][:], COL: self.mask[COL][:]},
            {ROW: self.bits[ROW][:], COL: self.bits[COL][:]},
        )

    def set(self, n: int, r: int, c: int, v: int) -> None:
        rb, cb = 1 << (n - 1 - c), 1 << (n - 1 - r)
        self.mask[ROW][r] |= rb
        self.mask[COL][c] |= cb
        if v:
            self.bits[ROW][r] |= rb
            self.bits[COL][c] |= cb


def _cross(axis: str) -> str:
    return COL if axis == ROW else ROW


#: a line without its rule lists its completions only when there are at most 2**this many
#: (else it tells nothing until more of it is known)
FREE_LINE_UNKNOWN = 10


def _candidates(b: Board, st: _State, axis: str, i: int) -> list[int] | None:
    """The patterns line ``i`` may still take; None when its rule is off and it has too many
    unknown cells to list them (it rules nothing out yet)."""
    n = b.n
    full = (1 << n) - 1
    mask, bits = st.mask[axis][i], st.bits[axis][i]
    taken = {st.bits[axis][j] for j in b.partners[axis][i] if st.mask[axis][j] == full}
    patterns = b.patterns[axis][i]
    if patterns is not None:
        return [p for p in patterns if p & mask == bits and p not in taken]
    unknown = ~mask & full
    if unknown.bit_count() > FREE_LINE_UNKNOWN:
        return None
    out = []
    sub = unknown
    while True:  # every subset of the unknown cells set to 1, in decreasing order
        if bits | sub not in taken:
            out.append(bits | sub)
        if not sub:
            break
        sub = (sub - 1) & unknown
    out.reverse()
    return out


def _propagate(b: Board, st: _State, queue: list[tuple[str, int]]) -> bool:
    """Fix every cell its line's candidates agree on, to a fixpoint; False on a contradiction."""
    n = b.n
    full = (1 << n) - 1
    queued = set(queue)
    while queue:
        axis, i = queue.pop()
        queued.discard((axis, i))
        cands = _candidates(b, st, axis, i)
        if cands is None:
            continue
        if not cands:
            return False
        mask = st.mask[axis][i]
        if mask == full:
            continue
        ones, zeros = full, full
        for p in cands:
            ones &= p
            zeros &= ~p
        new = (ones | zeros) & ~mask
        if not new:
            continue
        other = _cross(axis)
        for k in range(n):
            bit = 1 << (n - 1 - k)
            if new & bit:
                r, c = (i, k) if axis == ROW else (k, i)
                st.set(n, r, c, 1 if ones & bit else 0)
                if (other, k) not in queued:
                    queue.append((other, k))
                    queued.add((other, k))
                    if st.mask[other][k] == full:
                        _queue_partners(b, other, k, queue, queued)
        if st.mask[axis][i] == full:
            _queue_partners(b, axis, i, queue, queued)
    return True


def _queue_partners(b: Board, axis: str, i: int, queue: list, queued: set) -> None:
    for j in b.partners[axis][i]:
        if (axis, j) not in queued:
            queue.append((axis, j))
            queued.add((axis, j))


def solve(
    b: Board,
    givens: Mapping[tuple[int, int], int],
    cap: int,
    tick: Callable[[], object],
    *,
    lex: bool = True,
    rng: Any = None,
    found: list[dict[str, int]] | None = None,
) -> list[dict[str, int]]:
    """Up to ``cap`` solutions (cell name to value, schema order).

    ``lex``: branch on the first incomplete row, so the solutions come in lexicographic order
    and the ones reported at the cap are the first ones. ``lex=False`` branches on the line
    (row or column) with the fewest candidates instead: faster to refute, for satisfiability
    checks (``cap=1``) over a subset of the rules, where a line with no rule left has every
    pattern as a candidate.

    ``tick()`` is called once per search node and may raise to stop the search (a verifier's
    budget meter); the solutions found until then are in ``found`` (a list the caller passes).

    ``rng`` (a numpy Generator): visit each branch's candidates in a random order instead
    (a seeded random grid is ``solve(board(n), {}, 1, tick, lex=False, rng=rng)``).
    """
    n = b.n
    st = _State({ROW: [0] * n, COL: [0] * n}, {ROW: [0] * n, COL: [0] * n})
    for (r, c), v in sorted(givens.items()):
        st.set(n, r, c, v)
    found = [] if found is None else found
    queue = [(axis, i) for axis in (ROW, COL) for i in range(n)]
    _search(b, st, queue, cap, tick, found, lex, rng)
    return found


def _branch(b: Board, st: _State, lex: bool) -> tuple[str, int, list[int], int] | None:
    """What to branch on: a line, its candidate patterns and the cells they set (a mask);
    None when every cell is known.

    ``lex``: the first incomplete row. Otherwise the line with the fewest candidates. A line
    that cannot list its candidates (its rule off, many cells unknown) is branched on one cell
    at a time: its first unknown cell, 0 then 1 (the first incomplete row's, when no line can).
    """
    n = b.n
    full = (1 << n) - 1
    best = None
    if lex:
        row = next((r for r in range(n) if st.mask[ROW][r] != full), None)
        if row is None:
            return None
        cands = _candidates(b, st, ROW, row)
        best = None if cands is None else (ROW, row, cands, ~st.mask[ROW][row] & full)
    else:
        for axis in (ROW, COL):
            for i in range(n):
                if st.mask[axis][i] != full:
                    cands = _candidates(b, st, axis, i)
                    if cands is not None and (best is None or len(cands) < len(best[2])):
                        best = (axis, i, cands, ~st.mask[axis][i] & full)
    if best is not None:
        return best
    row = next((r for r in range(n) if st.mask[ROW][r] != full), None)
    if row is None:
        return None
    unknown = ~st.mask[ROW][row] & full
    cell = 1 << (unknown.bit_length() - 1)  # the leftmost unknown cell
    bits = st.bits[ROW][row]
    return (ROW, row, [bits, bits | cell], cell)


def _search(
    b: Board,
    st: _State,
    queue: list[tuple[str, int]],
    cap: int,
    tick: Callable[[], object],
    found: list[dict[str, int]],
    lex: bool,
    rng: Any,
) -> None:
    tick()
    if not _propagate(b, st, queue):
        return
    n = b.n
    branch = _branch(b, st, lex)
    if branch is None:
        found.append(_as_solution(st, n))
        return
    axis, line, cands, setting = branch
    if rng is not None:
        cands = [cands[int(i)] for i in rng.permutation(len(cands))]
    other = _cross(axis)
    for p in cands:
        if len(found) >= cap:
            return
        child = st.copy()
        for k in range(n):
            bit = 1 << (n - 1 - k)
            if setting & bit:
                r, c = (line, k) if axis == ROW else (k, line)
                child.set(n, r, c, 1 if p & bit else 0)
        nxt = [(axis, line), *[(other, k) for k in range(n) if setting & (1 << (n - 1 - k))]]
        nxt += [(axis, j) for j in b.partners[axis][line]]
        _search(b, child, nxt, cap, tick, found, lex, rng)


def _as_solution(st: _State, n: int) -> dict[str, int]:
    return {
        cell_name(r, c): (st.bits[ROW][r] >> (n - 1 - c)) & 1 for r in range(n) for c in range(n)
    }
