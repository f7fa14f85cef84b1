"""Every INVALID_SPEC violation type of the core, through the API and through the CLI."""

from __future__ import annotations

import json

import pytest

import puzzlekit as pk
from puzzlekit.app.cli import main
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.report import Verdict, validate_report_json
from puzzlekit.verifiers.enumerative import EnumerativeVerifier
from tests.helpers import given

V = EnumerativeVerifier()
LINE = "." * 81

# (case id, JSON instance, expected violation type, expected coord, expected fieldName)
JSON_CASES = [
    (
        "unknown-family",
        {"family": "sudokuu", "params": {}, "clues": []},
        "unknown-family",
        None,
        "family",
    ),
    (
        "unknown-param",
        {"family": "sudoku", "params": {"size": 9, "colour": 1}, "clues": []},
        "unknown-field",
        None,
        "params.colour",
    ),
    (
        "missing-param",
        {"family": "latin", "params": {}, "clues": []},
        "malformed",
        None,
        "params.size",
    ),
    (
        "bad-box",
        {"family": "sudoku", "params": {"size": 9, "box": [2, 3]}, "clues": []},
        "shape-mismatch",
        None,
        "params.box",
    ),
    (
        "clue-outside-grid",
        {"family": "sudoku", "params": {"size": 4}, "clues": [given(4, 0, 1).to_json_obj()]},
        "shape-mismatch",
        [4, 0],
        "clue r5c1",
    ),
    (
        "value-outside-domain",
        {"family": "sudoku", "params": {"size": 4}, "clues": [given(1, 2, 5).to_json_obj()]},
        "out-of-domain",
        [1, 2],
        "r2c3",
    ),
    (
        "two-clues-one-cell",
        {
            "family": "sudoku",
            "params": {"size": 4},
            "clues": [given(1, 2, 3, "a").to_json_obj(), given(1, 2, 4, "b").to_json_obj()],
        },
        "duplicate-clue",
        [1, 2],
        "r2c3",
    ),
]

# (case id, line, --family, expected violation type, expected coord, expected fieldName)
LINE_CASES = [
    ("wrong-length", LINE[:80], "sudoku", "shape-mismatch", None, "line"),
    ("unparseable", "x" + LINE[1:], "sudoku", "malformed", [0, 0], "r1c1"),
    ("symbol-outside-domain", "5" + "." * 15, "sudoku", "out-of-domain", [0, 0], "r1c1"),
    ("unknown-family-line", LINE, "sodoku", "unknown-family", None, "family"),
]


def _check(rep, vtype, coord, field):
    assert rep.verdict is Verdict.INVALID_SPEC
    validate_report_json(rep.to_json_obj())
    kinds = [
        (v.violation_type, list(v.coord) if v.coord else None, v.field_name)
        for v in rep.reject_detail.violations
    ]
    assert (vtype, coord, field) in kinds, kinds


@pytest.mark.parametrize("case", JSON_CASES, ids=[c[0] for c in JSON_CASES])
def test_api_json_instance_gives_invalid_spec_naming_what_and_where(case):
    _, obj, vtype, coord, field = case
    rep = V.verify(Instance.from_json_obj(obj))
    _check(rep, vtype, coord, field)
    assert rep.diagnostics  # human text derived from the violations


@pytest.mark.parametrize("case", LINE_CASES, ids=[c[0] for c in LINE_CASES])
def test_api_parse_raises_spec_error_naming_what_and_where(case):
    _, line, family, vtype, coord, field = case
    with pytest.raises(SpecError) as err:
        pk.parse(family, line)
    got = [
        (v.violation_type, list(v.coord) if v.coord else None, v.field_name)
        for v in err.value.violations
    ]
    assert (vtype, coord, field) in got


def _cli_reports(capsys, args, stdin_text, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(stdin_text))
    code = main(["verify", "-", *args])
    out = capsys.readouterr().out.strip().splitlines()
    return code, [pk.VerifierReport.from_json(line) for line in out]


@pytest.mark.parametrize("case", JSON_CASES, ids=[c[0] for c in JSON_CASES])
def test_cli_json_lines_give_invalid_spec_and_exit_0(case, capsys, monkeypatch):
    _, obj, vtype, coord, field = case
    good = pk.parse("sudoku", "1" + "." * 15).to_json()
    code, reps = _cli_reports(capsys, [], json.dumps(obj) + "\n" + good + "\n", monkeypatch)
    assert code == 0
    assert len(reps) == 2, "the run goes on with the next line"
    _check(reps[0], vtype, coord, field)
    assert reps[1].verdict is Verdict.MULTIPLE


# a --family no registry holds is an unusable argument, not a bad line (see below)
CLI_LINE_CASES = [c for c in LINE_CASES if c[0] != "unknown-family-line"]


@pytest.mark.parametrize("case", CLI_LINE_CASES, ids=[c[0] for c in CLI_LINE_CASES])
def test_cli_lines_give_invalid_spec_and_the_run_goes_on(case, capsys, monkeypatch):
    _, line, family, vtype, coord, field = case
    code, reps = _cli_reports(capsys, ["--family", family], line + "\n" + LINE + "\n", monkeypatch)
    assert code == 0
    assert len(reps) == 2
    _check(reps[0], vtype, coord, field)


def test_cli_unknown_family_argument_is_one_line_exit_2(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(LINE + "\n"))
    assert main(["verify", "-", "--family", "sodoku"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(
        "puzzlekit: error: unknown family 'sodoku'; closest: sudoku"
    )
    assert err.count("\n") == 1


def test_malformed_json_line_is_reported_not_raised(capsys, monkeypatch):
    code, reps = _cli_reports(capsys, [], '{"family": "sudoku", \n', monkeypatch)
    assert code == 0
    _check(reps[0], "malformed", None, "line 1")


def test_instance_from_json_rejects_unknown_top_level_fields():
    with pytest.raises(SpecError) as err:
        Instance.from_json_obj({"family": "sudoku", "params": {}, "clues": [], "x": 1})
    assert err.value.violations[0].violation_type == "unknown-field"


# -- caches keyed by content never answer true with what they computed for 1 -------------------


@pytest.mark.parametrize("name", ["bitmask", "sat", "enumerative"])
def test_a_value_python_calls_equal_is_not_read_from_the_cache_of_another(name: str) -> None:
    from puzzlekit.core.model import Clue, Instance
    from puzzlekit.verifiers.registry import get_verifier

    verifier = get_verifier(name)

    def verdicts(make) -> list[str]:
        return [verifier.verify(make(v), solution_cap=2).verdict.value for v in (1, True, 1.0)]

    # a given's value: 1 is a digit, true and 1.0 are not
    def given(v):
        return Instance.make(
            "sudoku", {"size": 4}, [Clue.make("r1c1", "given", {"value": v}, [(0, 0)])]
        )

    assert verdicts(given) == ["MULTIPLE", "INVALID_SPEC", "INVALID_SPEC"]

    # a param: kakuro's seed is an integer
    def layout(v):
        return Instance.make("kakuro", {"rows": 5, "cols": 5, "seed": v}, [])

    first, *rest = verdicts(layout)
    assert first != "INVALID_SPEC" and rest == ["INVALID_SPEC", "INVALID_SPEC"]
