"""A run's report started ahead: a forked copy of the process imports the report's modules
(matplotlib, :mod:`puzzlekit.app.plots`) while the run starts up, then draws the report when the
run's rows are sealed.

``puzzlekit run`` waits for the report before it returns, as before; what changes is when the
report's imports happen: about 0.4 s of CPU that the run's own start-up (opening the manifest
and ledger, merging the rows) leaves a core free for. The copy is forked once the config has
been read (a config error forks nothing), after the run's own imports (pandas among them, so it
is imported once) and before the run takes its lock, starts its pool or reads a row, so it holds
none of them; it is told the run directory over a pipe and writes the same files as
:func:`puzzlekit.app.plots.write_report` in the parent would (it is that function). A copy that
fails, or a process that cannot fork (not Linux), leaves the report to the parent, which draws
it itself, so an error is raised where the report was asked for, with its own traceback.

Not for: drawing (:mod:`puzzlekit.app.plots`); the figures' own processes
(:mod:`puzzlekit.app.plots.pool`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from puzzlekit.core.lifeline import (
    ParentToken,
    follow_parent,
    parent_token,
    sigint_ignored,
)


def _serve(conn: Any, sender: Any, token: ParentToken) -> None:
    """The copy's work: import the report's modules, wait for the run directory, write its
    report; exit status 0 when written, 1 on any error (the parent writes it again), 0 with
    nothing written when the pipe closes first (the run failed or was stopped). ``sender`` is
    the parent's end of the pipe, which the fork copied: closed first, so that the parent's
    closing it is the end of the pipe here."""
    try:
        sender.close()
        follow_parent(token)
        from puzzlekit.app.plots import write_report

        try:
            run, figure_format = conn.recv()
        except EOFError:
            os._exit(0)
        write_report(Path(run), figure_format)
    except BaseException:  # noqa: BLE001 - the parent writes the report again and raises
        sys.stderr.flush()
        os._exit(1)
    os._exit(0)


class ReportAhead:
    """A report whose imports start now (:meth:`write` draws it, :meth:`close` drops it).

    ``enabled`` false, or a platform without ``fork``, makes it a report drawn in full by
    :meth:`write`, in this process."""

    def __init__(self, enabled: bool = True) -> None:
        self._copy: Any = None
        self._conn: Any = None
        if enabled and sys.platform.startswith("linux"):
            import multiprocessing

            fork = multiprocessing.get_context("fork")
            receive, self._conn = fork.Pipe(duplex=False)
            self._copy = fork.Process(target=_serve, args=(receive, self._conn, parent_token()))
            with sigint_ignored():
                self._copy.start()
            receive.close()

    def write(self, run: str | Path, figure_format: str = "png") -> Path:
        """The report of the finished run directory ``run`` (``report/report.md``), drawn by
        the copy when there is one and it succeeds, else here."""
        run = Path(run)
        copy, self._copy = self._copy, None
        if copy is not None:
            try:
                self._conn.send((str(run), figure_format))
                sent = True
            except OSError:  # the copy is gone: drawn here
                sent = False
            self._conn.close()
            _join(copy)
            if sent and copy.exitcode == 0:
                return run / "report" / "report.md"
        from puzzlekit.app.plots import write_report

        return write_report(run, figure_format)

    def close(self) -> None:
        """Drop the copy unless :meth:`write` told it the run (it has drawn nothing: ended at
        once with SIGKILL, which a disposition inherited from this process cannot ignore)."""
        copy, self._copy = self._copy, None
        if copy is not None:
            self._conn.close()
            copy.kill()
            _join(copy)

    def __enter__(self) -> ReportAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _join(copy: Any) -> None:
    """Wait for ``copy`` to end; on Ctrl-C while waiting, end it first."""
    try:
        copy.join()
    except BaseException:
        copy.kill()
        copy.join()
        raise
