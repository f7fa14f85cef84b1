"""Datasets: accepted puzzles exported for models (``puzzlekit export``).

:func:`export` reads ``generate`` output or run directories, builds one row per puzzle
(:mod:`~puzzlekit.app.dataset.rows`: digest, canonical digest, family, params, prompt, answer,
solution, grade, clue count, provenance), leaves out every puzzle the holdout did not prove
UNIQUE and every puzzle of a symmetry class already seen, cuts the splits from the canonical
digests (disjoint by class), and writes JSON Lines, Parquet or a Hugging Face ``DatasetDict``
with a dataset card (:mod:`~puzzlekit.app.dataset.write`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from puzzlekit.app.dataset.rows import (
    ExportError,
    Source,
    assign_splits,
    build_rows,
    parse_split,
    read_grades,
    read_records,
)
from puzzlekit.app.dataset.write import FORMATS, card, read_canonical_ids, write_splits

__all__ = ["FORMATS", "ExportError", "export", "parse_split"]


def export(
    inputs: Sequence[Path],
    out: Path,
    *,
    fmt: str = "jsonl",
    split: str = "train=1",
    seed: int = 0,
    style: str = "plain",
    grades: Path | None = None,
    check_against: Sequence[Path] = (),
    command: str = "puzzlekit export",
    jobs: int = 1,
) -> dict[str, Any]:
    """Export the accepted puzzles of ``inputs`` to ``out`` (module docstring); the summary:
    rows per split, duplicates dropped, overlap with each ``check_against`` dataset, files.
    ``jobs`` > 1: the rows are built in that many processes (in input order: the same
    dataset)."""
    from puzzlekit import __version__

    if fmt not in FORMATS:
        raise ExportError(f"--to: {fmt!r} is not one of {', '.join(FORMATS)}")
    cuts = parse_split(split)
    graded = read_grades(grades) if grades is not None else {}
    others = {str(p): read_canonical_ids(p) for p in check_against}
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    duplicates = rejected = 0
    items: list[tuple[dict[str, Any], Source]] = []
    for path in inputs:
        source, records = read_records(path)
        for rec in records:
            if rec.get("holdoutVerdict") not in (None, "UNIQUE"):
                rejected += 1  # the filter accepted it, the independent holdout did not
                continue
            items.append((rec, source))
    for row in build_rows(items, style=style, grades=graded, jobs=jobs):
        if row["canonicalId"] in seen:
            duplicates += 1
            continue
        seen.add(row["canonicalId"])
        rows.append(row)
    where = assign_splits([r["canonicalId"] for r in rows], cuts, seed)
    by_split: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in cuts}
    for row in rows:
        row["split"] = where[row["canonicalId"]]
        by_split[row["split"]].append(row)
    summary: dict[str, Any] = {
        "rows": {name: len(part) for name, part in by_split.items()},
        "duplicates": duplicates,
        "holdoutRejected": rejected,
        "overlap": {name: sum(1 for c in seen if c in ids) for name, ids in others.items()},
        "format": fmt,
        "split": split,
        "seed": seed,
        "command": command,
        "version": __version__,
        "sources": [str(p) for p in inputs],
    }
    summary["files"] = [*write_splits(by_split, out, fmt), "README.md"]
    (out / "README.md").write_text(card(summary, by_split), encoding="utf-8")
    return summary
