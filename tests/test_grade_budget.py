"""Grading honours its budget: past it the grade answers at once, ``undecided``, with what ran
out and what was spent; within it nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

from puzzlekit.app.cli import main
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.families import get_family
from puzzlekit.grading.techniques import grade

HARD = (Path(__file__).parent / "data" / "sudoku9_top1465_sample.txt").read_text().split()[0]


def hard():
    return get_family("sudoku").parse_text(HARD, {"size": 9})


def test_a_node_budget_stops_the_techniques_and_says_what_was_spent() -> None:
    g = grade(hard(), budget=SearchBudget(nodes=40, seconds=None))
    assert g.status == "undecided"
    assert g.level == len(g.scale) - 1 and g.sat_verdict is None
    assert g.budget is not None and g.budget.resource == "nodes"
    assert g.budget.limit == 40 and g.budget.nodes == 41
    obj = g.to_json_obj()
    assert obj["budget"]["resource"] == "nodes" and obj["status"] == "undecided"
    again = grade(hard(), budget=SearchBudget(nodes=40, seconds=None)).to_json_obj(trace=True)
    for o in (again, obj := g.to_json_obj(trace=True)):
        del o["budget"]["seconds"]  # the one timing
    assert again == obj  # one budget of nodes, one answer


def test_a_time_budget_stops_the_grade() -> None:
    g = grade(hard(), budget=SearchBudget(nodes=None, seconds=1e-9))
    assert g.status == "undecided" and g.budget is not None
    assert g.budget.resource == "seconds" and g.budget.nodes == 1


def test_within_the_budget_the_grade_is_the_unbudgeted_one() -> None:
    roomy = grade(hard(), search=False, budget=SearchBudget(nodes=10**9, seconds=None))
    assert roomy == grade(hard(), search=False)
    assert roomy.status != "undecided" and roomy.budget is None
    assert "budget" not in roomy.to_json_obj()


def test_cli_grade_takes_a_budget_and_refuses_a_non_positive_one(tmp_path, capsys) -> None:
    path = tmp_path / "p.txt"
    path.write_text(HARD + "\n")
    assert main(["grade", str(path), "--family", "sudoku", "--budget-nodes", "5"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["status"] == "undecided" and line["budget"]["limit"] == 5
    for flag, value in (
        ("--budget-seconds", "0"),
        ("--budget-seconds", "-1"),
        ("--budget-nodes", "0"),
    ):
        assert main(["grade", str(path), "--family", "sudoku", flag, value]) == 2
        assert flag in capsys.readouterr().err


def test_a_rule_that_searches_a_game_stops_on_the_grade_deadline() -> None:
    """Grading an empty 8×8 connect-4 board checks rules that solve the game; they stop on the
    grade's deadline (the grade ran past 100 s with a 2 s budget before)."""
    import time

    fam = get_family("owm-connect")
    board = fam.parse_text("/".join(["." * 8] * 8), {"rows": 8, "cols": 8, "k": 4})
    start = time.perf_counter()
    g = grade(board, budget=SearchBudget(nodes=None, seconds=1.0))
    assert time.perf_counter() - start < 10
    assert g.status == "undecided" and g.budget is not None and g.budget.resource == "seconds"
