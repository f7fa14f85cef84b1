"""The band search of the standard 9×9 Sudoku against the general bitmask search and ``sat``:
the same verdicts and counts on many public puzzles and their MULTIPLE and UNSOLVABLE variants,
the same solutions below the cap, and at the cap the general search's first solutions in its
order (searched again); it pauses and goes on, and other 9×9 shapes keep the 9×9 search."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import puzzlekit as pk
from puzzlekit.quality.golden.entries import load_corpus
from puzzlekit.verifiers.bitmask import search as bitmask_search
from puzzlekit.verifiers.bitmask.backend import prepare_instance, variable_order
from puzzlekit.verifiers.bitmask.band9 import WIDTH, load_band9, search_band9
from puzzlekit.verifiers.bitmask.kernel import DONE, PAUSED
from puzzlekit.verifiers.bitmask.search import Search, start_domains
from puzzlekit.verifiers.search import BudgetExceeded

ROOT = Path(__file__).parent.parent
SHARED = Path("/work/shared/data/sudoku")
GOLDEN = Path(__file__).parent / "golden"


def _set(name: str, count: int, seed: int) -> list[str]:
    """``count`` puzzles of a public set: the shared copy where there is one, else the
    repository's 200-line sample."""
    shared = SHARED / {"17clue": "sudoku9_17clue_1000.txt", "top1465": "sudoku9_top1465.txt"}.get(
        name, "sudoku9_forum_hardest_500.txt"
    )
    path = shared if shared.is_file() else ROOT / f"experiments/data/sudoku9_{name}_200.txt"
    lines = path.read_text().split()
    return random.Random(seed).sample(lines, min(count, len(lines)))


def _variants(line: str, rng: random.Random) -> list[str]:
    """The puzzle; with one, three and eight givens removed (MULTIPLE, up to many solutions);
    with an empty cell given a value its row already holds (UNSOLVABLE)."""
    givens = [i for i, ch in enumerate(line) if ch not in ".0"]
    out = [line]
    for drop in (1, 3, 8):
        cells = list(line)
        for i in rng.sample(givens, drop):
            cells[i] = "."
        out.append("".join(cells))
    row = givens[0] // 9
    empty = [i for i in range(9 * row, 9 * row + 9) if line[i] in ".0"]
    cells = list(line)
    cells[empty[0] if empty else next(i for i, ch in enumerate(line) if ch in ".0")] = line[
        givens[0]
    ]
    return [*out, "".join(cells)]


def _pair(text: str, cap: int) -> tuple[np.ndarray, Search, Search]:
    """The start domains, a search that takes the band search and one on the general kernel."""
    inst = pk.parse("sudoku", text)
    cs, effects = prepare_instance(inst)
    dom = start_domains(cs, effects)
    structure = cs.structure(list(effects.values()))
    band, general = Search(cs, structure, cap), Search(cs, structure, cap)
    assert band.band9 is not None
    general.grid9 = general.band9 = None
    order = variable_order(cs, inst.digest)
    band.set_order(order)
    general.set_order(order)
    return dom, band, general


def _band_alone(dom: np.ndarray, cap: int, chunk: int = 1 << 40) -> tuple[int, np.ndarray, int]:
    """Solutions found, their bits and nodes of the band search alone, ``chunk`` nodes a call."""
    nodes = np.zeros((83, WIDTH), np.int64)
    branch, state = np.zeros((83, 2), np.int64), np.zeros(4, np.int64)
    sols = np.zeros((cap, 81), np.int64)
    load_band9(dom, nodes[0])
    while search_band9(nodes, branch, state, sols, chunk) == PAUSED:
        pass
    return int(state[2]), sols[: state[2]].copy(), int(state[3])


def _rows(bits: np.ndarray) -> list[tuple[int, ...]]:
    return sorted(map(tuple, bits.tolist()))


@pytest.mark.parametrize(("name", "count"), [("17clue", 60), ("top1465", 60), ("forum", 40)])
def test_the_band_search_counts_and_finds_what_the_general_search_finds(name, count) -> None:
    """On public puzzles and their variants, counting to 2 and to 40: the same count; below the
    cap the same solutions; the band search alone at the cap finds solutions that are
    solutions (the general search finds as many)."""
    rng = random.Random(31)
    verdicts = set()
    for line in _set(name, count, 7):
        for text in _variants(line, rng):
            for cap in (2, 40):
                dom, band, general = _pair(text, cap)
                general.run(dom, None, None)
                found, bits, _ = _band_alone(dom, cap)
                assert found == general.found, text
                if found < cap:
                    assert _rows(bits) == _rows(general.bits()), text
                else:
                    assert len(set(_rows(bits))) == cap
                    assert all(_is_solution(text, row) for row in bits.tolist()), text
                verdicts.add(min(found, 2))
    assert verdicts == {0, 1, 2}  # UNSOLVABLE, UNIQUE and MULTIPLE among the cases


def _is_solution(text: str, row: list[int]) -> bool:
    """Whether value indices ``row`` (0 for 1) complete the puzzle ``text`` as a Sudoku."""
    grid = [v + 1 for v in row]
    if any(ch not in ".0" and int(ch) != g for ch, g in zip(text, grid, strict=True)):
        return False
    units = [[9 * r + c for c in range(9)] for r in range(9)]
    units += [[9 * r + c for r in range(9)] for c in range(9)]
    units += [
        [9 * (3 * (b // 3) + i) + 3 * (b % 3) + j for i in range(3) for j in range(3)]
        for b in range(9)
    ]
    return all(sorted(grid[v] for v in u) == list(range(1, 10)) for u in units)


@pytest.mark.parametrize("cap", [2, 7])
def test_at_the_cap_a_search_gives_the_general_searchs_first_solutions(cap: int) -> None:
    """Through :class:`Search` (as a verification runs it) the band search's answer at the cap
    is replaced by the general search's first solutions, in its order; below the cap the band
    search's answer stands."""
    rng = random.Random(5)
    capped = 0
    for line in _set("top1465", 12, 3) + _set("17clue", 12, 3):
        for text in _variants(line, rng):
            dom, band, general = _pair(text, cap)
            band.run(dom, None, None)
            general.run(dom, None, None)
            assert band.found == general.found, text
            if band.found == cap:
                capped += 1
                assert np.array_equal(band.bits(), general.bits()), text
            else:
                assert _rows(band.bits()) == _rows(general.bits()), text
            assert band.solutions() == general.solutions(), text
    assert capped > 10


def test_reports_equal_sat_on_unique_multiple_and_unsolvable_puzzles() -> None:
    """``pk.verify`` (the band search) and ``sat``: the same verdict, count and solutions below
    the cap."""
    rng = random.Random(11)
    seen = set()
    for line in _set("17clue", 4, 1) + _set("top1465", 4, 1):
        for text in _variants(line, rng):
            inst = pk.parse("sudoku", text)
            mine = pk.verify(inst, solution_cap=3)
            theirs = pk.verify(inst, verifier="sat", solution_cap=3)
            assert mine.verdict == theirs.verdict, text
            assert mine.solution_count == theirs.solution_count, text
            if mine.solution_count < 3:
                assert list(mine.solutions) == list(theirs.solutions), text
            seen.add(mine.verdict.value)
    assert {"UNIQUE", "MULTIPLE", "UNSOLVABLE"} <= seen


def test_a_paused_band_search_goes_on_to_the_same_answer() -> None:
    rng = random.Random(2)
    for line in _set("forum", 6, 9):
        for text in _variants(line, rng)[:3]:
            dom = start_domains(*_prepared_pair(text))
            whole = _band_alone(dom, 5)
            for chunk in (1, 3, 17):
                found, bits, nodes = _band_alone(dom, 5, chunk)
                assert (found, nodes) == (whole[0], whole[2]), text
                assert np.array_equal(bits, whole[1]), text


def _prepared_pair(text: str):  # type: ignore[no-untyped-def]
    return prepare_instance(pk.parse("sudoku", text))


def test_a_node_budget_stops_the_band_search_with_budget_exceeded() -> None:
    line = _set("forum", 1, 4)[0]
    dom, band, _ = _pair(line, 2)
    with pytest.raises(BudgetExceeded):
        band.run(dom, 3, None)
    assert band.nodes == 3


def test_run_many_equals_run_on_the_band_search() -> None:
    """One compiled call over many start domains: the same counts, solutions (the general
    search's at the cap) and nodes as :meth:`Search.run` on each."""
    rng = random.Random(8)
    texts = [t for line in _set("top1465", 6, 6) for t in _variants(line, rng)]
    cap = 3
    cs, effects = prepare_instance(pk.parse("sudoku", texts[0]))
    starts, orders, expected = [], [], []
    for text in texts:
        dom, band, _ = _pair(text, cap)
        band.run(dom, None, None)
        starts.append(dom)
        orders.append(band.order)
        expected.append((band.found, band.bits().copy(), band.nodes))
    many = Search(cs, cs.structure(list(effects.values())), cap)
    sols, found, nodes, status = many.run_many(np.array(starts), np.array(orders), 1 << 30)
    assert (status == DONE).all()
    for k, (f, bits, n) in enumerate(expected):
        assert (found[k], nodes[k]) == (f, n), texts[k]
        assert np.array_equal(sols[k, :f], bits), texts[k]
    assert 0 < sum(f == cap for f, _, _ in expected) < len(texts)  # rows at the cap and below


def test_only_the_standard_sudoku_takes_the_band_search() -> None:
    for corpus in ("sudoku-jigsaw-9x9", "latin-9x9"):
        inst = load_corpus(GOLDEN / f"{corpus}.jsonl")[0].instance
        cs, effects = prepare_instance(inst)
        search = Search(cs, cs.structure(list(effects.values())), 2)
        assert search.grid9 is not None and search.band9 is None, corpus
    assert bitmask_search.Search is Search
