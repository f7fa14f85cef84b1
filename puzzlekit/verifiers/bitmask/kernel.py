"""The compiled core of the bitmask verifier: constraint propagation and a resumable search.

Domains are int64 bit masks (bit ``i`` stands for the ``i``-th smallest value of the problem, at
most :data:`~puzzlekit.verifiers.bitmask.compile.MAX_VALUES` values). Constraints arrive as flat
arrays (see :class:`puzzlekit.verifiers.bitmask.compile.Structure`):

- all-different units (CSR ``unit_start``/``unit_vars``) and each variable's peers (the variables
  that share a unit with it, CSR ``peer_start``/``peer_vars``): a fixed variable's value leaves
  its peers (naked singles); a unit whose variables have fewer values left than variables fails
  (pigeonhole), one with exactly as many fixes each value that has one place left (hidden
  singles);
- tables of allowed tuples (each tuple as one mask per variable), kept generalized arc consistent;
- linear constraints ``lo <= sum(coef * x) <= hi``, kept bounds consistent;
- sums over variables that all differ (killer cages), as the value sets that make the sum: a
  variable keeps the values of the sets that hold every fixed value and meet every domain.

Every rule only removes values no solution takes, and at a node where every variable is fixed
every constraint has been checked, so the search is exact. The search is a depth-first search
over an explicit stack, choosing the variable with fewest values left (lowest index among ties)
and trying its values in ascending order: the search tree, hence the solutions found and their
order, depends on the constraints alone. It stops after ``node_limit`` nodes and resumes from the
saved stack on the next call (the caller looks at the clock between calls).

Compiled with ``numba`` (``cache=True``: compiled once per machine, then loaded from the cache).
Not for: building the arrays, or reports (:mod:`puzzlekit.verifiers.bitmask.backend`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: what :func:`search` returns
DONE, PAUSED = 0, 1

_M1 = np.int64(0x5555555555555555)
_M2 = np.int64(0x3333333333333333)
_M4 = np.int64(0x0F0F0F0F0F0F0F0F)
_H01 = np.int64(0x0101010101010101)


@njit(cache=True, inline="always")
def popcount(x: np.int64) -> np.int64:
    """The number of set bits of a non-negative mask."""
    x = x - ((x >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return (x * _H01) >> 56


@njit(cache=True, inline="always")
def low_index(x: np.int64) -> np.int64:
    """The index of the lowest set bit of a non-zero mask."""
    return popcount((x & -x) - 1)


@njit(cache=True, inline="always")
def high_index(x: np.int64) -> np.int64:
    """The index of the highest set bit of a non-zero mask."""
    i = np.int64(0)
    while x >> (i + 1):
        i += 1
    return i


@njit(cache=True)
def _units(dom, done, st, scratch, start) -> np.int64:
    """Naked and hidden singles to a fixpoint: 1 changed, 0 unchanged, -1 contradiction.

    ``done[v]`` marks the variables whose single value has left their peers. ``start``: the one
    variable changed since the last fixpoint (a branch), or -1 to look at every variable and
    unit. ``scratch`` holds the queue of new singles (one slot per variable), then one dirty
    flag per unit.
    """
    peer_start, peer_vars, unit_start, unit_vars = st[0], st[1], st[2], st[3]
    vu_start, vu_units = st[7], st[8]
    nv = dom.shape[0]
    nu = unit_start.shape[0] - 1
    changed = np.int64(0)
    qn = 0
    for u in range(nu):
        scratch[nv + u] = 1 if start < 0 else 0
    if start >= 0:
        for k in range(vu_start[start], vu_start[start + 1]):
            scratch[nv + vu_units[k]] = 1
    for v in range(nv) if start < 0 else range(start, start + 1):
        if not done[v]:
            m = dom[v]
            if m == 0:
                return -1
            if m & (m - 1) == 0:
                done[v] = 1
                scratch[qn] = v
                qn += 1
    while True:
        qi = 0
        while qi < qn:
            v = scratch[qi]
            qi += 1
            m = dom[v]
            for k in range(peer_start[v], peer_start[v + 1]):
                p = peer_vars[k]
                d = dom[p]
                if d & m:
                    d &= ~m
                    dom[p] = d
                    changed = 1
                    if d == 0:
                        return -1
                    for j in range(vu_start[p], vu_start[p + 1]):
                        scratch[nv + vu_units[j]] = 1
                    if d & (d - 1) == 0 and not done[p]:
                        done[p] = 1
                        scratch[qn] = p
                        qn += 1
        qn = _hidden(dom, done, unit_start, unit_vars, vu_start, vu_units, scratch, nv)
        if qn < 0:
            return -1
        if qn == 0:
            return changed
        changed = 1


@njit(cache=True)
def _hidden(dom, done, unit_start, unit_vars, vu_start, vu_units, scratch, nv) -> np.int64:
    """Hidden singles over the dirty units (see :func:`_units`): how many variables it fixed
    (queued at the front of ``scratch``), or -1 on a contradiction."""
    qn = 0
    for u in range(unit_start.shape[0] - 1):
        if not scratch[nv + u]:
            continue
        scratch[nv + u] = 0
        once = np.int64(0)
        twice = np.int64(0)
        a, b = unit_start[u], unit_start[u + 1]
        for k in range(a, b):
            m = dom[unit_vars[k]]
            twice |= once & m
            once |= m
        size = popcount(once)
        if size < b - a:
            return -1
        if size > b - a:
            continue
        single = once & ~twice
        if single == 0:
            continue
        for k in range(a, b):
            v = unit_vars[k]
            m = dom[v] & single
            if m & (m - 1):
                return -1  # two values with one place each, the same place
            if m and dom[v] != m:
                dom[v] = m
                for j in range(vu_start[v], vu_start[v + 1]):
                    scratch[nv + vu_units[j]] = 1
                if not done[v]:
                    done[v] = 1
                    scratch[qn] = v
                    qn += 1
    return qn


@njit(cache=True)
def _tables(dom, tab_start, tab_vars, tup_start, tup_masks, support) -> np.int64:
    """One pass of arc consistency over every table: 1 changed, 0 unchanged, -1 contradiction."""
    changed = np.int64(0)
    for t in range(tab_start.shape[0] - 1):
        a, b = tab_start[t], tab_start[t + 1]
        arity = b - a
        for i in range(arity):
            support[i] = 0
        base = tup_start[t]
        count = (tup_start[t + 1] - base) // arity
        for j in range(count):
            off = base + j * arity
            ok = True
            for i in range(arity):
                if tup_masks[off + i] & dom[tab_vars[a + i]] == 0:
                    ok = False
                    break
            if ok:
                for i in range(arity):
                    support[i] |= tup_masks[off + i]
        for i in range(arity):
            v = tab_vars[a + i]
            m = dom[v] & support[i]
            if m == 0:
                return -1
            if m != dom[v]:
                dom[v] = m
                changed = 1
    return changed


@njit(cache=True)
def _linears(dom, values, lin_start, lin_vars, lin_coef, lin_lo, lin_hi) -> np.int64:
    """One pass of bounds consistency over every linear constraint (same codes as above)."""
    changed = np.int64(0)
    nvals = values.shape[0]
    for c in range(lin_start.shape[0] - 1):
        a, b = lin_start[c], lin_start[c + 1]
        low = np.int64(0)
        high = np.int64(0)
        for k in range(a, b):
            m = dom[lin_vars[k]]
            x0 = lin_coef[k] * values[low_index(m)]
            x1 = lin_coef[k] * values[high_index(m)]
            low += min(x0, x1)
            high += max(x0, x1)
        if low > lin_hi[c] or high < lin_lo[c]:
            return -1
        for k in range(a, b):
            v = lin_vars[k]
            m = dom[v]
            x0 = lin_coef[k] * values[low_index(m)]
            x1 = lin_coef[k] * values[high_index(m)]
            rest_low = low - min(x0, x1)
            rest_high = high - max(x0, x1)
            keep = m
            for i in range(nvals):
                bit = np.int64(1) << i
                if m & bit:
                    x = lin_coef[k] * values[i]
                    if x + rest_low > lin_hi[c] or x + rest_high < lin_lo[c]:
                        keep &= ~bit
            if keep == 0:
                return -1
            if keep != m:
                dom[v] = keep
                changed = 1
    return changed


@njit(cache=True)
def _cages(dom, cage_start, cage_vars, combo_start, combo_masks) -> np.int64:
    """One pass over the sums of different variables: each variable keeps the values of the
    value sets that contain every fixed value and meet every domain (same codes as above)."""
    changed = np.int64(0)
    for g in range(cage_start.shape[0] - 1):
        a, b = cage_start[g], cage_start[g + 1]
        fixed = np.int64(0)
        for k in range(a, b):
            m = dom[cage_vars[k]]
            if m & (m - 1) == 0:
                fixed |= m
        union = np.int64(0)
        for j in range(combo_start[g], combo_start[g + 1]):
            c = combo_masks[j]
            if c & fixed != fixed:
                continue
            ok = True
            for k in range(a, b):
                if dom[cage_vars[k]] & c == 0:
                    ok = False
                    break
            if ok:
                union |= c
        if union == 0:
            return -1
        for k in range(a, b):
            v = cage_vars[k]
            m = dom[v] & union
            if m == 0:
                return -1
            if m != dom[v]:
                dom[v] = m
                changed = 1
    return changed


@njit(cache=True)
def propagate(
    dom, done, st, tab_vars, tup_masks, lin_vars, lin_coef, values, lin_lohi, scratch, start
):
    """All rules to a fixpoint on ``dom`` (changed in place); False on a contradiction.

    ``st`` packs the CSR arrays: peer_start, peer_vars, unit_start, unit_vars, tab_start,
    tup_start, lin_start, each variable's units (var_unit_start, var_units), and the sums of
    different variables (cage_start, cage_vars, combo_start, combo_masks); ``scratch``
    holds at least one slot per variable plus one per unit, and one per table column.
    ``start``: the one variable changed since the last fixpoint, or -1 (see :func:`_units`).
    """
    tab_start, tup_start, lin_start = st[4], st[5], st[6]
    tables = tab_start.shape[0] > 1
    linears = lin_start.shape[0] > 1
    cages = st[9].shape[0] > 1
    while True:
        if _units(dom, done, st, scratch, start) < 0:
            return False
        start = -1  # after tables and sums changed domains, look at everything again
        r = s = 0
        if tables:
            r = _tables(dom, tab_start, tab_vars, tup_start, tup_masks, scratch)
            if r < 0:
                return False
        if linears:
            s = _linears(dom, values, lin_start, lin_vars, lin_coef, lin_lohi[0], lin_lohi[1])
            if s < 0:
                return False
        g = 0
        if cages:
            g = _cages(dom, st[9], st[10], st[11], st[12])
            if g < 0:
                return False
        if r == 0 and s == 0 and g == 0:
            return True


@njit(cache=True, inline="always")
def _ranked(left: np.int64, ranks: np.ndarray) -> np.int64:  # pragma: no cover - compiled
    """The bit of ``left`` whose value has the lowest rank (a sampler's random value order)."""
    bit = left & -left
    best = ranks[low_index(bit)]
    rest = left & (left - 1)
    while rest:
        b = rest & -rest
        r = ranks[low_index(b)]
        if r < best:
            best = r
            bit = b
        rest &= rest - 1
    return bit


@njit(cache=True)
def search(
    doms, dones, branch, state, sols, node_limit, order, vrank, st, tab_vars, tup_masks, lin_vars,
    lin_coef, values, lin_lohi, scratch,
):  # fmt: skip
    """Count solutions depth first from ``doms[0]``, storing them (bit indices) in ``sols``.

    ``doms``/``dones``: the stack (depth × variables); ``branch[d]`` = (variable, values left to
    try) of depth ``d``; ``order``: the variables in the order that breaks ties between equally
    constrained ones (drawn from the instance: where the first solutions differ carries no
    reading-order bias); ``vrank``: empty (values are tried smallest first), or a rank per
    variable and value bit (values tried lowest rank first: a random solution sampler draws it);
    ``state`` = (depth, mode, solutions found, nodes so far), saved when the
    search pauses after ``node_limit`` more nodes (mode 0: the node at ``depth`` is new; 1: try
    the next value at ``depth``). Stops (DONE) when the tree is exhausted or ``sols`` is full.
    """
    depth, mode, nsol, nodes = state[0], state[1], state[2], state[3]
    cap = sols.shape[0]
    nv = doms.shape[1]
    stop = nodes + node_limit
    while True:
        if mode == 0:
            if nodes >= stop:
                state[0], state[1], state[2], state[3] = depth, mode, nsol, nodes
                return PAUSED
            nodes += 1
            dom = doms[depth]
            start = branch[depth - 1, 0] if depth > 0 else -1
            ok = propagate(
                dom, dones[depth], st, tab_vars, tup_masks, lin_vars, lin_coef, values, lin_lohi,
                scratch, start,
            )  # fmt: skip
            best = -1
            if ok:
                best_count = 64
                for i in range(nv):
                    v = order[i]
                    m = dom[v]
                    if m & (m - 1):
                        c = popcount(m)
                        if c < best_count:
                            best_count = c
                            best = v
                            if c == 2:
                                break
                if best < 0:
                    for v in range(nv):
                        sols[nsol, v] = low_index(dom[v])
                    nsol += 1
                    if nsol >= cap:
                        state[0], state[1], state[2], state[3] = depth, 1, nsol, nodes
                        return DONE
            if best >= 0:
                branch[depth, 0] = best
                branch[depth, 1] = dom[best]
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
            bit = left & -left if vrank.shape[0] == 0 else _ranked(left, vrank[branch[depth, 0]])
            branch[depth, 1] = left & ~bit
            doms[depth + 1, :] = doms[depth]
            dones[depth + 1, :] = dones[depth]
            doms[depth + 1, branch[depth, 0]] = bit
            depth += 1
            mode = 0
