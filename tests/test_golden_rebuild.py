"""``puzzlekit regress --update --schema S`` builds a registered schema's corpus from nothing, for
every family: statement clues (logicgrid), oracle families (toolcall, recorded by ``oracle``),
generated layouts (starbattle) and games (their own ``golden_instances``; games recorded by
``gametree``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.quality.golden.corpus import CASES, load_corpus, recorder_of, registered_ids, regress

GOLDEN = Path(__file__).parent / "golden"
VERDICTS = {
    "unique": "UNIQUE",
    "multiple": "MULTIPLE",
    "multiple-capped": "MULTIPLE",
    "unsolvable": "UNSOLVABLE",
    "invalid-outside": "INVALID_SPEC",
    "invalid-value": "INVALID_SPEC",
    "invalid-duplicate": "INVALID_SPEC",
}
REBUILT = ["logicgrid-4x3", "toolcall-shipping-rate-mid", "toolcall-shipping-rate-high"]


@pytest.mark.parametrize("sid", [*REBUILT, "starbattle-5x5-1star", "owm-tictactoe"])
def test_regress_update_builds_a_corpus_with_every_case_from_nothing(
    sid: str, tmp_path: Path
) -> None:
    result = regress(tmp_path, schema=sid, update=True)
    assert result.built == [sid]
    entries = load_corpus(tmp_path / f"{sid}.jsonl")
    assert [e.case for e in entries] == list(CASES)
    assert {e.case: e.verdict for e in entries} == VERDICTS
    fam, _ = registered_ids()[sid]
    assert {e.verifier for e in entries} == {recorder_of(fam)}
    by_case = {e.case: e for e in entries}
    assert by_case["multiple-capped"].report["solutionCountIsLowerBound"] is True
    assert by_case["unsolvable"].report["rejectDetail"]["conflict"]["minimal"] is True
    assert regress(tmp_path, schema=sid).ok  # the new corpus re-verifies as recorded
    again = tmp_path / "again"
    regress(again, schema=sid, update=True)
    assert (again / f"{sid}.jsonl").read_bytes() == (tmp_path / f"{sid}.jsonl").read_bytes()


def test_recorders_are_the_families_exact_backends() -> None:
    ids = registered_ids()
    assert recorder_of(ids["logicgrid-4x3"][0]) == "enumerative"
    assert recorder_of(ids["toolcall-shipping-rate-mid"][0]) == "oracle"
    assert recorder_of(ids["owm-nim-3x4"][0]) == "gametree"


def test_a_rebuilt_game_corpus_is_the_committed_one(tmp_path: Path) -> None:
    # the games' own cases, recorded by the generic builder, byte for byte
    sid = "owm-connect-4x4x3"
    regress(tmp_path, schema=sid, update=True)
    assert (tmp_path / f"{sid}.jsonl").read_bytes() == (GOLDEN / f"{sid}.jsonl").read_bytes()


def test_the_cli_builds_a_toolcall_corpus(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    sid = "toolcall-shipping-rate-mid"
    code = main(["regress", "--update", "--golden", str(tmp_path), "--schema", sid])
    assert code == 0
    assert f"{sid}: new corpus built" in capsys.readouterr().out
    assert main(["regress", "--golden", str(tmp_path), "--schema", sid]) == 0
