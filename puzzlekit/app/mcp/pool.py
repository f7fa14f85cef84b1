"""The MCP server's worker pool: calls served first-in first-out, with workers kept for short calls.

A :class:`WorkerPool` holds a few :class:`~puzzlekit.app.mcp.work.Worker` s. Calls wait in one queue
in the order they came. A call is **short** when its time limit is at most ``short_seconds``;
``reserved`` workers (one in three, at least one when there are two or more; none when
``short_seconds`` is 0) take only short calls, so that however many slow calls queue up, a short
call behind them waits for short calls alone. The first waiting call that may take a free worker
takes it: long calls in their order, short calls in theirs, a short call passing a long one that has
no worker it may take. A call's time limit counts from its arrival: the time it waited is taken from
the time its work gets, so a call is answered (or stopped with :class:`WorkTimeout`) within its own
limit.

Not for: the work itself or its worker processes (:mod:`puzzlekit.app.mcp.work`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from puzzlekit.app.mcp.work import Worker, WorkTimeout, judges

#: a call whose time limit is at most this many seconds is short (a verification with the
#: default budget of 10 s and 10 s of grace is; a generation with its default 60 s is not)
SHORT_SECONDS = 30.0


class Runs(Protocol):
    """What the pool needs of a worker."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def call(self, op: str, kwargs: Mapping[str, Any], timeout: float) -> dict[str, Any]: ...


def reserved_share(size: int) -> int:
    """Workers kept for short calls out of ``size``: one in three, at least one of two or more."""
    return 0 if size < 2 else max(1, size // 3)


class _Ticket:
    __slots__ = ("short",)

    def __init__(self, short: bool) -> None:
        self.short = short


class WorkerPool:
    """``size`` workers (or the given ``workers``) serving calls first-in first-out, with
    ``reserved`` of them (default :func:`reserved_share`) kept for calls whose limit is at most
    ``short_seconds``. See the module docstring."""

    def __init__(
        self,
        size: int = 3,
        plugins: tuple[str, ...] | None = None,
        *,
        short_seconds: float = SHORT_SECONDS,
        reserved: int | None = None,
        workers: Sequence[Runs] | None = None,
    ) -> None:
        pool = list(workers) if workers is not None else [Worker(plugins) for _ in range(size)]
        if not pool:
            raise ValueError(f"a worker pool needs at least one worker, got {size}")
        self.size = len(pool)
        if reserved is None:  # no call is short with short_seconds 0: then nothing is kept
            reserved = reserved_share(self.size) if short_seconds > 0 else 0
        self.reserved = reserved
        if not 0 <= self.reserved < self.size:
            raise ValueError(f"reserved workers must be in 0..{self.size - 1}, got {self.reserved}")
        self.short_seconds = short_seconds
        self._workers = pool
        self._idle: list[Runs] = list(reversed(pool))
        self._waiting: deque[_Ticket] = deque()
        self._long_busy = 0
        self._cond = threading.Condition()

    def start(self) -> None:
        """Start every worker now (a call starts a stopped one anyway)."""
        for worker in self._workers:
            worker.start()

    def stop(self) -> None:
        for worker in self._workers:
            worker.stop()

    def _may_take(self, ticket: _Ticket) -> bool:
        return ticket.short or self._long_busy < self.size - self.reserved

    def _turn(self, ticket: _Ticket) -> bool:
        """Whether ``ticket`` is the first waiting call that may take a free worker now."""
        if not self._idle:
            return False
        for waiting in self._waiting:
            if self._may_take(waiting):
                return waiting is ticket
        return False

    def _take(self, judging: bool) -> Runs:
        """An idle worker: for a call that runs a holdout one that imported no plugin when there
        is one (else it restarts clean, :class:`~puzzlekit.app.mcp.work.Worker`); for another
        call one that did, keeping the clean ones for the holdout."""
        for i in range(len(self._idle) - 1, -1, -1):
            if getattr(self._idle[i], "clean", True) == judging:
                return self._idle.pop(i)
        return self._idle.pop()

    def _acquire(self, short: bool, deadline: float, limit: float, judging: bool = False) -> Runs:
        ticket = _Ticket(short)
        with self._cond:
            self._waiting.append(ticket)
            try:
                while not self._turn(ticket):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise WorkTimeout(
                            f"all {self.size} workers stayed busy for {limit:g} s; try again later"
                        )
                    self._cond.wait(left)
            finally:
                self._waiting.remove(ticket)
                self._cond.notify_all()  # the next in line may take a worker now
            if not short:
                self._long_busy += 1
            return self._take(judging)

    def _release(self, worker: Runs, short: bool) -> None:
        with self._cond:
            self._idle.append(worker)
            if not short:
                self._long_busy -= 1
            self._cond.notify_all()

    def call(self, op: str, kwargs: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Run ``op`` in a worker when its turn comes, within ``timeout`` seconds of now in all;
        raises ArgumentError, WorkTimeout or WorkFailed."""
        deadline = time.monotonic() + timeout
        short = timeout <= self.short_seconds
        worker = self._acquire(short, deadline, timeout, judges(op, kwargs))
        try:
            return worker.call(op, kwargs, max(deadline - time.monotonic(), 0.001))
        finally:
            self._release(worker, short)
