"""One puzzle, one digest: generated puzzles read back through every form they are kept in.

For every listed schema (``puzzlekit schemas``) of every built-in family, ``count`` loops of the
``generate`` loop (the family's default filter, no holdout, the adaptive strategy, seeds
``loop_seed(seed, i)``), and for each accepted puzzle its ``generate`` record, its
``puzzles.parquet`` row (built by :func:`puzzlekit.loop.rows.puzzle_row` and written and read
back with the run directory's writer and row schema) and these read-backs, each compared with
the record's ``instanceDigest``:

- ``text``: the record's one-line ``text`` through the family's ``parse_text``;
- ``json``: the record's ``instance`` with its clues shuffled (seeded), through
  ``Instance.from_json``;
- ``parquet``: the row's ``instanceDigest``, its ``instance`` through ``Instance.from_json``
  and its ``text`` through ``parse_text``.

Run ``python -m benchmarks.identity_readback --count 200 --jobs 2``; it prints one
JSON line per schema (records, mismatches per form) and a last line with the totals. A study, not a
test: ``tests/test_identity_readback.py`` runs a small count and asserts no mismatch.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from puzzlekit.core.model import Instance
from puzzlekit.quality.identity_check import shuffled_json

FORMS = ("text", "json", "parquet")


def builtin_schemas() -> list[tuple[str, dict[str, Any]]]:
    """``(family, params)`` of every listed schema of the built-in families."""
    from puzzlekit.families import families

    return [
        (fam.info.name, dict(params))
        for fam in families()
        if type(fam).__module__.startswith("puzzlekit.families.")
        for params in fam.info.listed_params
    ]


def generated(
    family: str, params: dict[str, Any], count: int, seed: int, max_calls: int = 200
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """``(generate record, puzzle row)`` of each of ``count`` loops, both from one result."""
    from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed
    from puzzlekit.loop.rows import generate_record, puzzle_row, row_keys
    from puzzlekit.verifiers.registry import default_filter_name

    spec = LoopSpec(family, params, filter=default_filter_name(family), max_calls=max_calls)
    driver = LoopDriver(spec)
    k = driver.k if isinstance(getattr(driver, "k", None), int) else 0
    for i in range(count):
        s = loop_seed(seed, i)
        result = driver.run(s)
        keys = row_keys(family, "adaptive", k, spec.filter, i, s)
        row = puzzle_row(result, keys, family=driver.family, holdout=None)
        yield generate_record(result, driver.family), row


def parquet_rows(rows: Sequence[dict[str, Any]], directory: Path) -> pd.DataFrame:
    """``rows`` written as a run directory's ``puzzles.parquet`` and read back."""
    from puzzlekit.app.experiment.store import write_table
    from puzzlekit.loop.row_schema import PUZZLE_SCHEMA, rows_frame

    path = directory / "puzzles.parquet"
    write_table(rows_frame(rows, PUZZLE_SCHEMA), PUZZLE_SCHEMA, path)
    return pd.read_parquet(path)


def _digest_of(read: Any) -> str | None:
    """The digest of what ``read()`` gives; None when reading raises (a mismatch too)."""
    try:
        return read().digest
    except Exception:
        return None


def mismatches(
    fam: Any, params: dict[str, Any], record: dict[str, Any], row: dict[str, Any], rng: Any
) -> dict[str, bool]:
    """Whether each form of one accepted puzzle reads back to another digest than the record's
    ``instanceDigest`` (the module docstring)."""
    want = record["instanceDigest"]
    inst = Instance.from_json_obj(record["instance"])
    out = {"text": False, "json": False, "parquet": False}
    if record.get("text") is not None:
        out["text"] = _digest_of(lambda: fam.parse_text(record["text"], params)) != want
    out["json"] = _digest_of(lambda: Instance.from_json(shuffled_json(inst, rng))) != want
    got = {row["instanceDigest"], _digest_of(lambda: Instance.from_json(row["instance"]))}
    if row.get("text") is not None:
        got.add(_digest_of(lambda: fam.parse_text(row["text"], params)))
    out["parquet"] = got != {want}
    return out


def readback(
    family: str, params: dict[str, Any], count: int, seed: int = 0, max_calls: int = 200
) -> dict[str, Any]:
    """Generate ``count`` loops of one schema and count each form's digest mismatches (the
    module docstring); ``records`` is the number of accepted puzzles read back."""
    from puzzlekit.families import get_family

    fam = get_family(family)
    pairs = list(generated(family, params, count, seed, max_calls))
    with tempfile.TemporaryDirectory(prefix="puzzlekit-identity-") as tmp:
        frame = parquet_rows([row for _, row in pairs], Path(tmp))
    rows = {str(row["seed"]): row for row in frame.to_dict("records")}
    rng = np.random.default_rng([seed, 27])
    bad = dict.fromkeys(FORMS, 0)
    records = [r for r, _ in pairs if r["status"] == "accepted"]
    for rec in records:
        for form, wrong in mismatches(fam, params, rec, rows[str(rec["seed"])], rng).items():
            bad[form] += int(wrong)
    return {"family": family, "params": params, "loops": count, "records": len(records), **bad}


def _readback_one(job: tuple[str, dict[str, Any], int, int, int]) -> dict[str, Any]:
    return readback(*job)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="loops per schema (200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-calls", type=int, default=200, help="filter calls per loop")
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="schemas read back at once")
    args = parser.parse_args(argv)
    jobs = [
        (family, params, args.count, args.seed, args.max_calls)
        for family, params in builtin_schemas()
        if not args.family or family in args.family
    ]
    totals = {"schemas": 0, "loops": 0, "records": 0, **dict.fromkeys(FORMS, 0)}
    start = time.perf_counter()
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        for line in pool.map(_readback_one, jobs):
            print(json.dumps(line), flush=True)
            totals["schemas"] += 1
            for key in ("loops", "records", *FORMS):
                totals[key] += line[key]
    totals["mismatches"] = sum(totals[f] for f in FORMS)
    totals["seconds"] = round(time.perf_counter() - start, 1)
    totals["python"] = platform.python_version()
    print(json.dumps({"total": totals}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
