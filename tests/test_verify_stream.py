"""``puzzlekit verify FILE`` reads a file's grid lines a chunk at a time and verifies them from
their cell values: its output is byte for byte the output of reading every line into an
instance (the path kept as ``verify_items`` over ``input_items``), times aside, in every format
and option, on files mixing 9×9 lines of each verdict, malformed lines, JSON lines and other
sizes; the lines of a 9×9 file are never read one by one; stdin still answers each line
before it reads the next."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import puzzlekit as pk
from puzzlekit.app.cli import main
from puzzlekit.app.commands import core
from puzzlekit.app.verify_stream import verify_items
from puzzlekit.io import inputs
from puzzlekit.verifiers import many
from puzzlekit.verifiers.registry import drop_kept
from tests.helpers import LineStdin

DATA = Path(__file__).parent / "data"
_SECONDS = re.compile(r'("\w*[sS]econds"): -?[0-9][0-9.eE+-]*')


def _timeless(text: str) -> str:
    """``text`` with every time a report measured (``seconds``, ``conflictSeconds``) as 0."""
    return _SECONDS.sub(r"\1: 0", text)


def _old_verify(path: str, *args: str) -> str:
    """What ``puzzlekit verify`` printed when it read every line into an instance: the items
    of ``input_items`` a chunk at a time through ``verify_items``, printed one by one."""
    parser = __import__("argparse").ArgumentParser()
    for flag in ("--family", "--params", "--verifier", "--budget-nodes", "--extras"):
        parser.add_argument(flag, default=None)
    parser.add_argument("--cap", type=int, default=100)
    parser.add_argument("--format", default="json")
    parser.add_argument("--with-instance", action="store_true")
    opts = parser.parse_args(list(args))
    params = core.params_arg(opts.params)
    nodes = int(opts.budget_nodes) if opts.budget_nodes else None
    budget = core.budget_arg(None, nodes)
    extras = core.extras_arg(opts.extras or "")
    items = core.input_items(path, opts.family, params, "auto")
    out = []
    for chunk in core._chunks(items, core.VERIFY_CHUNK):
        for item, rep in zip(
            chunk, verify_items(chunk, opts.verifier, opts.cap, budget, extras), strict=True
        ):
            if opts.format == "json":
                obj = core.with_instance(rep.to_json_obj(), item, opts.with_instance)
                out.append(json.dumps(obj, ensure_ascii=False) + "\n")
            else:
                out.append(core.render_text(item, rep) + "\n\n")
    return "".join(out)


def _new_verify(capsys: pytest.CaptureFixture[str], path: str, *args: str) -> str:
    capsys.readouterr()
    assert main(["verify", path, "--quiet", *args]) == 0
    return capsys.readouterr().out


def _nine() -> dict[str, list[str]]:
    """9×9 lines of each verdict: 17-clue UNIQUE ones, MULTIPLE (a given removed), UNSOLVABLE
    (a wrong value at an empty cell, clashing with no given; a direct clash)."""
    unique = (DATA / "sudoku9_17clue_sample.txt").read_text().split()[:8]
    unique += (DATA / "sudoku9_top1465_sample.txt").read_text().split()[:2]
    multiple = [line.replace(next(ch for ch in line if ch != "."), ".", 1) for line in unique[:3]]
    unsolvable = []
    for line in unique[:2]:
        sol = pk.verify(pk.parse("sudoku", line)).solutions[0]
        at = line.index(".")
        r, c = divmod(at, 9)
        peers = {
            line[i]
            for i in range(81)
            if i // 9 == r or i % 9 == c or (i // 27, i % 9 // 3) == (r // 3, c // 3)
        }
        wrong = next(
            d for d in "123456789" if d not in peers and int(d) != sol[f"r{r + 1}c{c + 1}"]
        )
        unsolvable.append(line[:at] + wrong + line[at + 1 :])
    first = unique[0]
    given = next(i for i, ch in enumerate(first) if ch != ".")
    same_row = next(i for i in range(given // 9 * 9, given // 9 * 9 + 9) if first[i] == ".")
    unsolvable.append(first[:same_row] + first[given] + first[same_row + 1 :])
    return {"UNIQUE": unique, "MULTIPLE": multiple, "UNSOLVABLE": unsolvable}


def _mixed_file(tmp_path: Path) -> Path:
    """Every kind of line ``verify`` reads: 9×9 lines of each verdict, malformed lines (bad
    characters at 9×9 length, a short line, words, broken JSON, bytes that are not UTF-8),
    JSON instance lines, 4×4 and 6×6 lines, blank lines and comments."""
    nine = _nine()
    four = ["1234.41.21.3432.", "1...............", "11..............", "12..34..........", ""]
    json4 = json.dumps(pk.parse("sudoku", "1234.41.21.3432.").to_json_obj())
    rows = [
        "# a comment",
        *nine["UNIQUE"][:4],
        nine["MULTIPLE"][0],
        "x" * 81,
        nine["UNSOLVABLE"][0],
        "",
        four[0],
        nine["UNIQUE"][4][:-1],
        json4,
        *nine["UNIQUE"][4:],
        four[1],
        "hello",
        nine["MULTIPLE"][1],
        "{not json",
        "." * 36,
        nine["UNSOLVABLE"][1],
        four[2],
        "  " + nine["UNIQUE"][0] + "  ",
        nine["UNSOLVABLE"][2],
        four[3],
        nine["MULTIPLE"][2],
        nine["UNIQUE"][1].replace(".", "0"),
    ]
    path = tmp_path / "mixed.txt"
    data = "\n".join(rows).encode() + b"\n\xff\xfe not utf-8\n" + nine["UNIQUE"][2].encode()
    path.write_bytes(data + b"\n")
    return path


OPTIONS = [
    (),
    ("--format", "text"),
    ("--with-instance",),
    ("--cap", "2"),
    ("--family", "sudoku"),
    ("--family", "sudoku", "--params", '{"size": 4}'),
    ("--verifier", "sat", "--cap", "2"),
    ("--extras", "forcedCells", "--cap", "5"),
    ("--budget-nodes", "3"),
]


@pytest.mark.parametrize("args", OPTIONS, ids=lambda a: " ".join(a) or "default")
def test_a_mixed_file_prints_what_reading_every_line_printed(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
) -> None:
    path = str(_mixed_file(tmp_path))
    monkeypatch.setattr(core, "VERIFY_CHUNK", 7)  # chunks with and without a malformed line
    # each from fresh verifiers: what a SAT session spends depends on what it saw before
    drop_kept()
    want = _old_verify(path, *args)
    drop_kept()
    chunks = []
    spy = many.verify_line_chunk
    monkeypatch.setattr(
        many, "verify_line_chunk", lambda c, **kw: chunks.append(len(c)) or spy(c, **kw)
    )
    got = _new_verify(capsys, path, *args)
    assert _timeless(got) == _timeless(want)
    if "--params" not in args:  # runs of 9×9 lines went through the chunk path
        assert max(chunks) >= 4
    if args == ():  # every verdict and reading was met
        reps = [json.loads(line) for line in got.splitlines()]
        verdicts = {r["uniquenessVerdict"] for r in reps}
        assert verdicts == {"UNIQUE", "MULTIPLE", "UNSOLVABLE", "INVALID_SPEC"}
        notes = [r["diagnostics"][-1] for r in reps if r["diagnostics"]]
        assert "read as sudoku: 81 grid characters and no family given" in notes
        assert "read as sudoku: 16 grid characters and no family given" in notes


def test_the_lines_of_a_9x9_file_are_never_read_one_by_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of 9×9 lines (each verdict) is read a chunk at a time: the reader of one line
    (``io.inputs._from_line``, which makes each line's instance) is never called, and the
    output is what it was."""
    nine = _nine()
    path = tmp_path / "nine.txt"
    path.write_text("\n".join([*nine["UNIQUE"], *nine["MULTIPLE"], *nine["UNSOLVABLE"]]) + "\n")
    cases = [(), ("--family", "sudoku"), ("--format", "text"), ("--with-instance",)]
    want = [_old_verify(str(path), *args) for args in cases]

    def refuse(*args: object) -> None:
        raise AssertionError("a line of a 9x9 file was read on its own")

    monkeypatch.setattr(inputs, "_from_line", refuse)
    for args, expected in zip(cases, want, strict=True):
        assert _timeless(_new_verify(capsys, str(path), *args)) == _timeless(expected)
    with pytest.raises(AssertionError, match="read on its own"):  # the check itself bites
        _old_verify(str(path))


def test_stdin_answers_each_grid_line_before_it_reads_the_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    nine = _nine()
    lines = [nine["UNIQUE"][0], "", "# note", "bad", nine["MULTIPLE"][0], nine["UNIQUE"][1]]
    path = tmp_path / "same.txt"
    path.write_text("\n".join(lines) + "\n")
    want = _old_verify(str(path))
    stdin = LineStdin([line + "\n" for line in lines], capsys)
    monkeypatch.setattr("sys.stdin", stdin)
    capsys.readouterr()
    assert main(["verify", "-", "--quiet"]) == 0
    stdin.out += capsys.readouterr().out
    assert stdin.answered_before_read == [0, 1, 1, 1, 2, 3, 4]
    assert _timeless(stdin.out) == _timeless(want)


def test_a_noted_chunk_report_reads_as_the_report_it_copies() -> None:
    """``with_diagnostics`` on a report of a chunk (built when read) equals ``replace``."""
    from dataclasses import replace

    from puzzlekit.core.lazyreport import LazyReport, with_diagnostics

    lines = _nine()["UNIQUE"][:3]
    reps = pk.verify_many(lines, "sudoku")
    assert {type(r) for r in reps} == {LazyReport}
    for rep in reps:
        noted = with_diagnostics(rep, ("a note",))
        assert type(noted) is LazyReport and "solutions" not in vars(noted)  # built when read
        assert noted.to_json_obj() == replace(rep, diagnostics=("a note",)).to_json_obj()
        assert noted == replace(rep, diagnostics=("a note",)) and rep.diagnostics == ()


JIGSAW = [  # puzzlekit generate sudoku-jigsaw --params '{"size": 6, "seed": 3}' --count 3
    "6j:d6d4a1_4_6h4a6_4_2c3a4b6,ca_aacaa__ba_cda_b_aa_a3da",
    "6j:f2e4a1b6_1h1_2_3_3a4a6a,ca_aacaa__ba_cda_b_aa_a3da",
    "6j:3c5_2b5b3_6g1_5f2a5b4b,ca_aacaa__ba_cda_b_aa_a3da",
]


@pytest.mark.parametrize(
    ("family", "rows"),
    [
        ("sudoku-jigsaw", [*JIGSAW, "6j:bad", JIGSAW[0]]),  # reads its lines its own way
        ("latin", ["1234.41.21.3432.", "1...............", "12.3" * 4, "123.."]),
        ("nosuchfamily", ["1234.41.21.3432."]),
    ],
)
def test_other_families_print_what_reading_every_line_printed(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    family: str,
    rows: list[str],
) -> None:
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(rows) + "\n")
    if family == "nosuchfamily":  # refused before any line is read
        assert main(["verify", str(path), "--family", family]) == 2
        assert "nosuchfamily" in capsys.readouterr().err
        return
    drop_kept()
    want = _old_verify(str(path), "--family", family)
    drop_kept()
    got = _new_verify(capsys, str(path), "--family", family)
    assert _timeless(got) == _timeless(want) and len(got.splitlines()) == len(rows)
