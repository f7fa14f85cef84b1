"""A run directory that is damaged, a disk that fills, an ``--out`` that cannot be a directory and
two runs of one directory: each gets one line naming the file and exit 2, never a traceback, and
nothing already written is lost (a run stopped by a full disk resumes to the rows an
uninterrupted run writes)."""

from __future__ import annotations

import errno
import os
import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.cli import main
from puzzlekit.core.files import file_lock

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "experiments" / "smoke.toml"


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    """Smoke with fewer trials (several tasks, a few seconds serially), as a config file."""
    raw = SMOKE.read_text()
    assert "trials = 6" in raw and "batch = 3" in raw
    path = tmp_path_factory.mktemp("cfg") / "tiny.toml"
    path.write_text(raw.replace("trials = 6", "trials = 4").replace("batch = 3", "batch = 2"))
    assert tomllib.loads(path.read_text())["trials"] == 4
    return path


def run(config: Path, out: Path, *extra: str) -> int:
    return main(["run", str(config), "--out", str(out), "--executor", "serial", "--quiet", *extra])


@pytest.fixture(scope="module")
def finished(config_path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "whole"
    with pytest.MonkeyPatch.context() as mp:
        no_report(mp)
        assert run(config_path, out) == 0
    return out


def no_report(mp: pytest.MonkeyPatch) -> None:
    """Runs here skip drawing the report (seconds each; no test here reads its figures)."""
    import puzzlekit.app.plots

    mp.setattr(puzzlekit.app.plots, "write_report", lambda run, *a, **k: Path(run) / "report")


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


def copy_run(finished: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(finished, tmp_path / "copy"))


def test_an_out_where_a_file_stands_is_one_line_naming_it(config_path, tmp_path, capsys):
    (tmp_path / "afile").write_text("kept\n")
    assert run(config_path, tmp_path / "afile" / "run") == 2
    line = one_error_line(capsys)
    assert line.startswith("puzzlekit: error: ") and "afile" in line
    assert (tmp_path / "afile").read_text() == "kept\n"


@pytest.mark.parametrize(
    "damage,name,words",
    [
        (lambda d: (d / "manifest.json").write_text("{not json"), "manifest.json", "JSON"),
        (lambda d: (d / "manifest.json").write_text("[1, 2]"), "manifest.json", "manifest"),
        (
            lambda d: (d / "attempts.parquet").write_bytes(b"PAR1 cut"),
            "attempts.parquet",
            "Parquet",
        ),
        (lambda d: _truncate(d / "puzzles.parquet"), "puzzles.parquet", "Parquet"),
    ],
)
def test_report_on_a_damaged_run_directory_names_the_file(
    finished, tmp_path, capsys, damage, name, words
):
    broken = copy_run(finished, tmp_path)
    damage(broken)
    assert main(["report", str(broken)]) == 2
    line = one_error_line(capsys)
    assert f"{broken / name}:" in line and words in line


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_a_report_folder_that_is_a_file_is_one_line(finished, tmp_path, capsys):
    broken = copy_run(finished, tmp_path)
    shutil.rmtree(broken / "report", ignore_errors=True)
    (broken / "report").write_text("kept\n")
    assert main(["report", str(broken)]) == 2
    line = one_error_line(capsys)
    assert line.startswith("puzzlekit: error: ") and f"{broken / 'report'}" in line
    assert (broken / "report").read_text() == "kept\n"


def test_resume_of_a_damaged_manifest_or_part_names_it(config_path, finished, tmp_path, capsys):
    broken = copy_run(finished, tmp_path)
    (broken / "manifest.json").write_text("{not json")
    assert run(config_path, broken, "--resume") == 2
    assert "manifest.json: not readable JSON" in one_error_line(capsys)

    broken2 = Path(shutil.copytree(finished, tmp_path / "copy2"))
    part = sorted((broken2 / "parts").glob("*.attempts.parquet"))[0]
    _truncate(part)
    assert run(config_path, broken2, "--resume") == 2
    assert f"{part}: not readable as Parquet" in one_error_line(capsys)


def test_a_full_disk_stops_the_run_in_one_line_and_it_resumes_to_the_same_rows(
    config_path, finished, tmp_path, capsys, monkeypatch
):
    from puzzlekit.app.experiment import store

    real = store.write_table
    calls = {"n": 0}

    def full_disk(df, schema, path, *, part=False):
        calls["n"] += 1
        if calls["n"] == 3:  # the second task's first part
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(df, schema, path, part=part)

    out = tmp_path / "full"
    no_report(monkeypatch)
    monkeypatch.setattr(store, "write_table", full_disk)
    assert run(config_path, out) == 2
    line = one_error_line(capsys)
    assert "No space left on device" in line and "parts" in line
    assert len(list((out / "parts").glob("*.puzzles.parquet"))) == 1  # the first task is kept
    monkeypatch.setattr(store, "write_table", real)  # space is back
    assert run(config_path, out, "--resume") == 0
    for name in ("puzzles.parquet", "attempts.parquet"):
        got = pd.read_parquet(out / name).drop(columns=["seconds"], errors="ignore")
        want = pd.read_parquet(finished / name).drop(columns=["seconds"], errors="ignore")
        timings = [c for c in got.columns if c.endswith("Seconds")]
        pd.testing.assert_frame_equal(got.drop(columns=timings), want.drop(columns=timings))


def test_a_second_run_of_a_directory_being_written_is_refused(
    config_path, finished, tmp_path, capsys, monkeypatch
):
    no_report(monkeypatch)
    busy = copy_run(finished, tmp_path)
    with file_lock(busy, "puzzlekit run"):  # as a running puzzlekit run holds it
        before = {p.name: p.stat().st_mtime_ns for p in busy.iterdir() if p.is_file()}
        assert run(config_path, busy, "--resume") == 2
        after = {p.name: p.stat().st_mtime_ns for p in busy.iterdir() if p.is_file()}
    line = one_error_line(capsys)
    assert f"another puzzlekit run is writing it (pid {os.getpid()})" in line
    assert after == before  # nothing written: no second resume entry, no manifest rewrite
    assert run(config_path, busy, "--resume") == 0  # the lock ended with its holder


def test_a_ledger_that_is_not_sqlite_is_named_by_check_resume_and_export(
    config_path, finished, tmp_path, capsys
):
    broken = copy_run(finished, tmp_path)
    (broken / "ledger.db").write_bytes(b"SQLite format 3\x00" + b"\x07" * 600)
    assert main(["report", "--check", str(broken)]) == 1
    assert f"{broken / 'ledger.db'}: cannot open" in capsys.readouterr().err
    assert run(config_path, broken, "--resume") == 2
    assert "ledger.db as a SQLite database" in one_error_line(capsys)


def test_a_part_gone_or_unreadable_is_named_on_resume_and_export(
    config_path, finished, tmp_path, capsys
):
    broken = copy_run(finished, tmp_path)
    part = sorted((broken / "parts").glob("*.attempts.parquet"))[0]
    part.unlink()  # its task still counts as done: its puzzles part is there
    assert run(config_path, broken, "--resume") == 2
    assert f"{part}: missing" in one_error_line(capsys)

    broken2 = Path(shutil.copytree(finished, tmp_path / "copy2"))
    (broken2 / "puzzles.parquet").write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    out = tmp_path / "dataset"
    assert main(["export", str(broken2), "--out", str(out)]) == 2
    assert "puzzles.parquet: not readable as Parquet" in one_error_line(capsys)


@pytest.mark.parametrize("kind", ["config", "rundir", "policy", "checkpoint"])
def test_fuzzed_files_get_an_answer(kind, monkeypatch):
    """A few cases of each file kind of the fuzz run (the long run: docs/reliability.md); no
    report drawn (seconds each, and the report's own tests draw it)."""
    import random

    from benchmarks import fuzz_files
    from benchmarks.fuzz import judge, reuse_parser, run_case
    from benchmarks.fuzz_cases import Seeds, make_case

    monkeypatch.setattr(fuzz_files, "REPORT_SHARE", 0.0)
    reuse_parser()
    rng = random.Random(f"files-{kind}")
    for _ in range(10):
        case = make_case(rng, Seeds([], [], [], []), kind)
        outcome = run_case(case, timeout=120)
        why = judge(case, outcome)
        assert why is None, f"{why}\n{case.argv}\n{outcome.error or outcome.stderr}"


def test_a_manifest_nested_thousands_deep_is_named_by_export_check_and_resume(
    config_path, finished, tmp_path, capsys
):
    """The JSON decoder recursed past Python's stack on it (found by the fuzz run)."""
    broken = copy_run(finished, tmp_path)
    (broken / "manifest.json").write_text("[" * 5000 + "]" * 5000)
    assert main(["export", str(broken), "--out", str(tmp_path / "dataset")]) == 2
    assert "manifest.json: not readable JSON ($: nested deeper than" in one_error_line(capsys)
    assert run(config_path, broken, "--resume") == 2
    assert "manifest.json: not readable JSON ($: nested deeper than" in one_error_line(capsys)
    assert main(["report", "--check", str(broken)]) in (1, 2)
    assert "Traceback" not in capsys.readouterr().err


def test_a_manifest_whose_config_was_edited_is_named_by_report_and_resume(
    config_path, finished, tmp_path, capsys
):
    import json

    broken = copy_run(finished, tmp_path)
    manifest = json.loads((broken / "manifest.json").read_text())
    manifest["config"]["schemas"][0] = "sudoku4"  # what a report reads, changed
    (broken / "manifest.json").write_text(json.dumps(manifest))
    assert main(["report", str(broken)]) == 2
    assert "manifest.json: its config does not hash to its configDigest" in one_error_line(capsys)
    assert run(config_path, broken, "--resume") == 2
    assert "manifest.json: its config does not hash" in one_error_line(capsys)


def test_a_part_whose_column_was_renamed_is_named_on_resume(
    config_path, finished, tmp_path, capsys
):
    import pyarrow.parquet as pq

    broken = copy_run(finished, tmp_path)
    part = sorted((broken / "parts").glob("*.attempts.parquet"))[0]
    table = pq.read_table(part)
    pq.write_table(
        table.rename_columns(["~" + table.column_names[0], *table.column_names[1:]]), part
    )
    assert run(config_path, broken, "--resume") == 2
    assert f"{part}: not a part of this run's rows" in one_error_line(capsys)


def test_no_report_writes_the_run_without_drawing(config_path, tmp_path, capsys):
    out = tmp_path / "bare"
    assert run(config_path, out, "--no-report") == 0
    assert capsys.readouterr().out.strip() == f"run: {out}"
    assert (out / "puzzles.parquet").is_file() and (out / "manifest.json").is_file()
    assert not (out / "report").exists()
    assert main(["report", "--check", str(out)]) == 0
