"""The compiled search of :mod:`~puzzlekit.verifiers.bitmask.kernel` for 81 variables of 9
values under all-different units of 9 (9×9 Sudoku, jigsaw Sudoku, 9×9 Latin squares), on
value-major bitboards.

A node's domains are nine boards, one per value, each an 81-bit set of the variables that may
still take it (three int64 words of 27 bits each), plus the set of variables whose single value
has already left their peers. A fixed variable's value leaves its peers in three word
operations per board; the variables with exactly one value, and the counts the choice of a
variable reads, come from bit-sliced counting over the boards; hidden singles look only at the
units of the variables that lost a value since they were last looked at. The rules, the tree
and every count are those of :func:`~puzzlekit.verifiers.bitmask.kernel.search` on the same
arrays: naked and hidden singles to their (unique) fixpoint, a unit with a value left nowhere
fails, the variable with fewest values left is chosen (first in ``order`` among ties) and its
values are tried in ascending order. So the solutions, their order, the node counts and the
pause points are the same; a node costs less (a child copies 30 words, not a domain and a flag
per variable).

Locked candidates (:func:`_locked`, pointing and claiming between any two units sharing two or
more variables) can run as a look-ahead that only cuts subtrees without a solution (see
:func:`search9`); :data:`~puzzlekit.verifiers.bitmask.search.LOOKAHEAD` says whether it does.

Used by :class:`~puzzlekit.verifiers.bitmask.search.Search` where :func:`grid9_arrays` finds a
structure of that shape and no value ranks are set (the sampler keeps the general kernel).
Not for: tables, sums, other sizes (16×16 would take four words and 16 boards a node: the same
code with the word count and value count as parameters, not written yet).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from puzzlekit.verifiers.bitmask.kernel import DONE, PAUSED, low_index

#: the variables of one board word
WORD = 27
FULL = (1 << WORD) - 1


def grid9_arrays(structure: Any, values: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """``(peers, units, pairs)``: each variable's peers and each unit as 81-bit sets (rows of
    three words), and the locked-candidate pairs of units (:func:`_locked`), when
    ``structure`` has 81 variables of at most 9 values whose only constraints are all-different
    units of 9 variables; else None. Cached on the structure."""
    cached = getattr(structure, "_grid9", False)
    if cached is not False:
        return cached  # type: ignore[no-any-return]
    out = _arrays(structure, values)
    structure._grid9 = out
    return out


def _arrays(structure: Any, values: np.ndarray) -> tuple[np.ndarray, ...] | None:
    st = structure.st
    peer_start, peer_vars, unit_start, unit_vars = st[0], st[1], st[2], st[3]
    plain = st[4].shape[0] <= 1 and st[6].shape[0] <= 1 and st[9].shape[0] <= 1
    nv = peer_start.shape[0] - 1
    sizes = np.diff(unit_start)
    if not plain or nv != 81 or values.shape[0] != 9 or sizes.shape[0] == 0:
        return None
    if (sizes != 9).any():
        return None
    peers = np.zeros((81, 3), np.int64)
    for v in range(81):
        for p in peer_vars[peer_start[v] : peer_start[v + 1]].tolist():
            peers[v, p // WORD] |= 1 << (p % WORD)
    units = np.zeros((sizes.shape[0], 3), np.int64)
    sets = []
    for u in range(sizes.shape[0]):
        cells = unit_vars[unit_start[u] : unit_start[u + 1]].tolist()
        sets.append(set(cells))
        for p in cells:
            units[u, p // WORD] |= 1 << (p % WORD)
    rows = [
        [*units[a], *units[o], *(units[o] & ~units[a])]
        for a in range(len(sets))
        for o in range(len(sets))
        if a != o and len(sets[a] & sets[o]) >= 2
    ]
    pairs = np.array(rows, np.int64).reshape(len(rows), 9)
    return peers, units, pairs


@njit(cache=True)
def load9(dom, boards, fixed) -> None:  # pragma: no cover - compiled
    """Domains (a value mask per variable) as the nine boards; nothing propagated yet."""
    boards[:, :] = 0
    fixed[:] = 0
    for v in range(81):
        m = dom[v]
        w = v // WORD
        bit = np.int64(1) << (v % WORD)
        for k in range(9):
            if (m >> k) & 1:
                boards[k, w] |= bit


@njit(cache=True)
def _naked(b, fixed, peers, changed) -> bool:  # pragma: no cover - compiled
    """Fixed variables' values out of their peers, to a fixpoint; False when a variable has no
    value left. ``changed`` gains the variables that lost a value."""
    while True:
        fresh = False
        for w in range(3):
            once = np.int64(0)
            more = np.int64(0)
            for k in range(9):
                x = b[k, w]
                more |= once & x
                once |= x
            if once != FULL:
                return False
            new = once & ~more & ~fixed[w]
            if new == 0:
                continue
            fresh = True
            fixed[w] |= new
            while new:
                bit = new & -new
                new ^= bit
                v = w * WORD + low_index(bit)
                for k in range(9):
                    if b[k, w] & bit:
                        for j in range(3):
                            hit = b[k, j] & peers[v, j]
                            if hit:
                                changed[j] |= hit
                                b[k, j] ^= hit
                        break
        if not fresh:
            return True


@njit(cache=True)
def propagate9(b, fixed, peers, units, changed) -> bool:  # pragma: no cover - compiled
    """Naked and hidden singles to their fixpoint on the boards ``b`` (changed in place); False
    on a contradiction (a variable without values, a value without a place in a unit, two
    values whose one place in a unit is the same variable). ``changed``: the variables whose
    values changed since the last fixpoint (only their units are looked at; emptied)."""
    nu = units.shape[0]
    while True:
        if not _naked(b, fixed, peers, changed):
            return False
        c0, c1, c2 = changed[0], changed[1], changed[2]
        if (c0 | c1 | c2) == 0:
            return True
        changed[0] = changed[1] = changed[2] = 0
        f0, f1, f2 = fixed[0], fixed[1], fixed[2]
        for u in range(nu):
            u0, u1, u2 = units[u, 0], units[u, 1], units[u, 2]
            if (c0 & u0) | (c1 & u1) | (c2 & u2) == 0:
                continue  # nothing in the unit changed since it was last looked at
            if (f0 & u0) == u0 and (f1 & u1) == u1 and (f2 & u2) == u2:
                continue  # every variable fixed and out of its peers: nine distinct values
            for k in range(9):
                x0 = b[k, 0] & u0
                x1 = b[k, 1] & u1
                x2 = b[k, 2] & u2
                if (x0 | x1 | x2) == 0:
                    return False
                if x0:
                    if x1 | x2 or x0 & (x0 - 1):
                        continue
                    w, bit = 0, x0
                elif x1:
                    if x2 or x1 & (x1 - 1):
                        continue
                    w, bit = 1, x1
                else:
                    if x2 & (x2 - 1):
                        continue
                    w, bit = 2, x2
                if fixed[w] & bit:
                    continue
                for j in range(9):
                    if j != k and b[j, w] & bit:
                        b[j, w] ^= bit
                        changed[w] |= bit


@njit(cache=True)
def _locked(b, pairs, changed) -> bool:  # pragma: no cover - compiled
    """Locked candidates, one pass: where a value's places in unit ``pairs[i, :3]`` all lie in
    unit ``pairs[i, 3:6]``, the value leaves the rest of the latter (``pairs[i, 6:]``). True when
    a value left a variable (added to ``changed``)."""
    hit = False
    for i in range(pairs.shape[0]):
        a0, a1, a2 = pairs[i, 0], pairs[i, 1], pairs[i, 2]
        o0, o1, o2 = pairs[i, 3], pairs[i, 4], pairs[i, 5]
        r0, r1, r2 = pairs[i, 6], pairs[i, 7], pairs[i, 8]
        for k in range(9):
            x0 = b[k, 0] & a0
            x1 = b[k, 1] & a1
            x2 = b[k, 2] & a2
            if (x0 & ~o0) | (x1 & ~o1) | (x2 & ~o2):
                continue
            y0 = b[k, 0] & r0
            y1 = b[k, 1] & r1
            y2 = b[k, 2] & r2
            if y0 | y1 | y2:
                b[k, 0] ^= y0
                b[k, 1] ^= y1
                b[k, 2] ^= y2
                changed[0] |= y0
                changed[1] |= y1
                changed[2] |= y2
                hit = True
    return hit


@njit(cache=True)
def strong9(b, fixed, peers, units, pairs, changed) -> bool:  # pragma: no cover - compiled
    """Singles and locked candidates to their fixpoint (``changed`` as in :func:`propagate9`)."""
    while True:
        if not propagate9(b, fixed, peers, units, changed):
            return False
        if not _locked(b, pairs, changed):
            return True


@njit(cache=True, inline="always")
def _counts(b, w):  # pragma: no cover - compiled
    """How many values each variable of word ``w`` has left, bit-sliced (four bit planes)."""
    a0 = a1 = a2 = a3 = np.int64(0)
    for k in range(9):
        carry = b[k, w]
        t = a0 & carry
        a0 ^= carry
        carry = t
        t = a1 & carry
        a1 ^= carry
        carry = t
        t = a2 & carry
        a2 ^= carry
        a3 |= t
    return a0, a1, a2, a3


@njit(cache=True, inline="always")
def _equal(n, a0, a1, a2, a3):  # pragma: no cover - compiled
    """The variables of a word whose count (bit planes ``a0..a3``) is ``n``."""
    x = np.int64(FULL)
    x &= a0 if n & 1 else ~a0
    x &= a1 if n & 2 else ~a1
    x &= a2 if n & 4 else ~a2
    x &= a3 if n & 8 else ~a3
    return x


@njit(cache=True)
def _choose(b, order) -> np.int64:  # pragma: no cover - compiled
    """The variable with fewest values left (at least two), first in ``order`` among ties; -1
    when every variable has one."""
    p0, p1, p2, p3 = _counts(b, 0)
    q0, q1, q2, q3 = _counts(b, 1)
    r0, r1, r2, r3 = _counts(b, 2)
    for n in range(2, 10):
        m0 = _equal(n, p0, p1, p2, p3)
        m1 = _equal(n, q0, q1, q2, q3)
        m2 = _equal(n, r0, r1, r2, r3)
        if m0 | m1 | m2:
            for i in range(81):
                v = order[i]
                w = v // WORD
                m = m0 if w == 0 else (m1 if w == 1 else m2)
                if (m >> (v % WORD)) & 1:
                    return v
    return -1


@njit(cache=True)
def _solution(b, row) -> None:  # pragma: no cover - compiled
    """The value index of each variable of the fixed boards ``b`` into ``row``."""
    for k in range(9):
        for w in range(3):
            x = b[k, w]
            while x:
                bit = x & -x
                x ^= bit
                row[w * WORD + low_index(bit)] = k


@njit(cache=True)
def _looked_ahead(b, fixed, peers, units, pairs, tb, tf, changed) -> np.int64:
    """Locked candidates on a copy of a node at its singles' fixpoint (``tb``, ``tf``): -1 when
    they find no solution below the node, 1 when they fix every variable (the one solution
    below it, in ``tb``), else 0 (``tb`` holds the narrower domains)."""  # pragma: no cover
    tb[:, :] = b
    tf[:] = fixed
    changed[0] = changed[1] = changed[2] = 0
    if not _locked(tb, pairs, changed):
        return 0
    if not strong9(tb, tf, peers, units, pairs, changed):
        return -1
    if tf[0] == FULL and tf[1] == FULL and tf[2] == FULL:
        return 1
    return 0


@njit(cache=True)
def search9(boards, fixed, branch, state, sols, node_limit, order, peers, units, pairs):
    """:func:`~puzzlekit.verifiers.bitmask.kernel.search` on bitboards: ``boards[d]`` and
    ``fixed[d]`` are depth ``d``'s node (:func:`load9` fills depth 0); ``branch``, ``state``,
    ``sols``, ``node_limit`` and ``order`` as there (no value ranks).

    ``pairs`` (locked candidates, see :func:`_locked`; no rows: none) only look ahead: a node
    is branched on its singles' domains as the general kernel branches, and its values that
    locked candidates rule out are not tried, so the solutions come in the same order while
    subtrees without one are cut sooner (fewer nodes)."""  # pragma: no cover
    depth, mode, nsol, nodes = state[0], state[1], state[2], state[3]
    cap = sols.shape[0]
    stop = nodes + node_limit
    changed = np.zeros(3, np.int64)
    tb = np.zeros((9, 3), np.int64)
    tf = np.zeros(3, np.int64)
    ahead = pairs.shape[0] > 0
    while True:
        if mode == 0:
            if nodes >= stop:
                state[0], state[1], state[2], state[3] = depth, mode, nsol, nodes
                return PAUSED
            nodes += 1
            b = boards[depth]
            best = -1
            if depth == 0:  # the root: every unit is looked at
                changed[0] = changed[1] = changed[2] = FULL
            else:  # a child: its branching variable alone changed
                changed[0] = changed[1] = changed[2] = 0
                v = branch[depth - 1, 0]
                changed[v // WORD] = np.int64(1) << (v % WORD)
            if propagate9(b, fixed[depth], peers, units, changed):
                best = _choose(b, order)
                if best < 0:
                    _solution(b, sols[nsol])
                    nsol += 1
                elif ahead:
                    seen = _looked_ahead(b, fixed[depth], peers, units, pairs, tb, tf, changed)
                    if seen != 0:
                        if seen > 0:
                            _solution(tb, sols[nsol])
                            nsol += 1
                        best = -1
                if nsol >= cap:
                    state[0], state[1], state[2], state[3] = depth, 1, nsol, nodes
                    return DONE
            if best >= 0:
                w = best // WORD
                bit = np.int64(1) << (best % WORD)
                left = np.int64(0)
                src = tb if ahead else b
                for k in range(9):
                    if src[k, w] & bit:
                        left |= np.int64(1) << k
                branch[depth, 0] = best
                branch[depth, 1] = left
            else:
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
            pick = left & -left
            branch[depth, 1] = left & ~pick
            boards[depth + 1] = boards[depth]
            fixed[depth + 1] = fixed[depth]
            v = branch[depth, 0]
            w = v // WORD
            bit = np.int64(1) << (v % WORD)
            for k in range(9):
                if not (pick >> k) & 1:
                    boards[depth + 1, k, w] &= ~bit
            depth += 1
            mode = 0


@njit(cache=True)
def search_many9(
    starts, orders, node_limit, boards, fixed, branch, state, sols, found, nodes, status, peers,
    units, pairs,
):  # fmt: skip  # pragma: no cover - compiled
    """:func:`search9` from each row of ``starts`` in turn (as
    :func:`~puzzlekit.verifiers.bitmask.search.search_many`)."""
    for k in range(starts.shape[0]):
        load9(starts[k], boards[0], fixed[0])
        state[:] = 0
        status[k] = search9(
            boards, fixed, branch, state, sols[k], node_limit, orders[k], peers, units, pairs
        )
        found[k] = state[2]
        nodes[k] = state[3]
