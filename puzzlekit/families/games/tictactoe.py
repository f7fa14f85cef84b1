"""Tic-tac-toe: the 3,3,3-game, and its only-winning-move family ``owm-tictactoe``.

No params. Positions are written ``x.o/.x./...`` (rows top to bottom); the board machinery is
:class:`puzzlekit.families.games.mnk.MNKGame`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.core.model import SpecError, Violation
from puzzlekit.core.protocols import FamilyInfo, GameInfo
from puzzlekit.families import register_family
from puzzlekit.families.games import OnlyWinningMove, PuzzleGame
from puzzlekit.families.games.mnk import MNKGame


class TicTacToe(MNKGame):
    info = GameInfo("tictactoe", "3×3 board, three in a row wins")

    def __init__(self) -> None:
        super().__init__(3, 3, 3)


class TicTacToeFamily(OnlyWinningMove):
    info = FamilyInfo(
        name="owm-tictactoe",
        description="only winning move in a tic-tac-toe position",
        clue_kinds=("position",),
        listed_params=({}, {"variant": "fastest"}),
        default_verifier="gametree",
        golden_verifier="gametree",
        rules_text=(
            "Tic-tac-toe: two players take turns placing `x` and `o` on the 3×3 board (`.` is "
            "empty; x moves first, so x is to move when both have as many pieces); three in a row "
            "across, down or diagonally wins. Find the move that wins for the player to move "
            "under perfect play by both (if several win, the fastest)."
        ),
    )

    def game_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        if params:
            raise SpecError(
                [
                    Violation("unknown-field", None, f"params.{k}", "tic-tac-toe has no params")
                    for k in sorted(params)
                ]
            )
        return {}

    def make_game(self, params: Mapping[str, Any]) -> PuzzleGame:
        return TicTacToe()


TICTACTOE = register_family(TicTacToeFamily())
