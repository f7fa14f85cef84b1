"""The compiled Connect Four search (7 columns, 6 rows, 4 in a row): bitboards, a fixed-size
transposition table, move ordering and null-window searches, compiled with numba.

Private to :mod:`puzzlekit.families.games.connect4`, which converts positions, enforces the
budget and turns scores into results and distances; nothing here knows about puzzles.

Layout (the classic height bitboard): bit ``col * 7 + row`` (row 0 at the bottom) holds a
stone; bit 6 of every column is a sentinel that stays empty, so that a shift by 7 never carries
one column into the next. A position is ``current`` (the stones of the side to move), ``mask``
(every stone) and ``moves`` (stones played); ``current + mask`` is a unique key (it sets the
bit above each column's top stone). Everything is int64: bits above 48 only ever arise from
left shifts and are masked off, and no right shift reads them, so signedness never leaks.

Score convention (the one of the classic Connect Four solvers): positive when the side to move
wins, ``(43 - n) // 2`` where ``n`` stones were on the board before the winning stone (so 1 is
a win with one's last stone and 21 a win with one's first); the negative of that when the other
side wins; 0 for a draw. The winner maximizes it (wins soonest), the loser delays.

Transposition table: int64 slots in buckets of two, bucket ``key % buckets`` (a prime number
of buckets) at slots ``2b`` and ``2b + 1``; the entry is ``epoch << shift | (key // buckets)
<< 16 | stones << 10 | move << 7 | value``: the bucket and the quotient give the key back
exactly, the value packs an upper bound (``1..37``) or a lower bound (``38..74``), ``move`` is
the column that last refuted the node (7: none), tried first when the node is met
again, and ``stones`` how deep the position is. A bound goes over the position's own entry when
it has one; else into the first slot when that one is stale or holds a position with as many
stones or more (a smaller search: the larger searches stay), into the second (always replaced)
otherwise. Positions with fewer than ``SYMMETRY_BELOW`` stones are stored under the smaller of
their key and their mirror image's, so the two share one entry (the move mirrored). Before
searching any move, a node looks up its children's entries: an upper bound of a child that
already refutes the node ends it (an enhanced transposition cutoff). ``ctl[EPOCH]`` holds
``epoch << shift`` of the current query (the caller picks ``shift`` above the quotient's bits):
an entry of another epoch reads as empty, so one table serves query after query without
clearing it, and each query sees exactly what a zeroed table would show (same values, same
node counts). Its size is fixed when the caller allocates it: that is the memory bound.

Budget: ``ctl`` is ``[nodes, node limit, clock-check interval mask, aborted, epoch tag]`` and
``deadline`` one float (``time.perf_counter`` seconds; checked every ``interval`` nodes through
numba's object mode). ``work`` is scratch space for move ordering, one row per ply
(``SIZE + 1`` rows of ``2 * W``), so no node allocates. An aborted search returns at once
without storing anything, so the table only ever holds bounds of searches that finished.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba.extending import intrinsic

W, H = 7, 6
H1 = H + 1
SIZE = W * H
MIN_SCORE = -(SIZE // 2) + 3
MAX_SCORE = (SIZE + 1) // 2 - 3
BOTTOM = 0
for _c in range(W):
    BOTTOM |= 1 << (_c * H1)
BOARD = BOTTOM * ((1 << H) - 1)
COLUMN = (1 << H1) - 1
ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)

NODES, LIMIT, INTERVAL, ABORTED, EPOCH = 0, 1, 2, 3, 4
#: an entry's fields: value (7 bits), best move (3), stones played (6), then the quotient
VALUE, MOVE_AT, MOVES_AT, QUOTIENT_AT = 127, 7, 10, 16
#: the move field of an entry that has no move
NO_MOVE = 7
#: positions with fewer stones share one entry with their mirror image
SYMMETRY_BELOW = 43
#: the ordering score that puts the table's move first (threat counts are at most 42)
TT_BONUS = 64
#: the largest position key (``current + mask`` < 2**49)
MAX_KEY = (1 << 49) - 1


@numba.njit(cache=True, inline="always")
def _winning_spots(pos: int, mask: int) -> int:
    """Empty cells where a stone of ``pos`` would make four (in any direction)."""
    # vertical
    r = (pos << 1) & (pos << 2) & (pos << 3)
    for d in (H1, H, H + 2):  # horizontal, the two diagonals
        p = (pos << d) & (pos << (2 * d))
        r |= p & (pos << (3 * d))
        r |= p & (pos >> d)
        p = (pos >> d) & (pos >> (2 * d))
        r |= p & (pos << d)
        r |= p & (pos >> (3 * d))
    return r & (BOARD ^ mask)


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    """The machine's population count (LLVM ``ctpop``) of an int64."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return x(x), codegen


@numba.njit(cache=True, inline="always")
def _popcount(m: int) -> int:
    return _ctpop(m)


@numba.njit(cache=True, inline="always")
def _mirror(key: int) -> int:
    """The key of the position mirrored left to right (column ``c`` becomes ``6 - c``)."""
    r = 0
    for c in range(W):
        r |= ((key >> (c * H1)) & COLUMN) << ((W - 1 - c) * H1)
    return r


@numba.njit(cache=True)
def can_win_next(current: int, mask: int) -> bool:
    """Whether the side to move has a move that makes four at once."""
    return (_winning_spots(current, mask) & ((mask + BOTTOM) & BOARD)) != 0


@numba.njit(cache=True)
def _non_losing(current: int, mask: int) -> int:
    """The playable cells that do not hand the opponent an immediate win (0: every move loses)."""
    possible = (mask + BOTTOM) & BOARD
    threat = _winning_spots(current ^ mask, mask)
    forced = possible & threat
    if forced:
        if forced & (forced - 1):
            return 0
        possible = forced
    return possible & ~(threat >> 1)


@numba.njit(cache=True)
def _tick(ctl: np.ndarray, deadline: np.ndarray) -> bool:
    """Count a node; True when the budget ran out (and mark the search aborted)."""
    ctl[NODES] += 1
    if ctl[LIMIT] > 0 and ctl[NODES] > ctl[LIMIT]:
        ctl[ABORTED] = 1
        return True
    if (ctl[NODES] & ctl[INTERVAL]) == 0 and deadline[0] > 0.0:
        with numba.objmode(now="float64"):
            now = time.perf_counter()
        if now > deadline[0]:
            ctl[ABORTED] = 2
            return True
    return False


@numba.njit(cache=True, inline="always")
def _column_of(move: int) -> int:
    """The column of a single stone's bit."""
    return (_popcount(move - 1)) // H1


@numba.njit(cache=True, inline="always")
def _store(
    table: np.ndarray, b: int, tag: int, epoch: int, moves: int, best: int, val: int
) -> None:
    """Store a bound in bucket ``b``: over the position's own entry if it has one; else in the
    first slot when that one is stale or holds a position as deep or deeper (a smaller
    search), in the second slot (always replaced) otherwise. An upper bound without a move
    keeps the move already stored."""
    new = tag | (moves << MOVES_AT) | val
    e0 = table[b]
    if (e0 >> QUOTIENT_AT) == (tag >> QUOTIENT_AT):
        if best == NO_MOVE:
            best = (e0 >> MOVE_AT) & 7
        table[b] = new | (best << MOVE_AT)
        return
    e1 = table[b + 1]
    if (e1 >> QUOTIENT_AT) == (tag >> QUOTIENT_AT):
        if best == NO_MOVE:
            best = (e1 >> MOVE_AT) & 7
        table[b + 1] = new | (best << MOVE_AT)
        return
    if e0 < epoch or ((e0 >> MOVES_AT) & 63) >= moves:
        table[b] = new | (best << MOVE_AT)
    else:
        table[b + 1] = new | (best << MOVE_AT)


@numba.njit(cache=True, inline="always")
def _canonical(key: int, moves: int) -> tuple[int, bool]:
    """The key a position is stored under (its mirror image's when that is smaller, for
    positions of fewer than ``SYMMETRY_BELOW`` stones) and whether it was mirrored."""
    if moves < SYMMETRY_BELOW:
        mkey = _mirror(key)
        if mkey < key:
            return mkey, True
    return key, False


@numba.njit(cache=True, inline="always")
def _lookup(table: np.ndarray, b: int, tag: int) -> int:
    """The entry of bucket ``b`` whose quotient and epoch are ``tag``'s (0: none)."""
    if (table[b] >> QUOTIENT_AT) == (tag >> QUOTIENT_AT):
        return table[b]
    if (table[b + 1] >> QUOTIENT_AT) == (tag >> QUOTIENT_AT):
        return table[b + 1]
    return 0


@numba.njit(cache=True, inline="always")
def _entry(table: np.ndarray, key: int, moves: int, epoch: int) -> int:
    """The table's entry of a position (0: none)."""
    key, _ = _canonical(key, moves)
    buckets = table.shape[0] >> 1
    return _lookup(table, (key % buckets) << 1, epoch | ((key // buckets) << QUOTIENT_AT))


@numba.njit(cache=True, inline="always")
def _order(
    current: int, mask: int, nxt: int, tt_move: int, cand: np.ndarray, score: np.ndarray
) -> int:
    """The playable moves of ``nxt`` in ``cand`` in search order (their count returned): the
    table's move first, then most new threats, centre first among equals (a stable insertion
    sort)."""
    n = 0
    for i in range(W):
        col = ORDER[i]
        move = nxt & (COLUMN << (col * H1))
        if move:
            s = _popcount(_winning_spots(current | move, mask))
            if col == tt_move:
                s += TT_BONUS
            j = n
            while j > 0 and score[j - 1] < s:
                cand[j] = cand[j - 1]
                score[j] = score[j - 1]
                j -= 1
            cand[j] = move
            score[j] = s
            n += 1
    return n


@numba.njit(cache=True)
def _child_cutoff(
    current: int, mask: int, moves: int, nxt: int, beta: int, table: np.ndarray, epoch: int
) -> int:
    """The best lower bound the table's entries of the children give (an enhanced
    transposition cutoff when it reaches ``beta``); ``-SIZE`` when none does."""
    best = -SIZE
    child = current ^ mask
    for col in range(W):
        move = nxt & (COLUMN << (col * H1))
        if move:
            cmask = mask | move
            entry = _entry(table, child + cmask, moves + 1, epoch)
            if entry:
                val = entry & VALUE
                if val <= MAX_SCORE - MIN_SCORE + 1:
                    v = -(val + MIN_SCORE - 1)
                    if v > best:
                        best = v
                        if v >= beta:
                            return v
    return best


@numba.njit(cache=True)
def negamax(
    current: int,
    mask: int,
    moves: int,
    alpha: int,
    beta: int,
    table: np.ndarray,
    work: np.ndarray,
    ctl: np.ndarray,
    deadline: np.ndarray,
) -> int:
    """The score within ``(alpha, beta)`` (fail-soft bounds outside it) of a position in which
    the side to move cannot win at once."""
    if _tick(ctl, deadline):
        return 0
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
    key, flip = _canonical(current + mask, moves)
    buckets = table.shape[0] >> 1
    b = (key % buckets) << 1
    tag = ctl[EPOCH] | ((key // buckets) << QUOTIENT_AT)
    tt_move = NO_MOVE
    entry = _lookup(table, b, tag)
    if entry:
        val = entry & VALUE
        tt_move = (entry >> MOVE_AT) & 7
        if tt_move != NO_MOVE and flip:
            tt_move = W - 1 - tt_move
        if val > MAX_SCORE - MIN_SCORE + 1:
            lo = val + 2 * MIN_SCORE - MAX_SCORE - 2
            if alpha < lo:
                alpha = lo
                if alpha >= beta:
                    return alpha
        else:
            hi = val + MIN_SCORE - 1
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    # enhanced transposition cutoff: a child's upper bound may already refute this node
    v = _child_cutoff(current, mask, moves, nxt, beta, table, ctl[EPOCH])
    if v >= beta:
        return v
    cand = work[moves, :W]
    n = _order(current, mask, nxt, tt_move, cand, work[moves, W:])
    best = NO_MOVE
    best_v = -SIZE
    for i in range(n):
        move = cand[i]
        child = current ^ mask
        v = -negamax(child, mask | move, moves + 1, -beta, -alpha, table, work, ctl, deadline)
        if ctl[ABORTED]:
            return 0
        if v > best_v:
            best_v = v
            best = _column_of(move)
        if v >= beta:
            if v <= MAX_SCORE:
                if flip:
                    best = W - 1 - best
                _store(table, b, tag, ctl[EPOCH], moves, best, v + MAX_SCORE - 2 * MIN_SCORE + 2)
            return v
        if v > alpha:
            alpha = v
    if alpha >= MIN_SCORE:
        _store(table, b, tag, ctl[EPOCH], moves, NO_MOVE, alpha - MIN_SCORE + 1)
    return alpha


@numba.njit(cache=True, inline="always")
def _half(x: int) -> int:
    """``x / 2`` rounded toward zero (as C does)."""
    return x // 2 if x >= 0 else -((-x) // 2)


@numba.njit(cache=True)
def solve(
    current: int,
    mask: int,
    moves: int,
    table: np.ndarray,
    work: np.ndarray,
    ctl: np.ndarray,
    deadline: np.ndarray,
) -> int:
    """The exact score of a non-terminal position (0 with ``ctl[ABORTED]`` set if the budget ran
    out): null-window searches that narrow ``[lo, hi]``, probing near the ends first so that
    short wins and losses are found by shallow searches (iterative deepening on the score)."""
    if can_win_next(current, mask):
        return (SIZE + 1 - moves) // 2
    lo = -((SIZE - moves) // 2)
    hi = (SIZE + 1 - moves) // 2
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and _half(lo) < med:
            med = _half(lo)
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = negamax(current, mask, moves, med, med + 1, table, work, ctl, deadline)
        if ctl[ABORTED]:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@numba.njit(cache=True)
def column_move(mask: int, col: int) -> int:
    """The bit where a stone dropped in ``col`` lands (0 when the column is full)."""
    top = 1 << (H - 1 + col * H1)
    if mask & top:
        return 0
    return (mask + (1 << (col * H1))) & (((1 << H) - 1) << (col * H1))


@numba.njit(cache=True)
def move_scores(
    current: int,
    mask: int,
    moves: int,
    table: np.ndarray,
    work: np.ndarray,
    ctl: np.ndarray,
    deadline: np.ndarray,
    out: np.ndarray,
) -> None:
    """The score of every column for the side to move (``out[col]``; -1000 for a full column):
    a stone that makes four scores ``(43 - moves) // 2``, any other is minus its child's score.
    A position that is its own mirror image gives column ``6 - c`` the score of column ``c``."""
    win = _winning_spots(current, mask)
    key = current + mask
    symmetric = _mirror(key) == key
    for col in range(W):
        out[col] = -1000
    for i in range(W):
        col = ORDER[i]
        if symmetric and col > W // 2:
            out[col] = out[W - 1 - col]  # ORDER visits column 6 - c first
            continue
        move = column_move(mask, col)
        if move == 0:
            continue
        if move & win:
            out[col] = (SIZE + 1 - moves) // 2
            continue
        if moves + 1 == SIZE:
            out[col] = 0
            continue
        v = solve(current ^ mask, mask | move, moves + 1, table, work, ctl, deadline)
        if ctl[ABORTED]:
            return
        out[col] = -v
