"""Commands compose by their lines: ``generate | verify --with-instance | solve``, one name for
the verdict in ``verify`` and ``solve`` (``uniquenessVerdict``, solve's old ``verdict`` still read),
a report line without its puzzle answered by one line naming the flag, and every ``generate``
record naming what made it (``provenance``)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

import puzzlekit
from puzzlekit.app.cli import main
from puzzlekit.core.report import VerifierReport
from puzzlekit.loop.batch import loop_seed
from puzzlekit.verifiers.registry import get_verifier

PARAMS = '{"size": 4}'


def run(capsys, monkeypatch, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture(scope="module")
def records() -> str:
    """Three sudoku 4x4 records of seed 3, held out by the default holdout."""
    from puzzlekit.loop.batch import GenerateConfig, dumps, generate

    config = GenerateConfig("sudoku", {"size": 4}, count=3, filter="bitmask", holdout="sat", seed=3)
    return "".join(dumps(r) + "\n" for r in generate(config))


def test_generate_then_verify_with_instance_then_solve(records, capsys, monkeypatch) -> None:
    code, verified, _ = run(capsys, monkeypatch, "verify", "-", "--with-instance", stdin=records)
    assert code == 0
    reports = lines(verified)
    made = lines(records)
    assert [r["instance"] for r in reports] == [r["instance"] for r in made]
    for obj in reports:  # still a report: the instance is one more field
        rest = {k: v for k, v in obj.items() if k != "instance"}
        assert VerifierReport.from_json_obj(rest).to_json_obj() == rest
    code, solved, _ = run(capsys, monkeypatch, "solve", "-", "--with-instance", stdin=verified)
    assert code == 0
    rows = lines(solved)
    assert [r["uniquenessVerdict"] for r in rows] == ["UNIQUE"] * 3
    assert [r["instanceDigest"] for r in rows] == [r["instanceDigest"] for r in made]
    _, direct, _ = run(capsys, monkeypatch, "solve", "-", stdin=records)
    assert [r["solutions"] for r in rows] == [r["solutions"] for r in lines(direct)]
    assert all(len(r["solutions"]) == 1 and "." not in r["solutions"][0] for r in rows)
    assert "verdict" not in rows[0]
    # and a solve line written --with-instance is read on as well
    code, again, _ = run(capsys, monkeypatch, "verify", "-", stdin=solved)
    assert [r["instanceDigest"] for r in lines(again)] == [r["instanceDigest"] for r in made]


def test_the_shell_pipeline_works(tmp_path) -> None:
    pk = f"{sys.executable} -m puzzlekit"
    pipeline = (
        f"{pk} generate sudoku --params '{PARAMS}' --count 2 --quiet"
        f" | {pk} verify - --with-instance --quiet | {pk} solve - --quiet"
    )
    done = subprocess.run(
        ["sh", "-c", f"set -e; {pipeline}"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    rows = lines(done.stdout)
    assert [r["uniquenessVerdict"] for r in rows] == ["UNIQUE", "UNIQUE"]
    assert all(len(r["solutions"]) == 1 for r in rows)


@pytest.mark.parametrize("command", ["verify", "solve"])
def test_a_report_line_without_its_instance_names_the_flag(
    records, capsys, monkeypatch, command
) -> None:
    _, verified, _ = run(capsys, monkeypatch, "verify", "-", stdin=records)
    code, out, _ = run(capsys, monkeypatch, command, "-", stdin=verified)
    assert code == 0
    answers = out.splitlines()
    assert len(answers) == 3  # one line for each report line
    for i, answer in enumerate(lines(out), start=1):
        assert answer["uniquenessVerdict"] == "INVALID_SPEC"
        (note,) = [d for d in answer["diagnostics"] if "--with-instance" in d]
        assert f"line {i} is a verify or solve report without its puzzle" in note
        assert "family" not in note  # not the old "family: missing"


def test_solve_lines_of_the_old_name_are_still_recognised(capsys, monkeypatch) -> None:
    old = {"input": 1, "instanceDigest": "sha256:" + "0" * 64, "verdict": "UNIQUE"}
    code, out, _ = run(capsys, monkeypatch, "solve", "-", stdin=json.dumps(old) + "\n")
    (row,) = lines(out)
    assert code == 0 and row["uniquenessVerdict"] == "INVALID_SPEC"
    assert any("--with-instance" in d for d in row["diagnostics"])


def test_an_unreadable_input_carries_a_null_instance(capsys, monkeypatch) -> None:
    code, out, _ = run(
        capsys, monkeypatch, "verify", "-", "--with-instance", "--family", "sudoku", stdin="12x\n"
    )
    (first,) = lines(out)
    assert code == 0 and first["uniquenessVerdict"] == "INVALID_SPEC" and first["instance"] is None
    code, out, _ = run(capsys, monkeypatch, "solve", "-", stdin=out)
    (second,) = lines(out)
    assert second["uniquenessVerdict"] == "INVALID_SPEC"
    assert any("this INVALID_SPEC report has no instance" in d for d in second["diagnostics"])


@pytest.mark.parametrize("command", ["verify", "solve"])
def test_with_instance_and_the_text_format_is_one_line_exit_2(capsys, command) -> None:
    code = main([command, "-", "--with-instance", "--format", "text"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--with-instance" in err


def test_every_record_names_what_made_it(records) -> None:
    for rec in lines(records):
        made = rec["provenance"]
        assert made == {
            "puzzlekit": puzzlekit.__version__,
            "filter": {"verifier": "bitmask", "version": get_verifier("bitmask").version},
            "holdout": {"verifier": "sat", "version": get_verifier("sat").version},
            "seed": 3,
            "loop": made["loop"],
        }
        assert rec["seed"] == loop_seed(made["seed"], made["loop"])
    assert [r["provenance"]["loop"] for r in lines(records)] == sorted(
        {r["provenance"]["loop"] for r in lines(records)}
    )


def test_no_holdout_is_recorded_as_null(capsys, monkeypatch) -> None:
    code, out, _ = run(
        capsys,
        monkeypatch,
        "generate",
        "sudoku",
        "--params",
        PARAMS,
        "--holdout",
        "none",
        "--quiet",
    )
    (rec,) = lines(out)
    assert code == 0 and rec["provenance"]["holdout"] is None
    assert rec["provenance"]["filter"]["verifier"] == "bitmask"
