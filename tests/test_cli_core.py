"""`puzzlekit schemas`, `verify`, `solve`: outputs, order, formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import puzzlekit as pk
from puzzlekit.app.cli import main


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_schemas_lists_every_registered_schema(capsys):
    code, out, _ = run(capsys, "schemas", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    sizes = {r["params"]["size"] for r in rows if r["family"] == "sudoku"}
    assert sizes == {4, 6, 9, 12, 16}
    nine = next(r for r in rows if r["family"] == "sudoku" and r["params"]["size"] == 9)
    assert nine["variables"] == 81 and nine["domainSize"] == 9 and nine["clueKinds"] == ["given"]
    assert any(r["family"] == "latin" for r in rows)
    code, out, _ = run(capsys, "schemas")
    assert "sudoku" in out and "latin" in out


def test_verify_prints_one_report_per_puzzle_in_input_order(tmp_path, capsys, seventeen):
    lines = [seventeen[0], seventeen[0][:-1] + ".", "bad", seventeen[1]]
    path = tmp_path / "p.txt"
    path.write_text("# a comment\n" + "\n\n".join(lines) + "\n")
    code, out, _ = run(
        capsys, "verify", str(path), "--family", "sudoku", "--verifier", "enumerative", "--cap", "3"
    )
    reps = [pk.VerifierReport.from_json(x) for x in out.splitlines()]
    assert code == 0
    expected_digests = [
        pk.parse("sudoku", seventeen[0]).digest,
        None,
        None,
        pk.parse("sudoku", seventeen[1]).digest,
    ]
    assert [r.verdict.value for r in reps][2] == "INVALID_SPEC"
    assert reps[0].instance_digest == expected_digests[0]
    assert reps[3].instance_digest == expected_digests[3]
    assert len(reps) == 4


def test_verify_reads_a_json_instance_file(tmp_path, capsys):
    inst = pk.parse("sudoku", "1234.41.21.3432.")
    path = tmp_path / "one.json"
    path.write_text(json.dumps(inst.to_json_obj(), indent=2))
    code, out, _ = run(capsys, "verify", str(path), "--verifier", "enumerative")
    assert code == 0
    assert json.loads(out)["uniquenessVerdict"] == "UNIQUE"


def test_text_format_marks_ambiguous_cells_and_conflicting_clues(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("1..............." + "\n" + "11.............." + "\n")
    code, out, _ = run(
        capsys,
        "verify",
        str(path),
        "--family",
        "sudoku",
        "--format",
        "text",
        "--verifier",
        "enumerative",
    )
    assert code == 0
    blocks = out.strip().split("\n\n")
    assert "MULTIPLE" in blocks[0] and "?" in blocks[0]
    assert "UNSOLVABLE" in blocks[1] and "1!" in blocks[1] and "conflict: r1c1, r1c2" in blocks[1]


def test_solve_prints_the_solution_in_the_line_format(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("1234.41.21.3432.\n")
    code, out, _ = run(capsys, "solve", str(path), "--family", "sudoku")
    row = json.loads(out)
    assert code == 0 and row["uniquenessVerdict"] == "UNIQUE"
    assert row["solutions"] == ["1234341221434321"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["verify", "/nonexistent/file.txt", "--family", "sudoku"], "cannot read"),
        (["verify", "-", "--params", "{not json"], "--params is not JSON"),
        (["verify", "-", "--params", "[1]"], "must be a JSON object"),
        (["verify", "-", "--verifier", "magic"], "unknown verifier 'magic'"),
        (["verify", "-", "--cap", "0"], "--cap must be at least 2"),
        (["verify", "-", "--format", "xml"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_unusable_arguments_give_one_line_and_exit_2(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_console_script_runs_as_a_module():
    out = subprocess.run(
        [sys.executable, "-m", "puzzlekit", "schemas"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "sudoku" in out.stdout


def test_verify_computes_the_extras_asked_for_and_refuses_unknown_ones(tmp_path, capsys):
    path = tmp_path / "open.txt"
    path.write_text("12..............\n")  # a 4x4 Sudoku with many solutions
    code, out, _ = run(capsys, "verify", str(path), "--family", "sudoku", "--cap", "2")
    plain = pk.VerifierReport.from_json(out.strip())
    assert code == 0 and plain.verdict.value == "MULTIPLE"
    assert "forcedCells" not in plain.stats
    code, out, _ = run(
        capsys, "verify", str(path), "--family", "sudoku", "--cap", "2", "--extras", "forcedCells"
    )
    asked = pk.VerifierReport.from_json(out.strip())
    assert [f["fieldName"] for f in asked.stats["forcedCells"]] == ["r1c1", "r1c2"]
    assert asked.solutions == plain.solutions
    code, out, err = run(capsys, "verify", str(path), "--family", "sudoku", "--extras", "backbone")
    assert code == 2 and out == ""
    assert err.strip().endswith(
        "--extras: unknown report extra 'backbone'; known: fieldVerdicts, forcedCells"
    )


def test_pk_verify_keeps_one_verifier_per_name_and_settings_and_forgets_a_replaced_name():
    from puzzlekit.verifiers import registry

    built = []

    def factory(**settings):
        built.append(settings)
        return registry.get_verifier("enumerative", **settings)

    registry.register_verifier("kept-probe", factory)
    try:
        _kept_probe(factory, built)
    finally:
        registry.VERIFIERS.unregister("kept-probe")
        registry.drop_kept()


def _kept_probe(factory, built):
    from puzzlekit.verifiers import registry

    inst = pk.parse("sudoku", "1234341221434321")
    for _ in range(3):
        assert pk.verify(inst, verifier="kept-probe").verdict.value == "UNIQUE"
    assert len(built) == 1
    with registry.kept_verifier("kept-probe", max_cartesian_log10=50):
        pass
    assert len(built) == 2
    registry.register_verifier("kept-probe", lambda **s: factory(**s), replace=True)
    with (
        registry.kept_verifier("kept-probe") as outer,
        registry.kept_verifier("kept-probe") as inner,
    ):
        assert outer is not inner  # lent to one borrower at a time
    assert len(built) == 2 + 2  # a replaced name is a new key: nothing kept carries over
