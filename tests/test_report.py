"""The report contract: wire names, JSON Schema, exact round-trip, digests."""

from __future__ import annotations

import json

import jsonschema
import pytest

import puzzlekit as pk
from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict, VerifierReport, report_schema, validate_report_json
from puzzlekit.verifiers.enumerative import EnumerativeVerifier
from tests.helpers import sudoku


def _reports() -> dict[Verdict, VerifierReport]:
    v = EnumerativeVerifier()
    return {
        Verdict.UNIQUE: v.verify(pk.parse("sudoku", "1234.41.21.3432.")),
        Verdict.MULTIPLE: v.verify(sudoku(4, [(0, 0, 1)]), solution_cap=5),
        Verdict.UNSOLVABLE: v.verify(sudoku(4, [(0, 0, 1), (0, 3, 1)])),
        Verdict.DOMAIN_TOO_LARGE: EnumerativeVerifier(max_cartesian_log10=1).verify(sudoku(4, [])),
        Verdict.INVALID_SPEC: v.verify(Instance.make("nope", {}, [])),
        Verdict.UNDECIDED: v.verify(sudoku(9, []), budget=SearchBudget(nodes=10)),
    }


REPORTS = _reports()


def test_every_verdict_is_produced():
    assert {r.verdict for r in REPORTS.values()} == set(Verdict)
    assert all(v is r.verdict for v, r in REPORTS.items())


@pytest.mark.parametrize("verdict", list(Verdict), ids=lambda v: v.value)
def test_report_validates_against_the_shipped_schema_and_round_trips(verdict):
    rep = REPORTS[verdict]
    obj = rep.to_json_obj()
    validate_report_json(obj)
    again = VerifierReport.from_json(rep.to_json())
    assert again == rep
    assert again.to_json() == rep.to_json()
    assert again.digest() == rep.digest()


@pytest.mark.parametrize("verdict", list(Verdict), ids=lambda v: v.value)
def test_reject_detail_case_equals_verdict_and_every_item_has_coord_and_field_name(verdict):
    obj = REPORTS[verdict].to_json_obj()
    if verdict is Verdict.UNIQUE:
        assert "rejectDetail" not in obj
        return
    rd = obj["rejectDetail"]
    assert rd["case"] == verdict.value
    items = []
    for key in ("discriminativeGap", "fieldCardinalities", "culprits", "violations"):
        items += rd.get(key, [])
    if rd.get("conflict"):
        items += rd["conflict"]["clues"]
    assert items, f"{verdict} detail names no coordinate"
    for item in items:
        assert "coord" in item and "fieldName" in item


def test_seed_wire_names_are_kept():
    obj = REPORTS[Verdict.MULTIPLE].to_json_obj()
    for name in (
        "uniquenessVerdict",
        "solutions",
        "solutionCount",
        "solutionCap",
        "totalCompletionsEnumerated",
        "cartesianSize",
        "diagnostics",
        "rejectDetail",
        "source",
        "honestScope",
        "instanceDigest",
        "stats",
    ):
        assert name in obj


def test_schema_rejects_a_report_without_its_reject_detail():
    obj = REPORTS[Verdict.MULTIPLE].to_json_obj()
    del obj["rejectDetail"]
    with pytest.raises(jsonschema.ValidationError):
        validate_report_json(obj)
    obj = REPORTS[Verdict.UNIQUE].to_json_obj()
    obj["uniquenessVerdict"] = "MAYBE"
    with pytest.raises(jsonschema.ValidationError):
        validate_report_json(obj)


def test_schema_is_draft_2020_12():
    schema = report_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_report_digest_ignores_timing_but_not_content():
    rep = REPORTS[Verdict.MULTIPLE]
    slower = rep.with_stats(seconds=99.0)
    assert slower.digest() == rep.digest()
    other = VerifierReport.from_json_obj({**rep.to_json_obj(), "solutionCount": 4})
    assert other.digest() != rep.digest()


def test_to_json_is_plain_json():
    for rep in REPORTS.values():
        json.loads(rep.to_json())
