"""The command line's conventions: commands compose (generate | verify/solve/grade), a bare
Sudoku line is understood, unknown names exit 2 everywhere, every family generates with no
params, help is plain text with defaults, one ``--format`` flag, ``--version``, completion,
exit codes that tell the truth, and progress on stderr."""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from collections.abc import Iterator

import pytest

from puzzlekit.app.cli import UsageError, build_parser, main
from puzzlekit.app.progress import StatusLine, progress

SUDOKU_4 = '{"size": 4}'


def run(capsys, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def generated(capsys, family: str = "sudoku", params: str = SUDOKU_4, count: int = 3) -> str:
    code, out, _ = run(capsys, "generate", family, "--params", params, "--count", str(count))
    assert code == 0
    return out


# -- composition --------------------------------------------------------------------------------


def test_verify_reads_generate_records(capsys, monkeypatch) -> None:
    records = generated(capsys)
    code, out, _ = run(capsys, "verify", "-", stdin=records, monkeypatch=monkeypatch)
    reports = [json.loads(line) for line in out.splitlines()]
    digests = [json.loads(line)["instanceDigest"] for line in records.splitlines()]
    assert code == 0 and len(reports) == 3
    assert [r["uniquenessVerdict"] for r in reports] == ["UNIQUE"] * 3
    assert [r["instanceDigest"] for r in reports] == digests


def test_solve_and_grade_read_generate_records(capsys, monkeypatch) -> None:
    records = generated(capsys, count=2)
    code, out, _ = run(capsys, "solve", "-", stdin=records, monkeypatch=monkeypatch)
    solved = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [s["uniquenessVerdict"] for s in solved] == ["UNIQUE", "UNIQUE"]
    code, out, _ = run(capsys, "grade", "-", "--no-search", stdin=records, monkeypatch=monkeypatch)
    graded = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(graded) == 2 and all("status" in g for g in graded)
    assert all(g["status"] != "invalid" for g in graded)


def test_a_record_without_instance_is_invalid_spec_naming_its_status(capsys, monkeypatch) -> None:
    record = json.dumps({"status": "exhausted", "instance": None}) + "\n"
    code, out, _ = run(capsys, "verify", "-", stdin=record, monkeypatch=monkeypatch)
    rep = json.loads(out)
    assert code == 0 and rep["uniquenessVerdict"] == "INVALID_SPEC"
    assert "exhausted record has no instance" in json.dumps(rep)


def test_generated_text_reads_back_one_puzzle_a_line(capsys, monkeypatch) -> None:
    # kakuro's text once spanned lines, and each line was read as a one-row puzzle
    records = generated(capsys, "kakuro", '{"rows": 5, "cols": 5, "seed": 1}', count=2)
    texts = [json.loads(line)["text"] for line in records.splitlines()]
    assert all("\n" not in t for t in texts)
    code, out, _ = run(
        capsys, "verify", "-", "--family", "kakuro", stdin="\n".join(texts), monkeypatch=monkeypatch
    )
    reports = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["uniquenessVerdict"] for r in reports] == ["UNIQUE", "UNIQUE"]


# -- input sniffing, unknown names, default params ---------------------------------------------


def test_a_bare_sudoku_line_is_read_as_sudoku_and_the_report_says_so(
    capsys, monkeypatch, seventeen
) -> None:
    code, out, _ = run(capsys, "verify", "-", stdin=seventeen[0] + "\n", monkeypatch=monkeypatch)
    rep = json.loads(out)
    assert code == 0 and rep["uniquenessVerdict"] == "UNIQUE"
    assert any("read as sudoku" in d for d in rep["diagnostics"])


def test_a_line_that_is_no_grid_still_needs_a_family(capsys, monkeypatch) -> None:
    code, out, _ = run(capsys, "verify", "-", stdin="hello\n", monkeypatch=monkeypatch)
    rep = json.loads(out)
    assert rep["uniquenessVerdict"] == "INVALID_SPEC" and "no family given" in json.dumps(rep)


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "-", "--family", "sudok"),
        ("solve", "-", "--family", "sudok"),
        ("grade", "-", "--family", "sudok"),
        ("verify", "-", "--verifier", "nosuch"),
        ("solve", "-", "--verifier", "nosuch"),
        ("generate", "sudok"),
        ("generate", "sudoku", "--filter", "nosuch"),
        ("generate", "sudoku", "--strategy", "nosuch"),
    ],
)
def test_an_unknown_name_exits_2_with_one_line(capsys, monkeypatch, args) -> None:
    code, out, err = run(capsys, *args, stdin="", monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err.startswith("puzzlekit: error: unknown") and err.count("\n") == 1


@pytest.mark.parametrize(
    "family", ["kakuro", "latin", "nonogram", "skyscrapers", "starbattle", "toolcall"]
)
def test_a_family_with_required_params_generates_without_params(capsys, family) -> None:
    code, out, err = run(capsys, "generate", family, "--max-calls", "60")
    assert code == 0, err
    assert json.loads(out.splitlines()[0])["status"] == "accepted"


# -- conventions ----------------------------------------------------------------------------------


def _parsers(
    parser: argparse.ArgumentParser, path: str = "puzzlekit"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, f"{path} {name}")


def test_every_argument_has_help_and_help_is_plain_text() -> None:
    for path, parser in _parsers(build_parser()):
        missing = [
            a.dest
            for a in parser._actions
            if not a.help and not isinstance(a, argparse._SubParsersAction)
        ]
        assert missing == [], f"{path}: no help for {missing}"
        text = parser.format_help()
        assert not re.search(r":[a-z]+:`|``", text), f"{path}: reST markup in --help"


def test_help_shows_defaults() -> None:
    parser = dict(_parsers(build_parser()))
    options = parser["puzzlekit generate"].format_help().split("options:")[1]
    for flag, default in (("count", "1"), ("strategy", "adaptive"), ("max-calls", "200")):
        block = options.split(f"\n  --{flag}")[1].split("\n  --")[0]
        assert f"default: {default}" in " ".join(block.split()), flag
    verify = " ".join(parser["puzzlekit verify"].format_help().split())
    assert "(default: 100)" in verify  # --cap


def test_one_output_flag_across_commands() -> None:
    for path, parser in _parsers(build_parser()):
        flags = {s for a in parser._actions for s in a.option_strings}
        if "--json" in flags or "--table" in flags:
            assert "--format" in flags, path
        for action in parser._actions:
            if "--format" in action.option_strings and "--input-format" not in path:
                assert set(action.choices) <= {"json", "text", "table"}, path


def test_json_is_an_alias_of_format_json(capsys) -> None:
    _, by_alias, _ = run(capsys, "schemas", "--json")
    _, by_format, _ = run(capsys, "schemas", "--format", "json")
    _, table, _ = run(capsys, "schemas")
    assert by_alias == by_format != table
    assert json.loads(by_alias.splitlines()[0])["family"]


def test_solve_formats_differ(capsys, seventeen, tmp_path) -> None:
    path = tmp_path / "p.txt"
    path.write_text(seventeen[0] + "\n")
    _, as_json, _ = run(capsys, "solve", str(path), "--format", "json")
    _, as_text, _ = run(capsys, "solve", str(path), "--format", "text")
    assert json.loads(as_json)["uniquenessVerdict"] == "UNIQUE"
    assert as_text.startswith("# input 1: UNIQUE") and as_json != as_text


def test_version(capsys) -> None:
    from puzzlekit import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"puzzlekit {__version__}"


def test_version_and_import_load_no_floor() -> None:
    """``puzzlekit --version`` and ``import puzzlekit`` answer before numpy or any floor loads;
    the model's names still come on first use."""
    import subprocess

    probe = (
        "import sys; from puzzlekit.app.cli import main; main(['--version']); "
        "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith("
        "('puzzlekit.core.model', 'puzzlekit.families', 'puzzlekit.verifiers'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[-1] == "[]", out
    lazy = "import puzzlekit as pk; print(pk.Instance.__module__, 'Verdict' in dir(pk))"
    got = subprocess.run([sys.executable, "-c", lazy], capture_output=True, text=True, check=True)
    assert got.stdout.split() == ["puzzlekit.core.model", "True"]


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_script_names_every_command(capsys, shell) -> None:
    code, out, _ = run(capsys, "completion", shell)
    assert code == 0
    for command in ("generate", "verify", "solve", "grade", "run", "report", "regress"):
        assert command in out


# -- exit codes and progress ----------------------------------------------------------------------


def test_generate_exits_1_when_fewer_than_count_are_accepted(capsys) -> None:
    code, out, err = run(
        capsys, "generate", "sudoku", "--params", SUDOKU_4, "--strategy", "blind",
        "--clues", "0", "--max-calls", "1", "--count", "2",
    )  # fmt: skip
    assert code == 1
    assert "puzzlekit: 0 of 2 accepted" in err
    assert all(json.loads(line)["status"] != "accepted" for line in out.splitlines())


def test_status_line_every_interval_and_a_last_line() -> None:
    now = [0.0]
    sink = io.StringIO()
    with StatusLine("generate", 4, "puzzle", file=sink, every=10, clock=lambda: now[0]) as bar:
        bar.update(1)
        now[0] = 11.0
        bar.update(1)
        now[0] = 15.0
        bar.update(1)
    lines = sink.getvalue().splitlines()
    assert lines == [
        "puzzlekit: generate 2/4 puzzles (50%), 11 s",
        "puzzlekit: generate done: 3/4 puzzles (75%), 15 s",
    ]


def test_a_short_status_stays_silent_and_quiet_is_silent() -> None:
    sink = io.StringIO()
    with StatusLine("verify", None, "puzzle", file=sink, every=10, clock=lambda: 0.0) as bar:
        bar.update(3)
    with progress("run", 10, "trial", quiet=True, file=sink) as bar:
        bar.update(10)
    assert sink.getvalue() == ""


def test_ctrl_c_ends_with_one_line(capsys, monkeypatch) -> None:
    def interrupted(args):
        raise KeyboardInterrupt

    # a Ctrl-C as the command starts, in the module this ``main`` belongs to (another test may
    # have imported a fresh copy of the package since)
    monkeypatch.setitem(main.__globals__, "load_plugins", interrupted)
    code, out, err = run(capsys, "schemas")
    assert code == 130 and err.strip() == "puzzlekit: interrupted"


def test_a_jigsaw_line_carries_its_regions(capsys, monkeypatch) -> None:
    # the text alone (no --params) reads back to the generated puzzle: the regions travel with it
    records = generated(capsys, "sudoku-jigsaw", '{"size": 6, "seed": 3}', count=1)
    record = json.loads(records)
    code, out, _ = run(
        capsys, "verify", "-", "--family", "sudoku-jigsaw", stdin=record["text"] + "\n",
        monkeypatch=monkeypatch,
    )  # fmt: skip
    rep = json.loads(out)
    assert code == 0 and rep["uniquenessVerdict"] == "UNIQUE"
    assert rep["instanceDigest"] == record["instanceDigest"]


# -- numbers on the command line -----------------------------------------------------------------


def _every_numeric_option() -> Iterator[tuple[list[str], str, type]]:
    """(command path, option, int or float) for every numeric option of every command."""

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> Iterator:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, [*path, name])
            elif action.option_strings and action.type in (int, float):
                yield path, action.option_strings[-1], action.type

    yield from walk(build_parser(), [])


@pytest.mark.parametrize("text", ["٣", "３", "²", "3\u200b", "nan", "1e999", "1" * 30])
def test_numbers_on_the_command_line_are_ascii_and_finite(text) -> None:
    options = list(_every_numeric_option())
    assert len(options) > 20  # the walk reaches every command
    for path, option, kind in options:
        if (kind is int and text in ("nan", "1e999")) or (kind is float and text == "1" * 30):
            continue  # not digits at all (another test) / a finite float
        with pytest.raises(UsageError) as exc:  # main() prints it as one line, exit 2
            build_parser().parse_args([*path, option, text])
        message = str(exc.value)
        assert "\n" not in message and option in message, (path, option, message)


def test_a_unicode_digit_exits_2_with_one_line(capsys) -> None:
    code, out, err = run(capsys, "verify", "--cap", "٣", "-")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--cap" in err


def test_ascii_numbers_still_read() -> None:
    args = build_parser().parse_args(["verify", "--cap", "+7", "--budget-seconds", ".5e1", "-"])
    assert args.cap == 7 and args.budget_seconds == 5.0
