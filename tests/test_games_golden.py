"""Golden corpora of the game families: every case gives its recorded report under gametree.

The corpora are built from the families' own seeded cases (``golden_instances``): a position is
one clue, so ``puzzlekit.quality.golden.corpus.build_entries``, which drops clues, does not apply.
Rebuild with ``python -m tests.test_games_golden`` after an intended change, and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from puzzlekit.families import families
from puzzlekit.families.games import OnlyWinningMove
from puzzlekit.quality.golden.corpus import (
    CASES,
    GoldenEntry,
    load_corpus,
    regress,
    schema_id,
    write_corpus,
)
from puzzlekit.verifiers.registry import get_verifier

GOLDEN = Path(__file__).parent / "golden"
RECORDER = "gametree"


def game_schemas() -> list[tuple[OnlyWinningMove, dict]]:
    return [
        (f, dict(p))
        for f in families()
        if isinstance(f, OnlyWinningMove)
        for p in f.info.listed_params
    ]


def build(directory: Path = GOLDEN) -> list[Path]:
    """Write the corpus of every listed game schema; returns the paths."""
    verifier = get_verifier(RECORDER)
    written = []
    for fam, params in game_schemas():
        entries = []
        cases = fam.golden_instances(params)
        for case in CASES:
            note, instance, cap = cases[case]
            rep = verifier.verify(instance, solution_cap=cap)
            entries.append(GoldenEntry.record(case, note, instance, RECORDER, cap, rep))
        path = directory / f"{schema_id(fam, params)}.jsonl"
        write_corpus(path, entries)
        written.append(path)
    return written


IDS = [schema_id(f, p) for f, p in game_schemas()]


@pytest.mark.parametrize("sid", IDS)
def test_game_corpus_holds_every_case_with_its_verdict(sid: str) -> None:
    entries = load_corpus(GOLDEN / f"{sid}.jsonl")
    assert [e.case for e in entries] == list(CASES)
    verdicts = [e.verdict for e in entries]
    assert verdicts[:4] == ["UNIQUE", "MULTIPLE", "MULTIPLE", "UNSOLVABLE"]
    assert set(verdicts[4:]) == {"INVALID_SPEC"}
    assert entries[2].report["solutionCountIsLowerBound"] is True


@pytest.mark.parametrize("sid", IDS)
def test_game_corpus_gives_its_recorded_reports(sid: str) -> None:
    result = regress(GOLDEN, schema=sid)
    assert result.ok, "\n".join(f"{c.schema}:{c.entry.case}: {c.diff}" for c in result.changed)


# plain minimax needs seconds on the Nim corpus's larger positions; the board corpora suffice
@pytest.mark.parametrize("sid", [s for s in IDS if not s.startswith("owm-nim")])
def test_minimax_holdout_agrees_with_the_game_corpus(sid: str) -> None:
    result = regress(GOLDEN, schema=sid, verifier="minimax")
    assert result.ok, "\n".join(f"{c.schema}:{c.entry.case}: {c.diff}" for c in result.changed)


if __name__ == "__main__":
    for path in build(Path(sys.argv[1]) if len(sys.argv) > 1 else GOLDEN):
        print(path)
