"""Connect: gravity m,n,k-games (Connect Four is 7 wide, 6 high, k = 4), and ``owm-connect``.

Params: ``{"cols": w, "rows": h, "k": k}`` (w, h in 2..8; default 7, 6 and 4: Connect Four). A
piece drops to the lowest empty cell of its column; the move's coordinate is the cell where it
lands, so reject details name cells, like every board game here. A piece above an empty cell is
a ``floating-piece`` violation.

Connect Four itself (7×6, k = 4) is solved by the compiled bitboard solver of
:mod:`puzzlekit.families.games.connect4` (:meth:`Connect.solve_moves`); other sizes by the
general search, where exact solving is feasible up to about 6×5. The listed schema is 4×4 with
k = 3; generation at 7×6 draws positions from random games, keeps those with at least
:data:`MIN_STONES_7X6` stones in which the side to move cannot win at once and is not forced to
block, so each puzzle needs reading ahead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.core.model import SpecError, Violation
from puzzlekit.core.protocols import GameInfo, SearchBudget
from puzzlekit.families import register_family
from puzzlekit.families.games import Move, PuzzleGame, State, int_param
from puzzlekit.families.games.mnk import MAX_SIDE, MNKFamily, MNKGame

#: generated 7×6 positions have at least this many stones (the holdouts follow in seconds)
MIN_STONES_7X6 = 28


class Connect(MNKGame):
    gravity = True
    info = GameInfo("connect", "pieces drop into columns; k in a row wins")

    def is_connect_four(self) -> bool:
        """Whether this is Connect Four proper (7×6, k = 4), which the compiled solver knows."""
        return (self.cols, self.rows, self.k) == (7, 6, 4)

    def solve_moves(
        self, state: State, budget: SearchBudget | None = None
    ) -> tuple[tuple[tuple[Move, int, int], ...], int] | None:
        if not self.is_connect_four() or self.is_terminal(state):
            return None
        from puzzlekit.families.games import connect4

        cells, side, _ = state
        results, spent = connect4.move_results(connect4.bitboards(cells, side), budget)
        moves = self.legal_actions(state)
        out = tuple((m, *results[int(m) % self.cols]) for m in moves)  # type: ignore[call-overload]
        return out, spent.nodes


class ConnectFamily(MNKFamily):
    info = MNKFamily.info.replace(  # the same kinds, backends and limits
        name="owm-connect",
        description="only winning move in a connect (gravity) position",
        listed_params=({"cols": 4, "rows": 4, "k": 3},),
        rules_text=(
            "A connect game on a board of {cols} columns and {rows} rows: two players take turns "
            "dropping `x` and `o` into a column, where the piece falls to the lowest empty cell "
            "(`.` is empty; x moves first). The first to get {k} in a row across, down or "
            "diagonally wins. Find the move that wins for the player to move under perfect play "
            "by both (if several win, the fastest); a move is named by the cell it fills."
        ),
    )
    game_keys = ("cols", "rows", "k")
    max_moves_left = 4
    game_class = Connect
    default_k = 4

    def game_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        # Connect Four unless told otherwise
        cols, p1 = int_param(params, "cols", 7, 2, MAX_SIDE)
        rows, p2 = int_param(params, "rows", 6, 2, MAX_SIDE)
        k, p3 = int_param(params, "k", self.default_k, 2, MAX_SIDE)
        problems = p1 + p2 + p3
        if not problems and k > max(rows, cols):  # type: ignore[operator]
            problems.append(Violation("malformed", None, "params.k", "k exceeds the board"))
        if problems:
            raise SpecError(problems)
        return {"rows": rows, "cols": cols, "k": k}

    def _pick(self, game: PuzzleGame, state: State, moves: list[Move], rng: Any) -> Move:
        """Connect Four playouts avoid one-ply blunders (completing four, or letting the other
        side complete four next), so that games reach the middle and the end of the board."""
        if isinstance(game, Connect) and game.is_connect_four():
            quiet = [m for m in moves if not _blunder(game, state, m)]
            moves = quiet or moves
        return moves[int(rng.integers(len(moves)))]

    def _targets_ok(self, game: PuzzleGame, state: Any) -> bool:
        if game.is_terminal(state):
            return False
        if isinstance(game, Connect) and game.is_connect_four():
            return _stones(state) >= MIN_STONES_7X6 and not _trivial(game, state)
        # with gravity the legal moves are columns: bound the empty cells instead
        return game.plies_left(state) <= 9


def _stones(state: State) -> int:
    return sum(1 for v in state[0] if v)  # type: ignore[index]


def _trivial(game: Connect, state: State) -> bool:
    """Whether one ply of reading settles the position: the side to move wins at once, or must
    block the other side's four (a forced move, or a lost position when there are two)."""
    cells, side, _ = state  # type: ignore[misc]
    for m in game.legal_actions(state):
        if game.apply_action(state, m)[2]:
            return True
        other = (cells, 3 - side, 0)
        if game.apply_action(other, m)[2]:
            return True
    return False


def _blunder(game: Connect, state: State, move: Move) -> bool:
    """Whether ``move`` ends the game or lets the other side complete four at once."""
    after = game.apply_action(state, move)
    if after[2]:  # type: ignore[index]
        return True
    return any(game.apply_action(after, m)[2] for m in game.legal_actions(after))  # type: ignore[index]


CONNECT = register_family(ConnectFamily())
