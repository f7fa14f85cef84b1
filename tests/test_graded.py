"""Generation at an exact level: reveal where the limited solver is stuck, dig what a single
brings back, and the blind baseline beside it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from puzzlekit.app.cli import main
from puzzlekit.core.model import Instance
from puzzlekit.families import get_family
from puzzlekit.generators.base import fresh_puzzle
from puzzlekit.generators.graded import _Givens, grade_fast, shape_to_level
from puzzlekit.generators.minimize import minimize
from puzzlekit.grading.techniques import grade
from puzzlekit.io.inputs import iter_tatham_items
from puzzlekit.verifiers.registry import get_verifier

DATA = Path(__file__).parent / "data"
SCHEMA = get_family("sudoku").schema({"size": 9})


def unique(inst: Instance) -> bool:
    return get_verifier("sat").verify(inst, solution_cap=2).verdict.value == "UNIQUE"


def full_grid(seed: int) -> tuple[Instance, dict[str, int], np.random.Generator]:
    rng = np.random.default_rng(seed)
    inst, solution, _ = fresh_puzzle(SCHEMA, 81, rng)
    return inst, solution, rng


def test_fast_grade_matches_the_grade():
    items = [
        item.instance
        for name in ("basic", "intermediate", "advanced", "extreme")
        for item in list(
            iter_tatham_items((DATA / "tatham" / "labelled" / "solo" / f"{name}.txt").read_text())
        )[:3]
    ]
    for inst in items:
        slow, fast = grade(inst, search=False), grade_fast(inst)
        assert (fast.level, fast.technique, fast.status) == (
            slow.level,
            slow.technique,
            slow.status,
        )
        assert fast.counts == slow.counts and fast.stuck == slow.stuck


@pytest.mark.parametrize("seed", range(4))
def test_level_zero_digs_a_full_grid(seed):
    inst, solution, rng = full_grid(seed)
    shaped = shape_to_level(inst, solution, 0, rng)
    assert shaped.instance is not None and shaped.reveals == 0
    # the full grid needs no run, the dug result one grade
    assert shaped.grader_calls == 1 and shaped.single_checks == 81
    assert len(shaped.instance.clues) == 81 - shaped.removed < 50
    assert grade(shaped.instance, search=False).level == 0
    assert unique(shaped.instance)
    assert all(solution[c.id] == c.data_dict()["value"] for c in shaped.instance.clues)


def test_single_check_is_what_the_solver_does_next():
    # a dropped clue the check clears is placed again by the first singles the solver tries
    inst, solution, rng = full_grid(7)
    g = _Givens(inst, solution)
    cleared = 0
    for name in [f"r{r}c{c}" for r in range(1, 10) for c in range(1, 10)]:
        value = g.given.pop(name)
        if g.single_back(name, value, naked=True):
            cleared += 1
            solver = g.template.fork(g.given)
            assert solver.run(cap=1) == "solved" and solver.cand[name] == {value}
        else:
            g.given[name] = value
    assert 20 < cleared < 81


def test_stuck_puzzle_reveals_down_to_the_target():
    line = (DATA / "sudoku9_top1465_sample.txt").read_text().splitlines()[0]
    inst = get_family("sudoku").parse_text(line)
    solution = get_verifier("sat").verify(inst, solution_cap=2).solutions[0]
    assert grade(inst, search=False).level == 7
    hits = 0
    for seed in range(6):
        shaped = shape_to_level(inst, solution, 2, np.random.default_rng(seed), minimal=True)
        assert shaped.reveals > 0 and shaped.grader_calls == 2
        # minimal start: only revealed clues may be dug, so every original clue stays
        assert {c.id for c in inst.clues} <= {c.id for c in shaped.shaped.clues}
        assert grade(shaped.shaped, search=False).level == shaped.grade.level <= 2
        if shaped.instance is not None:
            hits += 1
            assert shaped.grade.level == 2 and unique(shaped.instance)
    assert hits >= 1


def test_too_easy_minimal_puzzle_is_dropped_after_one_run():
    inst, solution, rng = full_grid(3)
    mini = minimize(inst, get_verifier("sat"), rng, solution=solution).instance
    level = grade(mini, search=False).level
    shaped = shape_to_level(mini, solution, 7, rng, minimal=True)
    assert shaped.grader_calls == 1 and shaped.reveals == 0
    if level < 7:
        assert shaped.instance is None and shaped.grade.level == level
    else:
        assert shaped.instance == mini


def test_target_outside_the_scale():
    from puzzlekit.generators.graded import level_detail

    inst, solution, rng = full_grid(0)
    with pytest.raises(ValueError, match="outside 0..7"):
        shape_to_level(inst, solution, 8, rng)
    with pytest.raises(ValueError, match="outside 0..7"):
        level_detail(inst, -1)
    with pytest.raises(ValueError, match="reveal must be one of fewest, most, random"):
        shape_to_level(inst, solution, 2, rng, reveal="first")


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_cli_generate_difficulty_records(strategy, capsys):
    argv = ["generate", "sudoku", "--difficulty", "0", "--seed", "2", "--holdout", "none"]
    assert main([*argv, "--strategy", strategy, "--count", "1"]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert recs[-1]["status"] == "accepted" and recs[-1]["level"] == 0
    assert {"level", "technique", "graderCalls"} <= set(recs[-1])
    if strategy == "adaptive":  # level 0 is reached by digging: the first loop lands on it
        assert len(recs) == 1 and recs[0]["reveals"] == 0 and recs[0]["dug"] > 30
    else:
        assert all(r["graderCalls"] == 1 for r in recs)
    # one seed, one output
    assert main([*argv, "--strategy", strategy, "--count", "1"]) == 0
    again = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert again == recs


def test_level_detail_too_hard_names_stuck_cells_and_the_next_technique():
    from puzzlekit.generators.graded import level_detail
    from puzzlekit.grading.techniques import TIERS

    line = (DATA / "sudoku9_top1465_sample.txt").read_text().splitlines()[0]
    inst = get_family("sudoku").parse_text(line)
    solution = get_verifier("sat").verify(inst, solution_cap=2).solutions[0]
    d = level_detail(inst, 2)
    assert d.verdict == "too-hard" and d.level == 7 and d.stuck
    assert all(solution[cell.name] in cell.candidates for cell in d.stuck)
    tier = {name: i for i, t in enumerate(TIERS) for name in t}
    assert tier[d.next_technique] > tier["pointing"]  # harder than level 2 of sudoku
    obj = d.to_json_obj()
    assert obj["verdict"] == "too-hard" and obj["stuck"][0]["coord"] == list(d.stuck[0].coord)


def test_level_detail_too_easy_lists_clues_that_can_go():
    from puzzlekit.generators.graded import level_detail

    inst, solution, rng = full_grid(5)
    easy = shape_to_level(inst, solution, 0, rng).instance
    assert level_detail(easy, 0).verdict == "at-level"
    d = level_detail(easy, 3)
    assert d.verdict == "too-easy" and d.level == 0 and not d.stuck
    for coord in d.removable[:5]:
        fewer = easy.with_clues(c for c in easy.clues if c.coords[0] != coord)
        assert grade(fewer, search=False).level <= 3 and unique(fewer)
    kept = {c.coords[0] for c in easy.clues} - set(d.removable)
    for coord in sorted(kept)[:3]:  # a clue not listed cannot go within level 3
        fewer = easy.with_clues(c for c in easy.clues if c.coords[0] != coord)
        assert grade(fewer, search=False).level > 3


def test_cli_grade_target(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text((DATA / "sudoku9_top1465_sample.txt").read_text().splitlines()[0] + "\n")
    assert main(["grade", str(path), "--family", "sudoku", "--no-search", "--target", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["againstTarget"]["verdict"] == "too-hard" and out["againstTarget"]["stuck"]
    assert main(["grade", str(path), "--family", "sudoku", "--target", "8"]) == 2
    assert "--target must be in 0..7" in capsys.readouterr().err
