"""A report's figures drawn side by side: the parent and forked copies of it each draw a share.

Each figure is drawn and saved by one call that reads only what the parent already holds (its
rows, its seeded jitter), so a figure's file is the same bytes whichever process draws it and
however many draw (``tests/test_report_pool.py``). Forked copies need no new interpreter, no
import and no pickling of the rows: they start drawing at once, and end with the parent like
every child puzzlekit starts (:mod:`puzzlekit.core.lifeline`). Where a process cannot fork
(not Linux), where one core is usable, or with ``PUZZLEKIT_REPORT_WORKERS=1``, the parent draws
every figure itself. A copy that fails leaves its figures to the parent, which draws them
again, so an error is raised where the report was asked for, with its own traceback.

Not for: what a figure shows (:mod:`~puzzlekit.app.plots.figures`).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from puzzlekit.core.lifeline import (
    ParentToken,
    follow_parent,
    in_lasting_thread,
    parent_token,
    sigint_ignored,
)

#: environment variable: how many processes draw a report's figures (1: the parent alone)
WORKERS_ENV = "PUZZLEKIT_REPORT_WORKERS"

#: one figure to draw: its weight (its share of the drawing, for balancing) and the call that
#: draws and saves it
Job = tuple[float, Callable[[], object]]


def drawing_workers(jobs: int, workers: int | None = None) -> int:
    """How many processes draw ``jobs`` figures: ``workers``, else :data:`WORKERS_ENV`, else
    the cores this process may use; never more than ``jobs``, and 1 where forking is not
    available."""
    if workers is None:
        env = os.environ.get(WORKERS_ENV, "").strip()
        if env:
            if not env.isdigit() or int(env) < 1:
                from puzzlekit.app.cli import UsageError

                raise UsageError(f"{WORKERS_ENV}={env!r}: expected a whole number, 1 or more")
            workers = int(env)
        else:
            workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if not sys.platform.startswith("linux"):
        return 1
    return max(1, min(workers, jobs))


def shares(weights: Sequence[float], n: int) -> list[list[int]]:
    """The job indices each of ``n`` processes draws: heaviest first, each to the least loaded
    (ties to the lower process), each share in job order."""
    loads, out = [0.0] * n, [[] for _ in range(n)]
    for i in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        who = min(range(n), key=lambda p: (loads[p], p))
        loads[who] += weights[i]
        out[who].append(i)
    return [sorted(share) for share in out]


@contextlib.contextmanager
def young_collections() -> Iterator[None]:
    """Inside the block, no automatic garbage collection: :func:`_draw` collects the youngest
    generation after each figure instead. A figure is thousands of artists in reference
    cycles; the automatic collector, triggered by them, went over every object pandas and
    matplotlib hold, again and again (a tenth of a report's CPU). One collection of the
    youngest generation after a figure looks at the objects made since the last one (that
    figure's, all garbage once it is saved) and frees them, so memory stays lower, not
    higher. The collector's state is restored on leaving."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _draw(jobs: Sequence[Job], share: Sequence[int]) -> None:
    for i in share:
        jobs[i][1]()
        gc.collect(0)  # the figure's artists (see young_collections)


def _draw_quietly(jobs: Sequence[Job], share: Sequence[int], token: ParentToken) -> None:
    """A forked copy's work: its share, exit status 1 on any error (the parent redraws); it
    ends with its parent (:func:`~puzzlekit.core.lifeline.follow_parent`)."""
    try:
        follow_parent(token)
        _draw(jobs, share)
    except BaseException:  # noqa: BLE001 - the parent draws these again and raises the error
        sys.stderr.flush()
        os._exit(1)


def _start(jobs: Sequence[Job], parts: Sequence[Sequence[int]]) -> list[Any]:
    """One forked copy per share in ``parts``, started (SIGINT left to the parent)."""
    fork = multiprocessing.get_context("fork")
    token = parent_token()
    copies = [fork.Process(target=_draw_quietly, args=(jobs, part, token)) for part in parts]
    with sigint_ignored():
        for copy in copies:
            copy.start()
    return copies


def draw_all(jobs: Sequence[Job], workers: int | None = None) -> int:
    """Run every job once, in :func:`drawing_workers` processes (this one among them); returns
    how many processes drew."""
    with young_collections():
        return _draw_all(jobs, workers)


def _draw_all(jobs: Sequence[Job], workers: int | None) -> int:
    n = drawing_workers(len(jobs), workers)
    if n <= 1:
        _draw(jobs, range(len(jobs)))
        return 1
    parts = shares([w for w, _ in jobs], n)
    copies = in_lasting_thread(lambda: _start(jobs, parts[1:]))
    try:
        _draw(jobs, parts[0])
    except BaseException:  # Ctrl-C or an error here: the copies' work is not wanted
        for copy in copies:
            copy.terminate()
        raise
    finally:
        for copy in copies:
            copy.join()
    for copy, part in zip(copies, parts[1:], strict=True):
        if copy.exitcode != 0:
            _draw(jobs, part)
    return n
