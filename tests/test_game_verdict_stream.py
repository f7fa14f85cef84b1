"""``puzzlekit game-verdict GAME -`` / ``--input FILE``: positions one a line, each answered
before the next line is read, every answer naming its line; bad lines get an INVALID_SPEC
answer, a spent budget an UNDECIDED one, and the lines after them are still answered."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from benchmarks.c4bench import cells_of
from puzzlekit.app.cli import main
from puzzlekit.families import get_family
from puzzlekit.families.games import connect4
from tests.helpers import LineStdin

POSITIONS = json.loads((Path(__file__).parent / "data/connect4/positions.json").read_text())[
    "positions"
]
C4 = get_family("owm-connect").game({})
EMPTY = "/".join(["......."] * 6)


def _rows(moves: str) -> str:
    cells, side = cells_of(moves)
    return C4.rows_text((cells, side, 0))


def test_stdin_positions_are_answered_one_a_line_before_the_next_is_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    late = [p for p in POSITIONS if p["band"] == "late"][:3]
    lines = [_rows(late[0]["moves"]) + "\n", "\n", "# a comment\n", "x.../xo\n"]
    lines += [_rows(p["moves"]) + "\n" for p in late[1:]] + [EMPTY + "\n"]
    stdin = LineStdin(lines, capsys)
    monkeypatch.setattr("sys.stdin", stdin)
    argv = ["game-verdict", "connect", "-", "--json", "--budget-nodes", "5000"]
    assert main(argv) == 1  # one invalid line, one undecided
    stdin.out += capsys.readouterr().out
    answers = [json.loads(line) for line in stdin.out.splitlines()]
    # each answer was printed before the next line was read (blank and comment lines: none)
    assert stdin.answered_before_read == [0, 1, 1, 1, 2, 3, 4, 5]
    assert [a["input"] for a in answers] == [1, 4, 5, 6, 7]
    for a, p in zip([answers[0], *answers[2:4]], late, strict=True):
        result, distance = connect4.result_distance(p["score"], p["stones"])
        assert (a["value"], a["distance"]) == ({1: "WIN", 0: "DRAW", -1: "LOSS"}[result], distance)
        assert {m["move"]: m["moveValue"] for m in answers[0]["moves"]}
    bad = answers[1]
    assert bad["uniquenessVerdict"] == "INVALID_SPEC"
    assert bad["rejectDetail"]["violations"][0]["violationType"] == "shape-mismatch"
    assert answers[4]["value"] == "UNDECIDED"
    assert answers[4]["budget"]["resource"] == "nodes" and answers[4]["budget"]["limit"] == 5000


def test_a_file_of_positions_answers_as_each_position_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    positions = ["x.o/.x./o..", "x.o/.x./...", "xo./.o./x.x"]
    alone = []
    for pos in positions:
        assert main(["game-verdict", "tictactoe", pos]) == 0
        alone.append(capsys.readouterr().out)
    path = tmp_path / "positions.txt"
    path.write_text("\n".join(positions) + "\n", encoding="utf-8")
    assert main(["game-verdict", "tictactoe", "--input", str(path)]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    assert blocks[-1] == ""
    for i, (block, want) in enumerate(zip(blocks, alone, strict=False), 1):
        assert block + "\n" == f"# input {i}: {positions[i - 1]}\n{want}"
    # a trailing side to move overrides the counts, as --to-move does
    path.write_text("x.o/.x./... o\n", encoding="utf-8")
    assert main(["game-verdict", "tictactoe", "--input", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["toMove"] == "o"


def test_lines_that_are_not_utf8_are_invalid_positions_not_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"\xff\xfe/x\n3,4,5\n")
    assert main(["game-verdict", "nim", "--input", str(path), "--json"]) == 1
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert (first["input"], first["uniquenessVerdict"]) == (1, "INVALID_SPEC")
    assert "not UTF-8" in json.dumps(first["rejectDetail"])  # named as verify names it
    assert (second["input"], second["value"]) == (2, "WIN")


def test_lines_are_read_as_verify_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A byte-order mark opening the file is skipped, a lone CR ends a line, as ``verify``."""
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf3,4,5\r1,2\n")
    assert main(["game-verdict", "nim", "--input", str(path), "--json"]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(g["input"], g["value"]) for g in got] == [(1, "WIN"), (2, "WIN")]


def test_unusable_inputs_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["game-verdict", "tictactoe"]) == 2
    assert main(["game-verdict", "tictactoe", "x.o/.x./...", "--input", "-"]) == 2
    missing = tmp_path / "missing.txt"
    assert main(["game-verdict", "tictactoe", "--input", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and str(missing) in err and "Traceback" not in err
    assert main(["game-verdict", "tictactoe", "-"]) == 0  # an empty stdin: nothing to answer
