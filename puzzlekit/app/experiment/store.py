"""The files of a run directory: each task's rows as Parquet parts, written atomically, merged
into ``attempts.parquet`` and ``puzzles.parquet`` at the end; JSON written atomically. Every file
is written through :func:`puzzlekit.core.files.atomic_write` (an exclusive temporary file, then a
rename), so a run killed at any point leaves whole files only.

``attempts.parquet`` and ``puzzles.parquet`` are written with the row schema of
:mod:`puzzlekit.loop.row_schema` (column types and a description per field, nested fields
included), so a run directory documents itself. The parts, kept for resuming, hold the same rows
with their nested columns as JSON text (a small flat file per task).

Not for: building rows (:mod:`puzzlekit.loop.rows`) or deciding what runs
(:mod:`puzzlekit.app.experiment.runner`).
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from puzzlekit.core.files import atomic_write

#: zstd keeps the gap lists and instances of a run at about the size snappy gave the rows before
#: they kept them (docs/data.md, "Size"); snappy where this pyarrow lacks zstd
CODEC = "zstd" if pa.Codec.is_available("zstd") else "snappy"


def write_table(df: pd.DataFrame, schema: Any, path: Path, *, part: bool = False) -> None:
    """Write ``df`` as Parquet of ``schema`` atomically (:func:`puzzlekit.core.files.
    atomic_write`); a part file keeps its nested columns as JSON text
    (:func:`puzzlekit.loop.row_schema.part_schema`)."""
    import pyarrow.parquet as pq

    from puzzlekit.loop.row_schema import frame_table, part_table

    with atomic_write(path) as fh:
        if part:  # statistics only help readers filter big files; a part is read whole
            pq.write_table(part_table(df, schema), fh, compression=CODEC, write_statistics=False)
        else:
            pq.write_table(frame_table(df, schema), fh, compression=CODEC)
        kill_point(f"written:{path.name}")


def write_json(obj: Any, path: Path) -> None:
    """``obj`` as indented JSON in ``path``, written atomically."""
    with atomic_write(path) as fh:
        fh.write((json.dumps(obj, indent=2, sort_keys=True) + "\n").encode("utf-8"))
        kill_point(f"written:{path.name}")


#: a test-only hook: ``PUZZLEKIT_TEST_KILL_AT=<point>`` makes a run SIGKILL itself at that point
#: (see :func:`kill_point`), so tests can check that every kill point resumes
KILL_ENV = "PUZZLEKIT_TEST_KILL_AT"


def kill_point(name: str) -> None:
    """Die here, as a SIGKILL would, when the environment names this point (tests only)."""
    if os.environ.get(KILL_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def read_table(path: Path) -> pd.DataFrame:
    """The Parquet file at ``path`` as a frame; :class:`puzzlekit.core.files.DamagedFile`
    naming it when it is not readable Parquet (truncated, overwritten, a directory)."""
    import pyarrow as pa

    from puzzlekit.core.files import DamagedFile

    try:
        return pd.read_parquet(path)
    except FileNotFoundError:  # pyarrow's names no file
        raise DamagedFile(path, "missing (the run directory is incomplete)") from None
    except (pa.ArrowException, OSError) as exc:  # pyarrow's OSError names no file either
        if isinstance(exc, IsADirectoryError):
            raise DamagedFile(path, "a directory, not a Parquet file") from None
        # pyarrow's first sentence, less the path it repeats: "... magic bytes not found ..."
        reason = str(exc).splitlines()[0].split(". ")[0].rsplit("': ", 1)[-1]
        raise DamagedFile(path, f"not readable as Parquet: {reason}") from None


def _part(path: Path, schema: Any) -> pd.DataFrame:
    """One task's part as a frame of ``schema``; :class:`DamagedFile` when it reads as Parquet
    but not as a part of this row schema (a column gone or of another type)."""
    from puzzlekit.core.files import DamagedFile
    from puzzlekit.loop.row_schema import part_frame

    try:
        frame = part_frame(read_table(path), schema)
        if list(frame.columns) != schema.names:
            raise ValueError(f"columns {sorted(set(frame.columns) ^ set(schema.names))} differ")
        return frame
    except (KeyError, TypeError, ValueError) as exc:
        raise DamagedFile(
            path, f"not a part of this run's rows ({type(exc).__name__}: {exc})"
        ) from None


def part_paths(run: Path, task_id: str) -> tuple[Path, Path]:
    parts = run / "parts"
    return parts / f"{task_id}.attempts.parquet", parts / f"{task_id}.puzzles.parquet"


def task_done(run: Path, task_id: str) -> bool:
    """A task is done when its puzzles part exists (written after its attempts part)."""
    return part_paths(run, task_id)[1].exists()


def save_task(run: Path, result: Any) -> None:
    """Write one task's rows atomically: attempts first, puzzles (the done marker) last."""
    from puzzlekit.loop.row_schema import ATTEMPT_SCHEMA, PUZZLE_SCHEMA, rows_frame

    a_path, p_path = part_paths(run, result.task_id)
    write_table(rows_frame(result.attempts, ATTEMPT_SCHEMA), ATTEMPT_SCHEMA, a_path, part=True)
    write_table(rows_frame(result.puzzles, PUZZLE_SCHEMA), PUZZLE_SCHEMA, p_path, part=True)


def merge_parts(run: Path, task_ids: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every task's parts merged and sorted, written as ``attempts.parquet`` and
    ``puzzles.parquet``; returns ``(attempts, puzzles)``."""
    from puzzlekit.loop.row_schema import (
        ATTEMPT_SCHEMA,
        PUZZLE_SCHEMA,
        rows_frame,
        sort_frame,
    )

    out = []
    for index, schema, name in ((0, ATTEMPT_SCHEMA, "attempts"), (1, PUZZLE_SCHEMA, "puzzles")):
        frames = [_part(part_paths(run, t)[index], schema) for t in task_ids]
        frames = [df for df in frames if not df.empty]
        if frames:
            df = sort_frame(pd.concat(frames, ignore_index=True), schema)
        else:
            df = rows_frame([], schema)
        write_table(df, schema, run / f"{name}.parquet")
        out.append(df)
    return out[0], out[1]
