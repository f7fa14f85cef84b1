"""The model adapters: the TRL-shaped reward (completions as text or chat messages, the puzzle
from an ``instance`` column or export's ``family`` + ``text``; a right answer 1, a wrong one less,
a malformed one 0; every solution of a MULTIPLE puzzle 1) and reasoning-gym's
``create_dataset`` + ``score_answer`` round trip on the real package."""

from __future__ import annotations

import json
import sys

import pytest

import puzzlekit as pk
from puzzlekit.integrations.reward import completion_text, judge_completions, make_reward, reward

SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
# r1c3 and r1c4 swapped: four rules broken, those two cells wrong
SWAPPED = SOLVED[:2] + SOLVED[3] + SOLVED[2] + SOLVED[4:]


def _grid(line: str) -> str:
    return "\n".join(" ".join(line[i : i + 9]) for i in range(0, 81, 9))


@pytest.fixture(scope="module")
def puzzle():
    return pk.parse("sudoku", SUDOKU)


def test_a_right_answer_scores_one_a_wrong_one_less_a_malformed_one_zero(puzzle) -> None:
    inst = puzzle.to_json()
    completions = [
        f"Thinking...\nAnswer:\n{_grid(SOLVED)}",
        SWAPPED,
        "I give up.",
        "",
    ]
    scores = reward(completions, instance=[inst] * 4)
    assert scores[0] == 1.0
    # partial credit: the report's share of cells right (the swapped cells and those in the
    # rules they break are wrong)
    assert scores[1] == pk.check_answer(puzzle, SWAPPED).score == 75 / 81
    assert scores[2:] == [0.0, 0.0]
    strict = make_reward(partial=False)
    assert strict(completions, instance=[inst] * 4) == [1.0, 0.0, 0.0, 0.0]
    assert strict.__name__ == "puzzlekit_reward"
    assert make_reward(name="sudoku_cells").__name__ == "sudoku_cells"


def test_givens_false_credits_only_the_cells_to_fill(puzzle) -> None:
    inst = [puzzle.to_json()] * 4
    free = 81 - len(puzzle.clues)
    one_wrong = SOLVED[:2] + "9" + SOLVED[3:]  # r1c3 (not given) is 9: row, column, box broken
    echo = SUDOKU  # the puzzle itself: its givens, nothing filled
    completions = [SOLVED, echo, one_wrong, "no grid"]
    assert reward(completions, instance=inst) == [
        1.0,
        len(puzzle.clues) / 81,  # every given right, every free cell unfilled
        pk.check_answer(puzzle, one_wrong).score,
        0.0,
    ]
    fill = make_reward(givens=False)
    scores = fill(completions, instance=inst)
    report = pk.check_answer(puzzle, one_wrong)
    wrong_free = {c for v in report.violations for c in v.coords} - {
        c.coords[0] for c in puzzle.clues
    }
    assert scores == [1.0, 0.0, (free - len(wrong_free)) / free, 0.0]
    assert 0.0 < scores[2] < 1.0 and len(wrong_free) >= 1
    # the report's score is the same count over every cell
    wrong = {c for v in report.violations for c in v.coords}
    assert report.score == (81 - len(wrong)) / 81


def test_chat_message_completions_are_read_from_the_assistant(puzzle) -> None:
    right = [{"role": "assistant", "content": _grid(SOLVED)}]
    parts = [{"role": "assistant", "content": [{"type": "text", "text": SOLVED}]}]
    after = [
        {"role": "assistant", "content": SOLVED},
        {"role": "user", "content": "are you sure?"},
    ]
    wrong = [{"role": "assistant", "content": SWAPPED}]
    scores = reward(
        [right, parts, after, wrong, [], None, 42],
        instance=[puzzle.to_json_obj()] * 7,
        prompts=["ignored"] * 7,
        completion_ids=[[1, 2]] * 7,
        trainer_state=object(),
    )
    assert scores[:3] == [1.0, 1.0, 1.0]
    assert 0.0 < scores[3] < 1.0
    assert scores[4:] == [0.0, 0.0, 0.0]  # no text at all: malformed
    assert completion_text(after) == SOLVED
    assert completion_text([{"role": "user", "content": "only a user"}]) == "only a user"


def test_the_puzzle_comes_from_exports_family_and_text_columns(puzzle) -> None:
    small = pk.parse("sudoku", "1.3.......2.3...", {"size": 4})
    sol = pk.verify(small, solution_cap=2).solutions[0]
    line = "".join(str(sol[n]) for n in pk.schema("sudoku", {"size": 4}).names)
    columns = {
        "family": ["sudoku", "sudoku"],
        "params": [{"size": 9}, json.dumps({"size": 4})],  # objects (jsonl) or JSON (parquet)
        "text": [SUDOKU, "1.3.......2.3..."],
        "id": [puzzle.digest, small.digest],
    }
    assert reward([SOLVED, line], **columns) == [1.0, 1.0]
    # an instance column of text lines beside a family column
    assert reward([SOLVED], instance=[SUDOKU], family=["sudoku"]) == [1.0]
    reps = judge_completions([SWAPPED], **{**columns, "text": [SUDOKU]})
    assert reps[0].verdict is pk.AnswerVerdict.INCORRECT


def test_every_solution_of_a_multiple_puzzle_scores_one() -> None:
    loose = pk.parse("sudoku", "1..." + "." * 12, {"size": 4})
    report = pk.verify(loose, solution_cap=5)
    assert report.verdict is pk.Verdict.MULTIPLE and len(report.solutions) == 5
    names = pk.schema("sudoku", {"size": 4}).names
    lines = ["".join(str(s[n]) for n in names) for s in report.solutions]
    assert len(set(lines)) == 5
    assert reward(lines, instance=[loose] * 5) == [1.0] * 5


def test_a_row_without_a_readable_puzzle_is_an_error_naming_it(puzzle) -> None:
    with pytest.raises(ValueError, match="no puzzle column"):
        reward([SOLVED], answer=["x"])
    with pytest.raises(ValueError, match="row 0: the puzzle"):
        reward([SOLVED], instance=['{"family": "sudoku", "params": {}, "clues": 3}'])
    with pytest.raises(ValueError, match="row 1"):
        reward([SOLVED, SOLVED], instance=[puzzle.to_json()])
    with pytest.raises(ValueError, match="not an instance"):
        reward([SOLVED], instance=[7])
    assert reward([], instance=[]) == []


# --- reasoning-gym ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rg():
    rg = pytest.importorskip("reasoning_gym")
    from puzzlekit.integrations.reasoning_gym import register

    names = register()
    assert names == [f"puzzlekit-{f.info.name}" for f in pk_families()]
    assert register() == names  # again: kept, not an error
    return rg


def pk_families():
    from puzzlekit.families import families

    return families()


def test_create_dataset_yields_prompted_entries_that_score_answer_judges(rg) -> None:
    ds = rg.create_dataset("puzzlekit-sudoku", size=3, seed=11, params={"size": 4})
    entries = list(ds)
    assert len(entries) == len(ds) == 3
    sudoku = pk.get_family("sudoku")
    digests = set()
    for i, entry in enumerate(entries):
        meta = entry["metadata"]
        inst = pk.Instance.from_json_obj(meta["instance"])
        assert (meta["source_dataset"], meta["source_index"]) == ("puzzlekit-sudoku", i)
        assert meta["digest"] == inst.digest and meta["params"] == {"box": [2, 2], "size": 4}
        assert entry["question"] == sudoku.prompt(inst)
        assert pk.verify(inst).verdict is pk.Verdict.UNIQUE
        assert meta["provenance"]["holdoutVerdict"] == "UNIQUE"
        assert ds.score_answer(entry["answer"], entry) == 1.0
        assert ds.score_answer("no grid here", entry) == 0.0
        assert ds.score_answer(None, entry) == 0.0
        digests.add(inst.digest)
    assert len(digests) == 3
    # a wrong cell: partial credit, below 1; strict scoring gives 0
    first = entries[0]
    rows = first["answer"].split("\n")
    bad = rows[0][::-1]  # the first row reversed: no longer the solution
    wrong = "\n".join([bad, *rows[1:]])
    assert 0.0 < ds.score_answer(wrong, first) < 1.0
    strict = rg.create_dataset("puzzlekit-sudoku", size=3, seed=11, params={"size": 4}, partial=0)
    assert strict.score_answer(wrong, first) == 0.0
    assert rg.get_score_answer_fn("puzzlekit-sudoku")(first["answer"], first) == 1.0
    fill = rg.create_dataset("puzzlekit-sudoku", size=3, seed=11, params={"size": 4}, givens=False)
    echo = first["metadata"]["text"]  # the puzzle's givens, nothing filled
    assert ds.score_answer(echo, first) == first["metadata"]["clue_count"] / 16
    assert fill.score_answer(echo, first) == 0.0
    assert fill.score_answer(first["answer"], first) == 1.0


def test_one_seed_gives_the_same_entries_in_any_order(rg) -> None:
    a = rg.create_dataset("puzzlekit-latin", size=4, seed=3, params={"size": 4})
    b = rg.create_dataset("puzzlekit-latin", size=4, seed=3, params={"size": 4})
    c = rg.create_dataset("puzzlekit-latin", size=4, seed=4, params={"size": 4})
    assert b[2] == a[2] and b[0] == a[0]
    assert [a[i]["metadata"]["digest"] for i in range(4)] != [
        c[i]["metadata"]["digest"] for i in range(4)
    ]
    with pytest.raises(IndexError):
        a[4]


def test_a_composite_of_two_families_scores_each_entry_by_its_own_dataset(rg) -> None:
    from reasoning_gym.composite import CompositeConfig, CompositeDataset, DatasetSpec

    small = {"params": {"size": 4}}
    specs = [
        DatasetSpec("puzzlekit-sudoku", 1.0, small),
        DatasetSpec("puzzlekit-latin", 1.0, small),
    ]
    mixed = CompositeDataset(CompositeConfig(size=6, seed=5, datasets=specs))
    entries = list(mixed)
    assert {e["metadata"]["family"] for e in entries} == {"sudoku", "latin"}
    for entry in entries:
        assert mixed.score_answer(entry["answer"], entry) == 1.0
        assert mixed.score_answer("1111\n1111\n1111\n1111", entry) < 1.0
    entries[0]["metadata"]["family"] = "changed by a caller"
    assert mixed[0]["metadata"]["family"] in ("sudoku", "latin")  # the kept entry is untouched


@pytest.mark.parametrize("family", ["owm-tictactoe", "logicgrid", "kakuro"])
def test_a_move_a_json_object_and_a_sparse_grid_round_trip(rg, family) -> None:
    ds = rg.create_dataset(f"puzzlekit-{family}", size=1, seed=2)
    entry = ds[0]
    assert ds.score_answer(entry["answer"], entry) == 1.0
    assert ds.score_answer("nonsense", entry) < 1.0


def test_a_bad_config_is_refused_with_the_reason(rg) -> None:
    with pytest.raises(pk.SpecError):
        rg.create_dataset("puzzlekit-sudoku", params={"size": 5})
    with pytest.raises(ValueError, match="style"):
        rg.create_dataset("puzzlekit-sudoku", style="poem")
    with pytest.raises(ValueError, match="verifier"):
        rg.create_dataset("puzzlekit-sudoku", filter="nope")


def test_without_reasoning_gym_register_says_what_to_install(monkeypatch) -> None:
    from puzzlekit.integrations import reasoning_gym as adapter

    monkeypatch.setitem(sys.modules, "reasoning_gym", None)  # import fails as if absent
    with pytest.raises(ImportError, match=r"pip install 'puzzlekit\[reasoning-gym\]'"):
        adapter.register()
