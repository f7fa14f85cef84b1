"""Exact Connect Four at real size (7 columns, 6 rows, 4 in a row): the compiled solver's
Python face. It converts a position of :class:`~puzzlekit.families.games.connect.Connect` to
bitboards, runs the compiled search of :mod:`~puzzlekit.families.games._c4kernel` within a
:class:`~puzzlekit.core.protocols.SearchBudget` and a fixed-size transposition table, and turns
its scores into the games' results and distances.

Used by the Connect game's ``compiled_values`` hook (so the family's oracle, its generation
hooks and the ``gametree`` verifier all solve 7×6 positions with it); other sizes and games
keep the general search. Not for: k other than 4 or boards other than 7×6.

Scores (see the kernel): ``s > 0`` the side to move wins, with its winning stone dropped when
``43 - 2s`` or ``42 - 2s`` stones are on the board (the one of its parity); ``s < 0`` the other
side wins likewise; 0 a draw. :func:`result_distance` converts a score to the family's
``(result, distance)``: 1 win / 0 draw / -1 loss, and the plies to the end under perfect play
(the winning stone included; a draw ends when the board is full).

Memory: one table of ``table_size`` int64 slots (default a prime near 2**23: 64 MiB) per thread
and size, allocated zeroed on the thread's first query and kept for the next ones (pages are
only touched as they are used). Each query gets a new epoch tag, and entries of other epochs
read as empty, so a query sees exactly what a freshly zeroed table would show: node counts, and
so reports, do not depend on what was solved before, and no query pays for clearing or faulting
in a fresh table. :func:`release_tables` drops the calling thread's tables.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from puzzlekit.core.protocols import SearchBudget
from puzzlekit.families.games import _c4kernel as K
from puzzlekit.families.games._game import Unfinished

#: transposition table slots (a prime near 2**23; 8 bytes each: 64 MiB)
TABLE_SIZE = 8_388_593
#: nodes between two looks at the clock
CLOCK_INTERVAL = 1 << 14
COLS, ROWS, K_IN_ROW = K.W, K.H, 4


@dataclass(frozen=True)
class Bitboards:
    """A position as the kernel sees it: the side to move's stones, every stone, stones played."""

    current: int
    mask: int
    moves: int


def bitboards(cells: tuple[int, ...], to_move: int) -> Bitboards:
    """The bitboards of a 7×6 position (``cells`` row-major, top row first, 0/1/2)."""
    current = mask = 0
    for i, v in enumerate(cells):
        if v:
            r, c = divmod(i, COLS)
            bit = 1 << (c * (ROWS + 1) + (ROWS - 1 - r))
            mask |= bit
            if v == to_move:
                current |= bit
    return Bitboards(current, mask, sum(1 for v in cells if v))


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
    counter whose tag marks the current query's entries (see the kernel's docstring)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a table needs at least one slot, not {size}")
        self.slots = np.zeros(size, dtype=np.int64)
        self.work = np.zeros((K.SIZE + 1, 2 * K.W), dtype=np.int64)
        #: the epoch sits above the value (8 bits) and the key's quotient by the size
        self.shift = 8 + (K.MAX_KEY // size).bit_length()
        self.epoch = 0

    def next_tag(self) -> int:
        """The tag of a new query: the next epoch, shifted into place (the slots are zeroed
        once every ``2 ** (63 - shift) - 1`` queries, when the epochs run out)."""
        self.epoch += 1
        if self.epoch >> (63 - self.shift):
            self.slots.fill(0)
            self.epoch = 1
        return self.epoch << self.shift


_local = threading.local()


def _table(size: int) -> Table:
    """The calling thread's table of ``size`` slots (made on first use)."""
    tables: dict[int, Table] | None = getattr(_local, "tables", None)
    if tables is None:
        tables = _local.tables = {}
    if size not in tables:
        tables[size] = Table(size)
    return tables[size]


def release_tables() -> None:
    """Drop the calling thread's tables (the next query allocates afresh)."""
    _local.tables = {}


class _Run:
    """One query's table (the thread's, under a new epoch), scratch space and budget control."""

    def __init__(self, budget: SearchBudget | None, table_size: int) -> None:
        b = budget or SearchBudget(nodes=None, seconds=None)
        self.budget = b
        table = _table(table_size)
        self.table = table.slots
        self.work = table.work
        self.ctl = np.zeros(5, dtype=np.int64)
        self.ctl[K.EPOCH] = table.next_tag()
        self.ctl[K.LIMIT] = b.nodes if b.nodes is not None else 0
        self.ctl[K.INTERVAL] = CLOCK_INTERVAL - 1
        self.start = time.perf_counter()
        self.deadline = np.array([self.start + b.seconds if b.seconds is not None else 0.0])

    def spent(self) -> Spent:
        return Spent(int(self.ctl[K.NODES]), time.perf_counter() - self.start)

    def check(self) -> None:
        if self.ctl[K.ABORTED]:
            sp = self.spent()
            if self.ctl[K.ABORTED] == 1:
                raise Unfinished("nodes", float(self.budget.nodes or 0), sp.nodes, sp.seconds)
            raise Unfinished("seconds", float(self.budget.seconds or 0), sp.nodes, sp.seconds)


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
    s = K.solve(board.current, board.mask, board.moves, run.table, run.work, run.ctl, run.deadline)
    run.check()
    return int(s), run.spent()


def move_scores(
    board: Bitboards, budget: SearchBudget | None = None, *, table_size: int = TABLE_SIZE
) -> tuple[dict[int, int], Spent]:
    """The score of every playable column for the side to move (scored as the side to move's
    score of the position after the move), and what it cost; :class:`Unfinished` when the
    budget runs out. One table serves every column."""
    _nonterminal(board)
    run = _Run(budget, table_size)
    out = np.zeros(K.W, dtype=np.int64)
    K.move_scores(
        board.current, board.mask, board.moves, run.table, run.work, run.ctl, run.deadline, out
    )
    run.check()
    return {c: int(out[c]) for c in range(K.W) if out[c] > -1000}, run.spent()


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
