"""Connect: gravity m,n,k-games (Connect Four is 7 wide, 6 high, k = 4), and ``owm-connect``.

Params: ``{"cols": w, "rows": h, "k": k}`` (w, h in 2..8). A piece drops to the lowest empty
cell of its column; the move's coordinate is the cell where it lands, so reject details name
cells, like every board game here. A piece above an empty cell is a ``floating-piece``
violation. Exact solving is feasible up to about 6×5 in this Python solver; the listed schema
is 4×4 with k = 3.
"""

from __future__ import annotations

from typing import Any

from puzzlekit.families import register_family
from puzzlekit.families.games import Game, GameInfo
from puzzlekit.families.games.mnk import MNKFamily, MNKGame


class Connect(MNKGame):
    gravity = True
    info = GameInfo("connect", "pieces drop into columns; k in a row wins")


class ConnectFamily(MNKFamily):
    name = "owm-connect"
    description = "only winning move in a connect (gravity) position"
    game_keys = ("cols", "rows", "k")
    listed_params = ({"cols": 4, "rows": 4, "k": 3},)
    max_moves_left = 4
    game_class = Connect
    default_k = 4

    def _targets_ok(self, game: Game, state: Any) -> bool:
        # with gravity the legal moves are columns: bound the empty cells instead
        return not game.is_terminal(state) and game.plies_left(state) <= 9


CONNECT = register_family(ConnectFamily())
