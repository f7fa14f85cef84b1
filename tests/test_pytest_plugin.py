"""The pytest plugin: a directory of corpora gives one test per golden case in any repository."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

# In-process pytester runs drop the modules they import afterwards, and numpy cannot be loaded
# twice in one process: import what the plugin's tests use here, once.
import puzzlekit.quality.golden.corpus
import puzzlekit.verifiers.registry

puzzlekit.verifiers.registry.verifier_names()

pytest_plugins = ["pytester"]

GOLDEN = Path(__file__).parent / "golden"

TEST_FILE = """
def test_golden(golden_case):
    golden_case.check()
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    golden = pytester.mkdir("golden")
    shutil.copy(GOLDEN / "sudoku-4x4.jsonl", golden / "sudoku-4x4.jsonl")
    pytester.makepyfile(test_corpus=TEST_FILE)
    return pytester


def test_one_test_per_golden_case(project: pytest.Pytester) -> None:
    result = project.runpytest("--puzzlekit-golden", "golden", "-v")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(
        ["*test_golden?sudoku-4x4:unique? PASSED*", "*test_golden?sudoku-4x4:invalid-duplicate?*"]
    )


def test_ini_option_names_the_directory(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\npuzzlekit_golden = golden\n")
    project.runpytest().assert_outcomes(passed=7)


def test_without_a_directory_the_test_is_skipped(project: pytest.Pytester) -> None:
    result = project.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*no golden directory*--puzzlekit-golden*"])


def test_a_changed_report_fails_with_the_diff(project: pytest.Pytester) -> None:
    from puzzlekit.quality.golden.corpus import (
        GoldenEntry,
        content_digest,
        load_corpus,
        write_corpus,
    )

    path = project.path / "golden" / "sudoku-4x4.jsonl"
    entries = []
    for e in load_corpus(path):
        if e.case == "unique":
            report = json.loads(json.dumps(e.report))
            report["uniquenessVerdict"] = "MULTIPLE"
            e = GoldenEntry(
                e.case, e.note, e.instance, e.verifier, e.cap, report, content_digest(report)
            )
        entries.append(e)
    write_corpus(path, entries)
    result = project.runpytest("--puzzlekit-golden", "golden")
    result.assert_outcomes(passed=6, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*golden case sudoku-4x4:unique*changed under enumerative*",
            "*verdict: MULTIPLE -> UNIQUE*",
        ]
    )


def test_verifier_option_reverifies_with_another_backend(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_which="""
def test_backend(golden_case):
    assert golden_case.verify().source["verifier"] == "sat"
    golden_case.check()
"""
    )
    result = project.runpytest("--puzzlekit-golden", "golden", "--puzzlekit-verifier", "sat")
    result.assert_outcomes(passed=14)


def test_a_missing_directory_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--puzzlekit-golden", "nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--puzzlekit-golden: no golden directory nowhere*"])


def test_a_corrupt_corpus_is_a_collection_error_naming_the_line(project: pytest.Pytester) -> None:
    (project.path / "golden" / "broken.jsonl").write_text("{not json\n")
    result = project.runpytest("--puzzlekit-golden", "golden")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*broken.jsonl:1: not JSON*"])
