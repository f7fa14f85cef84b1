"""Games: exact values (alpha-beta with a table, plain minimax, the family's oracle agree), the
only-winning-move verdicts with move coordinates, illegal positions, the CLI, and the loop."""

from __future__ import annotations

import json
from functools import reduce
from operator import xor

import numpy as np
import pytest

from puzzlekit.app.cli import main
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.report import Verdict, validate_report_json
from puzzlekit.families import get_family
from puzzlekit.families.games import OnlyWinningMove, move_values, winning_moves
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.generators.blind import Blind
from puzzlekit.loop.driver import InlineHoldout, LoopBudget, run_loop
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.gametree import game_verdict
from puzzlekit.verifiers.registry import default_verifier_name, get_verifier

TTT = get_family("owm-tictactoe")
GAMETREE = get_verifier("gametree")
MINIMAX = get_verifier("minimax")
ENUM = get_verifier("enumerative")
GAME_SCHEMAS = [
    ("owm-tictactoe", {}),
    ("owm-mnk", {"rows": 4, "cols": 4, "k": 3}),
    ("owm-connect", {"cols": 4, "rows": 4, "k": 3}),
    ("owm-nim", {"heaps": 3, "max": 4}),
]


def ttt(text: str, **params: object) -> Instance:
    return TTT.parse_text(text, params)


# --- exact values ---------------------------------------------------------------------------


def test_tictactoe_empty_board_is_a_draw_in_nine_plies() -> None:
    game = TTT.game({})
    v = game_verdict(game, game.initial())
    assert (v.result, v.distance, len(v.moves)) == ("DRAW", 9, 9)
    assert {m.result for m in v.moves} == {"DRAW"}


def test_tictactoe_has_5478_distinct_legal_positions() -> None:
    game = TTT.game({})
    seen = {game.initial()}
    frontier = [game.initial()]
    while frontier:
        state = frontier.pop()
        for m in game.legal_actions(state):
            nxt = game.apply_action(state, m)
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    assert len(seen) == 5478


def test_nim_values_follow_the_xor_rule_up_to_four_heaps_of_five() -> None:
    fam = get_family("owm-nim")
    checked = 0
    for n in range(1, 5):
        game = fam.game({"heaps": n, "max": 5})
        for heaps in np.ndindex(*(6,) * n):
            state = (tuple(int(h) for h in heaps), 1)
            v = game_verdict(game, state)
            expected = "WIN" if reduce(xor, state[0], 0) else "LOSS"
            assert v.result == expected, state
            for m in v.moves:  # a move wins exactly when it leaves xor zero
                after = game.apply_action(state, m.move)[0]
                assert (m.result == "WIN") == (reduce(xor, after, 0) == 0), (state, m.label)
            checked += 1
    assert checked == 6 + 36 + 216 + 1296


def test_alphabeta_minimax_and_the_family_oracle_agree_on_every_move() -> None:
    rng = np.random.default_rng(5)
    for name, params in GAME_SCHEMAS:
        fam = get_family(name)
        assert isinstance(fam, OnlyWinningMove)
        game = fam.game(params)
        for _ in range(10):
            state = fam._playout(game, rng)
            if state is None or len(game.legal_actions(state)) > 6:
                continue  # plain minimax is exponential: small positions only
            ab = game_verdict(game, state)
            mm = game_verdict(game, state, solver="minimax")
            assert [(m.move, m.result, m.distance) for m in ab.moves] == [
                (m.move, m.result, m.distance) for m in mm.moves
            ]
            oracle = {m: (r, d) for m, r, d in move_values(game, state)}
            names = {1: "WIN", 0: "DRAW", -1: "LOSS"}
            assert {m.move: (m.result, m.distance) for m in ab.moves} == {
                m: (names[r], d) for m, (r, d) in oracle.items()
            }


# --- verdicts -------------------------------------------------------------------------------


def test_one_winning_move_is_unique_with_that_move_as_the_solution() -> None:
    rep = GAMETREE.verify(ttt("xo./.o./x.x"))
    assert rep.verdict is Verdict.UNIQUE
    (sol,) = rep.solutions
    assert {k: v for k, v in sol.items() if v} == {"r3c2": 2}  # o plays r3c2
    validate_report_json(rep.to_json_obj())


def test_several_winning_moves_are_multiple_and_named_by_coordinate_fastest_first() -> None:
    rep = GAMETREE.verify(ttt("x.o/.x./o.."))
    assert rep.verdict is Verdict.MULTIPLE
    gap = rep.reject_detail.discriminative_gap
    assert [g.field_name for g in gap] == ["r3c3", "r1c2", "r2c1", "r2c3", "r3c2"]
    assert gap[0].coord == (2, 2)
    distances = {m["fieldName"]: m["distance"] for m in rep.stats["moves"]}
    assert distances["r3c3"] == 1 and distances["r1c2"] == 3
    assert rep.reject_detail.verdict_distribution == {"WIN": 5, "DRAW": 0, "LOSS": 0}
    validate_report_json(rep.to_json_obj())


def test_no_winning_move_is_unsolvable_with_the_distribution_over_moves() -> None:
    rep = GAMETREE.verify(ttt("x.o/.x./..."))  # o to move can only draw
    assert rep.verdict is Verdict.UNSOLVABLE
    assert rep.reject_detail.verdict_distribution == {"WIN": 0, "DRAW": 1, "LOSS": 5}
    validate_report_json(rep.to_json_obj())


def test_fastest_variant_is_unique_by_distance() -> None:
    rep = GAMETREE.verify(ttt("x.o/.x./o..", variant="fastest"))
    assert rep.verdict is Verdict.UNIQUE
    assert {k for k, v in rep.solutions[0].items() if v} == {"r3c3"}


def test_to_move_can_be_given_explicitly() -> None:
    inst = ttt("x.o/.x./o.. o")  # the counts say x
    assert inst.clues[0].data_dict()["toMove"] == "o"
    assert TTT.format_text(inst) == "x.o/.x./o.. o"
    assert ttt("x.o/.x./o..").clues[0].data_dict()["toMove"] == "x"


@pytest.mark.parametrize(
    ("family", "params", "text"),
    [
        ("owm-tictactoe", {}, "xo./.o./x.x"),
        ("owm-tictactoe", {}, "x.o/.x./o.."),
        ("owm-tictactoe", {}, "x.o/.x./..."),
        ("owm-connect", {"cols": 4, "rows": 4, "k": 3}, "..../..../.o../xx.o"),
        ("owm-nim", {"heaps": 3, "max": 5}, "1,2,3"),
        ("owm-nim", {"heaps": 3, "max": 5}, "1,4,5"),
    ],
)
def test_exact_backends_agree_on_verdict_and_solutions(family: str, params: dict, text: str):
    inst = get_family(family).parse_text(text, params)
    reps = [v.verify(inst, solution_cap=3) for v in (GAMETREE, MINIMAX, ENUM)]
    assert len({(r.verdict, r.solution_count) for r in reps}) == 1
    if not reps[0].solution_count_is_lower_bound:  # at the cap, which ones is each backend's own
        sets = {frozenset(json.dumps(s, sort_keys=True) for s in r.solutions) for r in reps}
        assert len(sets) == 1


# --- illegal positions ------------------------------------------------------------------------


def _violations(family: str, text: str, params: dict | None = None) -> list:
    fam = get_family(family)
    with pytest.raises(SpecError) as err:
        fam.parse_text(text, params or {})
    return list(err.value.violations)


def test_wrong_piece_counts_are_invalid_at_the_surplus_pieces() -> None:
    vs = _violations("owm-tictactoe", "xx./.../...")
    assert {v.coord for v in vs} == {(0, 0), (0, 1)}
    assert all(v.detail.startswith("piece-count") for v in vs)


def test_play_after_a_win_is_invalid_at_the_winning_line() -> None:
    vs = _violations("owm-tictactoe", "xxx/oo./o..")  # o played after x's row
    assert {v.coord for v in vs} == {(0, 0), (0, 1), (0, 2)}
    assert all(v.detail.startswith("play-after-win") for v in vs)


def test_a_floating_piece_is_invalid_at_that_piece() -> None:
    vs = _violations("owm-connect", "..../.x../..../o...", {"cols": 4, "rows": 4, "k": 3})
    assert [(v.coord, v.detail.split(":")[0]) for v in vs] == [((1, 1), "floating-piece")]


def test_invalid_positions_are_invalid_spec_reports_not_exceptions() -> None:
    bad = Instance.make(
        "owm-tictactoe",
        {},
        [TTT.position_clue(TTT.game({}), ((1, 1, 0, 0, 0, 0, 0, 0, 0), 1, 0))],
    )
    for v in (GAMETREE, MINIMAX, ENUM):
        rep = v.verify(bad)
        assert rep.verdict is Verdict.INVALID_SPEC
        assert {x.coord for x in rep.reject_detail.violations} == {(0, 0), (0, 1)}
        validate_report_json(rep.to_json_obj())


def test_gametree_declines_puzzle_families_and_is_the_default_for_games() -> None:
    sudoku = get_family("sudoku").parse_text("1" + "." * 15, {"size": 4, "box": [2, 2]})
    with pytest.raises(NotImplementedError):
        GAMETREE.verify(sudoku)
    assert default_verifier_name(ttt("x.o/.x./o..")) == "gametree"
    assert default_verifier_name(sudoku) == "bitmask"


# --- the family contract, generation ----------------------------------------------------------


@parametrize_with_checks(GAME_SCHEMAS[:3], cross_process=False)
def test_game_family_passes_check_family(family, check) -> None:
    summary = check(family)
    if check.args[0] == "verifiers":
        assert {"enumerative", "gametree", "minimax"} <= set(summary.reports)


@parametrize_with_checks(GAME_SCHEMAS[3:])  # one game family through a fresh process too
def test_nim_passes_check_family_across_processes(family, check) -> None:
    summary = check(family)
    if check.args[0] == "verifiers":
        assert {"enumerative", "gametree", "minimax"} <= set(summary.reports)


def test_repairs_keep_the_solution_winning_with_fewer_winning_moves() -> None:
    schema = TTT.schema({})
    inst = ttt("x.o/.x./o..")
    game = TTT.game({})
    state = TTT.state_of(schema, inst.clues[0])
    solution = TTT.solution_of(schema, game, state, 8)  # r3c3
    moves = TTT.repair_moves(schema, inst, solution, (0, 1))
    assert moves
    for rep in moves:
        new = TTT.state_of(schema, rep.apply(inst).clues[0])
        wins = winning_moves(game, new)
        assert 8 in wins and 1 not in wins and len(wins) < 5


@pytest.mark.parametrize("strategy", [Adaptive(1), Blind(1)], ids=["adaptive", "blind"])
@pytest.mark.parametrize(("family", "params"), GAME_SCHEMAS, ids=[f for f, _ in GAME_SCHEMAS])
def test_loop_accepts_only_puzzles_the_minimax_holdout_confirms(
    family: str, params: dict, strategy: object
) -> None:
    schema = get_family(family).schema(params)
    holdout = InlineHoldout(MINIMAX)
    for seed in range(4):
        result = run_loop(schema, strategy, GAMETREE, holdout, LoopBudget(max_calls=60), seed)
        assert result.accepted
        assert result.holdout_report.verdict is Verdict.UNIQUE


# --- command line -----------------------------------------------------------------------------


def test_game_verdict_prints_value_distance_and_each_move(capsys) -> None:
    assert main(["game-verdict", "tictactoe", "x.o/.x./o.."]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "x to move: WIN in 1 plies"
    assert out[1].split() == ["r3c3", "WIN", "1"]
    assert main(["game-verdict", "nim", "3,4,5", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert (obj["value"], obj["distance"]) == ("WIN", 11)
    assert [m["move"] for m in obj["moves"] if m["value"] == "WIN"] == ["h1-2"]


def test_game_verdict_respects_to_move_and_reports_illegal_positions(capsys) -> None:
    assert main(["game-verdict", "tictactoe", "x.o/.x./...", "--to-move", "o"]) == 0
    assert capsys.readouterr().out.startswith("o to move: DRAW")
    assert main(["game-verdict", "connect", "x.../..../..../o...", "--k", "3"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "INVALID_SPEC: the position cannot be played"
    assert "invalid position: malformed at [0, 0] r1c1: floating-piece" in out[1]
    assert main(["game-verdict", "tictactoe", "x.o/.x/...", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["uniquenessVerdict"] == "INVALID_SPEC"
    [v] = report["rejectDetail"]["violations"]
    assert (v["violationType"], v["coord"], v["fieldName"]) == ("shape-mismatch", [1, 2], "r2c3")
    assert main(["game-verdict", "chess", "x"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_verify_reads_game_positions_as_text(tmp_path, capsys) -> None:
    path = tmp_path / "p.txt"
    path.write_text("xo./.o./x.x\nx.o/.x./o..\n")
    assert main(["verify", str(path), "--family", "owm-tictactoe"]) == 0
    reps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["uniquenessVerdict"] for r in reps] == ["UNIQUE", "MULTIPLE"]
    assert reps[0]["source"]["verifier"] == "gametree"
