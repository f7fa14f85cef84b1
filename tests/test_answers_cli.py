"""``puzzlekit check`` and the MCP tool ``puzzle_check_answer``; partial boards and move
sequences (the dead set and the first dead move)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

import puzzlekit as pk
from puzzlekit.answers import AnswerVerdict, check_moves, check_partial
from puzzlekit.app.cli import main

SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def _puzzle_file(tmp_path: Path) -> Path:
    path = tmp_path / "puzzle.txt"
    path.write_text(SUDOKU + "\n")
    return path


def test_check_prints_one_report_per_answer_and_exits_1_when_one_is_wrong(
    tmp_path: Path, capsys
) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps(SOLVED) + "\n" + "6" + SOLVED[1:] + "\n")
    code = main(["check", str(_puzzle_file(tmp_path)), "--family", "sudoku", "--answers",
                 str(answers), "--no-uniqueness"])  # fmt: skip
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert [r["verdict"] for r in lines] == ["CORRECT", "INCORRECT"]
    assert lines[1]["violations"][0]["violationType"] == "given-overwritten"


def test_check_of_a_right_answer_exits_0_and_text_is_readable(tmp_path: Path, capsys) -> None:
    completion = tmp_path / "completion.txt"
    completion.write_text("Here is the grid:\n```\n" + SOLVED + "\n```\n")
    args = ["check", str(_puzzle_file(tmp_path)), "--family", "sudoku", "--answer-file",
            str(completion), "--format", "text"]  # fmt: skip
    assert main(args) == 0
    assert "# answer 1: CORRECT" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--answer", SOLVED, "--family", "sudoku", "--params", "[1]"], "--params"),
        (["--answers", "/no/such/file", "--family", "sudoku"], "cannot read"),
        (["--answer", SOLVED, "--family", "sudok"], "sudoku"),
    ],
)
def test_unusable_arguments_exit_2_with_one_line(tmp_path: Path, capsys, extra, said) -> None:
    assert main(["check", str(_puzzle_file(tmp_path)), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err


def test_a_puzzle_that_does_not_read_exits_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("12345\n")
    assert main(["check", str(bad), "--family", "sudoku", "--answer", SOLVED]) == 2
    assert "does not read" in capsys.readouterr().err


def test_a_partial_board_with_a_wrong_but_legal_value_names_the_dead_cell() -> None:
    inst = pk.parse("sudoku", SUDOKU)
    assert check_partial(inst, SUDOKU).completable is True
    board = SUDOKU[:2] + "1" + SUDOKU[3:]  # r1c3 = 1 breaks no rule yet, but the answer is 4
    rep = check_partial(inst, board)
    assert rep.completable is False and rep.verdict is AnswerVerdict.INCORRECT
    assert rep.dead_cells == ((0, 2),) and rep.dead_kind == "minimum"


def test_a_partial_board_with_a_clash_is_dead_at_once() -> None:
    board = SUDOKU[:2] + "5" + SUDOKU[3:]  # r1c3 = 5 repeats the given r1c1 = 5
    rep = check_partial(pk.parse("sudoku", SUDOKU), board)
    assert rep.dead_kind == "direct" and rep.dead_cells == ((0, 2),)  # the given stays
    two = SUDOKU[:2] + "22" + SUDOKU[4:]  # two placed cells clash, with no given
    rep = check_partial(pk.parse("sudoku", SUDOKU), two)
    assert rep.dead_kind == "direct" and set(rep.dead_cells) == {(0, 2), (0, 3)}


def test_moves_name_the_first_move_after_which_the_board_is_dead() -> None:
    inst = pk.parse("sudoku", SUDOKU)
    rep = check_moves(inst, [["r1c3", 4], ["r1c4", 6], ["r1c6", 2], ["r1c7", 9]])
    assert rep.first_dead_move == 3  # r1c6 is 8 in the only solution
    assert [m["completable"] for m in rep.moves] == [True, True, False]
    assert check_moves(inst, [["r1c3", 4]]).first_dead_move is None
    assert check_moves(inst, [["r0c0", 4]]).verdict is AnswerVerdict.MALFORMED


def test_the_mcp_tool_checks_an_answer_over_the_sdk_client() -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "puzzlekit", "mcp"],
        cwd=str(Path(__file__).parent.parent),
    )

    async def session() -> dict:
        async with Client(params, read_timeout_seconds=120) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            base = {"family": "sudoku", "text": SUDOKU}
            right = await client.call_tool("puzzle_check_answer", {**base, "answer": SOLVED})
            wrong = await client.call_tool(
                "puzzle_check_answer", {**base, "answer": {"r1c1": 6}, "mode": "partial"}
            )
            bad = await client.call_tool("puzzle_check_answer", {**base, "answer": 3, "x": 1})
            return {"tools": tools, "right": right, "wrong": wrong, "bad": bad}

    got = asyncio.run(session())
    assert "puzzle_check_answer" in got["tools"]
    right = got["right"].structured_content
    assert right["verdict"] == "CORRECT" and right["unique"] is True
    assert json.loads(got["right"].content[0].text) == right
    wrong = got["wrong"].structured_content
    assert wrong["completable"] is False and wrong["deadCells"] == [[0, 0]]
    assert got["bad"].is_error


def _board(cells: dict[tuple[int, int], str]) -> str:
    out = list(SUDOKU)
    for (r, c), v in cells.items():
        out[r * 9 + c] = v
    return "".join(out)


def test_the_dead_set_is_minimal_among_many_placed_cells() -> None:
    inst = pk.parse("sudoku", SUDOKU)
    free = [i for i, ch in enumerate(SUDOKU) if ch == "."]
    right = {divmod(i, 9): SOLVED[i] for i in free[:20]}  # twenty cells of the solution
    wrong = {divmod(free[30], 9): str(int(SOLVED[free[30]]) % 9 + 1)}
    board = _board({**right, **wrong})
    rep = check_partial(inst, board)
    assert rep.completable is False and rep.verdict is AnswerVerdict.INCORRECT
    dead = set(rep.dead_cells)
    assert dead <= set(right) | set(wrong) and dead & set(wrong)  # placed cells, no given
    placed = {**right, **wrong}
    assert check_partial(inst, _board({c: placed[c] for c in dead})).completable is False
    for c in dead:  # minimal: without any one of them a completion exists
        assert check_partial(inst, _board({d: placed[d] for d in dead - {c}})).completable


def test_check_text_names_the_dead_set_and_its_kind(tmp_path: Path, capsys) -> None:
    board = SUDOKU[:2] + "1" + SUDOKU[3:]
    code = main(["check", str(_puzzle_file(tmp_path)), "--family", "sudoku", "--partial",
                 "--answer", board, "--format", "text"])  # fmt: skip
    assert code == 1
    assert "completable: False; dead set (minimum, coordinates): [0, 2]" in capsys.readouterr().out
