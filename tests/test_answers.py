"""Answer checks: judged against the rules (every solution of a MULTIPLE puzzle is CORRECT),
coordinate-tagged violations, tolerant reading, moves of game puzzles, batch = one by one, and
agreement with a brute-force rule check on random answers of every family."""

from __future__ import annotations

import numpy as np
import pytest

import puzzlekit as pk
from benchmarks.answers_bench import brute_verdict
from puzzlekit.answers import AnswerVerdict, check_answer, check_answers
from puzzlekit.families import default_params, families, get_family, resolve
from puzzlekit.families.games import OnlyWinningMove
from puzzlekit.generators.base import fresh_puzzle

SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def _puzzle(name: str, k: int = 6, seed: int = 0):
    fam = get_family(name)
    schema = fam.schema(default_params(fam))
    inst, solution, _ = fresh_puzzle(schema, k, np.random.default_rng(seed))
    return inst, schema, solution


def test_the_solution_is_correct_with_full_score() -> None:
    rep = pk.check_answer(pk.parse("sudoku", SUDOKU), SOLVED)
    assert rep.verdict is AnswerVerdict.CORRECT
    assert (rep.score, rep.cells_right, rep.violations) == (1.0, 81, ())


def test_a_swapped_pair_names_the_rules_and_cells() -> None:
    wrong = SOLVED[:2] + SOLVED[3] + SOLVED[2] + SOLVED[4:]  # r1c3 and r1c4 swapped
    rep = check_answer(pk.parse("sudoku", SUDOKU), wrong)
    assert rep.verdict is AnswerVerdict.INCORRECT
    rules = {v.rule for v in rep.violations if v.violation_type == "rule-broken"}
    assert {"col3", "col4", "box1", "box2"} <= rules and "row1" not in rules
    col3 = next(v for v in rep.violations if v.rule == "col3")
    assert (0, 2) in col3.coords and len(col3.coords) == 2
    assert 0 < rep.score < 1


def test_a_given_overwritten_is_named_at_its_cell() -> None:
    wrong = "6" + SOLVED[1:]
    rep = check_answer(pk.parse("sudoku", SUDOKU), wrong)
    given = [v for v in rep.violations if v.violation_type == "given-overwritten"]
    assert [(v.coord, v.field_name) for v in given] == [((0, 0), "r1c1")]


def test_unfilled_cells_are_incomplete_and_scored() -> None:
    partial = "." * 5 + SOLVED[5:]
    rep = check_answer(pk.parse("sudoku", SUDOKU), partial)
    assert rep.verdict is AnswerVerdict.INCOMPLETE
    (unfilled,) = rep.violations
    assert unfilled.violation_type == "unfilled" and len(unfilled.coords) == 5
    assert rep.score == pytest.approx(76 / 81)


def test_a_value_outside_the_domain_is_out_of_domain() -> None:
    rep = check_answer(pk.parse("latin", "." * 16, {"size": 4}), {"r1c1": 7})
    assert any(v.violation_type == "out-of-domain" and v.coord == (0, 0) for v in rep.violations)
    assert rep.verdict is AnswerVerdict.INCORRECT


def test_every_solution_of_a_multiple_puzzle_is_correct_and_said_not_unique() -> None:
    for name in ("sudoku", "latin", "kenken", "futoshiki", "logicgrid", "sudoku-killer"):
        inst, _, _ = _puzzle(name, k=2, seed=1)
        rep = pk.verify(inst, solution_cap=20)
        assert rep.verdict.value == "MULTIPLE", name
        for sol in rep.solutions:
            got = check_answer(inst, dict(sol), uniqueness=True)
            assert got.verdict is AnswerVerdict.CORRECT, (name, got.violations)
            assert got.unique is False and got.diagnostics


def test_a_model_completion_is_read_as_its_last_grid() -> None:
    rows = [SOLVED[i : i + 9] for i in range(0, 81, 9)]
    drawn = "\n".join(
        " ".join(r[:3]) + " | " + " ".join(r[3:6]) + " | " + " ".join(r[6:])
        + ("\n------+-------+------" if i in (2, 5) else "")
        for i, r in enumerate(rows)
    )  # fmt: skip
    text = f"Let me think.\nThe puzzle:\n{SUDOKU}\nMy answer:\n```\n{drawn}\n```\nDone."
    assert check_answer(pk.parse("sudoku", SUDOKU), text).verdict is AnswerVerdict.CORRECT


def test_json_and_unreadable_answers() -> None:
    inst = pk.parse("sudoku", SUDOKU)
    as_json = (
        "{" + ",".join(f'"r{i // 9 + 1}c{i % 9 + 1}": {d}' for i, d in enumerate(SOLVED)) + "}"
    )
    assert check_answer(inst, f"```json\n{as_json}\n```").verdict is AnswerVerdict.CORRECT
    rep = check_answer(inst, "I could not solve it")
    assert (
        rep.verdict is AnswerVerdict.MALFORMED and "no grid of 81 cells" in rep.violations[0].detail
    )
    rep = check_answer(inst, {"r10c1": 3})
    assert rep.verdict is AnswerVerdict.MALFORMED and "r10c1" in rep.violations[0].detail


def test_the_family_text_line_is_an_answer() -> None:
    inst, schema, solution = _puzzle("futoshiki", k=4)
    fam = get_family("futoshiki")
    line = fam.format_text(inst.with_clues(fam.clues_from_solution(schema, solution)))
    assert ":" in line  # the family's own format, not a bare grid
    assert check_answer(inst, line).verdict is AnswerVerdict.CORRECT


def test_a_game_answer_is_a_move_correct_when_it_wins() -> None:
    fam = get_family("owm-tictactoe")
    inst = fam.parse_text("xx./oo./...")
    rep = check_answer(inst, "I play R1C3 to win")
    assert rep.verdict is AnswerVerdict.CORRECT and rep.distance == 1 and rep.unique is True
    bad = check_answer(inst, {"r3c3": 1})
    assert bad.verdict is AnswerVerdict.INCORRECT
    assert bad.violations[0].violation_type == "not-winning" and bad.violations[0].coord == (2, 2)
    assert "loses" in bad.violations[0].detail
    assert check_answer(inst, "r1c1").violations[0].violation_type == "illegal-move"
    assert check_answer(inst, "pass").verdict is AnswerVerdict.MALFORMED


def test_batched_reports_equal_one_by_one() -> None:
    inst = pk.parse("sudoku", SUDOKU)
    answers = [SOLVED, "6" + SOLVED[1:], "." * 81, "nothing", {"r1c1": 5}, list(SOLVED)]
    assert check_answers(inst, answers) == [check_answer(inst, a) for a in answers]


def test_a_batch_that_repeats_wrong_units_reports_each_answer_as_alone() -> None:
    """Wrong answers share their broken units and overwritten givens (made once a batch):
    every report still equals the one its answer gets alone, in a batch and across batches."""
    inst = pk.parse("sudoku", SUDOKU)
    rng = np.random.default_rng(8)
    answers = []
    for _ in range(60):
        at = int(rng.integers(81))
        answers.append(SOLVED[:at] + str(int(SOLVED[at]) % 9 + 1) + SOLVED[at + 1 :])
    answers += answers[:20] + [SOLVED] * 5
    alone = [check_answer(inst, a) for a in answers]
    assert check_answers(inst, answers) == alone
    assert check_answers(inst, answers[::-1]) == alone[::-1]
    assert sum(r.verdict is AnswerVerdict.INCORRECT for r in alone) == 80


def test_what_a_batch_made_is_bounded_and_reports_stay_the_same(monkeypatch) -> None:
    """The shared violations of a puzzle are emptied past MADE_CAP entries: memory stays
    bounded over many distinct wrong answers, and every report is still the one alone."""
    from puzzlekit.answers import compiled as compiled_mod

    monkeypatch.setattr(compiled_mod, "MADE_CAP", 20)
    inst = pk.parse("sudoku", SUDOKU)
    answers = []
    for at in range(81):
        answers.append(SOLVED[:at] + str(int(SOLVED[at]) % 9 + 1) + SOLVED[at + 1 :])
    alone = [check_answer(inst, a) for a in answers]
    for start in range(0, 81, 9):  # batches of nine
        assert check_answers(inst, answers[start : start + 9]) == alone[start : start + 9]
        assert len(compiled_mod.compiled(inst).made) <= 20 + 9 * 8  # a batch's own, past the cap


def _random_answers(schema, solution, rng, count):
    names = schema.names
    for _ in range(count):
        answer = {n: solution[n] for n in names}
        for n in rng.choice(names, size=int(rng.integers(0, 4)), replace=False):
            answer[n] = int(rng.choice(schema.var(n).domain))
        if rng.random() < 0.2:
            answer[names[int(rng.integers(len(names)))]] = None
        yield answer


@pytest.mark.parametrize(
    "name", [f.info.name for f in families() if not isinstance(f, OnlyWinningMove)]
)
def test_agrees_with_a_brute_force_rule_check(name: str) -> None:
    inst, schema, solution = _puzzle(name, k=4, seed=2)
    problem = resolve(inst)
    rng = np.random.default_rng(7)
    answers = list(_random_answers(schema, solution, rng, 60))
    for answer, rep in zip(answers, check_answers(inst, answers), strict=True):
        if all(v is not None for v in answer.values()):
            assert (rep.verdict is AnswerVerdict.CORRECT) == problem.check(answer), (name, answer)
        # partial answers too: INCORRECT exactly when a rule is already broken
        assert rep.verdict is brute_verdict(problem, answer), (name, answer)
