"""Exact Connect Four at real size (7 columns, 6 rows, 4 in a row): the compiled solver's
Python face. It converts a position of :class:`~puzzlekit.families.games.connect.Connect` to
bitboards, runs the compiled search of :mod:`~puzzlekit.families.games._c4kernel` within a
:class:`~puzzlekit.core.protocols.SearchBudget` and a fixed-size transposition table, and turns
its scores into the games' results and distances.

Used by the Connect game's ``compiled_values`` hook (so the family's oracle, its generation
hooks and the ``gametree`` verifier all solve 7×6 positions with it); other sizes and games
keep the general search. Not for: k other than 4 or boards other than 7×6.

Scores (see the solver): ``s > 0`` the side to move wins, with its winning stone dropped when
``43 - 2s`` or ``42 - 2s`` stones are on the board (the one of its parity); ``s < 0`` the other
side wins likewise; 0 a draw. :func:`result_distance` converts a score to the family's
``(result, distance)``: 1 win / 0 draw / -1 loss, and the plies to the end under perfect play
(the winning stone included; a draw ends when the board is full).

Memory: one table of about ``table_size`` int64 slots (twice the largest prime not above half
of it: 8,388,574 slots, 64 MiB, by default) per thread and size, allocated zeroed on the
thread's first query and kept for the next ones (pages are only touched as they are used).
Each query gets a new epoch tag, and entries of other epochs read as empty, so a query sees
exactly what a freshly zeroed table would show: node counts, and so reports, do not depend on
what was solved before, and no query pays for clearing or faulting in a fresh table.
:func:`release_tables` drops the calling thread's tables.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from puzzlekit.core.protocols import SearchBudget
from puzzlekit.families.games import _c4kernel as K
from puzzlekit.families.games._game import Unfinished

#: transposition table slots asked for (near 2**23; 8 bytes each: 64 MiB)
TABLE_SIZE = 8_388_593
#: nodes between two looks at the clock
CLOCK_INTERVAL = 1 << 14
COLS, ROWS, K_IN_ROW = K.W, K.H, 4


@dataclass(frozen=True)
class Bitboards:
    """A position as the solver sees it: the side to move's stones, every stone, stones played."""

    current: int
    mask: int
    moves: int


#: the bit of each cell, row-major from the top row
_CELL_BITS = tuple(1 << (c * (ROWS + 1) + (ROWS - 1 - r)) for r in range(ROWS) for c in range(COLS))


def bitboards(cells: tuple[int, ...], to_move: int) -> Bitboards:
    """The bitboards of a 7×6 position (``cells`` row-major, top row first, 0/1/2)."""
    current = mask = 0
    for bit, v in zip(_CELL_BITS, cells, strict=True):
        if v:
            mask |= bit
            if v == to_move:
                current |= bit
    return Bitboards(current, mask, len(cells) - cells.count(0))


def result_distance(score: int, moves: int) -> tuple[int, int]:
    """``(result, distance)`` of a score for the side to move with ``moves`` stones played."""
    if score == 0:
        return 0, K.SIZE - moves
    s = abs(score)
    parity = moves % 2 if score > 0 else (moves + 1) % 2
    n = 43 - 2 * s if (43 - 2 * s) % 2 == parity else 42 - 2 * s
    return (1 if score > 0 else -1), n - moves + 1


@dataclass
class Spent:
    """Nodes and seconds one query spent."""

    nodes: int = 0
    seconds: float = 0.0


class Table:
    """A transposition table reused query after query: ``slots`` int64 entries and the epoch
    counter whose tag marks the current query's entries (see the solver's docstring), with the
    solver's scratch space, budget control and output arrays (filled in place per query)."""

    def __init__(self, size: int) -> None:
        if size < 2:
            raise ValueError(f"a table needs at least two slots (one bucket), not {size}")
        #: two slots per bucket, a prime number of buckets (keys are far from random)
        self.buckets = _prime_at_most(size // 2)
        self.slots = np.zeros(2 * self.buckets, dtype=np.int64)
        self.work = np.zeros((K.SIZE + 1, 2 * K.W), dtype=np.int64)
        self.ctl = np.zeros(5, dtype=np.int64)
        self.deadline = np.zeros(1)
        self.out = np.zeros(K.W, dtype=np.int64)
        #: the epoch sits above the entry's fields and the key's quotient by the bucket count
        self.shift = K.QUOTIENT_AT + (K.MAX_KEY // self.buckets).bit_length()
        self.epoch = 0

    def next_tag(self) -> int:
        """The tag of a new query: the next epoch, shifted into place (the slots are zeroed
        once every ``2 ** (63 - shift) - 1`` queries, when the epochs run out)."""
        self.epoch += 1
        if self.epoch >> (63 - self.shift):
            self.slots.fill(0)
            self.epoch = 1
        return self.epoch << self.shift


def _prime_at_most(n: int) -> int:
    """The largest prime not above ``n`` (``n >= 2``)."""
    while any(n % d == 0 for d in range(2, int(n**0.5) + 1)):
        n -= 1
    return n


_local = threading.local()


def _table(size: int) -> Table:
    """The calling thread's table of ``size`` slots (made on first use)."""
    tables: dict[int, Table] | None = getattr(_local, "tables", None)
    if tables is None:
        tables = _local.tables = {}
    table = tables.get(size)
    if table is None:
        table = tables[size] = Table(size)
    return table


def release_tables() -> None:
    """Drop the calling thread's tables (the next query allocates afresh)."""
    _local.tables = {}


class _Run:
    """One query: the thread's table under a new epoch, and the budget set in its control."""

    __slots__ = ("budget", "t", "start")

    def __init__(self, budget: SearchBudget | None, table_size: int) -> None:
        self.budget = budget
        self.t = t = _table(table_size)
        limit = budget.nodes if budget is not None and budget.nodes is not None else 0
        t.ctl[:] = (0, limit, CLOCK_INTERVAL - 1, 0, t.next_tag())
        self.start = time.perf_counter()
        seconds = budget.seconds if budget is not None else None
        t.deadline[0] = self.start + seconds if seconds is not None else 0.0

    def finish(self) -> Spent:
        """What the query spent; :class:`Unfinished` when its budget ran out."""
        nodes, _, _, aborted, _ = self.t.ctl.tolist()
        spent = Spent(nodes, time.perf_counter() - self.start)
        if aborted:
            b = self.budget or SearchBudget(nodes=None, seconds=None)
            resource, limit = ("nodes", b.nodes) if aborted == 1 else ("seconds", b.seconds)
            raise Unfinished(resource, float(limit or 0), spent.nodes, spent.seconds)
        return spent


def _nonterminal(board: Bitboards) -> None:
    if board.moves >= K.SIZE:
        raise ValueError("the board is full: the position has no value to search")


def score(
    board: Bitboards, budget: SearchBudget | None = None, *, table_size: int = TABLE_SIZE
) -> tuple[int, Spent]:
    """The exact score of a position nobody has won yet (see the module docstring), and what it
    cost; :class:`Unfinished` when the budget runs out."""
    _nonterminal(board)
    run = _Run(budget, table_size)
    t = run.t
    s = K.solve(board.current, board.mask, board.moves, t.slots, t.work, t.ctl, t.deadline)
    spent = run.finish()
    return int(s), spent


def move_scores(
    board: Bitboards, budget: SearchBudget | None = None, *, table_size: int = TABLE_SIZE
) -> tuple[dict[int, int], Spent]:
    """The score of every playable column for the side to move (scored as the side to move's
    score of the position after the move), and what it cost; :class:`Unfinished` when the
    budget runs out. One table serves every column."""
    _nonterminal(board)
    run = _Run(budget, table_size)
    t = run.t
    K.move_scores(board.current, board.mask, board.moves, t.slots, t.work, t.ctl, t.deadline, t.out)
    spent = run.finish()
    return {c: v for c, v in enumerate(t.out.tolist()) if v > -1000}, spent


def move_results(
    board: Bitboards, budget: SearchBudget | None = None, *, table_size: int = TABLE_SIZE
) -> tuple[dict[int, tuple[int, int]], Spent]:
    """Every playable column's ``(result, distance)`` for the side to move (the move included
    in the distance), and what it cost."""
    scores, spent = move_scores(board, budget, table_size=table_size)
    return {c: result_distance(s, board.moves) for c, s in scores.items()}, spent


__all__ = [
    "COLS",
    "K_IN_ROW",
    "ROWS",
    "TABLE_SIZE",
    "Bitboards",
    "Spent",
    "Table",
    "Unfinished",
    "bitboards",
    "move_results",
    "move_scores",
    "release_tables",
    "result_distance",
    "score",
]
