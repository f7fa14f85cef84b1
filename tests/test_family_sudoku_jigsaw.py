"""sudoku-jigsaw: contract, region params, seeded layouts, Tatham solo jigsaw import, generation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.families.sudoku_jigsaw import SEED0, grown_regions
from puzzlekit.generators.base import sample_solution
from puzzlekit.io.inputs import iter_items
from puzzlekit.loop.batch import GenerateConfig, generate
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.quality.golden.corpus import schema_id
from puzzlekit.verifiers.registry import get_verifier

FAMILY = "sudoku-jigsaw"
PARAMS = {"size": 6}
DATA = Path(__file__).parent / "data" / "tatham" / "solo.txt"


@parametrize_with_checks([(FAMILY, PARAMS)], n=1)
def test_check_family_passes(family, check) -> None:
    check(family)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_recorded_seed0_layouts_are_what_the_generator_grows(n: int) -> None:
    assert grown_regions(n, 0) == SEED0[n]


def test_regions_are_relabelled_to_one_spelling_and_checked() -> None:
    fam = get_family(FAMILY)
    norm = fam.normalize_params({"size": 4, "regions": ["aabb", "aabb", "ccdd", "ccdd"]})
    assert norm["regions"] == ["1122", "1122", "3344", "3344"]
    with pytest.raises(SpecError) as exc:
        fam.normalize_params({"size": 4, "regions": ["aaab", "abbb", "ccdd", "cccd"]})
    assert exc.value.violations[0].violation_type == "shape-mismatch"
    assert schema_id(FAMILY, {"size": 9}) == "sudoku-jigsaw-9x9"
    assert schema_id(FAMILY, norm).startswith("sudoku-jigsaw-4x4-")


def test_a_seeded_layout_is_solvable_and_a_different_schema() -> None:
    fam = get_family(FAMILY)
    params = fam.normalize_params({"size": 5, "seed": 7})
    schema = fam.schema(params)
    sol = sample_solution(schema, np.random.default_rng(0))
    inst = Instance.make(FAMILY, params, fam.clues_from_solution(schema, sol))
    assert get_verifier("sat").verify(inst).verdict is Verdict.UNIQUE
    assert params["regions"] != list(SEED0[5])


def test_tatham_jigsaw_ids_verify_unique_on_both_backends() -> None:
    items = [
        item
        for item in iter_items(DATA.read_text(), input_format="tatham")
        if item.instance is not None and item.instance.family == FAMILY
    ]
    assert len(items) >= 3
    for item in items:
        for backend in ("sat", "enumerative"):
            rep = get_verifier(backend).verify(item.instance)
            assert rep.verdict is Verdict.UNIQUE, (backend, item.position)


def test_repair_moves_reveal_true_digits() -> None:
    fam = get_family(FAMILY)
    schema = fam.schema(PARAMS)
    rng = np.random.default_rng(1)
    sol = sample_solution(schema, rng)
    inst = Instance.make(FAMILY, schema.params_dict(), fam.initial_clues(schema, sol, 5, rng))
    for v in schema.variables:
        for move in fam.repair_moves(schema, inst, sol, v.coord):
            assert move.action == "reveal"
            assert resolve(move.apply(inst)).check(sol)


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_generate_five_with_no_holdout_reject(strategy: str) -> None:
    cfg = GenerateConfig(FAMILY, PARAMS, count=5, strategy=strategy, holdout_in_process=True)
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in recs)


def test_ascii_draws_region_walls_and_marks() -> None:
    fam = get_family(FAMILY)
    inst = Instance.make(FAMILY, {"size": 4}, [])
    art = fam.render_ascii(inst, None, {(1, 2): "?"})
    assert "?" in art and art.count("\n") == 8
