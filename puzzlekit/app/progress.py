"""Progress on stderr for long commands: a tqdm bar on a terminal, a one-line status otherwise.

Logs and CI do not draw bars, so when stderr is not a terminal a line such as ``puzzlekit:
generate 3/10 puzzles (30%), 42 s`` is written every :data:`STATUS_SECONDS` seconds, and one
last line when work that showed a status line ends (a short command stays silent). ``quiet``
silences both. Commands take ``--quiet`` (:func:`add_quiet`) and open one :func:`progress` per
long loop.

Not for: what the work produces (stdout) or errors (one ``puzzlekit:`` line, see
:mod:`puzzlekit.app.cli`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

#: seconds between two status lines when stderr is not a terminal
STATUS_SECONDS = 10.0


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """The ``--quiet`` flag of a command that shows progress."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (a bar on a terminal, a status line every "
        f"{STATUS_SECONDS:.0f} s otherwise)",
    )


class StatusLine:
    """The tqdm-like counter of a non-terminal: ``update(n)``, a line every ``every`` seconds."""

    def __init__(
        self,
        what: str,
        total: int | None,
        unit: str,
        *,
        initial: int = 0,
        file: TextIO | None = None,
        every: float = STATUS_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what, self.total, self.unit, self.n = what, total, unit, initial
        self.file, self.every, self.clock = file or sys.stderr, every, clock
        self.start = clock()
        self.last = self.start
        self.lines = 0

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.clock() - self.last >= self.every:
            self.write()

    def write(self, done: bool = False) -> None:
        now = self.clock()
        self.last = now
        self.lines += 1
        count = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        verb = "done: " if done else ""
        unit = self.unit if self.n == 1 else f"{self.unit}s"
        line = f"puzzlekit: {self.what} {verb}{count} {unit}{share}, {now - self.start:.0f} s"
        print(line, file=self.file, flush=True)

    def close(self) -> None:
        if self.lines:
            self.write(done=True)

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()


class _Silent:
    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def progress(
    what: str,
    total: int | None,
    unit: str,
    *,
    quiet: bool = False,
    initial: int = 0,
    file: TextIO | None = None,
) -> Any:
    """A context manager counting ``unit``s of ``what`` (call ``update(n)``): silent when
    ``quiet``, a tqdm bar when stderr is a terminal, a :class:`StatusLine` otherwise."""
    stream = file or sys.stderr
    if quiet:
        return _Silent()
    if stream.isatty():
        from tqdm import tqdm

        return tqdm(total=total, initial=initial, unit=unit, desc=what, file=stream)
    return StatusLine(what, total, unit, initial=initial, file=stream)
