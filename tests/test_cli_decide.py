"""``puzzlekit decide``: decisions on files, exit codes, and fixture-directory checks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.audit.review.kernel import check_decision

FIXTURES = Path(__file__).parent / "data" / "rbk" / "fixtures"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "name, outcome",
    [
        ("01-auto-apply", "auto_apply"),
        ("03-incomplete-stale-evidence", "incomplete"),
        ("04-human-required-risk", "human_required"),
    ],
)
def test_decide_prints_the_decision_and_exits_0_whatever_the_outcome(capsys, name, outcome):
    d = FIXTURES / name
    code, out, _ = run(
        capsys,
        "decide",
        "--policy",
        str(d / "policy.json"),
        "--request",
        str(d / "request.json"),
        "--computed-at",
        "2026-08-09T09:05:01Z",
    )
    decision = json.loads(out)
    assert code == 0
    assert decision["outcome"] == outcome
    assert decision["computed_at"] == "2026-08-09T09:05:01Z"
    assert check_decision(decision) == []


def test_decide_defaults_computed_at_to_now(capsys):
    d = FIXTURES / "01-auto-apply"
    code, out, _ = run(
        capsys, "decide", "--policy", str(d / "policy.json"), "--request", str(d / "request.json")
    )
    assert code == 0
    assert json.loads(out)["computed_at"].endswith("Z")


def test_input_failing_its_schema_exits_2_with_the_json_path(capsys, tmp_path):
    d = FIXTURES / "01-auto-apply"
    request = json.loads((d / "request.json").read_text())
    request["action"]["risk"]["impact"] = "CRITICAL"
    bad = tmp_path / "request.json"
    bad.write_text(json.dumps(request))
    code, out, err = run(
        capsys, "decide", "--policy", str(d / "policy.json"), "--request", str(bad)
    )
    assert code == 2
    assert out == ""
    assert "request.action.risk.impact" in err
    assert len(err.strip().splitlines()) == 1


def test_policy_failing_its_schema_exits_2(capsys, tmp_path):
    d = FIXTURES / "01-auto-apply"
    policy = json.loads((d / "policy.json").read_text())
    del policy["risk"]["max_impact"]
    bad = tmp_path / "policy.json"
    bad.write_text(json.dumps(policy))
    code, _, err = run(capsys, "decide", "--policy", str(bad), "--request", str(d / "request.json"))
    assert code == 2
    assert "policy.risk.max_impact is absent" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["decide"],
        ["decide", "--policy", "nowhere.json", "--request", "nowhere.json"],
        ["decide", "--validate", "nowhere"],
        ["decide", "--validate", str(FIXTURES), "--policy", "p.json"],
        [
            "decide",
            "--policy",
            str(FIXTURES / "01-auto-apply" / "policy.json"),
            "--request",
            str(FIXTURES / "01-auto-apply" / "request.json"),
            "--computed-at",
            "noon",
        ],
    ],
    ids=["no-args", "missing-files", "missing-dir", "mixed-modes", "bad-time"],
)
def test_unusable_arguments_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("puzzlekit: error:")


def test_non_json_file_exits_2(capsys, tmp_path):
    bad = tmp_path / "policy.json"
    bad.write_text("{not json")
    d = FIXTURES / "01-auto-apply"
    code, _, err = run(capsys, "decide", "--policy", str(bad), "--request", str(d / "request.json"))
    assert code == 2
    assert "not JSON" in err


def test_validate_passes_the_five_fixtures(capsys):
    code, out, _ = run(capsys, "decide", "--validate", str(FIXTURES))
    assert code == 0
    assert out.count("ok ") == 5
    assert "5 of 5" in out


def test_validate_accepts_a_single_fixture_directory(capsys):
    code, out, _ = run(capsys, "decide", "--validate", str(FIXTURES / "02-authority-withheld"))
    assert code == 0
    assert "ok   02-authority-withheld" in out


def broken(tmp_path: Path, name: str, edit) -> Path:
    root = tmp_path / "fixtures"
    shutil.copytree(FIXTURES / name, root / name)
    path = root / name / "expected-decision.json"
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))
    return root


def _drop_factor(d):
    d["factors"].pop()


def _duplicate_factor(d):
    d["factors"][-1] = dict(d["factors"][0])


def _silent_restriction(d):
    d["factors"][1]["reasons"] = []


def _wrong_composition(d):
    d["outcome"] = "auto_apply"
    d["withheld_dimensions"] = []
    d["granted_dimensions"] = ["authorize"]


def _withheld_under_auto_apply(d):
    d["withheld_dimensions"] = ["execute"]


def _granted_beyond_request(d):
    d["granted_dimensions"] = ["project", "execute", "learn"]


@pytest.mark.parametrize(
    "name, edit, text",
    [
        ("01-auto-apply", _drop_factor, "reversibility"),
        ("01-auto-apply", _duplicate_factor, "applicability"),
        ("02-authority-withheld", _silent_restriction, "with no reason"),
        ("02-authority-withheld", _wrong_composition, "composition"),
        ("01-auto-apply", _withheld_under_auto_apply, "withheld"),
        ("01-auto-apply", _granted_beyond_request, "not requested"),
    ],
    ids=["factor-missing", "factor-twice", "no-reason", "composition", "withheld", "granted"],
)
def test_validate_reports_each_broken_rule_and_exits_1(capsys, tmp_path, name, edit, text):
    root = broken(tmp_path, name, edit)
    code, out, _ = run(capsys, "decide", "--validate", str(root))
    assert code == 1
    assert f"FAIL {name}" in out
    assert text in out


def test_validate_reports_a_kernel_disagreement(capsys, tmp_path):
    def claim_human_required(d):
        d["outcome"] = "human_required"
        d.pop("granted_dimensions")
        d["withheld_dimensions"] = ["project", "execute"]
        d["factors"][5] = {
            "factor": "reversibility",
            "verdict": "human_required",
            "basis_complete": True,
            "reasons": ["claimed"],
        }

    root = broken(tmp_path, "01-auto-apply", claim_human_required)
    code, out, _ = run(capsys, "decide", "--validate", str(root))
    assert code == 1
    assert "kernel gives outcome='auto_apply'" in out


def test_validate_reports_a_missing_file(capsys, tmp_path):
    root = tmp_path / "fixtures" / "x"
    root.mkdir(parents=True)
    shutil.copy(FIXTURES / "01-auto-apply" / "policy.json", root / "policy.json")
    code, out, _ = run(capsys, "decide", "--validate", str(root.parent))
    assert code == 1
    assert "request.json is missing" in out
