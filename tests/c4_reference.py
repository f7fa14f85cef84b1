"""The Connect Four solver as it was before the table kept a best move (Pascal Pons' design:
one always-replaced slot per position, threat-count ordering, no enhanced cutoffs, no mirror
sharing), kept as an independent reference for the tests: a different ordering and table
change the node counts, never a score.

Same bitboards, score convention, win test and move pruning as
:mod:`puzzlekit.families.games._c4kernel` (imported from it); no budget.
"""

from __future__ import annotations

import numba
import numpy as np

from puzzlekit.families.games._c4kernel import (
    BOARD,
    BOTTOM,
    H1,
    MAX_SCORE,
    MIN_SCORE,
    ORDER,
    SIZE,
    H,
    W,
    _non_losing,
    _winning_spots,
)


@numba.njit(cache=True)
def _count(m: int) -> int:
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


@numba.njit(cache=True)
def _negamax(current: int, mask: int, moves: int, alpha: int, beta: int, table: np.ndarray) -> int:
    nxt = _non_losing(current, mask)
    if nxt == 0:
        return -((SIZE - moves) // 2)
    if moves >= SIZE - 2:
        return 0
    lo = -((SIZE - 2 - moves) // 2)
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (SIZE - 1 - moves) // 2
    key = current + mask + 1  # 0 marks an empty row
    slot = key % table.shape[0]
    if table[slot, 0] == key:
        val = table[slot, 1]
        if val > 0:  # a lower bound
            if alpha < val - 1 + MIN_SCORE:
                alpha = val - 1 + MIN_SCORE
                if alpha >= beta:
                    return alpha
        elif -val - 1 + MIN_SCORE < hi:  # an upper bound
            hi = -val - 1 + MIN_SCORE
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    cand = np.zeros(W, dtype=np.int64)
    score = np.zeros(W, dtype=np.int64)
    n = 0
    for i in range(W):
        move = nxt & (((1 << H) - 1) << (ORDER[i] * H1))
        if move:
            cand[n] = move
            score[n] = -_count(_winning_spots(current | move, mask))
            n += 1
    cand = cand[np.argsort(score[:n], kind="mergesort")]  # most threats first, stable
    for move in cand:
        v = -_negamax(current ^ mask, mask | move, moves + 1, -beta, -alpha, table)
        if v >= beta:
            if MIN_SCORE <= v <= MAX_SCORE:
                table[slot, 0] = key
                table[slot, 1] = v + 1 - MIN_SCORE
            return v
        if v > alpha:
            alpha = v
    if alpha >= MIN_SCORE:
        table[slot, 0] = key
        table[slot, 1] = -(alpha + 1 - MIN_SCORE)
    return alpha


@numba.njit(cache=True)
def _solve(current: int, mask: int, moves: int, table: np.ndarray) -> int:
    if _winning_spots(current, mask) & ((mask + BOTTOM) & BOARD):
        return (SIZE + 1 - moves) // 2
    lo = -((SIZE - moves) // 2)
    hi = (SIZE + 1 - moves) // 2
    while lo < hi:
        med = lo + (hi - lo) // 2
        half_lo = lo // 2 if lo >= 0 else -((-lo) // 2)
        if med <= 0 and half_lo < med:
            med = half_lo
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = _negamax(current, mask, moves, med, med + 1, table)
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


def reference_score(current: int, mask: int, moves: int, slots: int = 1 << 19) -> int:
    """The exact score of a position nobody has won yet (a fresh table of ``slots`` slots)."""
    return int(_solve(current, mask, moves, np.zeros((slots, 2), dtype=np.int64)))
