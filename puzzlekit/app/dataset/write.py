"""Writing dataset rows: JSON Lines, Parquet or a Hugging Face ``DatasetDict``, and the card.

One file (or, for ``datasets``, one saved split) per split, in one output directory, with the
dataset card ``README.md`` beside them. JSON Lines keeps ``params``, ``solution`` and
``provenance`` as objects; Parquet and ``datasets`` hold them as JSON text, so every family has
one column type. :func:`read_canonical_ids` reads the canonical ids of another dataset (an
export, ``generate`` output or a run directory) for ``--check-against``.

Not for building rows (:mod:`puzzlekit.app.dataset.rows`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from puzzlekit.app.dataset.rows import ExportError, read_records
from puzzlekit.core.model import Instance

FORMATS = ("jsonl", "parquet", "datasets")
#: columns held as JSON text in Parquet and ``datasets``
JSON_COLUMNS = ("params", "solution", "provenance")
COLUMNS = {
    "id": "the puzzle's digest (sha256 of its canonical JSON)",
    "canonicalId": "the digest of its symmetry class's representative (splits are cut by it)",
    "family": "the puzzle family",
    "params": "the family's params",
    "prompt": "the puzzle rendered for a model: rules, puzzle, answer format",
    "answer": "the solution written in the answer format the prompt asks for",
    "solution": "the solution, cell name -> value",
    "level": "grade level (graded families; null otherwise)",
    "technique": "the hardest technique the grader needed (null when ungraded)",
    "clueCount": "clues of the puzzle",
    "text": "the puzzle in its family's one-line text format",
    "provenance": "puzzlekit version, filter and holdout verifiers with versions and verdicts, "
    "loop seed, batch or run seed, loop index, strategy, config digest",
    "split": "the split the row is in",
}


def _flat(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (json.dumps(v, sort_keys=True) if k in JSON_COLUMNS else v) for k, v in row.items()}


def _table(rows: Sequence[Mapping[str, Any]]) -> Any:
    import pyarrow as pa

    schema = pa.schema(
        [(name, pa.int64() if name in ("level", "clueCount") else pa.string()) for name in COLUMNS]
    )
    return pa.Table.from_pylist([_flat(r) for r in rows], schema=schema)


def write_splits(rows: Mapping[str, Sequence[Mapping[str, Any]]], out: Path, fmt: str) -> list[str]:
    """Write each split's rows under ``out``; the file (or folder) names written."""
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        for name, part in rows.items():
            with (out / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
                for row in part:
                    fh.write(json.dumps(row, separators=(",", ":")) + "\n")
        return [f"{name}.jsonl" for name in rows]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        for name, part in rows.items():
            pq.write_table(_table(part), out / f"{name}.parquet")
        return [f"{name}.parquet" for name in rows]
    try:
        import datasets
    except ImportError:
        raise ExportError(
            "--format datasets needs the datasets package: pip install 'puzzlekit[datasets]'"
        ) from None
    datasets.disable_progress_bars()
    dd = datasets.DatasetDict({name: datasets.Dataset(_table(part)) for name, part in rows.items()})
    dd.save_to_disk(str(out))
    return [*rows]


def read_canonical_ids(path: Path) -> set[str]:
    """The canonical ids of another dataset: an export directory (JSON Lines, Parquet or a
    saved ``DatasetDict``), one exported file, ``generate`` output or a run directory."""
    if path.is_dir() and (path / "dataset_dict.json").is_file():
        try:
            import datasets
        except ImportError:
            raise ExportError(f"{path}: a saved DatasetDict needs the datasets package") from None
        dd = datasets.load_from_disk(str(path))
        return {cid for split in dd.values() for cid in split["canonicalId"]}
    if path.is_dir() and not (path / "manifest.json").is_file():
        files = sorted([*path.glob("*.jsonl"), *path.glob("*.parquet")])
        if not files:
            raise ExportError(f"{path}: no exported dataset here (no .jsonl or .parquet files)")
        return {cid for f in files for cid in read_canonical_ids(f)}
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return set(pq.read_table(path, columns=["canonicalId"]).column(0).to_pylist())
    _, records = read_records(path)
    out = set()
    for rec in records:
        if "canonicalId" in rec:
            out.add(rec["canonicalId"])
            continue
        raw = rec["instance"]
        inst = Instance.from_json(raw) if isinstance(raw, str) else Instance.from_json_obj(raw)
        out.add(inst.canonical_digest())
    return out


def card(summary: Mapping[str, Any], rows: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The dataset card (``README.md``): what was generated, how, the guarantees, the split rule,
    the columns; a YAML header naming the splits' files for the Hugging Face hub."""
    fmt = summary["format"]
    head = ["---", "configs:", "- config_name: default", "  data_files:"]
    if fmt != "datasets":
        for name in rows:
            head += [f"  - split: {name}", f"    path: {name}.{fmt}"]
    head += ["---", ""]
    all_rows = [r for part in rows.values() for r in part]
    fams = Counter((r["family"], json.dumps(r["params"], sort_keys=True)) for r in all_rows)
    holdout = sum(1 for r in all_rows if r["provenance"].get("holdoutVerdict") == "UNIQUE")
    graded = sum(1 for r in all_rows if r["level"] is not None)
    lines = [
        "# puzzlekit puzzles",
        "",
        f"{len(all_rows)} puzzles, one row each, exported by `{summary['command']}` "
        f"(puzzlekit {summary['version']}) from: "
        + ", ".join(f"`{s}`" for s in summary["sources"])
        + ".",
        "",
        "| family | params | puzzles |",
        "|---|---|---|",
        *(f"| {f} | `{p}` | {n} |" for (f, p), n in sorted(fams.items())),
        "",
        "## Guarantees",
        "",
        "Every puzzle was accepted by the closed loop: its filter verifier proved it UNIQUE; "
        f"{holdout} of {len(all_rows)} were also proved UNIQUE by an independent holdout "
        "verifier (the `provenance` column names both); "
        f"{summary['holdoutRejected']} that the holdout did not prove UNIQUE were left out. "
        f"{graded} carry a grade (`level`, `technique`). An answer is judged against the rules "
        "(`pk.check_answer`), so the `answer` column is one right answer, not the only form.",
        "",
        "## Splits",
        "",
        f"Split rule `{summary['split']}` (seed {summary['seed']}): each symmetry class "
        "(`canonicalId`, `Instance.canonical_digest()`) goes to exactly one split, so no "
        "puzzle has a relabelled or permuted copy in another split. "
        f"{summary['duplicates']} rows of a class already seen were dropped.",
        "",
        "| split | rows |",
        "|---|---|",
        *(f"| {name} | {len(part)} |" for name, part in rows.items()),
        "",
    ]
    for other, count in summary.get("overlap", {}).items():
        lines += [f"Overlap with `{other}`: {count} of {len(all_rows)} classes.", ""]
    lines += ["## Columns", "", "| column | meaning |", "|---|---|"]
    lines += [f"| `{k}` | {v} |" for k, v in COLUMNS.items()]
    return "\n".join(head + lines) + "\n"
