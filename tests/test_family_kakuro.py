"""kakuro: seeded layouts, run sums, text format, repair moves, rendering, generation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from puzzlekit.app.cli import main
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.families.kakuro import random_layout, sum_range
from puzzlekit.generators.base import fresh_puzzle
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

FAM = get_family("kakuro")
SMALL = "#  #  8\\  9\\\n#  \\7  .  .\n\\17  .  .  .\n\\4  .  .  #"


@parametrize_with_checks(
    [(FAM, {"rows": 5, "cols": 5, "seed": 1}), (FAM, {"layout": ["#..", "..."]})],
    cross_process=False,
)
def test_check_family_passes(family, check):
    check(family)


@pytest.mark.parametrize("shape", [(5, 5), (7, 9), (12, 12)])
def test_seeded_layouts_are_stable_and_every_white_cell_is_in_a_short_run(shape):
    for seed in range(5):
        layout = random_layout(*shape, seed)
        assert layout == random_layout(*shape, seed)
        assert set(layout[0]) == {"#"} and {row[0] for row in layout} == {"#"}
        schema = FAM.schema({"rows": shape[0], "cols": shape[1], "seed": seed})
        covered = {cell for _, run in FAM.runs(schema) for cell in run}
        assert covered == {v.coord for v in schema.variables}
        assert all(2 <= len(run) <= 9 for _, run in FAM.runs(schema))


def test_sum_range():
    assert sum_range(2) == (3, 17) and sum_range(9) == (45, 45)


def test_text_format_reads_sums_and_givens_and_round_trips():
    inst = FAM.parse_text(SMALL)
    assert inst.params_dict() == {"layout": ["####", "##..", "#...", "#..#"]}
    sums = {c.id: c.data_dict()["sum"] for c in inst.clues if c.kind == "run"}
    assert sums["across-r3c2"] == 17 and sums["down-r2c3"] == 8 and "down-r3c2" not in sums
    assert FAM.format_text(FAM.parse_text(FAM.format_text(inst))) == FAM.format_text(inst)
    assert get_verifier("sat").verify(inst, solution_cap=2).verdict in (
        Verdict.UNIQUE,
        Verdict.MULTIPLE,
        Verdict.UNSOLVABLE,
    )


@pytest.mark.parametrize("bad", ["# x", "# .\n#", "#  5\\\n#  #"])
def test_bad_text_raises_spec_error(bad):
    with pytest.raises(SpecError):
        FAM.parse_text(bad)


def test_run_clue_must_be_a_run_of_the_layout():
    schema = FAM.schema({"rows": 5, "cols": 5, "seed": 1})
    _, run = FAM.runs(schema)[0]
    bad = FAM.run_clue("across", run[:-1], 10)
    inst = Instance.make("kakuro", schema.params_dict(), [bad])
    report = get_verifier("enumerative").verify(inst)
    assert report.verdict is Verdict.INVALID_SPEC


def test_repair_moves_touch_the_coordinate_and_keep_every_clue_true():
    schema = FAM.schema({"rows": 6, "cols": 6, "seed": 2})
    inst, sol, _ = fresh_puzzle(schema, 0, np.random.default_rng(4))
    partial = inst.with_clues(inst.clues[::2])
    for var in schema.variables:
        moves = FAM.repair_moves(schema, partial, sol, var.coord)
        assert moves
        for move in moves:
            assert all(var.coord in c.coords for c in move.add)
            assert resolve(move.apply(partial)).check(sol)


def test_render_ascii_marks_reject_coordinates():
    inst = FAM.parse_text(SMALL)
    text = FAM.render_ascii(inst, marks={(2, 1): "*"})
    assert text.splitlines()[2].split()[1].endswith("*")
    assert text.count("*") == 1


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_generate_gives_five_puzzles_with_no_holdout_reject(capsys, strategy):
    params = '{"rows": 5, "cols": 5, "seed": 1}'
    assert (
        main(["generate", "kakuro", "--params", params, "--count", "5", "--strategy", strategy])
        == 0
    )
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    accepted = [r for r in rows if r["status"] == "accepted"]
    assert len(accepted) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in accepted)
