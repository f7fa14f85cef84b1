"""Connect: gravity m,n,k-games (Connect Four is 7 wide, 6 high, k = 4), and ``owm-connect``.

Params: ``{"cols": w, "rows": h, "k": k}`` (w, h in 2..8). A piece drops to the lowest empty
cell of its column; the move's coordinate is the cell where it lands, so reject details name
cells, like every board game here. A piece above an empty cell is a ``floating-piece``
violation. Exact solving is feasible up to about 6×5 in this Python solver; the listed schema
is 4×4 with k = 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.families import register_family
from puzzlekit.families.games import Game, GameInfo, OnlyWinningMove, int_param
from puzzlekit.families.games.mnk import MAX_SIDE, MNKGame
from puzzlekit.model import SpecError, Violation


class Connect(MNKGame):
    gravity = True
    info = GameInfo("connect", "pieces drop into columns; k in a row wins")


class ConnectFamily(OnlyWinningMove):
    name = "owm-connect"
    description = "only winning move in a connect (gravity) position"
    game_keys = ("cols", "rows", "k")
    listed_params = ({"cols": 4, "rows": 4, "k": 3},)
    max_moves_left = 4

    def game_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        cols, p1 = int_param(params, "cols", None, 2, MAX_SIDE)
        rows, p2 = int_param(params, "rows", None, 2, MAX_SIDE)
        k, p3 = int_param(params, "k", 4, 2, MAX_SIDE)
        problems = p1 + p2 + p3
        if not problems and k > max(rows, cols):  # type: ignore[operator]
            problems.append(Violation("malformed", None, "params.k", "k exceeds the board"))
        if problems:
            raise SpecError(problems)
        return {"cols": cols, "rows": rows, "k": k}

    def make_game(self, params: Mapping[str, Any]) -> Game:
        return Connect(params["rows"], params["cols"], params["k"])

    def game_id(self, params: Mapping[str, Any]) -> str:
        return f"{self.name}-{params['cols']}x{params['rows']}x{params['k']}"

    def params_from_text(self, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
        rows = text.split("/")
        out = {"rows": len(rows), "cols": len(rows[0]) if rows else 0}
        out.update(params)
        return out

    def _targets_ok(self, game: Game, state: Any) -> bool:
        # with gravity the legal moves are columns: bound the empty cells instead
        return not game.is_terminal(state) and game.plies_left(state) <= 9


CONNECT = register_family(ConnectFamily())
