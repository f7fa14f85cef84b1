"""The ranked gap of a count to two, compiled: the cells where two solutions differ in the order
a ``MULTIPLE`` report ranks them (ties broken by the draw from the instance digest), and the
best of them against a target solution.

What the adaptive strategy's steps on arrays (:mod:`puzzlekit.loop.givens_steps`) compute
after each count, in one compiled call instead of a dozen array operations: the same cells in
the same order as the report's ``discriminativeGap`` and :func:`~puzzlekit.generators.adaptive.
top_cells`, which the tests of that module compare seed by seed. Not for: reports (the
backends rank their gaps themselves).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlekit.verifiers.digest_draw import digest_permutation


@njit(cache=True)
def ranked_gap(sols, target, raw, stream):  # pragma: no cover - compiled
    """``(first, offered)`` for the two solutions ``sols`` (value bits, one row each) of an
    instance whose digest bytes are ``raw``: the cells where they differ, ranked by
    ``digest_permutation(raw, stream, count)`` (the cell drawn at rank k goes k-th); ``first``
    the cell ranked first, ``offered`` those that rule out the most of the two against
    ``target`` (value bits per cell), in rank order; ``(-1, [])`` when the rows are equal."""
    n = sols.shape[1]
    differ = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        if sols[0, i] != sols[1, i]:
            differ[m] = i
            m += 1
    if m == 0:  # two equal rows: no gap (a count to two never finds them; said, not read)
        return -1, differ[:0]
    draw = digest_permutation(raw, stream, m)
    gap = np.empty(m, np.int64)
    for j in range(m):
        gap[draw[j]] = differ[j]
    shares = np.empty(m, np.int64)
    best = -1
    for j in range(m):
        c = gap[j]
        share = 0
        if sols[0, c] != target[c]:
            share += 1
        if sols[1, c] != target[c]:
            share += 1
        shares[j] = share
        if share > best:
            best = share
    offered = np.empty(m, np.int64)
    k = 0
    for j in range(m):
        if shares[j] == best:
            offered[k] = gap[j]
            k += 1
    return gap[0], offered[:k]
