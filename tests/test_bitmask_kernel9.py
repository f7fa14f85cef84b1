"""The 9×9 bitboard search against the general bitmask kernel: on the same instances it finds
the same solutions in the same order with the same node counts (and pauses at the same node);
its locked-candidate look-ahead keeps the solutions and their order with no more nodes."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import puzzlekit as pk
from puzzlekit.quality.golden.entries import load_corpus
from puzzlekit.verifiers.bitmask import search as bitmask_search
from puzzlekit.verifiers.bitmask.backend import prepare_instance, variable_order
from puzzlekit.verifiers.bitmask.search import Search, start_domains
from puzzlekit.verifiers.search import BudgetExceeded

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"


def _variants(line: str, seed: int) -> list[str]:
    """The puzzle, with one and with three givens removed (often MULTIPLE, many solutions),
    and with an empty cell given a value that repeats (mostly UNSOLVABLE)."""
    rng = random.Random(seed)
    givens = [i for i, ch in enumerate(line) if ch not in ".0"]
    out = [line]
    for drop in (1, 3):
        cells = list(line)
        for i in rng.sample(givens, drop):
            cells[i] = "."
        out.append("".join(cells))
    cells = list(line)
    cells[next(i for i, ch in enumerate(line) if ch in ".0")] = line[givens[0]]
    return [*out, "".join(cells)]


def _searches(inst, cap: int) -> tuple[np.ndarray, Search, Search]:
    """The start domains, a search on the 9×9 kernel and one on the general kernel."""
    cs, effects = prepare_instance(inst)
    dom = start_domains(cs, effects)
    structure = cs.structure(list(effects.values()))
    fast, general = Search(cs, structure, cap), Search(cs, structure, cap)
    assert fast.grid9 is not None
    general.grid9 = None
    fast.band9 = general.band9 = None  # the band search has tests of its own
    order = variable_order(cs, inst.digest)
    fast.set_order(order)
    general.set_order(order)
    return dom, fast, general


def _lines() -> list[str]:
    return [
        *(DATA / "sudoku9_17clue_sample.txt").read_text().split()[:8],
        *(DATA / "sudoku9_top1465_sample.txt").read_text().split()[:8],
    ]


@pytest.mark.parametrize("cap", [2, 100])
def test_the_9x9_search_finds_what_the_general_one_finds_in_the_same_order(cap: int) -> None:
    verdicts = set()
    for k, line in enumerate(_lines()):
        for text in _variants(line, k):
            dom, fast, general = _searches(pk.parse("sudoku", text), cap)
            fast.run(dom, None, None)
            general.run(dom, None, None)
            assert (fast.found, fast.nodes) == (general.found, general.nodes), text
            assert (fast.bits() == general.bits()).all(), text
            verdicts.add(min(fast.found, 2))
    assert verdicts == {0, 1, 2}  # UNSOLVABLE, UNIQUE and MULTIPLE among the cases


@pytest.mark.parametrize("corpus", ["sudoku-jigsaw-9x9", "latin-9x9", "sudoku-9x9"])
def test_jigsaw_and_latin_9x9_take_the_9x9_search_with_the_same_results(corpus: str) -> None:
    searched = 0
    for entry in load_corpus(GOLDEN / f"{corpus}.jsonl"):
        if isinstance(prepare_instance(entry.instance), list):
            continue  # an invalid case: never searched
        dom, fast, general = _searches(entry.instance, entry.cap)
        fast.run(dom, None, None)
        general.run(dom, None, None)
        assert (fast.found, fast.nodes) == (general.found, general.nodes), entry.case
        assert (fast.bits() == general.bits()).all(), entry.case
        searched += 1
    assert searched == 4  # unique, multiple, multiple-capped, unsolvable


def test_other_shapes_keep_the_general_search() -> None:
    for name, params in [("sudoku", {"size": 4}), ("sudoku-killer", {"size": 9})]:
        inst = load_corpus(GOLDEN / f"{name}-{params['size']}x{params['size']}.jsonl")[0].instance
        cs, effects = prepare_instance(inst)
        assert Search(cs, cs.structure(list(effects.values())), 2).grid9 is None, name


def test_a_node_budget_stops_both_at_the_same_node_with_the_same_solutions() -> None:
    line = (DATA / "sudoku9_top1465_sample.txt").read_text().split()[0]
    text = _variants(line, 0)[2]
    for limit in (1, 7, 40):
        dom, fast, general = _searches(pk.parse("sudoku", text), 100)
        caught = []
        for search in (fast, general):
            with pytest.raises(BudgetExceeded) as exc:
                search.run(dom, limit, None)
            caught.append((search.nodes, exc.value.solutions))
        assert caught[0] == caught[1]


def test_the_look_ahead_keeps_the_solutions_and_their_order_with_fewer_nodes(monkeypatch):
    monkeypatch.setattr(bitmask_search, "LOOKAHEAD", True)
    fewer = 0
    for k, line in enumerate((DATA / "sudoku9_top1465_sample.txt").read_text().split()[:6]):
        for text in _variants(line, k):
            dom, ahead, general = _searches(pk.parse("sudoku", text), 20)
            assert ahead.grid9 is not None and ahead.grid9[2].shape[0] == 54 * 2
            ahead.run(dom, None, None)
            general.run(dom, None, None)
            assert ahead.found == general.found
            assert (ahead.bits() == general.bits()).all()
            assert ahead.nodes <= general.nodes
            fewer += ahead.nodes < general.nodes
    assert fewer > 0
