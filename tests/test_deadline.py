"""A search's deadline reaches the code it calls: an opaque rule (an only-winning-move position
solving its game inside a Predicate), the random searches of ``sampling``. Past the deadline the
answer is UNDECIDED, never a verdict the rule did not give. Reading the clues (a KenKen product
cage's tuples, a sum cage's sat encoding) spends the same budget, in every backend and in
``grade``; ``game-verdict`` and ``verify`` of an empty board stop on theirs."""

from __future__ import annotations

import time

import pytest

from benchmarks.budgets import box_sum_killer
from puzzlekit.core import deadline
from puzzlekit.core.model import Clue, Instance, Predicate
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family
from puzzlekit.grading.techniques import grade
from puzzlekit.verifiers.registry import get_verifier

#: generous: the point is "stops" (a check of the empty Connect Four board runs for minutes)
SLACK = 20.0


def test_outside_a_deadline_nothing_changes() -> None:
    assert deadline.remaining() is None
    deadline.check()  # never raises


def test_deadlines_nest_to_the_earlier_and_restore() -> None:
    now = time.perf_counter()
    with deadline.within(now + 100, 100):
        assert 99 < deadline.remaining() <= 100
        with deadline.within(now + 1000, 1000):  # a later one keeps the earlier
            assert deadline.remaining() <= 100
        with deadline.within(now - 1, 5):  # an earlier one wins
            with pytest.raises(deadline.BudgetExceeded) as exc:
                deadline.check()
            assert exc.value.resource == "seconds" and exc.value.limit == 5
            assert deadline.remaining() == 0.0
        deadline.check()
        assert deadline.remaining() > 99
    assert deadline.remaining() is None


def test_a_rule_out_of_time_is_not_a_false_rule() -> None:
    def slow(_x: int) -> bool:
        deadline.check()
        return True

    p = Predicate(("a",), slow)
    assert p.holds({"a": 1})
    with deadline.within(time.perf_counter() - 1, 1):
        with pytest.raises(deadline.BudgetExceeded):
            p.holds({"a": 1})
    assert not Predicate(("a",), lambda _x: 1 / 0).holds({"a": 1})  # a dispatch error is


@pytest.mark.parametrize("name", ["enumerative", "faulty", "sampling"])
def test_a_puzzle_backend_on_the_empty_connect_four_board_stops_undecided(name: str) -> None:
    fam = get_family("owm-connect")
    inst = fam.parse_text("/".join(["." * 7] * 6), {"rows": 6, "cols": 7, "k": 4})
    start = time.perf_counter()
    rep = get_verifier(name).verify(inst, budget=SearchBudget(nodes=None, seconds=0.5))
    assert time.perf_counter() - start < SLACK
    # the first player's only winning move is the centre column: no backend may call the
    # position UNSOLVABLE because its rule ran out of time
    assert rep.verdict is Verdict.UNDECIDED
    assert rep.reject_detail is not None and rep.reject_detail.budget is not None
    assert rep.reject_detail.budget.resource == "seconds"


def test_sampling_stops_on_its_clock_on_the_empty_25x25_sudoku() -> None:
    fam = get_family("sudoku")
    inst = fam.parse_text("." * 625, {"size": 25})
    start = time.perf_counter()
    rep = get_verifier("sampling").verify(inst, budget=SearchBudget(nodes=None, seconds=0.3))
    assert time.perf_counter() - start < SLACK
    # two distinct samples prove MULTIPLE; fewer decide nothing
    assert rep.verdict in (Verdict.UNDECIDED, Verdict.MULTIPLE)
    if rep.verdict is Verdict.UNDECIDED:
        assert rep.reject_detail.budget.resource == "seconds"
        assert rep.stats["samples"] == 3


def test_without_a_deadline_the_game_rule_still_solves() -> None:
    fam = get_family("owm-tictactoe")
    inst = fam.parse_text("xx./oo./...", {})
    rep = get_verifier("enumerative").verify(inst)
    assert rep.verdict is Verdict.UNIQUE


def _nine_product_blocks() -> Instance:
    """A 9×9 KenKen of nine 3×3 product cages of 9!: each cage has 651,960 tuples, and listing
    them (to find that they are too many) cost over 0.4 s of CPU a cage before any deadline."""
    clues = [
        Clue.make(
            f"cage-{br}{bc}",
            "cage",
            {"op": "*", "target": 362880},
            [(3 * br + r, 3 * bc + c) for r in range(3) for c in range(3)],
        )
        for br in range(3)
        for bc in range(3)
    ]
    return Instance.make("kenken", {"size": 9}, clues)


@pytest.mark.parametrize(
    "name", ["enumerative", "faulty", "budgeted", "sampling", "sat", "bitmask", "grade"]
)
def test_reading_large_product_cages_spends_the_search_budget(name: str) -> None:
    from puzzlekit.families import kenken

    kenken._product_tuples.cache_clear()  # a listing an earlier test finished is remembered
    inst = _nine_product_blocks()
    budget = SearchBudget(nodes=None, seconds=0.1)  # well under one cage's listing
    start = time.process_time()  # CPU: a machine busy with other work does not count
    if name == "grade":
        g = grade(inst, budget=budget, search=False)
        assert g.status == "undecided" and g.budget is not None
        assert g.budget.resource == "seconds"
    else:
        rep = get_verifier(name).verify(inst, solution_cap=2, budget=budget)
        # budgeted accepts what its budget did not decide; every other backend is undecided
        expected = Verdict.UNIQUE if name == "budgeted" else Verdict.UNDECIDED
        assert rep.verdict is expected
        if name != "budgeted":
            assert rep.reject_detail.budget.resource == "seconds"
    assert time.process_time() - start < 2.0


@pytest.mark.parametrize("name", ["sat", "grade"])
def test_encoding_large_sum_cages_spends_the_search_budget(name: str) -> None:
    from puzzlekit.verifiers.sat.backend import SatVerifier

    inst = box_sum_killer(25, 5)
    # grade: time for its techniques to get stuck, so that its SAT measures run
    seconds = 2.0 if name == "grade" else 0.3
    budget = SearchBudget(nodes=None, seconds=seconds)
    verifier = SatVerifier()
    start = time.process_time()
    if name == "grade":
        g = grade(inst, budget=budget)
        assert g.status == "undecided" or g.sat_verdict == "UNDECIDED"
    else:
        rep = verifier.verify(inst, solution_cap=2, budget=budget)
        assert rep.verdict is Verdict.UNDECIDED
        assert rep.reject_detail.budget.resource == "seconds"
    assert time.process_time() - start < seconds + 2.2
    # a verification stopped halfway keeps nothing half-built: the same verifier decides the
    # next instances (encodings of the same cage sums among them) as a fresh one does
    for small in (box_sum_killer(4, 2), Instance.make("sudoku-killer", {"size": 4}, [])):
        assert verifier.verify(small, solution_cap=2).verdict is Verdict.MULTIPLE


@pytest.mark.parametrize("solver", ["minimax", "alphabeta"])
def test_game_verdict_of_an_empty_board_stops_on_its_budget(solver: str, capsys) -> None:
    from puzzlekit.app.cli import main

    empty = "/".join(["....."] * 5)
    start = time.process_time()
    argv = ["game-verdict", "connect", empty, "--solver", solver, "--budget-seconds", "0.3"]
    assert main(argv) == 1  # undecided
    assert time.process_time() - start < 2.0
    assert "undecided: the seconds budget of 0.3 ran out" in capsys.readouterr().out


def test_verify_of_the_empty_8x8_mnk_board_stops_on_its_budget(tmp_path, capsys) -> None:
    import json

    from puzzlekit.app.cli import main

    board = get_family("owm-mnk").parse_text(
        "/".join(["." * 8] * 8), {"rows": 8, "cols": 8, "k": 4}
    )
    path = tmp_path / "empty.json"
    path.write_text(board.to_json() + "\n")
    start = time.process_time()
    assert main(["verify", str(path), "--budget-seconds", "0.3", "--format", "json"]) == 0
    assert time.process_time() - start < 2.0
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert out["uniquenessVerdict"] == "UNDECIDED"


def _nine_product_tables() -> Instance:
    """A 9×9 KenKen of nine 9-cell product cages of 125,440, each of another shape: each has
    up to 18,072 tuples, few enough to be a table, and choosing the backend compiled all nine
    (past 30 s) before any budget began."""
    from benchmarks.budgets import NINE_SHAPES

    cells: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(NINE_SHAPES):
        for c, region in enumerate(row):
            cells.setdefault(region, []).append((r, c))
    clues = [
        Clue.make(f"cage-{k}", "cage", {"op": "*", "target": 125440}, v)
        for k, v in sorted(cells.items())
    ]
    return Instance.make("kenken", {"size": 9}, clues)


def test_choosing_the_backend_spends_the_verifications_budget(tmp_path, capsys) -> None:
    import json

    from puzzlekit.app.cli import main
    from puzzlekit.families import kenken

    kenken._product_tuples.cache_clear()
    path = tmp_path / "cages.json"
    path.write_text(_nine_product_tables().to_json() + "\n")
    start = time.process_time()
    assert main(["verify", str(path), "--budget-seconds", "0.5", "--format", "json"]) == 0
    assert time.process_time() - start < 3.0
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert out["uniquenessVerdict"] == "UNDECIDED"


def test_a_game_rule_reached_just_past_the_deadline_is_out_of_time_not_false() -> None:
    from puzzlekit.families.games._game import move_values
    from puzzlekit.families.games.connect import Connect

    # a search whose budget ran out as it reached the rule: the game's compiled solver was
    # handed a budget of 0 s, SearchBudget refused it, and the rule read as false (UNSOLVABLE)
    game = Connect(6, 7, 4)
    state = game.initial()
    with deadline.within(time.perf_counter() - 1.0, 1.0):
        with pytest.raises(deadline.BudgetExceeded):
            move_values(game, state)
