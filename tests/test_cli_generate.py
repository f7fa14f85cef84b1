"""`puzzlekit generate`: JSON Lines, byte-identical for one seed, exit 2 on bad arguments."""

from __future__ import annotations

import json

import pytest

import puzzlekit as pk
from puzzlekit.app.cli import main


def _run(capsys, *args):
    code = main(["generate", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_generate_writes_verified_puzzles_and_one_seed_gives_identical_bytes(capsys, tmp_path):
    args = ["sudoku", "--params", '{"size": 4}', "--count", "3", "--seed", "5", "--minimize"]
    code, first, _ = _run(capsys, *args)
    assert code == 0
    code, second, _ = _run(capsys, *args)
    assert first == second
    rows = [json.loads(line) for line in first.splitlines()]
    assert len(rows) == 3
    for row in rows:
        assert row["status"] == "accepted"
        assert row["filterVerdict"] == "UNIQUE" and row["holdoutVerdict"] == "UNIQUE"
        inst = pk.Instance.from_json_obj(row["instance"])
        assert inst.digest == row["instanceDigest"] and row["clueCount"] == len(inst.clues)
        assert pk.verify(inst, verifier="enumerative").verdict is pk.Verdict.UNIQUE
    out = tmp_path / "p.jsonl"
    assert _run(capsys, *args, "--out", str(out))[0] == 0
    assert out.read_text() == first


@pytest.mark.parametrize(
    "args,needle",
    [
        (["sudoku", "--params", "{"], "--params is not JSON"),
        (["sudoku", "--filter", "magic"], "unknown verifier 'magic'"),
        (["sudoku", "--count", "0"], "--count must be at least 1"),
        (["sudoku", "--clues", "200"], "--clues must be in 0..81"),
        (["nosuch"], "unknown family 'nosuch'"),
        (["sudoku", "--strategy", "smart"], "unknown strategy 'smart'"),
    ],
)
def test_generate_bad_arguments_exit_2_with_one_line(capsys, args, needle):
    code, _, err = _run(capsys, *args)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_generate_and_the_mcp_tool_check_the_loops_names_alike(capsys):
    """One check (``judging.loop_names``) serves both: ``generate`` prints a line for every
    unknown name, the MCP tool ``puzzle_generate`` names the first by its field, in the same
    words."""
    from puzzlekit.app.mcp.work import UnknownArgument, generate_work

    names = ["--strategy", "smart", "--filter", "magic", "--holdout", "none"]
    code, _, err = _run(capsys, "sudoku", *names)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2, err
    assert "unknown strategy 'smart'" in lines[0] and "unknown verifier 'magic'" in lines[1]
    with pytest.raises(UnknownArgument) as got:
        generate_work(family="sudoku", strategy="smart", filter="magic", holdout="none")
    assert got.value.field == "strategy"
    assert lines[0] == "puzzlekit: error: " + str(got.value).removeprefix("strategy: ")


@pytest.mark.parametrize("flag", ["--ledger", "--corpus"])
def test_generate_settlement_file_in_a_missing_directory_exits_2(capsys, tmp_path, flag):
    code, _, err = _run(capsys, "sudoku", flag, str(tmp_path / "nope" / "x"))
    assert code == 2 and f"{flag}: no directory" in err and len(err.strip().splitlines()) == 1


def test_generate_with_a_faulty_filter_and_a_ledger_records_the_escalation(capsys, tmp_path):
    db = tmp_path / "l.db"
    args = ["sudoku", "--params", '{"size": 4}', "--count", "4", "--seed", "3"]
    code, out, _ = _run(capsys, *args, "--filter", "faulty", "--ledger", str(db))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    for row in rows:
        if row["holdoutVerdict"] != "UNIQUE":
            assert row["stopKind"] != "all-clear" and row["kernelOutcome"] is None
        assert row["kernelOutcome"] != "auto_apply"
    assert any(row["escalationTarget"] != "none" for row in rows)
    assert main(["ledger", "verify", str(db)]) == 0


def test_generate_defaults_to_the_familys_own_filter_and_an_independent_holdout(capsys):
    code, out, _ = _run(capsys, "owm-tictactoe", "--count", "2", "--seed", "1")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert all(r["filterVerdict"] == "UNIQUE" and r["holdoutVerdict"] == "UNIQUE" for r in rows)
