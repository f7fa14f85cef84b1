"""Dataset rows: accepted puzzles read from ``generate`` output or a run directory, one row each.

A row holds the puzzle's identity (``id``: its digest; ``canonicalId``: its
:meth:`~puzzlekit.core.model.Instance.canonical_digest`), what a model sees (``prompt``) and
what it should answer (``answer``, ``solution``), the grade where known (``level``,
``technique``: from the record, or joined from ``puzzlekit grade`` output by digest), the clue
count and the provenance (puzzlekit version, filter and holdout with their verdicts, seed,
strategy, the run's config digest). Splits are cut from the canonical ids, never from rows, so
no symmetry class is in two splits.

Not for writing files (:mod:`puzzlekit.app.dataset.write`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlekit.core.files import DamagedFile, read_json
from puzzlekit.core.model import Instance, SpecError


class ExportError(ValueError):
    """An input that cannot be exported; the message is one line for the command line."""


@dataclass
class Source:
    """One input: its path, kind (``generate`` or ``run``) and the run's manifest."""

    path: Path
    kind: str
    manifest: Mapping[str, Any] = field(default_factory=dict)


def read_records(path: Path) -> tuple[Source, Iterator[dict[str, Any]]]:
    """The accepted records of one input: a run directory (its ``puzzles.parquet``) or a JSON
    Lines file of ``generate`` records (other statuses skipped)."""
    if path.is_dir():
        manifest_path = path / "manifest.json"
        if not (path / "puzzles.parquet").is_file() or not manifest_path.is_file():
            raise ExportError(f"{path}: not a run directory (no manifest.json and puzzles.parquet)")
        manifest = read_json(manifest_path)
        return Source(path, "run", manifest), _run_records(path)
    if not path.is_file():
        raise ExportError(f"{path}: no such file or run directory")
    return Source(path, "generate"), _jsonl_records(path)


def _jsonl_records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                raise ExportError(f"{path}:{n}: not a JSON line") from None
            if not isinstance(rec, dict):
                raise ExportError(f"{path}:{n}: not a generate record (a JSON object)")
            if rec.get("status", "accepted") == "accepted" and rec.get("instance"):
                yield rec


def _run_records(path: Path) -> Iterator[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path / "puzzles.parquet")
    except (pa.ArrowException, OSError):  # pyarrow's OSError names no file
        raise DamagedFile(path / "puzzles.parquet", "not readable as Parquet") from None
    for rec in table.to_pylist():
        if rec.get("status") == "accepted" and rec.get("instance"):
            yield rec


def read_grades(path: Path) -> dict[str, dict[str, Any]]:
    """``puzzlekit grade`` output by instance digest: level and technique."""
    out: dict[str, dict[str, Any]] = {}
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                raise ExportError(f"{path}:{n}: not a JSON line") from None
            if isinstance(rec, dict) and rec.get("instanceDigest") and "level" in rec:
                out[rec["instanceDigest"]] = {"level": rec["level"], "technique": rec["technique"]}
    return out


def _instance_of(rec: Mapping[str, Any], where: str) -> Instance:
    raw = rec["instance"]
    fast = _from_text(rec, raw)
    if fast is not None:
        return fast
    try:
        return Instance.from_json(raw) if isinstance(raw, str) else Instance.from_json_obj(raw)
    except SpecError as exc:
        raise ExportError(f"{where}: the instance does not read ({exc})") from None


def _from_text(rec: Mapping[str, Any], raw: Any) -> Instance | None:
    """The instance read from the record's one-line ``text`` (a grid line reads some 20 times
    faster than the instance's JSON), when it has the digest the record gives its instance:
    the same instance, byte for byte. None otherwise (the JSON is read)."""
    from puzzlekit.families import get_family

    text, digest = rec.get("text"), rec.get("instanceDigest")
    if not isinstance(text, str) or not isinstance(digest, str) or not isinstance(raw, Mapping):
        return None
    try:
        inst = get_family(str(raw.get("family"))).parse_text(text, raw.get("params"))
    except (SpecError, KeyError, TypeError, ValueError, NotImplementedError):
        return None
    return inst if inst.digest == digest else None


def _solution_of(rec: Mapping[str, Any], instance: Instance) -> dict[str, int] | None:
    sol = rec.get("solution")
    if isinstance(sol, Mapping):
        return {str(k): int(v) for k, v in sol.items()}
    import puzzlekit as pk

    report = pk.verify(instance, solution_cap=2)
    return dict(report.solutions[0]) if report.solutions else None


def build_row(
    rec: Mapping[str, Any],
    source: Source,
    *,
    style: str,
    grades: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """One dataset row of an accepted record (module docstring)."""
    from puzzlekit import __version__
    from puzzlekit.families import get_family

    instance = _instance_of(rec, str(source.path))
    family = get_family(instance.family)
    solution = _solution_of(rec, instance)
    grade = grades.get(instance.digest, {})
    level = rec.get("level", grade.get("level"))
    technique = rec.get("technique") or grade.get("technique")
    return {
        "id": instance.digest,
        "canonicalId": instance.canonical_digest(),
        "family": instance.family,
        "params": instance.params_dict(),
        "prompt": family.prompt(instance, style=style),
        "answer": None
        if solution is None
        else family.format_answer(instance, solution, style=style),
        "solution": solution,
        "level": None if level is None else int(level),
        "technique": technique,
        "clueCount": _clue_count(instance),
        "text": rec.get("text"),
        "provenance": _provenance(rec, source, __version__),
    }


#: records a process builds at a time when rows are built in several (``jobs``)
CHUNK = 500


def build_rows(
    items: Sequence[tuple[Mapping[str, Any], Source]],
    *,
    style: str,
    grades: Mapping[str, Mapping[str, Any]],
    jobs: int = 1,
) -> list[dict[str, Any]]:
    """:func:`build_row` of every (record, source), in order; with ``jobs`` > 1 and more than
    one :data:`CHUNK` of records, in that many processes (spawned: the rows are the same). Each
    process is handed every grade once: a row's grade is found by the digest of the instance
    it reads, which a record's stored ``instanceDigest`` need not be."""
    if jobs <= 1 or len(items) <= CHUNK:
        return [build_row(rec, src, style=style, grades=grades) for rec, src in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [(list(items[i : i + CHUNK]), style) for i in range(0, len(items), CHUNK)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_keep_grades, initargs=(dict(grades),)
    ) as pool:
        return [row for rows in pool.map(_build_chunk, chunks) for row in rows]


#: the grades of a process that builds rows (:func:`build_rows` with ``jobs`` > 1)
_GRADES: dict[str, Mapping[str, Any]] = {}


def _keep_grades(grades: dict[str, Mapping[str, Any]]) -> None:
    _GRADES.update(grades)


def _build_chunk(chunk: tuple[list, str]) -> list[dict[str, Any]]:
    items, style = chunk
    return [build_row(rec, src, style=style, grades=_GRADES) for rec, src in items]


def _clue_count(instance: Instance) -> int:
    """How many clues: a grid line's givens counted without building the clue objects."""
    givens = getattr(instance.clue_source, "givens", None)
    return len(givens()) if callable(givens) else len(instance.clues)


def _made_by(who: Any) -> tuple[str | None, str | None]:
    """(verifier, version) of a ``generate`` record's ``provenance.filter`` (or holdout)."""
    if isinstance(who, Mapping):
        version = who.get("version")
        return who.get("verifier"), None if version in (None, "") else str(version)
    return None, None


def _run_verifiers(manifest: Mapping[str, Any], label: Any) -> dict[str, tuple]:
    """(verifier, version) of a run's filter arm ``label`` and of its holdout, from the
    manifest's ``verifiers``."""
    ids = manifest.get("verifiers")
    ids = ids if isinstance(ids, Mapping) else {}
    arms = ids.get("filters") if isinstance(ids.get("filters"), list) else []
    arm = next((a for a in arms if isinstance(a, Mapping) and a.get("label") == label), None)
    return {"filter": _made_by(arm), "holdout": _made_by(ids.get("holdout"))}


def _provenance(rec: Mapping[str, Any], source: Source, version: str) -> dict[str, Any]:
    """What made the puzzle: a ``generate`` record's own ``provenance`` (puzzlekit version,
    filter and holdout with their versions, batch seed, loop index), or a run's manifest."""
    manifest = source.manifest
    made = rec.get("provenance") if isinstance(rec.get("provenance"), Mapping) else {}
    if source.kind == "run":
        who = _run_verifiers(manifest, rec.get("filter"))
        versions = manifest.get("versions") if isinstance(manifest.get("versions"), Mapping) else {}
        built_with = versions.get("puzzlekit")
        run_seed, loop = manifest.get("seed"), rec.get("trial")
    else:
        who = {"filter": _made_by(made.get("filter")), "holdout": _made_by(made.get("holdout"))}
        built_with = rec.get("puzzlekitVersion") or made.get("puzzlekit")
        run_seed, loop = made.get("seed"), made.get("loop")
    return {
        "puzzlekitVersion": built_with,
        "exportedWith": version,
        "source": source.kind,
        "filter": who["filter"][0] or rec.get("filterName") or rec.get("filter"),
        "filterVersion": who["filter"][1] or rec.get("filterVersion"),
        "filterVerdict": rec.get("filterVerdict"),
        "holdout": who["holdout"][0] or rec.get("holdoutName") or rec.get("holdout"),
        "holdoutVersion": who["holdout"][1] or rec.get("holdoutVersion"),
        "holdoutVerdict": rec.get("holdoutVerdict"),
        "seed": None if rec.get("seed") is None else str(rec["seed"]),
        "runSeed": None if run_seed is None else str(run_seed),
        "loop": loop,
        "strategy": rec.get("strategy"),
        "configDigest": manifest.get("configDigest"),
    }


# --- splits ------------------------------------------------------------------------------------


def parse_split(text: str) -> list[tuple[str, float]]:
    """``train=0.8,test=0.2`` -> [("train", 0.8), ("test", 0.2)]; fractions > 0 adding to 1."""
    out: list[tuple[str, float]] = []
    for part in text.split(","):
        name, sep, value = part.partition("=")
        name = name.strip()
        try:
            frac = float(value)
        except ValueError:
            frac = -1.0
        if not sep or not name.isidentifier() or not 0 < frac <= 1:
            raise ExportError(f"--split: {part.strip()!r} is not NAME=FRACTION (e.g. train=0.8)")
        if name in dict(out):
            raise ExportError(f"--split: {name!r} named twice")
        out.append((name, frac))
    if abs(sum(f for _, f in out) - 1) > 1e-9:
        raise ExportError(f"--split: the fractions add up to {sum(f for _, f in out):g}, not 1")
    return out


def assign_splits(
    canonical_ids: Sequence[str], split: Sequence[tuple[str, float]], seed: int
) -> dict[str, str]:
    """Canonical id -> split name: the distinct ids in a seeded order (a hash of seed and id),
    cut at the fractions; one class, one split."""
    ids = sorted(set(canonical_ids), key=lambda c: hashlib.sha256(f"{seed}:{c}".encode()).digest())
    out: dict[str, str] = {}
    start, total = 0, 0.0
    for i, (name, frac) in enumerate(split):
        total += frac
        end = len(ids) if i == len(split) - 1 else round(total * len(ids))
        for cid in ids[start:end]:
            out[cid] = name
        start = end
    return out
