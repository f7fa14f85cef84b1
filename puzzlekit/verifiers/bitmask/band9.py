"""A band-oriented compiled search for the standard 9×9 Sudoku (rows, columns and 3×3 boxes over
variables numbered row by row): counts solutions to a cap, faster than
:mod:`~puzzlekit.verifiers.bitmask.kernel9` on the same domains, in another tree.

A node is 31 words: for each value and band (three rows) the 27-bit set of the band's cells that
may still take the value, per band the cells already fixed, and the values to look at. One
value's three words at a time: which of a band's nine triads (a row's three cells in one box)
are not empty is a 9-bit pattern; a value lies once in each row and once in each box of the
band, so only the triads of some permutation (row to box) contained in the pattern can hold it
(one table read: pointing and claiming within the band, and row and box hidden singles); a box
whose value lies in one column takes it out of that column in the other bands; a column whose
value lies in one band keeps it out of the rest of that box (column hidden singles follow). A
row left with one cell fixes it; fixing a cell takes its value out of its row, box and column
and its other values out of the cell. Cells left with one value are found by bit-sliced
counting over the nine values of a band. The search guesses on the two-valued cell with most
unfixed peers (else a three-valued one, else any), the values in ascending order; a child
copies its parent's words and fixes one cell. Givens are fixed on loading; the tables are
narrow integers, small in the cache. The helpers are inlined into the searches (a call that
passes the node pays for its reference counts); a fixed cell leaves the other values' words
without a branch per value (which values held it is unpredictable); a value's fixpoint loop
stops on a round where the columns took nothing out (the triad shrink is idempotent, so
another round would change nothing). None of these changes a node's fixpoint, so the tree,
its node counts and the order solutions are found in stay the same (docs/bench_verify.md).

The tree is not :func:`~puzzlekit.verifiers.bitmask.kernel.search`'s (stronger propagation,
another choice of variable), so the solutions come in another order and node counts differ; a
search that stops below its cap has found every solution, the same set. Where the cap is reached
and the first solutions in the general search's order are wanted,
:class:`~puzzlekit.verifiers.bitmask.search.Search` searches again with
:func:`~puzzlekit.verifiers.bitmask.kernel9.search9` (see ``Search.ordered``).

Not for: jigsaw Sudoku, Latin squares or any other units (:func:`is_band9` says whether a
structure fits), value ranks (the sampler keeps the general kernel).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
from numba import njit
from numba.core import types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from puzzlekit.verifiers.bitmask.kernel import DONE, PAUSED

#: the cells of a band
FULL = (1 << 27) - 1
#: every value (a bit each)
ALL = (1 << 9) - 1
#: a node's words: 27 value-band words, 3 fixed-cell words, the values to look at (a bit each)
WIDTH = 31
_COL = 1 | 1 << 9 | 1 << 18


def _tables() -> tuple[np.ndarray, ...]:
    """``(triads, shrink, single, own, col)``: a row's 9 bits to its 3 non-empty triads; a
    triad pattern to the cells of the triads some permutation inside it uses (0: none); a
    row's 9 bits to themselves when only one is set (else 0); per cell of a band, the cells its
    value keeps in the band (itself, not its row or box) and in the other bands (not its
    column); a set of columns whose value lies in this band alone to the cells of their boxes
    outside them (the value leaves those)."""
    triads = np.array(
        [sum(1 << t for t in range(3) if (x >> 3 * t) & 7) for x in range(512)], np.int64
    )
    shrink = np.zeros(512, np.int64)
    for p in range(512):
        keep = 0
        for perm in permutations(range(3)):
            used = [3 * r + perm[r] for r in range(3)]
            if all((p >> t) & 1 for t in used):
                keep |= sum(1 << t for t in used)
        shrink[p] = sum(7 << (9 * (t // 3) + 3 * (t % 3)) for t in range(9) if (keep >> t) & 1)
    single = np.array([x if x and not x & (x - 1) else 0 for x in range(512)], np.int64)
    own, col = np.zeros(27, np.int64), np.zeros(27, np.int64)
    for q in range(27):
        r, c = divmod(q, 9)
        peers = (511 << 9 * r) | ((7 * _COL) << 3 * (c // 3))
        own[q] = (FULL & ~peers) | (1 << q)
        col[q] = FULL & ~(_COL << c)
    box_rest = [((7 * _COL) << 3 * (c // 3)) & ~(_COL << c) for c in range(9)]
    claim = np.array([_or(box_rest[c] for c in range(9) if (u >> c) & 1) for u in range(512)])
    alone = [
        _or(7 << 3 * j for j in range(3) if ((f >> 3 * j) & 7) in (1, 2, 4)) for f in range(512)
    ]
    point = np.array([alone[f] & f for f in range(512)], np.int64)
    # narrow types: the tables stay small in the cache between two searches
    return (
        triads.astype(np.int8),
        shrink.astype(np.int32),
        single.astype(np.int16),
        own,
        col,
        claim.astype(np.int32),
        point.astype(np.int16),
    )


def _or(masks: object) -> int:
    out = 0
    for m in masks:  # type: ignore[attr-defined]
        out |= m
    return out


_TRIADS, _SHRINK, _SINGLE, _OWN, _OTHER, _CLAIM, _POINT = _tables()


def is_band9(units: np.ndarray) -> bool:
    """Whether the units of :func:`~puzzlekit.verifiers.bitmask.kernel9.grid9_arrays` (rows of
    three 27-bit words) are exactly the rows, columns and 3×3 boxes of variables numbered row
    by row."""
    want = set()
    for i in range(9):
        r0, c0 = 3 * (i // 3), 3 * (i % 3)
        for cells in (
            [9 * i + c for c in range(9)],
            [9 * r + i for r in range(9)],
            [9 * (r0 + a) + c0 + b for a in range(3) for b in range(3)],
        ):
            words = [0, 0, 0]
            for v in cells:
                words[v // 27] |= 1 << (v % 27)
            want.add(tuple(words))
    got = {tuple(int(w) for w in row) for row in units}
    return units.shape[0] == 27 and got == want


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """The number of set bits of an int64 (the processor's instruction)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, inline="always")
def popcount(x):  # pragma: no cover - compiled
    return _ctpop(np.int64(x))


@njit(cache=True, inline="always")
def _low(x):  # pragma: no cover - compiled
    return np.int64(trailing_zeros(x))


@njit(cache=True)
def load_band9(dom, node) -> None:  # pragma: no cover - compiled
    """Domains (a value mask per variable) as a root node: nothing fixed, every word to look
    at."""
    node[:27] = FULL
    node[27:] = 0
    for v in range(81):  # a cell that may take every value leaves its bit in every word
        m = dom[v] & ALL
        if m != ALL:
            b = v // 27
            out = ~(np.int64(1) << (v % 27))
            for k in range(9):
                if not (m >> k) & 1:
                    node[3 * k + b] &= out
    for v in range(81):  # the givens fixed first: the first look at each value uses them
        m = dom[v]
        if m and not m & (m - 1):
            k = _low(m)
            b, q = v // 27, v % 27
            if (node[3 * k + b] >> q) & 1:
                _fix_single(node, k, b, q)
    node[30] = ALL


@njit(cache=True, inline="always")
def _fix(s, d, b, q) -> np.int64:  # pragma: no cover - compiled
    """Cell ``q`` of band ``b`` takes value ``d``: the value leaves its row, box and column,
    its other values leave it. Returns the values (bit per value) whose words lost a cell."""
    bit = np.int64(1) << q
    changed = _fix_single(s, d, b, q)
    had = np.int64(0)
    out = ~bit
    for k in range(9):  # without branches: whether another value holds the cell is a coin toss
        j = 3 * k + b
        x = s[j]
        had |= ((x >> q) & 1) << k
        s[j] = x & out
    s[3 * d + b] |= bit
    return changed | (had & ~(np.int64(1) << d))


@njit(cache=True, inline="always")
def _fix_single(s, d, b, q) -> np.int64:  # pragma: no cover - compiled
    """:func:`_fix` for a cell whose one value is ``d`` (no other value to take out)."""
    i = 3 * d
    own = _OWN[q]
    other = _OTHER[q]
    x0, x1, x2 = s[i], s[i + 1], s[i + 2]
    y0 = x0 & (own if b == 0 else other)
    y1 = x1 & (own if b == 1 else other)
    y2 = x2 & (own if b == 2 else other)
    s[i], s[i + 1], s[i + 2] = y0, y1, y2
    s[27 + b] |= np.int64(1) << q
    if y0 != x0 or y1 != x1 or y2 != x2:
        return np.int64(1) << d
    return np.int64(0)


@njit(cache=True, inline="always")
def _shrunk(x):  # pragma: no cover - compiled
    """The cells of a value-band word in the triads of some permutation (0: none)."""
    return x & _SHRINK[_TRIADS[x & 511] | (_TRIADS[(x >> 9) & 511] << 3) | (_TRIADS[x >> 18] << 6)]


@njit(cache=True, inline="always")
def _fold(x):  # pragma: no cover - compiled
    """The columns of a value-band word."""
    return (x | (x >> 9) | (x >> 18)) & 511


@njit(cache=True, inline="always")
def _rows1(x):  # pragma: no cover - compiled
    """The cells of a value-band word alone in their row."""
    return _SINGLE[x & 511] | (_SINGLE[(x >> 9) & 511] << 9) | (_SINGLE[x >> 18] << 18)


@njit(cache=True, inline="always")
def _value(s, d) -> np.int64:  # pragma: no cover - compiled
    """Value ``d``'s three words to their fixpoint (triads of a permutation in each band; a
    box's value in one column leaves that column in the other bands; a column's value in one
    band leaves the rest of its box), then the cells alone in their row fixed: -1 on a
    contradiction, else the values whose words lost cells."""
    i = 3 * d
    x0, x1, x2 = s[i], s[i + 1], s[i + 2]
    while True:
        y0, y1, y2 = _shrunk(x0), _shrunk(x1), _shrunk(x2)
        if y0 == 0 or y1 == 0 or y2 == 0:
            return -1
        f0, f1, f2 = _fold(y0), _fold(y1), _fold(y2)
        if (f0 | f1 | f2) != 511:
            return -1
        p0, p1, p2 = _POINT[f0], _POINT[f1], _POINT[f2]
        x0 = y0 & ~(((p1 | p2) * _COL) | _CLAIM[f0 & ~(f1 | f2)])
        x1 = y1 & ~(((p0 | p2) * _COL) | _CLAIM[f1 & ~(f0 | f2)])
        x2 = y2 & ~(((p0 | p1) * _COL) | _CLAIM[f2 & ~(f0 | f1)])
        # the triads' shrink is idempotent: where the columns took nothing out, another
        # round would give the same words (same columns, same shrink)
        if x0 == y0 and x1 == y1 and x2 == y2:
            break
    s[i], s[i + 1], s[i + 2] = x0, x1, x2
    changed = np.int64(0)
    for b in range(3):
        sing = _rows1(s[i + b]) & ~s[27 + b]
        while sing:
            q = _low(sing)
            sing &= sing - 1
            if not (s[i + b] >> q) & 1:
                return -1
            changed |= _fix(s, d, b, q)
    return changed


@njit(cache=True)
def propagate_band9(s, changed) -> bool:  # pragma: no cover - compiled
    """The node ``s`` to its fixpoint (``changed``: the values, a bit each, to look at); False
    on a contradiction (a cell without values, a value without a place in a row, column or
    box)."""
    while True:
        while changed:
            d = _low(changed)
            changed &= changed - 1
            more = _value(s, d)
            if more < 0:
                return False
            changed |= more
        for b in range(3):
            once = np.int64(0)
            more = np.int64(0)
            for k in range(9):
                x = s[3 * k + b]
                more |= once & x
                once |= x
            if once != FULL:
                return False
            sing = once & ~more & ~s[27 + b]
            while sing:
                q = _low(sing)
                sing &= sing - 1
                bit = np.int64(1) << q
                d = -1
                for k in range(9):
                    if s[3 * k + b] & bit:
                        d = k
                        break
                if d < 0:
                    return False
                changed |= _fix_single(s, d, b, q)
        if changed == 0:
            return True


@njit(cache=True)
def _choose(s) -> np.int64:  # pragma: no cover - compiled
    """The cell to guess on: the two-valued one with most unfixed peers (the first such),
    else the first three-valued one, else the first not fixed."""
    three = np.int64(-1)
    best = np.int64(-1)
    score = np.int64(-1)
    for b in range(3):
        a1 = a2 = a3 = np.int64(0)
        for k in range(9):
            x = s[3 * k + b]
            a3 |= a2 & x
            a2 |= a1 & x
            a1 |= x
        two = a2 & ~a3
        t2 = two
        while t2:
            q = _low(t2)
            t2 &= t2 - 1
            c = q % 9
            sc = popcount(~s[27 + b] & FULL & ~_OWN[q]) + popcount(
                (~s[27 + (b + 1) % 3] & (_COL << c)) | ((~s[27 + (b + 2) % 3] & (_COL << c)) << 1)
            )
            if sc > score:
                score = sc
                best = 27 * b + q
        if three < 0:
            a4 = np.int64(0)
            for k in range(9):
                x = s[3 * k + b]
                a4 |= a3 & x  # a cell of four or more values: not three
            t = a3 & ~a4
            if t:
                three = 27 * b + _low(t)
    if best >= 0:
        return best
    if three >= 0:
        return three
    for b in range(3):
        rest = FULL & ~s[27 + b]
        if rest:
            return 27 * b + _low(rest)
    return -1


@njit(cache=True)
def _solution(s, row) -> None:  # pragma: no cover - compiled
    """The value index of each cell of the fixed node ``s`` into ``row``."""
    for k in range(9):
        for b in range(3):
            x = s[3 * k + b]
            while x:
                row[27 * b + _low(x)] = k
                x &= x - 1


@njit(cache=True)
def search_band9(nodes_, branch, state, sols, node_limit):  # pragma: no cover - compiled
    """Count solutions from the root ``nodes_[0]`` (:func:`load_band9`) to ``sols``' rows:
    ``state`` is ``(depth, mode, found, nodes)``, ``branch[d]`` the cell guessed at depth ``d``
    and its values not yet tried. Returns PAUSED after ``node_limit`` nodes (call again to go
    on), DONE when the tree is exhausted or ``sols`` is full."""
    depth, mode, nsol, nodes = state[0], state[1], state[2], state[3]
    cap = sols.shape[0]
    stop = nodes + node_limit
    while True:
        if mode == 0:
            if nodes >= stop:
                state[0], state[1], state[2], state[3] = depth, mode, nsol, nodes
                return PAUSED
            nodes += 1
            s = nodes_[depth]
            best = np.int64(-1)
            if propagate_band9(s, s[30]):
                if s[27] == FULL and s[28] == FULL and s[29] == FULL:
                    _solution(s, sols[nsol])
                    nsol += 1
                    if nsol >= cap:
                        state[0], state[1], state[2], state[3] = depth - 1, 1, nsol, nodes
                        return DONE
                else:
                    best = _choose(s)
                    b, q = best // 27, best % 27
                    left = np.int64(0)
                    for k in range(9):
                        left |= ((s[3 * k + b] >> q) & 1) << k
                    branch[depth, 0] = best
                    branch[depth, 1] = left
            if best < 0:
                depth -= 1
            mode = 1
        else:
            if depth < 0:
                state[0], state[1], state[2], state[3] = depth, mode, nsol, nodes
                return DONE
            left = branch[depth, 1]
            if left == 0:
                depth -= 1
                continue
            d = _low(left)
            branch[depth, 1] = left & (left - 1)
            child = nodes_[depth + 1]
            child[:30] = nodes_[depth, :30]
            v = branch[depth, 0]
            child[30] = _fix(child, d, v // 27, v % 27)
            depth += 1
            mode = 0


@njit(cache=True)
def start_band9(dom, nodes_, branch, state, sols, node_limit):  # pragma: no cover - compiled
    """:func:`load_band9` of ``dom`` into ``nodes_[0]``, then :func:`search_band9` from
    ``state`` zero (one call)."""
    load_band9(dom, nodes_[0])
    state[:] = 0
    return search_band9(nodes_, branch, state, sols, node_limit)


@njit(cache=True)
def search_many_band9(
    starts, node_limit, nodes_, branch, state, sols, found, nodes, status
):  # pragma: no cover - compiled
    """:func:`search_band9` from each row of ``starts`` in turn: ``found[k]`` solutions in
    ``sols[k]``, ``nodes[k]`` nodes, ``status[k]`` DONE or PAUSED."""
    for k in range(starts.shape[0]):
        load_band9(starts[k], nodes_[0])
        state[:] = 0
        status[k] = search_band9(nodes_, branch, state, sols[k], node_limit)
        found[k] = state[2]
        nodes[k] = state[3]
