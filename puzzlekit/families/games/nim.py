"""Nim (normal play): take one or more stones from one heap; who takes the last stone wins.

Params of ``owm-nim``: ``{"heaps": n, "max": m}`` (n heaps of at most m stones). State:
``(heaps, to_move)``. A move is ``(heap, stones taken)``; its coordinate is ``(heap,)``, its
name ``h{heap+1}`` and its value the number of stones taken, so a solution reads ``h2 = 3``.
A heap has at most one winning move (leave the xor of the heaps at zero), so a heap coordinate
names a winning move unambiguously. Text: heap sizes joined by commas, ``3,4,5``. The side to
move does not change the value (Nim is impartial) and is not written.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import reduce
from operator import xor
from typing import Any

from puzzlekit.core.model import Coord, SpecError, Variable, Violation
from puzzlekit.core.protocols import FamilyInfo, GameInfo
from puzzlekit.core.reading import is_digits
from puzzlekit.families import register_family
from puzzlekit.families.games import Move, OnlyWinningMove, PuzzleGame, State, int_param

MAX_HEAPS, MAX_STONES = 8, 31


class Nim(PuzzleGame):
    info = GameInfo("nim", "heaps of stones; who takes the last stone wins", draws=False)

    def __init__(self, heaps: int, max: int) -> None:  # noqa: A002 (the param's name)
        super().__init__(heaps=heaps, max=max)
        self.heaps, self.max = heaps, max

    def initial(self) -> State:
        return ((self.max,) * self.heaps, 1)

    def current_player(self, state: State) -> int:
        return state[1]

    def legal_actions(self, state: State) -> list[Move]:
        return [(i, t) for i, h in enumerate(state[0]) for t in range(1, h + 1)]

    def apply_action(self, state: State, move: Move) -> State:
        heaps, p = state
        i, t = move  # type: ignore[misc]
        return (heaps[:i] + (heaps[i] - t,) + heaps[i + 1 :], 3 - p)

    def is_terminal(self, state: State) -> bool:
        return not any(state[0])

    def returns(self, state: State) -> tuple[float, float]:
        if any(state[0]):
            return (0.0, 0.0)
        return (1.0, -1.0) if state[1] == 2 else (-1.0, 1.0)  # who took the last stone won

    def key(self, state: State) -> Hashable:
        return tuple(sorted(state[0]))

    def plies_left(self, state: State) -> int:
        return sum(state[0])

    def variables(self) -> list[Variable]:
        return [Variable((i,), f"h{i + 1}", tuple(range(self.max + 1))) for i in range(self.heaps)]

    def move_coord(self, state: State, move: Move) -> Coord:
        return (move[0],)  # type: ignore[index]

    def move_name(self, state: State, move: Move) -> str:
        return f"h{move[0] + 1}"  # type: ignore[index]

    def move_label(self, state: State, move: Move) -> str:
        return f"h{move[0] + 1}-{move[1]}"  # type: ignore[index]

    def move_value(self, state: State, move: Move) -> int:
        return move[1]  # type: ignore[index]

    def move_at(self, state: State, coord: Coord, value: int) -> Move | None:
        if len(coord) != 1 or not 0 <= coord[0] < self.heaps:
            return None
        return (coord[0], value) if 1 <= value <= state[0][coord[0]] else None

    def violations(self, state: State) -> list[Violation]:
        heaps = state[0]
        out = []
        if len(heaps) != self.heaps:
            out.append(
                Violation(
                    "shape-mismatch",
                    None,
                    "heaps",
                    f"expected {self.heaps} heaps, got {len(heaps)}",
                )
            )
        for i, h in enumerate(heaps):
            if not isinstance(h, int) or isinstance(h, bool):
                out.append(Violation("malformed", (i,), f"h{i + 1}", f"not a heap size: {h!r}"))
            elif not 0 <= h <= self.max:
                out.append(
                    Violation("out-of-domain", (i,), f"h{i + 1}", f"{h} is not in 0..{self.max}")
                )
        return out

    def parse(self, text: str, to_move: str | None = None) -> State:
        parts = [p.strip() for p in text.strip().split(",")]
        heaps: list[Any] = []
        for i, p in enumerate(parts):
            if not is_digits(p) or len(p) > 6:
                raise SpecError(
                    [Violation("malformed", (i,), f"h{i + 1}", f"not a heap size: {p[:20]!r}")]
                )
            heaps.append(int(p))
        return self.from_heaps(heaps)

    def from_heaps(self, heaps: list[Any]) -> State:
        bad = self.violations((tuple(heaps), 1))
        if bad:
            raise SpecError(bad)
        return (tuple(heaps), 1)

    def format(self, state: State) -> str:
        return ",".join(str(h) for h in state[0])

    def position_data(self, state: State) -> dict[str, Any]:
        return {"heaps": list(state[0])}

    def position_coords(self, state: State) -> list[Coord]:
        return [(i,) for i in range(len(state[0]))]

    def state_from_data(self, data: Mapping[str, Any], where: str) -> State:
        extra = sorted(set(data) - {"heaps"})
        heaps = data.get("heaps")
        if extra or not isinstance(heaps, list):
            raise SpecError(
                [Violation("malformed", None, where, 'a Nim position is {"heaps": [sizes]}')]
            )
        return self.from_heaps(heaps)

    def alternatives(self, state: State, coord: Coord, keep: Move) -> list[tuple[str, State]]:
        heaps, p = state
        j = coord[0]
        i, t = keep  # type: ignore[misc]
        out = []
        for v in range(self.max + 1):
            if v == heaps[j] or j == i:
                continue
            new = list(heaps)
            new[j] = v
            new[i] = reduce(xor, (h for n, h in enumerate(new) if n != i), 0) + t
            if new[i] <= self.max:
                out.append(("reheap", (tuple(new), p)))
        return out


class NimFamily(OnlyWinningMove):
    info = FamilyInfo(
        name="owm-nim",
        description="only winning move in a Nim position (normal play)",
        clue_kinds=("position",),
        listed_params=({"heaps": 3, "max": 4},),
        default_verifier="gametree",
        golden_verifier="gametree",
        size_limits={"heaps": MAX_HEAPS, "max": MAX_STONES},
        rules_text=(
            "Nim: the counts are heaps of counters (heap 1 first). Players take turns removing "
            "any number of counters, at least one, from one heap; whoever takes the last counter "
            "wins. Find the move that wins for the player to move under perfect play by both, "
            "written `hH-N`: take N counters from heap H."
        ),
    )
    game_keys = ("heaps", "max")
    max_moves_left = 12

    def _targets_ok(self, game: PuzzleGame, state: Any) -> bool:
        # at least two heaps left: one heap is won by taking it all, not a puzzle
        return sum(1 for h in state[0] if h) >= 2 and len(game.legal_actions(state)) <= 12

    def game_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        heaps, p1 = int_param(params, "heaps", None, 1, MAX_HEAPS)
        top, p2 = int_param(params, "max", 7, 1, MAX_STONES)
        if p1 + p2:
            raise SpecError(p1 + p2)
        return {"heaps": heaps, "max": top}

    def make_game(self, params: Mapping[str, Any]) -> PuzzleGame:
        return Nim(params["heaps"], params["max"])

    def game_id(self, params: Mapping[str, Any]) -> str:
        return f"{self.info.name}-{params['heaps']}x{params['max']}"

    def params_from_text(self, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
        parts = text.split(",")
        sizes = [int(p) for p in map(str.strip, parts) if is_digits(p) and len(p) <= 6]
        out: dict[str, Any] = {"heaps": len(parts), "max": max([7, *sizes])}
        out.update(params)
        return out


NIM = register_family(NimFamily())
