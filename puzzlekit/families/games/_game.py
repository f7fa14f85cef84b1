"""What the only-winning-move family needs of a game beyond the protocol, and its oracle:
:class:`PuzzleGame` (the helpers every built-in game fills in beside
:class:`~puzzlekit.core.protocols.Game`'s State API: move coordinates, the text format, the
position clue, a compiled solver), the results ``WIN``/``DRAW``/``LOSS``, the memoized negamax
that values every move (:func:`move_values`, :func:`winning_moves`) and the integer-param check
games share (:func:`int_param`).

Re-exported by :mod:`puzzlekit.families.games`, where games import them from. Not for puzzles:
the only-winning-move family that turns positions into puzzles is
:mod:`puzzlekit.families.games._owm`; not for the protocol itself
(:class:`~puzzlekit.core.protocols.Game`, its one home).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping
from typing import Any

from puzzlekit.core import deadline, protocols
from puzzlekit.core.model import (
    Coord,
    Variable,
    Violation,
)
from puzzlekit.core.protocols import SearchBudget

#: result of a position or move for the side to move
WIN, DRAW, LOSS = "WIN", "DRAW", "LOSS"
RESULT_NAMES = {1: WIN, 0: DRAW, -1: LOSS}


State = Hashable
Move = Hashable


class Unfinished(Exception):
    """A game solver's budget ran out: what ran out, its limit, and the nodes and seconds spent."""

    def __init__(self, resource: str, limit: float, nodes: int, seconds: float) -> None:
        super().__init__(f"the {resource} budget of {limit} ran out")
        self.resource = resource
        self.limit = limit
        self.nodes = nodes
        self.seconds = seconds


class PuzzleGame(protocols.Game):
    """A :class:`~puzzlekit.core.protocols.Game` the only-winning-move family can turn into
    puzzles. Each built-in game subclasses it and fills in the protocol (``initial``,
    ``current_player``, ``legal_actions``, ``apply_action``, ``is_terminal``, ``returns``) and the
    helpers below: a transposition key, move coordinates, the text format, the position clue,
    and optionally a compiled exact solver and repair alternatives. A state is an immutable,
    hashable value (:data:`State`); an action is a move (:data:`Move`).
    """

    def outcome(self, state: State) -> int | None:
        """The winner (1 or 2), 0 for a draw, None while the game goes on: read from
        :meth:`returns`."""
        if not self.is_terminal(state):
            return None
        first, second = self.returns(state)
        return 1 if first > second else 2 if second > first else 0

    def key(self, state: State) -> Hashable:
        """Canonical transposition key: equal for positions with equal value (symmetries)."""
        return state

    def plies_left(self, state: State) -> int:
        """Plies until no move is left when nobody wins (the distance of a drawn position)."""
        raise NotImplementedError

    # -- coordinates ------------------------------------------------------------------------
    def variables(self) -> list[Variable]:
        """One variable per move coordinate, in move order (the schema of the puzzle family)."""
        raise NotImplementedError

    def move_coord(self, state: State, move: Move) -> Coord:
        raise NotImplementedError

    def move_name(self, state: State, move: Move) -> str:
        raise NotImplementedError

    def move_label(self, state: State, move: Move) -> str:
        """How a player writes the move (default: its coordinate's name)."""
        return self.move_name(state, move)

    def move_value(self, state: State, move: Move) -> int:
        """The value the move's variable takes in a solution (the piece, or stones taken)."""
        raise NotImplementedError

    def move_at(self, state: State, coord: Coord, value: int) -> Move | None:
        """The legal move written as ``coord = value``, or None."""
        for m in self.legal_actions(state):
            if self.move_coord(state, m) == tuple(coord) and self.move_value(state, m) == value:
                return m
        return None

    # -- text -------------------------------------------------------------------------------
    def parse(self, text: str, to_move: str | None = None) -> State:
        """The position written as text; SpecError with violations at offending coordinates."""
        raise NotImplementedError

    def format(self, state: State) -> str:
        raise NotImplementedError

    def side_name(self, player: int) -> str:
        return {1: "x", 2: "o"}[player]

    # -- the position clue ------------------------------------------------------------------
    def position_data(self, state: State) -> dict[str, Any]:
        raise NotImplementedError

    def position_coords(self, state: State) -> list[Coord]:
        raise NotImplementedError

    def state_from_data(self, data: Mapping[str, Any], where: str) -> State:
        """The state of a position clue's data; SpecError with violations otherwise."""
        raise NotImplementedError

    def violations(self, state: State) -> list[Violation]:
        """What makes ``state`` an illegal position (empty for a legal one)."""
        raise NotImplementedError

    # -- a compiled exact solver (optional) -------------------------------------------------
    def solve_moves(
        self, state: State, budget: SearchBudget | None = None
    ) -> tuple[tuple[tuple[Move, int, int], ...], int] | None:
        """A compiled exact solver's values of a non-terminal ``state``: every legal move (in
        ``legal_moves`` order) with its result (1 win, 0 draw, -1 loss for the mover) and
        distance (plies to the end under perfect play, the move included), and the nodes
        searched; :class:`Unfinished` when ``budget`` runs out. None (the default) when the game
        has no such solver at these params: the general search serves."""
        return None

    def alternatives(self, state: State, coord: Coord, keep: Move) -> list[tuple[str, State]]:
        """Nearby positions (action name, state) where the move at ``coord`` may stop winning
        while ``keep`` stays legal: the generator's repair moves. Candidates, not checked."""
        return []


# --- the family's oracle: memoized negamax ----------------------------------------------------


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether (result, distance) ``a`` is better for the side to move than ``b``: a win beats a
    draw beats a loss; a faster win, a slower loss."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1] if a[0] > 0 else a[1] > b[1]


def _value(game: PuzzleGame, state: State, memo: dict) -> tuple[int, int]:
    k = game.key(state)
    hit = memo.get(k)
    if hit is not None:
        return hit
    if (len(memo) & 1023) == 0:
        deadline.check()  # the deadline of a search calling this rule (none: solve it all)
    if game.is_terminal(state):
        mine = game.returns(state)[game.current_player(state) - 1]
        best = (0 if mine == 0 else (1 if mine > 0 else -1), 0)
    else:
        best = None
        for m in game.legal_actions(state):
            r, d = _value(game, game.apply_action(state, m), memo)
            cand = (-r, d + 1)
            if best is None or _better(cand, best):
                best = cand
    memo[k] = best
    return best


#: the budget of the oracle's compiled solver, where a game has one (positions the family draws
#: solve in well under a second; the bound keeps a pathological one from running for ever)
ORACLE_BUDGET = SearchBudget(nodes=None, seconds=600.0)


@functools.lru_cache(maxsize=4096)
def move_values(game: PuzzleGame, state: State) -> tuple[tuple[Move, int, int], ...]:
    """Every legal move with its result (1 win, 0 draw, -1 loss for the mover) and distance
    (plies to the end under perfect play, the move included). Exhaustive, memoized per call;
    a game's compiled solver (:meth:`PuzzleGame.solve_moves`) answers where it has one. Called
    under a search's deadline (:mod:`puzzlekit.core.deadline`: a verifier's search reaching it
    through the family's rule), it raises :class:`~puzzlekit.core.deadline.BudgetExceeded` once
    that deadline passes."""
    if not game.is_terminal(state):
        left = deadline.remaining()
        if left is None:
            fast = game.solve_moves(state, ORACLE_BUDGET)
        else:  # a search with a budget asks: the solver gets what is left of it
            # (at least a microsecond: a deadline just past is a budget run out, and a budget of
            # 0 s, which SearchBudget refuses, read as a rule that raised: false, UNSOLVABLE)
            seconds = max(min(left, ORACLE_BUDGET.seconds or left), 1e-6)
            bounded = SearchBudget(nodes=None, seconds=seconds)
            try:
                fast = game.solve_moves(state, bounded)
            except Unfinished as exc:
                raise deadline.BudgetExceeded("seconds", left) from exc
        if fast is not None:
            return fast[0]
    memo: dict = {}
    out = []
    for m in game.legal_actions(state):
        r, d = _value(game, game.apply_action(state, m), memo)
        out.append((m, -r, d + 1))
    return tuple(out)


def winning_moves(game: PuzzleGame, state: State, fastest: bool = False) -> list[Move]:
    """The moves that win (with ``fastest``: the moves that win in the fewest plies)."""
    wins = [(m, d) for m, r, d in move_values(game, state) if r > 0]
    if fastest and wins:
        best = min(d for _, d in wins)
        wins = [(m, d) for m, d in wins if d == best]
    return [m for m, _ in wins]


def int_param(
    params: Mapping[str, Any], key: str, default: int | None, lo: int, hi: int
) -> tuple[int | None, list[Violation]]:
    """An integer param in ``lo..hi`` (``default`` when absent), with the violation if not."""
    value = params.get(key, default)
    if value is None:
        return None, [Violation("malformed", None, f"params.{key}", "missing required param")]
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        return None, [
            Violation(
                "malformed", None, f"params.{key}", f"must be an integer {lo}..{hi}: {value!r}"
            )
        ]
    return value, []
