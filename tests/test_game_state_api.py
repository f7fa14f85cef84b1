"""Every built-in game fills in OpenSpiel's State API (``puzzlekit.core.protocols.Game``) and
agrees with its own verdict code: a random playout through the object form (``GameState``:
``legal_actions``, ``apply_action``, ``is_terminal``, ``returns``, ``clone``) reaches an end
whose returns the game's text format reads back, and a negamax written over that API alone
values every move of the playout's late positions as the family's oracle (``move_values``: the
memoized negamax, or Connect Four's compiled solver) and the ``gametree`` verifier's
``game_verdict`` do."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlekit.core import protocols
from puzzlekit.core.protocols import GameState
from puzzlekit.families.games import move_values
from puzzlekit.families.games.connect import Connect
from puzzlekit.families.games.mnk import MNKGame
from puzzlekit.families.games.nim import Nim
from puzzlekit.families.games.tictactoe import TicTacToe
from puzzlekit.verifiers.gametree import game_verdict

GAMES = [TicTacToe(), MNKGame(4, 4, 3), Connect(4, 4, 3), Connect(6, 7, 4), Nim(3, 4)]
IDS = ["tictactoe", "mnk-4x4x3", "connect-4x4x3", "connect-four", "nim-3x4"]
REQUIRED = ("initial", "current_player", "legal_actions", "apply_action", "is_terminal", "returns")
RESULT = {1: "WIN", 0: "DRAW", -1: "LOSS"}
#: the nodes the State-API negamax may spend on one position (late positions fit easily)
NODE_CAP = 4_000


class TooBig(Exception):
    pass


def playout(game: protocols.Game, seed: int, *, long: bool = False) -> list[GameState]:
    """The states of one random game, played through the object form; ``long``: an action that
    ends the game only when every action does (the late positions have few actions left)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    seen = [state.clone()]
    while not state.is_terminal():
        actions = state.legal_actions()
        assert actions, "a state that is not terminal has an action"
        if long:
            actions = [a for a in actions if not _ends(state, a)] or actions
        state.apply_action(actions[int(rng.integers(len(actions)))])
        seen.append(state.clone())
    assert state.legal_actions() == []
    return seen


def _ends(state: GameState, action) -> bool:
    child = state.clone()
    child.apply_action(action)
    return child.is_terminal()


def negamax(state: GameState, budget: list[int]) -> int:
    """The value for the player to move, read through the State API alone."""
    budget[0] -= 1
    if budget[0] < 0:
        raise TooBig
    if state.is_terminal():
        return int(state.returns()[state.current_player() - 1])
    best = -2
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        best = max(best, -negamax(child, budget))
    return best


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_game_fills_in_the_protocol(game: protocols.Game) -> None:
    assert isinstance(game, protocols.Game)
    assert isinstance(game.info, protocols.GameInfo)
    for hook in REQUIRED:
        assert getattr(type(game), hook) is not getattr(protocols.Game, hook), hook


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("seed", range(4))
def test_a_random_playout_ends_as_the_game_reads_its_end(game, seed: int) -> None:
    end = playout(game, seed)[-1]
    returns = end.returns()
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    assert game.outcome(end.state) == (0 if returns[0] == returns[1] else 1 + (returns[1] > 0))
    side = game.side_name(end.current_player())
    back = game.parse(game.format(end.state), side)  # the text a position clue holds
    assert game.violations(back) == []
    mover = end.current_player()
    assert game.is_terminal(back)  # Nim's text leaves out the side to move: its value stays
    assert game.returns(back)[game.current_player(back) - 1] == returns[mover - 1]
    assert game_verdict(game, end.state).result == RESULT[int(returns[mover - 1])]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("seed", range(3))
def test_the_state_api_values_moves_as_the_oracle_and_the_verifier_do(game, seed: int) -> None:
    checked = 0
    for state in reversed(playout(game, seed, long=True)[:-1]):
        try:
            values = []
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                values.append((action, -negamax(child, [NODE_CAP])))
        except TooBig:
            break
        oracle = {m: r for m, r, _ in move_values(game, state.state)}
        assert {a: v for a, v in values} == oracle
        verdict = game_verdict(game, state.state)
        assert verdict.result == RESULT[max(v for _, v in values)]
        assert {m.move: m.result for m in verdict.moves} == {a: RESULT[v] for a, v in values}
        checked += 1
        if checked == 6:
            break
    assert checked >= 3


def test_apply_action_changes_the_state_and_clone_keeps_it() -> None:
    game = TicTacToe()
    state = game.new_initial_state()
    copy = state.clone()
    state.apply_action(4)
    assert copy.state == game.initial() and state.state == game.apply_action(game.initial(), 4)
    assert state.current_player() == 2 and 4 not in state.legal_actions()
    with pytest.raises(ValueError, match="not a legal action"):
        state.apply_action(4)
    assert state.returns() == (0.0, 0.0)
