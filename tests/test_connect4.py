"""Connect Four at real size: the compiled 7×6 solver against the committed scores of an
independent solver (tests/data/connect4, from bitbully; bitbully is not needed here), against the
general alpha-beta search (the holdout) on late positions, its budgets and table bound, and the
verifiers and commands that expose it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from benchmarks.c4bench import cells_of
from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family
from puzzlekit.families.games import Unfinished, connect4
from puzzlekit.verifiers.gametree import GameBudgetExceeded, game_verdict
from puzzlekit.verifiers.registry import get_verifier

DATA = json.loads((Path(__file__).parent / "data/connect4/positions.json").read_text())
POSITIONS = DATA["positions"]
LATE_MID = [p for p in POSITIONS if p["band"] in ("late", "mid")]
#: a few early positions (10–15 stones; each takes seconds): the benchmark runs them all
EARLY = [p for p in POSITIONS if p["band"] == "early"][:3]
FAMILY = get_family("owm-connect")
GAME = FAMILY.game({})


def _board(moves: str) -> connect4.Bitboards:
    cells, side = cells_of(moves)
    return connect4.bitboards(cells, side)


def _state(moves: str) -> tuple:
    cells, side = cells_of(moves)
    return GAME.check(cells, side)[0]


def _want(p: dict) -> dict[int, int]:
    return {int(c) - 1: s for c, s in p["moveScores"].items()}


def test_the_committed_data_covers_every_band_with_provenance() -> None:
    prov = DATA["provenance"]
    assert prov["tool"] == "bitbully" and prov["version"] and prov["command"] and prov["date"]
    bands = {b: sum(1 for p in POSITIONS if p["band"] == b) for b in ("late", "mid", "early")}
    assert bands["late"] >= 100 and bands["mid"] >= 50 and bands["early"] >= 20
    for p in POSITIONS:
        lo, hi = {"late": (24, 42), "mid": (16, 23), "early": (10, 15)}[p["band"]]
        assert lo <= p["stones"] == len(p["moves"]) <= hi


@pytest.mark.parametrize("p", LATE_MID + EARLY, ids=lambda p: f"{p['band']}-{p['moves']}")
def test_every_move_scores_as_the_independent_solver_says(p: dict) -> None:
    scores, spent = connect4.move_scores(_board(p["moves"]))
    assert scores == _want(p)
    assert max(scores.values()) == p["score"]
    assert spent.nodes >= 0


@pytest.mark.parametrize("p", LATE_MID[::10], ids=lambda p: p["moves"])
def test_the_position_score_is_the_best_move_score(p: dict) -> None:
    s, _ = connect4.score(_board(p["moves"]))
    assert s == p["score"]


def test_a_tiny_table_replaces_entries_and_stays_exact() -> None:
    # the table is a fixed number of slots; far too few of them costs time, never exactness
    for p in LATE_MID[::25]:
        scores, _ = connect4.move_scores(_board(p["moves"]), table_size=1009)
        assert scores == _want(p)


@pytest.mark.parametrize(
    ("score", "moves", "expected"),
    [
        (21, 0, (1, 1)),  # (43 - 0) // 2: the side to move wins with its first stone
        (1, 0, (1, 41)),  # the empty board: x wins with its 21st stone, the 41st ply
        (-1, 1, (-1, 40)),  # o to move after one stone: x wins on ply 41, 40 plies on
        (0, 30, (0, 12)),  # a draw ends when the board is full
        (6, 30, (1, 1)),  # 30 stones, win at once: (43 - 30) // 2
        (5, 30, (1, 3)),  # win with the stone after next
        (-6, 30, (-1, 2)),  # the other side wins with its next stone
    ],
)
def test_scores_convert_to_result_and_distance(score: int, moves: int, expected: tuple) -> None:
    assert connect4.result_distance(score, moves) == expected


def test_the_compiled_solver_and_the_alphabeta_holdout_agree_on_late_positions() -> None:
    late = sorted((p for p in POSITIONS if p["stones"] >= 30), key=lambda p: -p["stones"])[:8]
    both = 0
    for p in late:
        state = _state(p["moves"])
        fast = game_verdict(GAME, state, solver="compiled")
        try:
            slow = game_verdict(
                GAME, state, solver="alphabeta", budget=SearchBudget(nodes=400_000, seconds=60)
            )
        except GameBudgetExceeded:
            continue  # compared where both finish
        both += 1
        assert [(m.name, m.result, m.distance) for m in fast.moves] == [
            (m.name, m.result, m.distance) for m in slow.moves
        ]
        assert (fast.result, fast.distance) == (slow.result, slow.distance)
    assert both >= 4


def test_the_family_oracle_uses_the_compiled_solver_at_7x6() -> None:
    p = next(p for p in LATE_MID if p["band"] == "late")
    state = _state(p["moves"])
    values = FAMILY.game({}).solve_moves(state)
    assert values is not None
    by_col = {int(m) % 7: (r, d) for m, r, d in values[0]}
    want = {c: connect4.result_distance(s, p["stones"]) for c, s in _want(p).items()}
    assert by_col == want
    assert FAMILY.game({"cols": 4, "rows": 4, "k": 3}).solve_moves(state) is None


def test_owm_connect_defaults_to_connect_four() -> None:
    assert FAMILY.normalize_params({}) == {"cols": 7, "rows": 6, "k": 4}


def test_gametree_verdict_on_a_7x6_instance_counts_the_winning_moves() -> None:
    verifier = get_verifier("gametree")
    checked = 0
    for p in LATE_MID[:30]:
        inst = FAMILY.instance_of({}, _state(p["moves"]))
        rep = verifier.verify(inst)
        wins = sum(1 for s in p["moveScores"].values() if s > 0)
        want = {0: Verdict.UNSOLVABLE, 1: Verdict.UNIQUE}.get(wins, Verdict.MULTIPLE)
        assert rep.verdict is want
        moves = {m["fieldName"]: m for m in rep.stats["moves"]}
        assert len(moves) == len(p["moveScores"])
        checked += 1
    assert checked == 30


def test_an_empty_board_with_a_small_budget_is_undecided_with_what_was_spent() -> None:
    empty = Instance.from_json(
        json.dumps(
            {
                "family": "owm-connect",
                "params": {},
                "clues": [
                    {
                        "id": "position",
                        "kind": "position",
                        "data": {"rows": "/".join(["......."] * 6), "toMove": "x"},
                        "coords": [],
                    }
                ],
            }
        )
    )
    verifier = get_verifier("gametree")
    verifier.verify(empty, budget=SearchBudget(nodes=1000, seconds=None))  # load compiled code
    t = time.perf_counter()
    rep = verifier.verify(empty, budget=SearchBudget(nodes=None, seconds=1.0))
    wall = time.perf_counter() - t
    assert rep.verdict is Verdict.UNDECIDED
    spent = rep.reject_detail.budget
    assert spent.resource == "seconds" and spent.nodes > 0 and spent.seconds >= 1.0
    assert wall <= 1.5 * 1.0 + 1.0
    rep = verifier.verify(empty, budget=SearchBudget(nodes=5000, seconds=None))
    spent = rep.reject_detail.budget
    assert (rep.verdict, spent.resource, spent.limit, spent.nodes) == (
        Verdict.UNDECIDED,
        "nodes",
        5000,
        5001,
    )


def test_the_solver_reports_what_it_spent_when_the_budget_runs_out() -> None:
    with pytest.raises(Unfinished) as info:
        connect4.move_scores(_board(""), SearchBudget(nodes=2000, seconds=None))
    assert (info.value.resource, info.value.nodes) == ("nodes", 2001)


def test_game_verdict_has_a_default_budget() -> None:
    from puzzlekit.verifiers.gametree import GAME_BUDGET

    assert GAME_BUDGET.seconds is not None


def test_the_generic_alphabeta_table_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from puzzlekit.families.games.mnk import MNKGame
    from puzzlekit.verifiers import gametree

    game = MNKGame(3, 3, 3)
    full = game_verdict(game, game.initial(), solver="alphabeta")
    sizes: list[int] = []
    real_search = gametree._AlphaBeta.search

    def watched(self, *args):  # type: ignore[no-untyped-def]
        sizes.append(len(self.table))
        return real_search(self, *args)

    monkeypatch.setattr(gametree, "TABLE_ENTRIES", 64)
    monkeypatch.setattr(gametree._AlphaBeta, "search", watched)
    small = game_verdict(game, game.initial(), solver="alphabeta")
    assert max(sizes) <= 64
    assert [(m.name, m.result, m.distance) for m in small.moves] == [
        (m.name, m.result, m.distance) for m in full.moves
    ]


def test_game_verdict_command_solves_connect_four_and_reports_an_undecided_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from puzzlekit.app.cli import main

    p = next(p for p in LATE_MID if p["band"] == "late")
    cells, side = cells_of(p["moves"])
    text = GAME.rows_text((cells, side, 0))
    assert main(["game-verdict", "connect", text, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    result, distance = connect4.result_distance(p["score"], p["stones"])
    assert out["value"] == {1: "WIN", 0: "DRAW", -1: "LOSS"}[result]
    assert out["distance"] == distance
    empty = "/".join(["......."] * 6)
    assert main(["game-verdict", "connect", empty, "--budget-nodes", "3000"]) == 1
    assert "undecided: the nodes budget of 3000 ran out after 3001 nodes" in capsys.readouterr().out
    assert main(["game-verdict", "connect", empty, "--budget-seconds", "-1"]) == 2
    assert main(["game-verdict", "nim", "3,4,5", "--solver", "compiled"]) == 2


def test_the_distance_param_names_the_schema_and_is_checked() -> None:
    from puzzlekit.core.model import SpecError

    params = FAMILY.normalize_params({"distance": 7})
    assert params == {"cols": 7, "rows": 6, "k": 4, "distance": 7}
    assert FAMILY.schema_id(params) == "owm-connect-7x6x4-d7"
    assert FAMILY.game(params) == FAMILY.game({})
    for bad in (4, 1, "7", True):
        with pytest.raises(SpecError):
            FAMILY.normalize_params({"distance": bad})


def test_at_distance_is_the_winning_moves_distance() -> None:
    p = next(p for p in LATE_MID if any(s > 0 for s in p["moveScores"].values()))
    state = _state(p["moves"])
    col, s = max(_want(p).items(), key=lambda cs: cs[1])
    move = next(m for m in GAME.legal_actions(state) if int(m) % 7 == col)
    _, distance = connect4.result_distance(s, p["stones"])
    assert FAMILY.at_distance(GAME, state, move, {"distance": distance})
    assert not FAMILY.at_distance(GAME, state, move, {"distance": distance + 2})
    assert FAMILY.at_distance(GAME, state, move, {})
