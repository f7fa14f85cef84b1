"""The golden corpora: one per registered schema, every case still gives its recorded
report (through puzzlekit.quality.golden.corpus and through the CLI), and --update rewrites exactly
what changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.quality.golden.corpus import (
    CASES,
    build_entries,
    diff_reports,
    load_corpus,
    registered_ids,
    regress,
    schema_id,
    write_corpus,
)

GOLDEN = Path(__file__).parent / "golden"


def builtin_ids() -> list[str]:
    """Schemas of the project's own families (other tests may register families of their own)."""
    return sorted(
        sid
        for sid, (fam, _) in registered_ids().items()
        if type(fam).__module__.startswith("puzzlekit.families.")
    )


def test_every_registered_schema_has_a_corpus() -> None:
    assert builtin_ids() == sorted(p.stem for p in GOLDEN.glob("*.jsonl"))


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.jsonl")), ids=lambda p: p.stem)
def test_corpus_holds_every_case_kind(path: Path) -> None:
    entries = load_corpus(path)
    assert [e.case for e in entries] == list(CASES)
    verdicts = {e.verdict for e in entries}
    assert {"UNIQUE", "MULTIPLE", "UNSOLVABLE", "INVALID_SPEC"} <= verdicts
    capped = next(e for e in entries if e.case == "multiple-capped")
    assert capped.report["solutionCountIsLowerBound"] is True
    assert all(e.report_digest.startswith("sha256:") for e in entries)


def _recorded_cases() -> int:
    return sum(len(load_corpus(GOLDEN / f"{sid}.jsonl")) for sid in builtin_ids())


def test_sat_agrees_with_the_corpora_recorded_by_the_reference() -> None:
    result = regress(GOLDEN, verifier="sat")
    assert result.ok, "\n".join(f"{c.schema}:{c.entry.case}: {c.diff}" for c in result.changed)


def test_every_golden_case_gives_its_recorded_report_and_the_cli_says_how_many(capsys) -> None:
    """``puzzlekit regress`` checks every recorded case (the one pass over the corpora: the CLI
    prints what ``regress`` returned), each gives its recorded report, and every built-in
    schema has a corpus."""
    code = main(["regress", "--golden", str(GOLDEN)])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert f"regress: {_recorded_cases()} cases in {len(builtin_ids())} corpora, 0 changed" in out
    missing = [ln for ln in out.splitlines() if ln.startswith("no corpus for registered schemas")]
    named = set(missing[0].split(": ", 1)[1].split(" (", 1)[0].split(", ")) if missing else set()
    assert not named & set(builtin_ids()), missing


def test_cli_regress_one_schema(capsys) -> None:
    assert main(["regress", "--golden", str(GOLDEN), "--schema", "sudoku-4x4"]) == 0
    assert "regress: 7 cases in 1 corpora, 0 changed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["--schema", "sudoku-9x8"], "unknown schema 'sudoku-9x8'; closest: sudoku-9x9"),
        (["--verifier", "enumeratve"], "unknown verifier 'enumeratve'; closest: enumerative"),
    ],
    ids=["schema", "verifier"],
)
def test_cli_regress_unknown_name_is_one_line_exit_2(argv, line, capsys) -> None:
    assert main(["regress", "--golden", str(GOLDEN), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"puzzlekit: error: {line}") and err.count("\n") == 1


def test_cli_regress_registered_schema_without_corpus_says_update_builds_it(
    tmp_path, capsys
) -> None:
    assert main(["regress", "--golden", str(tmp_path), "--schema", "sudoku-4x4"]) == 2
    err = capsys.readouterr().err
    assert "no corpus sudoku-4x4.jsonl" in err and "--update --schema sudoku-4x4" in err


def test_cli_regress_missing_directory_is_exit_2(tmp_path, capsys) -> None:
    assert main(["regress", "--golden", str(tmp_path / "nowhere")]) == 2
    assert "no golden directory" in capsys.readouterr().err


# --- changes are found, shown, and rewritten by --update ---------------------------------------


def _tamper(path: Path, case: str, edit) -> None:
    """Rewrite one entry's recorded report as if an older verifier had said something else."""
    from puzzlekit.quality.golden.corpus import GoldenEntry, content_digest

    entries = load_corpus(path)
    out = []
    for e in entries:
        if e.case == case:
            report = json.loads(json.dumps(e.report))
            edit(report)
            e = GoldenEntry(
                e.case, e.note, e.instance, e.verifier, e.cap, report, content_digest(report)
            )
        out.append(e)
    write_corpus(path, out)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    d = tmp_path / "golden"
    d.mkdir()
    for name in ("sudoku-4x4", "latin-5x5"):
        shutil.copy(GOLDEN / f"{name}.jsonl", d / f"{name}.jsonl")
    return d


def _as_unique(report: dict) -> None:
    report["uniquenessVerdict"] = "UNIQUE"
    report["solutionCount"] = 1
    report["solutions"] = report["solutions"][:1]
    report.pop("rejectDetail")


def _other_conflict(report: dict) -> None:
    clues = report["rejectDetail"]["conflict"]["clues"]
    clues[0]["clueId"] = "r9c9"
    clues[0]["coords"] = [[3, 3]]
    report["rejectDetail"]["conflict"]["rules"] = [{"rule": "row9", "coords": [[3, 3]]}]


def test_regress_shows_verdict_count_and_coordinate_changes(corpus, capsys) -> None:
    _tamper(corpus / "sudoku-4x4.jsonl", "multiple", _as_unique)
    _tamper(corpus / "sudoku-4x4.jsonl", "unsolvable", _other_conflict)
    assert main(["regress", "--golden", str(corpus)]) == 1
    out = capsys.readouterr().out
    assert "sudoku-4x4: 7 cases, 2 changed" in out
    assert "verdict: UNIQUE -> MULTIPLE" in out
    assert "solutionCount: 1 -> 6" in out
    assert "conflict clues: no longer r9c9@[3,3]; now also r1c3@[0,2]" in out
    assert "conflict rules: no longer row9; now also col3" in out
    assert "latin-5x5: 7 cases, 0 changed" in out
    assert out.rstrip().endswith("regress: 14 cases in 2 corpora, 2 changed")


def test_update_rewrites_only_the_changed_entries(corpus, capsys) -> None:
    path = corpus / "sudoku-4x4.jsonl"
    original = (GOLDEN / "sudoku-4x4.jsonl").read_text()
    _tamper(path, "multiple", _as_unique)
    assert main(["regress", "--golden", str(corpus), "--schema", "sudoku-4x4", "--update"]) == 0
    out = capsys.readouterr().out
    assert "updated 1 entry in sudoku-4x4 (1)" in out
    assert path.read_text() == original
    assert main(["regress", "--golden", str(corpus), "--update"]) == 0
    assert "updated 0 entries" in capsys.readouterr().out


def _older_form(path: Path) -> None:
    """Write ``path`` as a corpus was written before the verdict was named as ``verify`` names
    it: the line's ``uniquenessVerdict`` under ``verdict``."""
    lines = []
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        obj["verdict"] = obj.pop("uniquenessVerdict")
        lines.append(json.dumps(obj, sort_keys=True, separators=(",", ":")))
    path.write_text("\n".join(lines) + "\n")


def test_an_older_form_corpus_reads_checks_and_is_rewritten_by_update(corpus, capsys) -> None:
    path = corpus / "sudoku-4x4.jsonl"
    today = path.read_text()
    assert '"uniquenessVerdict":' in today and '"verdict":' not in today
    _older_form(path)
    entries = load_corpus(path)
    assert all(e.old_form for e in entries) and len(entries) == 7
    assert {e.verdict for e in entries} >= {"UNIQUE", "MULTIPLE", "UNSOLVABLE", "INVALID_SPEC"}
    assert not any(e.old_form for e in load_corpus(corpus / "latin-5x5.jsonl"))
    assert main(["regress", "--golden", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert "14 cases in 2 corpora, 0 changed" in out
    assert "7 entries of an older form (--update rewrites them)" in out
    assert main(["regress", "--golden", str(corpus), "--update"]) == 0
    out = capsys.readouterr().out
    assert "updated 0 entries; 7 of an older form rewritten in today's form" in out
    assert path.read_text() == today
    assert main(["regress", "--golden", str(corpus)]) == 0
    assert "older form" not in capsys.readouterr().out


def test_update_builds_missing_corpora_of_registered_schemas(corpus) -> None:
    (corpus / "sudoku-4x4.jsonl").unlink()
    before = regress(corpus)
    assert "sudoku-4x4" in before.missing and before.ok
    after = regress(corpus, schema="sudoku-4x4", update=True)
    assert after.built == ["sudoku-4x4"]
    assert (corpus / "sudoku-4x4.jsonl").read_text() == (GOLDEN / "sudoku-4x4.jsonl").read_text()


def test_a_hand_edited_entry_is_refused(corpus, capsys) -> None:
    path = corpus / "latin-5x5.jsonl"
    lines = path.read_text().splitlines()
    obj = json.loads(lines[0])
    obj["report"]["solutionCount"] = 7
    lines[0] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")
    assert main(["regress", "--golden", str(corpus)]) == 2
    assert "latin-5x5.jsonl:1: reportDigest does not match" in capsys.readouterr().err


def test_other_verifier_at_the_cap_compares_verdict_and_count_only() -> None:
    old = {"uniquenessVerdict": "MULTIPLE", "solutionCount": 3, "solutionCountIsLowerBound": True}
    new = dict(old, solutions=[{"r1c1": 1}], cartesianSize=5)
    assert diff_reports(old, new, same_verifier=False) == []
    assert diff_reports(old, new, same_verifier=True) != []


def test_build_is_seeded() -> None:
    a = [e.instance.digest for e in build_entries("latin", {"size": 4}, seed=0)]
    b = [e.instance.digest for e in build_entries("latin", {"size": 4}, seed=0)]
    assert a == b


@pytest.mark.parametrize(
    ("family", "params", "expected"),
    [
        ("sudoku", {"size": 9}, "sudoku-9x9"),
        ("sudoku", {"size": 6, "box": [2, 3]}, "sudoku-6x6"),
        ("sudoku", {"size": 6, "box": [3, 2]}, "sudoku-6x6-box3x2"),
        ("latin", {"size": 5}, "latin-5x5"),
    ],
)
def test_schema_id_names_family_and_params(family, params, expected) -> None:
    assert schema_id(family, params) == expected
