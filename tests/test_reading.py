"""The reading boundary (puzzlekit.core.reading) and every input path that goes through it:
bounded nesting, safe integers, finite numbers, valid Unicode, ASCII digits, bounded lines,
declared size limits, streaming answers, and one-line refusals of unusable arguments."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import puzzlekit.core.reading as reading
from puzzlekit.app.cli import main
from puzzlekit.core.jsondata import canonical_json, freeze
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.reading import ReadError, ascii_int, faults, iter_lines, loads, parse_json
from puzzlekit.io.inputs import iter_items, iter_stream

SUDOKU4 = {"family": "sudoku", "params": {"size": 4, "box": [2, 2]}, "clues": []}


def _given(value: str, coords: str = "[[0, 1]]") -> str:
    return (
        '{"family": "sudoku", "params": {"size": 4, "box": [2, 2]}, "clues": [{"id": "g", '
        f'"kind": "given", "data": {{"value": {value}}}, "coords": {coords}}}]}}'
    )


def _verify(capsys, text: str, *args: str) -> tuple[int, list[dict], str]:
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogatepass")))
    try:
        code = main(["verify", "-", *args])
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


# --- JSON ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [reading.MAX_DEPTH + 1, 1200, 100_000])
def test_nesting_beyond_the_bound_is_refused_without_recursion(depth: int) -> None:
    with pytest.raises(ReadError, match="nested deeper"):
        parse_json("[" * depth + "]" * depth)
    deep: list = []
    for _ in range(depth if depth < 5000 else 5000):
        deep = [deep]
    assert faults(deep)[0].detail.startswith("nested deeper")
    with pytest.raises(ValueError, match="nested deeper"):
        freeze(deep)
    with pytest.raises(ValueError, match="nested deeper"):
        canonical_json(deep)


@pytest.mark.parametrize(
    ("token", "needle"),
    [
        ("NaN", "not a JSON number"),
        ("Infinity", "not a JSON number"),
        ("-Infinity", "not a JSON number"),
        ("1e999", "too large to be finite"),
        (str(2**53), "beyond"),
        (str(-(2**64)), "beyond"),
        ("9" * 5000, "5000 digits"),
        ('"\\ud800"', "lone surrogate"),
    ],
)
def test_values_canonical_json_cannot_hold_are_named_at_their_path(token: str, needle: str):
    with pytest.raises(ReadError, match=needle) as caught:
        loads('{"clues": [{"data": {"value": ' + token + "}}]}")
    assert caught.value.field == "clues[0].data.value"


def test_the_largest_safe_integers_are_read() -> None:
    assert loads(f"[{2**53 - 1}, {-(2**53 - 1)}]") == [2**53 - 1, -(2**53 - 1)]


@pytest.mark.parametrize("text", ["²", "٣", "３", "", "1a", "-1", "+1", " 1", "1" * 16])
def test_ascii_int_refuses_what_is_not_ascii_digits(text: str) -> None:
    with pytest.raises(ReadError):
        ascii_int(text, "size")
    assert not (reading.is_digits(text) and len(text) <= reading.MAX_DIGITS)


# --- instances ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "coords", "field"),
    [
        ("NaN", "[[0, 1]]", "clues[0].data.value"),
        (str(2**60), "[[0, 1]]", "clues[0].data.value"),
        ('"\\udc00"', "[[0, 1]]", "clues[0].data.value"),
        ("1", "[[[0], 1]]", "clues[0].coords[0]"),
        ("1", '[{"r": 0}]', "clues[0].coords[0]"),
    ],
)
def test_an_unreadable_clue_is_invalid_spec_naming_field_and_coordinate(
    capsys, value: str, coords: str, field: str
) -> None:
    good = json.dumps(SUDOKU4)
    code, reports, _ = _verify(capsys, f"{good}\n{_given(value, coords)}\n{good}\n")
    assert code == 0 and len(reports) == 3
    bad = reports[1]
    assert bad["uniquenessVerdict"] == "INVALID_SPEC"
    (violation,) = bad["rejectDetail"]["violations"]
    assert violation["fieldName"] == field
    if field.endswith(".value"):
        assert violation["coord"] == [0, 1]
    assert reports[2]["uniquenessVerdict"] == "MULTIPLE"


def test_a_deep_line_and_a_non_utf8_line_are_answered_and_reading_goes_on() -> None:
    data = b"{" + b'"a":[' * 3000 + b"\n\xff\xfe not utf-8\n" + json.dumps(SUDOKU4).encode()
    items = list(iter_stream(io.BytesIO(data), "sudoku"))
    assert [i.position for i in items] == [1, 2, 3]
    assert "nested deeper" in items[0].violations[0].detail
    assert "not UTF-8" in items[1].violations[0].detail
    assert items[2].instance is not None


def test_a_line_too_long_is_answered_and_reading_resumes_at_the_next_newline(monkeypatch):
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 1000)
    data = json.dumps(SUDOKU4).encode() + b"\n" + b"x" * 5000 + b"\n" + json.dumps(SUDOKU4).encode()
    items = list(iter_stream(io.BytesIO(data)))
    assert [i.instance is not None for i in items] == [True, False, True]
    assert "longer than 1000 bytes" in items[1].violations[0].detail
    assert [line.number for line in iter_lines(io.BytesIO(b"a\n" + b"b" * 3000), 100)] == [1, 2]


class _Pipe(io.BytesIO):
    """A stream that, like a pipe a user types into, hands out one line per read and counts
    the reads."""

    reads = 0

    def read1(self, size: int = -1) -> bytes:
        self.reads += 1
        return super().readline(size)


def test_each_item_is_read_before_the_next_line_is() -> None:
    stream = _Pipe(b"".join(json.dumps(SUDOKU4).encode() + b"\n" for _ in range(5)))
    seen = []
    for item in iter_stream(stream):
        seen.append((item.position, stream.reads))
    assert seen == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]


def test_lf_crlf_and_lone_cr_all_end_a_line_and_a_bom_is_skipped() -> None:
    data = b"\xef\xbb\xbfone\ntwo\r\nthree\rfour"
    lines = list(iter_lines(io.BytesIO(data)))
    assert [line.text for line in lines] == ["one", "two", "three", "four"]
    assert [line.raw for line in lines] == [b"one\n", b"two\r\n", b"three\r", b"four"]


def test_a_crlf_split_between_two_reads_is_one_line_end() -> None:
    class Split(io.BytesIO):
        def read1(self, size: int = -1) -> bytes:
            return super().read1(4)  # b"abc\r" then b"\ndef" ...

    assert [line.text for line in iter_lines(Split(b"abc\r\ndef\r\n"))] == ["abc", "def"]
    assert [line.text for line in iter_lines(Split(b"abc\rxyz\r"))] == ["abc", "xyz"]


def test_old_mac_line_ends_give_one_puzzle_per_line() -> None:
    line = "1" + "." * 15
    items = list(iter_items(f"{line}\r{line}\r", family="sudoku"))
    assert [i.instance is not None for i in items] == [True, True]


def test_a_bom_before_the_first_puzzle_does_not_make_it_invalid() -> None:
    items = list(iter_stream(io.BytesIO(b"\xef\xbb\xbf" + json.dumps(SUDOKU4).encode())))
    assert items[0].instance is not None


def test_a_lone_surrogate_key_is_answered_and_the_next_line_too() -> None:
    bad = '{"family":"sudoku","params":{"size":4},"clues":[],"\\ud800":1}'
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlekit", "verify", "-"],
        input=bad + "\n" + json.dumps(SUDOKU4) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    verdicts = [json.loads(line)["uniquenessVerdict"] for line in proc.stdout.splitlines()]
    assert verdicts == ["INVALID_SPEC", "MULTIPLE"]
    assert "Traceback" not in proc.stderr


def test_verify_answers_a_line_before_the_next_one_is_written() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlekit.app.cli", "verify", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(2):
            proc.stdin.write(json.dumps(SUDOKU4) + "\n")
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["uniquenessVerdict"] == "MULTIPLE"
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0


def test_a_pretty_printed_document_and_an_array_are_still_read_whole() -> None:
    pretty = json.dumps(SUDOKU4, indent=2)
    assert [i.instance is not None for i in iter_items(pretty)] == [True]
    array = json.dumps([SUDOKU4, {"family": 3}], indent=1)
    assert [i.instance is not None for i in iter_items(array)] == [True, False]


# --- text formats, limits, arguments --------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "line"),
    [
        ("futoshiki", "\u0664:" + "0," * 16),
        ("kenken", "\uff13:_a_aa_aa,s1m3a6m2"),
        ("skyscrapers", "4:3/2/1/2/1/3/2/2/2/2/3/1/2/\u00b2/1/3"),
        ("nonogram", "5x\u0665:3/3/4/1/2/1/1.1/3/4/3"),
        ("owm-nim", "3,\u0664,5"),
        ("kakuro", "# 1\u00b2\\ #"),
    ],
)
def test_text_formats_read_only_ascii_digits(family: str, line: str) -> None:
    from puzzlekit.families import get_family

    with pytest.raises(SpecError):
        get_family(family).parse_text(line)


def test_tatham_ids_with_look_alike_or_huge_numbers_are_invalid_spec() -> None:
    items = list(
        iter_items("solo:2x\u00b2:2f3_1f4\nsolo:2x2:2f3_1f" + "9" * 5000, "sudoku", None, "tatham")
    )
    assert [i.instance for i in items] == [None, None]


def test_a_layout_beyond_the_declared_limit_is_refused_before_any_work() -> None:
    from puzzlekit.families import resolve

    for layout in (["#" * 2000] * 2000, ["#" * 2000] * 3):
        with pytest.raises(SpecError) as caught:
            resolve(Instance.make("kakuro", {"layout": layout}, []))
        (v,) = caught.value.violations
        assert (v.violation_type, v.field_name) == ("out-of-domain", "params.layout")


def test_schemas_lists_every_family_declared_limits(capsys) -> None:
    assert main(["schemas", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["family"]: r["limits"] for r in rows}["sudoku"] == {"size": 25}
    assert main(["schemas"]) == 0
    lines = [" ".join(line.split()) for line in capsys.readouterr().out.splitlines()]
    assert "kakuro rows <= 12, cols <= 12, layout <= 30" in lines


@pytest.mark.parametrize(
    "args",
    [
        ["--budget-seconds", "-1"],
        ["--budget-seconds", "0"],
        ["--budget-seconds", "nan"],
        ["--budget-seconds", "inf"],
        ["--budget-nodes", "0"],
        ["--budget-nodes", "-3"],
        ["--params", '{"size": NaN}'],
        ["--params", "[" * 5000],
        ["--cap", "99999999999999999999"],
        ["--cap", "9" * 5000],
    ],
)
def test_unusable_budgets_and_params_are_one_line_and_exit_2(capsys, args: list[str]) -> None:
    code, reports, err = _verify(capsys, json.dumps(SUDOKU4), *args)
    assert code == 2 and reports == []
    assert len(err.strip().splitlines()) == 1 and err.startswith("puzzlekit:")


BAD_BUDGETS = [{"nodes": 0}, {"nodes": -1}, {"seconds": 0}, {"seconds": -1.0}, {"nodes": 1.5},
               {"seconds": float("nan")}, {"seconds": float("inf")}]  # fmt: skip


@pytest.mark.parametrize("budget", BAD_BUDGETS)
def test_search_budget_refuses_what_is_not_positive(budget: dict) -> None:
    with pytest.raises(ValueError, match="budget"):
        SearchBudget(**budget)


@pytest.mark.parametrize("verifier", ["gametree", "minimax", "oracle"])
def test_a_verifier_that_declines_the_family_is_invalid_spec_naming_why(capsys, verifier: str):
    code, (rep,), _ = _verify(capsys, json.dumps(SUDOKU4), "--verifier", verifier)
    assert code == 0 and rep["uniquenessVerdict"] == "INVALID_SPEC"
    (v,) = rep["rejectDetail"]["violations"]
    assert v["fieldName"] == "verifier" and "cannot verify a sudoku instance" in v["detail"]


def test_mcp_verify_arguments_go_through_the_boundary() -> None:
    from puzzlekit.app.mcp.work import ArgumentError, verify_work

    bad = dict(SUDOKU4, clues=[{"id": "g", "kind": "given", "data": {"value": float("nan")},
                                "coords": [[0, 1]]}])  # fmt: skip
    with pytest.raises(ArgumentError, match=r"instance.clues\[0\].data.value"):
        verify_work(instance=bad)
    with pytest.raises(ArgumentError, match="nested deeper"):
        verify_work(instance="[" * 5000)
    with pytest.raises(ArgumentError, match="budget_nodes"):
        verify_work(instance=SUDOKU4, budget_nodes=0)
    with pytest.raises(ArgumentError, match="params"):
        verify_work(family="sudoku", text="." * 16, params=[1])


class _Zeros(io.RawIOBase):
    """/dev/zero: a line that never ends."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        buffer[:] = b"\0" * len(buffer)
        return len(buffer)


def test_an_endless_line_is_answered_at_once(monkeypatch) -> None:
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 1000)
    item = next(iter_stream(_Zeros()))
    assert item.instance is None and "longer than 1000 bytes" in item.violations[0].detail


TOOLCALL = {
    "family": "toolcall",
    "params": {"expectedVerdict": "mid", "fixedInput": {"note": ""}, "tool": "shipping-rate"},
    "clues": [{"id": "w", "kind": "given", "coords": [[1]],
               "data": {"field": {"not": "a name"}, "value": 6}}],
}  # fmt: skip


def test_a_hook_that_misreads_clue_data_gives_invalid_spec_at_the_clue(capsys) -> None:
    from puzzlekit.families import resolve, strict_hooks

    code, (rep,), _ = _verify(capsys, json.dumps(TOOLCALL), "--verifier", "enumerative")
    (v,) = rep["rejectDetail"]["violations"]
    assert code == 0 and (v["fieldName"], v["coord"]) == ("clue w", [1])
    assert "toolcall cannot read this (TypeError" in v["detail"]
    with strict_hooks(), pytest.raises(TypeError):  # check_family sees the family's bug
        resolve(Instance.from_json_obj(TOOLCALL))


def test_a_jigsaw_layout_is_grown_only_up_to_its_declared_size() -> None:
    from puzzlekit.families import get_family

    with pytest.raises(SpecError) as caught:
        get_family("sudoku-jigsaw").parse_text("." * 144)
    (v,) = caught.value.violations
    assert (v.violation_type, v.field_name) == ("out-of-domain", "params.size")
    assert "give params.regions" in v.detail


def test_an_error_naming_input_with_a_newline_stays_one_line(capsys) -> None:
    code, _, err = _verify(capsys, "", "--family", "sudo\nku\x00")
    assert code == 2 and err.count("\n") == 1 and "sudo\\nku\\x00" in err


# --- whole files: configs, policies, checkpoints ------------------------------------------------

QUICKSTART = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.toml"


def _one_error(capsys, argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    return err[0]


def test_a_utf16_config_is_named_as_utf16(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "q16.toml"
    cfg.write_bytes(QUICKSTART.read_text("utf-8").encode("utf-16"))
    assert "UTF-16, not UTF-8" in _one_error(capsys, ["run", str(cfg), "--out", str(tmp_path)])


def test_a_config_with_a_bom_reads_like_one_without(tmp_path: Path) -> None:
    from puzzlekit.app.experiment import load_config

    cfg = tmp_path / "bom.toml"
    cfg.write_bytes(b"\xef\xbb\xbf" + QUICKSTART.read_bytes())
    assert load_config(cfg).digest == load_config(QUICKSTART).digest


def test_a_deeply_nested_toml_array_is_refused_before_parsing(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "deep.toml"
    cfg.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested deeper than" in _one_error(capsys, ["run", str(cfg), "--out", str(tmp_path)])


@pytest.mark.parametrize("where", ["config", "override"])
def test_an_integer_of_thousands_of_digits_is_one_line(tmp_path: Path, capsys, where) -> None:
    """Python reads at most 4,300 digits of an integer; the TOML parser raised its ValueError."""
    digits = "9" * 5000
    cfg = tmp_path / "long.toml"
    if where == "config":
        cfg.write_text(QUICKSTART.read_text("utf-8") + f"\nextra = {digits}\n")
        argv = ["run", str(cfg), "--out", str(tmp_path)]
        assert "more than 4300 digits" in _one_error(capsys, argv)
    else:
        argv = ["run", str(QUICKSTART), "--set", f"seed={digits}", "--out", str(tmp_path)]
        assert "seed" in _one_error(capsys, argv)


def test_an_override_beyond_canonical_json_is_a_config_error(tmp_path: Path, capsys) -> None:
    argv = ["run", str(QUICKSTART), "--set", "seed=18446744073709551616", "--out", str(tmp_path)]
    assert "seed: an integer beyond" in _one_error(capsys, argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "/dev/zero"],
        ["decide", "--policy", "/dev/zero", "--request", "/dev/zero"],
        ["ledger", "verify", "LEDGER", "--checkpoint", "/dev/zero"],
    ],
)
def test_an_endless_file_is_refused_at_its_bound_not_read_into_memory(
    argv: list[str], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 1 << 20)
    argv = [str(tmp_path / "l.db") if a == "LEDGER" else a for a in argv]
    if "ledger" in argv:
        from puzzlekit.audit.ledger import Ledger

        Ledger(argv[2]).close()
    assert "larger than" in _one_error(capsys, [*argv])


def _depth_by_scan(text: str, limit: int) -> int:
    """Nesting depth by a plain scan: brackets outside strings (a backslash escapes the next
    character, a string left open runs to the end, as a closing quote never comes), counted up
    to the first level beyond ``limit`` (and below ``limit`` brackets, that count)."""
    opens = text.count("[") + text.count("{")
    if opens <= limit:
        return opens
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:  # never closed: what follows counts, as for a regex that finds no string
                i += 1
                continue
            i = j + 1
            continue
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
        elif ch in "]}":
            depth -= 1
        i += 1
    return deepest


def test_nesting_depth_equals_a_plain_scan() -> None:
    """The count of brackets outside strings, on texts with and without escapes, quotes left
    open and characters beyond ASCII, and on generated puzzles (where it is taken at C speed)."""
    import random

    rng = random.Random(7)
    texts = [json.dumps({"clues": [[[i, i]] for i in range(80)]})]
    for _ in range(4000):
        alphabet = '[]{}"a,:0 ' + rng.choice(["", "\\", "é", "\\é"])
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        texts.append("[" * rng.randint(0, 80) + body + "]" * rng.randint(0, 80))
    for text in texts:
        for limit in (0, 3, 64):
            assert reading.nesting_depth(text, limit) == _depth_by_scan(text, limit), (text, limit)
