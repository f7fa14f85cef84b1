"""A run directory's seal and its check (``puzzlekit report --check RUN_DIR``).

At the end of a run, the digest of every data file it wrote (``attempts.parquet``,
``puzzles.parquet`` and the per-task parts) goes into ``manifest.json`` under ``files``, and
the ledger's ``run-end`` entry records the same digests plus the digest of the manifest itself.
The ledger is hash-chained, so a change to any data file, to the manifest, or to the ledger
shows: :func:`check_run` names each. The report folder is drawn from the data and is not sealed
(``puzzlekit report`` redraws it).

Not for: writing rows (:mod:`puzzlekit.app.experiment.store`) or the manifest's other fields
(:mod:`puzzlekit.app.experiment.manifest`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzlekit.core.seal import file_digest, seal_files, seal_problems


def data_files(run: Path) -> list[str]:
    """The data files of a run directory, relative and ``/``-separated."""
    names = [p.name for p in run.glob("*.parquet")]
    names += [f"parts/{p.name}" for p in (run / "parts").glob("*.parquet")]
    return sorted(names)


def seal_run(run: Path) -> dict[str, str]:
    """The seal of ``run``'s data files (goes into the manifest and the ``run-end`` entry)."""
    return seal_files(run, data_files(run))


def _last_run_end(run: Path) -> tuple[list[str], dict[str, Any] | None]:
    """Problems of the ledger's chain, and its last ``run-end`` body (None if none)."""
    from puzzlekit.audit.ledger import Ledger, LedgerError

    path = run / "ledger.db"
    if not path.exists():
        return [f"{path}: missing"], None
    try:
        with Ledger(path) as ledger:
            verification = ledger.verify()
            entries = ledger.entries()
    except LedgerError as exc:  # not a ledger any more (overwritten, cut)
        return [f"{path}: {exc}"], None
    problems = [] if verification.ok else [f"{path}: {verification.summary()}"]
    ends = [e.body for e in entries if isinstance(e.body, dict) and e.body.get("kind") == "run-end"]
    return problems, (ends[-1] if ends else None)


def check_run(run: str | Path) -> list[str]:
    """Every way ``run`` differs from what its run wrote: one line each; empty when intact."""
    from puzzlekit.core.reading import ReadError, parse_json

    run = Path(run)
    manifest_path = run / "manifest.json"
    try:
        manifest = parse_json(manifest_path.read_bytes())
    except (OSError, ReadError) as exc:
        return [f"{manifest_path}: unreadable: {exc}"]
    problems, end = _last_run_end(run)
    sealed = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(sealed, dict):
        return [*problems, f"{manifest_path}: no file digests (a run from before sealing)"]
    if end is None:
        return [*problems, f"{run / 'ledger.db'}: no run-end entry (the run did not finish)"]
    if end.get("manifestDigest") != file_digest(manifest_path):
        problems.append(f"{manifest_path}: changed since the run ended (the ledger's digest)")
    if end.get("files") != sealed:
        problems.append(f"{manifest_path}: its file digests differ from the ledger's run-end entry")
    problems += seal_problems(run, sealed, data_files(run))
    return problems
