"""skyscrapers: visibility automaton, Towers game IDs, repair moves, rendering, generation."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from puzzlekit.app.cli import main
from puzzlekit.core.model import SpecError
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.families.skyscrapers import visibility_automaton, visible
from puzzlekit.generators.base import fresh_puzzle
from puzzlekit.io.tatham import parse_line
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

FAM = get_family("skyscrapers")
IDS = (Path(__file__).parent / "data" / "tatham" / "towers.txt").read_text().split()


@parametrize_with_checks([(FAM, {"size": 4}), (FAM, {"size": 5})], cross_process=False)
def test_check_family_passes(family, check):
    check(family)


@pytest.mark.parametrize("n", [4, 5])
def test_automaton_accepts_exactly_the_permutations_with_that_many_visible(n):
    for value in range(1, n + 1):
        auto = visibility_automaton(n, value)
        for perm in itertools.permutations(range(1, n + 1)):
            assert auto.accepts(perm) == (visible(perm) == value)


def test_tatham_towers_ids_verify_unique_on_both_backends():
    sat, enum = get_verifier("sat"), get_verifier("enumerative")
    for game_id in IDS:
        inst = parse_line(game_id, "skyscrapers")
        assert sat.verify(inst, solution_cap=2).verdict is Verdict.UNIQUE, game_id
        assert enum.verify(inst, solution_cap=2).verdict is Verdict.UNIQUE, game_id
        assert parse_line("towers:" + game_id).digest == inst.digest


def test_tatham_ids_round_trip_through_the_text_format():
    for game_id in IDS:
        assert FAM.format_text(FAM.parse_text(game_id)) == game_id


def test_givens_in_a_game_id_become_given_clues():
    inst = FAM.parse_text("4:///////////////,a2_3l1")
    givens = {c.coords[0]: c.data_dict()["value"] for c in inst.clues if c.kind == "given"}
    assert givens == {(0, 1): 2, (0, 2): 3, (3, 3): 1}


@pytest.mark.parametrize("bad", ["4:1/2", "x:1", "4:9///////////////", "4:///////////////,zz"])
def test_bad_game_ids_raise_spec_error(bad):
    with pytest.raises(SpecError):
        FAM.parse_text(bad)


def test_repair_moves_touch_the_coordinate_and_keep_every_clue_true():
    schema = FAM.schema({"size": 5})
    inst, sol, _ = fresh_puzzle(schema, 3, np.random.default_rng(7))
    for var in schema.variables:
        moves = FAM.repair_moves(schema, inst, sol, var.coord)
        assert {m.action for m in moves} >= {"reveal", "add-edge"} - (
            {"add-edge"} if len(moves) == 1 else set()
        )
        for move in moves:
            new = move.apply(inst)
            assert all(var.coord in c.coords for c in move.add)
            assert resolve(new).check(sol)


def test_render_ascii_marks_reject_coordinates():
    inst = FAM.parse_text(IDS[0])
    text = FAM.render_ascii(inst, marks={(1, 2): "*"})
    row = text.splitlines()[3]
    assert row.split("|")[1][3 * 2 + 2] == "*"
    assert FAM.render_ascii(inst).count("*") == 0


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_generate_gives_five_puzzles_with_no_holdout_reject(capsys, strategy):
    args = ["generate", "skyscrapers", "--params", '{"size": 4}', "--count", "5"]
    assert main([*args, "--strategy", strategy]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    accepted = [r for r in rows if r["status"] == "accepted"]
    assert len(accepted) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in accepted)
