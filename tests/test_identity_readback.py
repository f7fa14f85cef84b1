"""One puzzle, one digest on every path: for every built-in family and listed schema, generated
records read back through their text line, their JSON with the clues shuffled and their Parquet
row give the record's digest (``benchmarks.identity_readback`` measures 200 per
schema); ``check_family`` fails a family whose paths name clues otherwise (``identity``,
``identity-generated``); ``load_run`` reads a run written before the canonical order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmarks.identity_readback import FORMS, builtin_schemas, readback
from puzzlekit.core.model import Clue, Instance
from puzzlekit.families import FAMILIES, register_family
from puzzlekit.families.latin import Latin
from puzzlekit.quality.checks import ContractError, check_family
from puzzlekit.quality.golden.entries import written_digest

SCHEMAS = builtin_schemas()


class ReadingOrderIds(Latin):
    """parse_text names its givens by the order it reads them (g0, g1, ...), not by cell."""

    info = Latin.info.replace(name="broken-reading-order-ids")

    def parse_text(self, text, params=None):
        inst = super().parse_text(text, params)
        ordered = sorted(inst.clues, key=lambda c: c.coords)
        clues = [Clue.make(f"g{i}", c.kind, c.data_dict(), c.coords) for i, c in enumerate(ordered)]
        return Instance.make(inst.family, inst.params_dict(), clues)


class RenamedRepairs(Latin):
    """repair_moves name the givens they add otherwise than parse_text reads them back."""

    info = Latin.info.replace(name="broken-renamed-repairs")

    def repair_moves(self, schema, instance, solution, coord, *, found=()):
        moves = super().repair_moves(schema, instance, solution, coord, found=found)
        return [
            type(m)(
                m.action,
                m.coord,
                add=tuple(
                    Clue.make("added-" + c.id, c.kind, c.data_dict(), c.coords) for c in m.add
                ),
            )
            for m in moves
        ]


@pytest.fixture
def registered() -> Iterator[Any]:
    names: list[str] = []

    def add(fam: Any) -> Any:
        register_family(fam, replace=True)
        names.append(fam.info.name)
        return fam

    yield add
    for name in names:
        FAMILIES.unregister(name)


@pytest.mark.parametrize(
    ("family", "params"), SCHEMAS, ids=[f"{f}-{json.dumps(p)}" for f, p in SCHEMAS]
)
def test_generated_records_read_back_to_their_digest_on_every_path(family, params) -> None:
    line = readback(family, params, count=2, seed=0)  # the study's first two loops
    assert line["records"] >= 1, line
    assert {form: line[form] for form in FORMS} == dict.fromkeys(FORMS, 0), line


def test_the_readback_counts_a_family_that_names_clues_by_reading_order(registered) -> None:
    fam = registered(ReadingOrderIds())
    line = readback(fam.info.name, {"size": 4}, count=2, seed=3, max_calls=60)
    assert line["records"] == 2 and line["text"] == 2 and line["parquet"] == 2, line
    assert line["json"] == 0  # the JSON keeps the ids: clues shuffled, one digest


@pytest.mark.parametrize(
    ("cls", "code"),
    [(ReadingOrderIds, "identity"), (RenamedRepairs, "identity-generated")],
    ids=["sampled", "generated"],
)
def test_check_family_fails_a_family_whose_text_reads_back_to_another_digest(
    registered, cls, code
) -> None:
    fam = registered(cls())
    with pytest.raises(ContractError) as err:
        check_family(fam, {"size": 4}, cross_process=False)
    assert code in err.value.codes, str(err.value)
    assert "its text line reads back to sha256:" in str(err.value)
    assert "Give every clue an id that names what it says" in str(err.value)


# --- a run written before the canonical order ---------------------------------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    from puzzlekit.app.experiment import parse_config, run_experiment

    config = parse_config(
        {
            "name": "identity",
            "seed": 5,
            "trials": 2,
            "schemas": [{"family": "nonogram", "params": {"rows": 5, "cols": 5}}],
            "strategies": [{"name": "adaptive", "clues": [8]}],
            "filters": [{"verifier": "sat"}],
            "holdout": {"verifier": "enumerative"},
            "budget": {"max_calls": 40},
            "preregistration": {
                "hypotheses": [
                    {
                        "id": "H1",
                        "claim": "the holdout rejects no puzzle the sat filter accepts",
                        "metric": "holdout_reject_rate",
                        "arms": ["sat"],
                        "direction": "equal",
                        "value": 0,
                    }
                ],
                "metrics": ["holdout_reject_rate"],
            },
        }
    )
    out = tmp_path_factory.mktemp("identity") / "run"
    return run_experiment(config, out, executor="serial", quiet=True, report=False)


def _write_old_order(run: Path, old: Path) -> dict[str, str]:
    """A copy of ``run`` whose puzzles hold their clues reversed, with the digests of that order
    (as runs recorded them before the canonical order); returns old digest -> canonical one."""
    from puzzlekit.app.experiment.store import write_table
    from puzzlekit.loop.row_schema import ATTEMPT_SCHEMA, PUZZLE_SCHEMA

    old.mkdir()
    (old / "manifest.json").write_bytes((run / "manifest.json").read_bytes())
    puzzles = pd.read_parquet(run / "puzzles.parquet")
    attempts = pd.read_parquet(run / "attempts.parquet")
    renamed = {}
    texts, digests = list(puzzles["instance"]), list(puzzles["instanceDigest"])
    for i, text in enumerate(texts):
        if isinstance(text, str):
            obj = json.loads(text)
            obj["clues"].reverse()
            texts[i], digests[i] = json.dumps(obj), written_digest(obj)
            renamed[digests[i]] = puzzles["instanceDigest"].iloc[i]
    back = {new: was for was, new in renamed.items()}
    puzzles["instance"], puzzles["instanceDigest"] = texts, digests
    attempts["instanceDigest"] = attempts["instanceDigest"].map(lambda d: back.get(d, d))
    write_table(puzzles, PUZZLE_SCHEMA, old / "puzzles.parquet")
    write_table(attempts, ATTEMPT_SCHEMA, old / "attempts.parquet")
    return renamed


def test_load_run_reads_a_run_recorded_in_the_old_clue_order(run_dir, tmp_path) -> None:
    from puzzlekit.app.plots import load_run

    renamed = _write_old_order(run_dir, tmp_path / "old")
    assert renamed and all(was != now for was, now in renamed.items())
    attempts, puzzles, _ = load_run(tmp_path / "old")
    today_attempts, today, _ = load_run(run_dir)
    assert list(puzzles["instance"]) == list(today["instance"])
    assert list(puzzles["instanceDigest"]) == list(today["instanceDigest"])
    for text, digest in zip(puzzles["instance"], puzzles["instanceDigest"], strict=True):
        assert Instance.from_json(text).digest == digest
    # the attempts that verified an accepted instance name it by its canonical digest again
    assert list(attempts["instanceDigest"]) == list(today_attempts["instanceDigest"])
    assert set(renamed.values()) <= set(attempts["instanceDigest"])
