"""nonogram: run automata, Pattern game IDs, repair moves, rendering, generation."""

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
from puzzlekit.families.nonogram import runs_automaton, runs_of
from puzzlekit.generators.base import fresh_puzzle
from puzzlekit.io.tatham import parse_line
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

FAM = get_family("nonogram")
IDS = (Path(__file__).parent / "data" / "tatham" / "pattern.txt").read_text().split()


@parametrize_with_checks(
    [(FAM, {"rows": 5, "cols": 5}), (FAM, {"rows": 8, "cols": 8})], cross_process=False
)
def test_check_family_passes(family, check):
    check(family)


def test_automaton_accepts_exactly_the_lines_with_those_runs():
    for n in range(7):
        for word in itertools.product((0, 1), repeat=n):
            for runs in {tuple(runs_of(w)) for w in itertools.product((0, 1), repeat=n)}:
                assert runs_automaton(runs).accepts(word) == (tuple(runs_of(word)) == runs)


def test_tatham_pattern_ids_verify_unique_on_both_backends():
    sat, enum = get_verifier("sat"), get_verifier("enumerative")
    for game_id in IDS:
        inst = parse_line(game_id, "nonogram")
        assert sat.verify(inst, solution_cap=2).verdict is Verdict.UNIQUE, game_id
        if inst.params_dict()["rows"] <= 10:
            assert enum.verify(inst, solution_cap=2).verdict is Verdict.UNIQUE, game_id
        assert parse_line("pattern:" + game_id).digest == inst.digest


def test_tatham_ids_round_trip_through_the_text_format():
    for game_id in IDS:
        assert FAM.format_text(FAM.parse_text(game_id)) == game_id


def test_fixed_cells_of_a_game_id_become_cell_clues():
    inst = FAM.parse_text("3x2:1/1/1/1.1/1,AcB")
    cells = {c.coords[0]: c.data_dict()["value"] for c in inst.clues if c.kind == "cell"}
    assert cells == {(0, 0): 1, (1, 0): 0, (1, 2): 1}


@pytest.mark.parametrize("bad", ["5x5:1/2", "5x:1", "2x2:3/0/0/0", "2x2:1/1/1/1,1"])
def test_bad_game_ids_raise_spec_error(bad):
    with pytest.raises(SpecError):
        FAM.parse_text(bad)


def test_repair_moves_touch_the_coordinate_and_keep_every_clue_true():
    schema = FAM.schema({"rows": 6, "cols": 6})
    inst, sol, _ = fresh_puzzle(schema, 2, np.random.default_rng(3))
    partial = inst.with_clues(inst.clues[::2])
    for var in schema.variables:
        moves = FAM.repair_moves(schema, partial, sol, var.coord)
        assert moves
        for move in moves:
            assert all(var.coord in c.coords for c in move.add)
            assert resolve(move.apply(partial)).check(sol)


def test_render_ascii_marks_reject_coordinates():
    inst = FAM.parse_text(IDS[0])
    lines = FAM.render_ascii(inst, marks={(2, 1): "*"}).splitlines()
    grid = [ln for ln in lines if ln.rstrip().endswith("|")]
    assert grid[2].split("|")[1][3 * 1 + 2] == "*"
    assert sum(ln.count("*") for ln in lines) == 1


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_generate_gives_five_puzzles_with_no_holdout_reject(capsys, strategy):
    args = ["generate", "nonogram", "--params", '{"rows": 5, "cols": 5}', "--count", "5"]
    assert main([*args, "--strategy", strategy, "--clues", "2"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    accepted = [r for r in rows if r["status"] == "accepted"]
    assert len(accepted) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in accepted)
