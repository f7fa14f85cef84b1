"""A report's figures drawn by forked copies of the process are the same bytes as drawn by
the process alone; the shares are balanced and fixed; a copy's failure comes back to the
parent as the error itself."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from puzzlekit.app.cli import UsageError
from puzzlekit.app.plots import draw_figures, load_run, write_report
from puzzlekit.app.plots.pool import WORKERS_ENV, draw_all, drawing_workers, shares

forking = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


def test_shares_give_each_job_once_heaviest_first_to_the_least_loaded():
    weights = [3.0, 1.5, 1, 1, 1, 1, 1, 1, 1]
    two = shares(weights, 2)
    assert two == [[0, 4, 6, 8], [1, 2, 3, 5, 7]]
    assert sorted(i for part in two for i in part) == list(range(len(weights)))
    loads = [sum(weights[i] for i in part) for part in two]
    assert loads == [6.0, 5.5]
    assert shares(weights, 1) == [list(range(len(weights)))]
    assert shares([1.0, 1.0], 3) == [[0], [1], []]


def test_the_number_of_drawing_processes(monkeypatch):
    monkeypatch.delenv(WORKERS_ENV, raising=False)
    linux = sys.platform.startswith("linux")
    assert drawing_workers(9, 4) == (4 if linux else 1)
    assert drawing_workers(2, 8) == (2 if linux else 1)  # never more than the figures
    assert drawing_workers(9, 1) == 1 and drawing_workers(0, 4) == 1
    monkeypatch.setenv(WORKERS_ENV, "1")
    assert drawing_workers(9) == 1
    for bad in ("two", "0", "-1"):
        monkeypatch.setenv(WORKERS_ENV, bad)
        with pytest.raises(UsageError, match=WORKERS_ENV):
            drawing_workers(9)


@forking
def test_forked_drawing_writes_the_same_bytes_as_serial(two_family_run, tmp_path):
    """The whole report (every figure and report.md) by one process and by three."""
    files = {}
    for workers in (1, 3):
        run = tmp_path / f"w{workers}"
        shutil.copytree(two_family_run, run)
        shutil.rmtree(run / "report", ignore_errors=True)  # another test's figures, if any
        write_report(run, workers=workers)
        files[workers] = {p.name: p.read_bytes() for p in sorted((run / "report").iterdir())}
    assert len(files[1]) == 10  # the two-family run has grades: every figure, and report.md
    assert files[1] == files[3]


@forking
def test_the_share_of_a_failing_copy_is_drawn_again_by_the_parent(tmp_path):
    parent = os.getpid()

    def write(name: str, here_only: bool = False):
        def job() -> None:
            if here_only and os.getpid() != parent:
                raise RuntimeError("fails in a forked copy")
            (tmp_path / name).write_text(str(os.getpid()))

        return job

    jobs = [(5.0, write("a")), (1.0, write("b", here_only=True)), (1.0, write("c"))]
    assert draw_all(jobs, 2) == 2  # a in the parent; b and c in the copy, which fails at b
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == dict.fromkeys("abc", str(parent))


@forking
def test_an_error_in_a_figure_is_raised_in_the_parent(tmp_path):
    def broken() -> None:
        raise ValueError("figure 2 cannot be drawn")

    jobs = [(5.0, lambda: (tmp_path / "a").write_text("a")), (1.0, broken)]
    with pytest.raises(ValueError, match="figure 2"):
        draw_all(jobs, 2)
    assert (tmp_path / "a").read_text() == "a"


def test_one_process_draws_in_order(tmp_path):
    order: list[int] = []
    jobs = [(1.0, lambda i=i: order.append(i)) for i in range(5)]
    assert draw_all(jobs, 1) == 1
    assert order == [0, 1, 2, 3, 4]


def test_drawing_files_name_the_format(two_family_run, tmp_path):
    attempts, puzzles, manifest = load_run(two_family_run)
    with pytest.raises(ValueError, match="figure format"):
        draw_figures(attempts, puzzles, Path(tmp_path), fmt="gif", workers=1)


def test_the_command_names_a_bad_worker_count_in_one_line(
    two_family_run, tmp_path, monkeypatch, capsys
):
    from puzzlekit.app.cli import main

    run = tmp_path / "run"
    shutil.copytree(two_family_run, run)
    monkeypatch.setenv(WORKERS_ENV, "many")
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"puzzlekit: error: {WORKERS_ENV}='many': expected a whole number, 1 or more"]


def test_drawing_pauses_the_automatic_collector_and_frees_each_figure_after_it():
    import gc
    import weakref

    class Artist:  # a figure's artists refer to each other: only the collector frees them
        def __init__(self) -> None:
            self.me = self

    seen: list[tuple[bool, bool]] = []
    left: list[weakref.ref] = []

    def job() -> None:
        seen.append((gc.isenabled(), all(ref() is None for ref in left)))
        left.append(weakref.ref(Artist()))  # garbage, in a cycle, once this returns

    was = gc.isenabled()
    gc.enable()
    try:
        assert draw_all([(1.0, job), (1.0, job), (1.0, job)], 1) == 1
        assert gc.isenabled()  # restored
        gc.disable()
        draw_all([(1.0, job)], 1)
        assert not gc.isenabled()  # a collector turned off stays off
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [(False, True)] * 4  # never collecting by itself; the last figure freed
