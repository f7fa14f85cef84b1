"""The loop's budget and start: the search nodes of one filter call, the starting clue count
of large schemas, and the line a loop still looking writes on stderr."""

from __future__ import annotations

import pytest

from puzzlekit.families import get_family
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.loop import budget as loop_budget
from puzzlekit.loop.driver import FILTER_NODES, LoopBudget, LoopSpec, default_clues, run_loop
from puzzlekit.verifiers.registry import get_verifier


@pytest.fixture(scope="module")
def schema():
    return get_family("sudoku").schema({})


def test_start_share_grows_above_a_16x16_grid() -> None:
    assert default_clues(81) == 24  # 9×9: the records of every seed as before
    assert default_clues(256) == 77  # 16×16: still 30%
    assert default_clues(625) == 344  # 25×25: 55%


def test_a_spec_cuts_each_filter_call_at_its_node_budget() -> None:
    assert LoopSpec("sudoku").budget.filter_budget.nodes == FILTER_NODES
    assert LoopSpec("sudoku", filter_nodes=None).budget.filter_budget is None
    assert LoopBudget().filter_budget is None


def test_a_cut_off_call_is_undecided_and_the_strategy_repairs_on(schema) -> None:
    filt = get_verifier("bitmask")
    cut = run_loop(schema, Adaptive(10), filt, None, LoopBudget(max_calls=3, filter_nodes=1), 3)
    assert [a.verdict for a in cut.trace] == ["UNDECIDED"] * 3
    assert [a.clue_count for a in cut.trace] == [10, 11, 12]  # a clue revealed per call
    free = run_loop(schema, Adaptive(10), filt, None, LoopBudget(max_calls=3), 3)
    assert [a.verdict for a in free.trace] == ["MULTIPLE"] * 3


def test_a_loop_still_looking_says_so_on_stderr(schema, monkeypatch, capsys) -> None:
    filt = get_verifier("bitmask")
    run_loop(schema, Adaptive(10), filt, None, LoopBudget(max_calls=2), 3)
    assert "still looking" not in capsys.readouterr().err
    monkeypatch.setattr(loop_budget, "NOTE_EVERY", 0.0)
    run_loop(schema, Adaptive(10), filt, None, LoopBudget(max_calls=2), 3)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "still looking" in ln]
    assert len(lines) == 2
    assert lines[0].startswith("puzzlekit: loop seed 3: still looking after 1 filter calls")
    assert "the last on 10 clues was MULTIPLE" in lines[0]
