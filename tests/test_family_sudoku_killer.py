"""sudoku-killer: contract, Tatham solo killer import, repairs, generation, rendering."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from puzzlekit.core.model import Instance
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.generators.base import sample_solution
from puzzlekit.io.inputs import iter_items
from puzzlekit.loop.batch import GenerateConfig, generate
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

FAMILY = "sudoku-killer"
PARAMS = {"size": 4, "box": [2, 2]}
DATA = Path(__file__).parent / "data" / "tatham" / "solo.txt"


@parametrize_with_checks([(FAMILY, PARAMS)], n=1)
def test_check_family_passes(family, check) -> None:
    check(family)


def test_tatham_solo_ids_verify_unique_on_both_backends() -> None:
    items = list(iter_items(DATA.read_text(), input_format="tatham"))
    families = {item.instance.family for item in items if item.instance is not None}
    assert families == {"sudoku", "sudoku-jigsaw", "sudoku-killer"}
    for item in items:
        assert item.instance is not None, item.violations
        rep = get_verifier("sat").verify(item.instance)
        assert rep.verdict is Verdict.UNIQUE, item.position
        if item.instance.family == FAMILY and item.instance.params_dict()["size"] <= 6:
            rep = get_verifier("enumerative").verify(item.instance)
            assert rep.verdict is Verdict.UNIQUE, item.position


def test_x_diagonal_ids_are_refused_as_invalid_spec() -> None:
    items = list(iter_items("solo:3x3x:zzzc", input_format="tatham"))
    assert items[0].instance is None
    assert "diagonal" in items[0].violations[0].detail


def test_a_cage_with_a_repeated_digit_is_unsolvable() -> None:
    # 4 = 1 + 2 + 1 only: the corner cells share no row, column or box
    cells = [[0, 1], [0, 2], [1, 2]]
    clue = {"id": "c", "kind": "cage", "data": {"sum": 4}, "coords": cells}
    inst = Instance.from_json_obj({"family": FAMILY, "params": PARAMS, "clues": [clue]})
    assert get_verifier("sat").verify(inst).verdict is Verdict.UNSOLVABLE
    assert get_verifier("enumerative").verify(inst).verdict is Verdict.UNSOLVABLE


def test_repair_moves_keep_every_clue_true() -> None:
    fam = get_family(FAMILY)
    schema = fam.schema({"size": 6})
    rng = np.random.default_rng(2)
    sol = sample_solution(schema, rng)
    inst = Instance.make(FAMILY, schema.params_dict(), fam.initial_clues(schema, sol, 10, rng))
    assert resolve(inst).check(sol)
    actions = set()
    for v in schema.variables:
        for move in fam.repair_moves(schema, inst, sol, v.coord):
            assert resolve(move.apply(inst)).check(sol)
            actions.add(move.action)
    assert actions == {"reveal", "split"}


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_generate_five_with_no_holdout_reject(strategy: str) -> None:
    cfg = GenerateConfig(FAMILY, PARAMS, count=5, strategy=strategy, holdout_in_process=True)
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in recs)


def test_ascii_draws_cage_sums_and_marks() -> None:
    fam = get_family(FAMILY)
    line = next(x for x in DATA.read_text().splitlines() if x.startswith("solo:2x3k:"))
    inst = next(iter_items(line, input_format="tatham")).instance
    art = fam.render_ascii(inst, None, {(5, 5): "!"})
    assert "!" in art and "cage-r1c1:" in art
