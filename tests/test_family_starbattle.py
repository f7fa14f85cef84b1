"""starbattle: star placement, grown layouts, reshape repairs, text, rendering, generation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from puzzlekit.app.cli import main
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.families._kit.regions import connected
from puzzlekit.generators.base import fresh_puzzle
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

FAM = get_family("starbattle")


@parametrize_with_checks([(FAM, {"size": 5, "stars": 1})], cross_process=False)
def test_check_family_passes(family, check):
    check(family)


@pytest.mark.parametrize("params", [{"size": 6, "stars": 1}, {"size": 10, "stars": 2}])
def test_generated_layouts_partition_the_grid_into_connected_regions_of_k_stars(params):
    schema = FAM.schema(params)
    n, k = params["size"], params["stars"]
    for seed in range(3):
        inst, sol, _ = fresh_puzzle(schema, 0, np.random.default_rng(seed))
        regions = [c for c in inst.clues if c.kind == "region"]
        assert len(regions) == n
        cells = [cell for r in regions for cell in r.coords]
        assert sorted(cells) == sorted((r, c) for r in range(n) for c in range(n))
        for region in regions:
            assert connected(region.coords)
        assert resolve(inst).check(sol)
        assert sum(sol.values()) == n * k


def test_fixed_regions_param_gives_the_same_verdict_as_region_clues():
    text = "AABBB\nAABBB\nCCDDD\nCEEED\nCCEDD"
    as_clues = FAM.parse_text(text)
    as_params = Instance.make("starbattle", {"size": 5, "stars": 1, "regions": text.split()}, [])
    sat = get_verifier("sat")
    a, b = sat.verify(as_clues, solution_cap=10), sat.verify(as_params, solution_cap=10)
    assert a.verdict == b.verdict and a.solution_count == b.solution_count


def test_text_round_trip_with_reveals():
    schema = FAM.schema({"size": 6, "stars": 1})
    inst, _, _ = fresh_puzzle(schema, 4, np.random.default_rng(1))
    back = FAM.parse_text(FAM.format_text(inst), inst.params_dict())
    assert sorted(c.to_json_obj()["id"] for c in back.clues) == sorted(c.id for c in inst.clues)
    assert back.digest == inst.with_clues(back.clues).digest
    assert FAM.format_text(back) == FAM.format_text(inst)


@pytest.mark.parametrize("bad", ["ABC\nAB", "A?\nBB", "AB\nBA\n\n*x\n.."])
def test_bad_text_raises_spec_error(bad):
    with pytest.raises(SpecError):
        FAM.parse_text(bad)


def test_repair_moves_reveal_or_reshape_and_keep_every_clue_true():
    schema = FAM.schema({"size": 6, "stars": 1})
    inst, sol, _ = fresh_puzzle(schema, 0, np.random.default_rng(5))
    actions = set()
    for var in schema.variables:
        for move in FAM.repair_moves(schema, inst, sol, var.coord):
            actions.add(move.action)
            new = move.apply(inst)
            assert any(var.coord in c.coords for c in move.add)
            assert resolve(new).check(sol)
            regions = [c for c in new.clues if c.kind == "region"]
            assert len(regions) == 6 and all(connected(r.coords) for r in regions)
    assert actions == {"reveal", "reshape"}


def test_adaptive_loop_reaches_unique_puzzles():
    from puzzlekit.generators.adaptive import Adaptive

    schema = FAM.schema({"size": 6, "stars": 1})
    rng = np.random.default_rng(0)
    strategy, sat = Adaptive(0), get_verifier("sat")
    step = strategy.start(schema, rng)
    for _ in range(100):
        rep = sat.verify(step.instance, solution_cap=2)
        if rep.verdict is Verdict.UNIQUE:
            break
        step = strategy.propose(step, rep, rng)
    assert rep.verdict is Verdict.UNIQUE


def test_render_ascii_marks_reject_coordinates():
    inst = FAM.parse_text("AABBB\nAABBB\nCCDDD\nCEEED\nCCEDD\n\n.*...\n.....\n.....\n.....\n.....")
    lines = FAM.render_ascii(inst, marks={(3, 4): "!"}).splitlines()
    assert lines[4].split("|")[1][3 * 4 + 2] == "!"
    assert lines[1].split("|")[1][3 * 1 + 1] == "*"


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_generate_gives_five_puzzles_with_no_holdout_reject(capsys, strategy):
    args = ["generate", "starbattle", "--params", '{"size": 5, "stars": 1}', "--count", "5"]
    assert main([*args, "--strategy", strategy]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    accepted = [r for r in rows if r["status"] == "accepted"]
    assert len(accepted) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in accepted)


@pytest.mark.parametrize("params", [{"size": 6, "stars": 1}, {"size": 8, "stars": 2}])
def test_the_golden_cases_solver_finds_the_sat_backends_solutions(params):
    from puzzlekit.families.starbattle import star_solutions

    schema = FAM.schema(params)
    for seed in range(6):
        rng = np.random.default_rng(seed)
        inst, _, _ = fresh_puzzle(schema, int(rng.integers(0, 4)), rng)
        clues = [c for c in inst.clues if seed % 2 or c.id != "region2"]  # a cell regionless
        rep = get_verifier("sat").verify(
            Instance.make("starbattle", params, clues), solution_cap=500
        )
        mine = star_solutions(params["size"], params["stars"], clues, 500)
        stars = {
            frozenset(tuple(v.coord) for v in schema.variables if s[v.name]) for s in rep.solutions
        }
        assert len(mine) == len(rep.solutions)
        if len(mine) < 500:
            assert set(mine) == stars


def test_golden_cases_come_from_a_generated_layout():
    cases = FAM.golden_instances({"size": 6, "stars": 1})
    unique = cases["unique"][1]
    assert {c.kind for c in unique.clues} >= {"region", "star"}
    assert FAM.golden_instances({"size": 4, "regions": ["AABB", "AABB", "CCDD", "CCDD"]}) is None
