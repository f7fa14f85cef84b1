"""Two-player perfect-information games, and the only-winning-move puzzle family built on them.

A **game** (one module per game: ``tictactoe``, ``mnk``, ``connect``, ``nim``) fills in
OpenSpiel's State API, the protocol :class:`puzzlekit.core.protocols.Game`, in this order:
``initial``, ``current_player``, ``legal_actions``, ``apply_action``, ``is_terminal``,
``returns``; and beside it the helpers of :class:`PuzzleGame` the only-winning-move family
needs: ``key`` (canonical key for transpositions, symmetric positions share one), the move
coordinates (``move_coord``, ``move_name``, ``move_value``, ``move_at``), and the text format
(``parse``, ``format``, ``violations``). States are immutable tuples, so a solver may keep them
in tables; a game describes itself with a ``GameInfo`` record instead of special cases in the
core.

The **only-winning-move family** (:class:`OnlyWinningMove`, one registered family per game,
named ``owm-<game>``) turns a position into a puzzle: "find the only move that wins under
perfect play". Its schema has one variable per move coordinate (a board cell ``r2c3`` with
domain ``0`` or the mover's piece ``1``/``2``; a Nim heap ``h2`` with the number of stones
taken), and its rules say exactly one move is played. The instance holds one ``position`` clue
(the whole position: ``{"rows": "x.o/.x./...", "toMove": "x"}`` or ``{"heaps": [3, 4, 5]}``);
a solution is a winning move written as that assignment, so a verdict is UNIQUE when exactly one
move wins, MULTIPLE when several do (the reject detail names them by move coordinate) and
UNSOLVABLE when none does. With ``variant = "fastest"`` the puzzle asks for the fastest win and
is unique by distance. Illegal positions (wrong piece counts, play after a win, a floating piece)
are INVALID_SPEC with violations at the offending cells.

The clue's constraints include an opaque ``Predicate`` whose oracle is :func:`move_values`
(a memoized negamax over the game tree, or a game's compiled solver where it has one:
Connect Four 7×6, :mod:`~puzzlekit.families.games.connect4`), so the enumerative reference can
verify these instances; the exact game verifiers (``puzzlekit/verifiers/gametree.py``) solve the
position themselves.

Not for: games with chance, hidden information or more than two players, nor positions beyond
exhaustive search within a budget (early Connect Four positions take the compiled solver
seconds to minutes; other games the Python search).

Layout: the protocol is in :mod:`puzzlekit.core.protocols`; ``PuzzleGame``, the results and
the negamax oracle are in :mod:`~puzzlekit.families.games._game`, the family in
:mod:`~puzzlekit.families.games._owm`; this package re-exports both, and each game module
registers its family.
"""

from __future__ import annotations

from puzzlekit.families.games._game import (
    DRAW,
    LOSS,
    RESULT_NAMES,
    WIN,
    Move,
    PuzzleGame,
    State,
    Unfinished,
    int_param,
    move_values,
    winning_moves,
)
from puzzlekit.families.games._owm import PLAYOUTS, VARIANTS, OnlyWinningMove

__all__ = [
    "PLAYOUTS",
    "VARIANTS",
    "DRAW",
    "LOSS",
    "RESULT_NAMES",
    "WIN",
    "Move",
    "OnlyWinningMove",
    "PuzzleGame",
    "State",
    "Unfinished",
    "int_param",
    "move_values",
    "winning_moves",
]
