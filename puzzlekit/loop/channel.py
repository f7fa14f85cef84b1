"""The judging process's end of the pipe to its loop process: JSON requests answered in order,
some asked for ahead of reading their replies (:meth:`Channel.stream`).

:class:`puzzlekit.loop.isolation.LoopWorker` talks to its loop process through one
:class:`Channel`. A request's reply is read before any later one's: the replies to batches a
stream asked for ahead are read first (kept for the stream) when another request comes in
between, and dropped when the stream was closed before reading them.

Not for: what the requests are or what the loop process does with them
(:mod:`puzzlekit.loop.isolation`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from multiprocessing.connection import Connection
from typing import Any

#: the most items one request of :meth:`Channel.stream` asks for (batches grow from one)
MAX_BATCH = 64


class Channel:
    """Requests to one loop process (``out``) and its replies (``inp``), in order; a closed or
    broken pipe raises ``ended(reason)``."""

    def __init__(self, out: Connection, inp: Connection, ended: Callable[[str], Exception]) -> None:
        self._out, self._in, self._ended = out, inp, ended
        self._lock = threading.Lock()
        #: replies to batches asked for ahead: not read yet, read early, to be dropped
        self._ahead, self._stale = 0, 0
        self._early: deque[Any] = deque()

    def _send(self, message: Mapping[str, Any]) -> None:
        try:
            self._out.send_bytes(json.dumps(message).encode("utf-8"))
        except OSError as exc:
            raise self._ended(str(exc)) from None

    def _recv(self) -> Any:
        try:
            while self._stale:
                self._in.recv_bytes()
                self._stale -= 1
            return json.loads(self._in.recv_bytes())
        except (EOFError, OSError) as exc:
            raise self._ended(str(exc)) from None

    def ask(self, message: Mapping[str, Any]) -> Any:
        """Send ``message`` and return its reply (a batch asked for ahead answers first)."""
        with self._lock:
            self._send(message)
            while self._ahead:
                self._early.append(self._recv())
                self._ahead -= 1
            return self._recv()

    def stream(
        self,
        message: Callable[[list[Any]], Mapping[str, Any]],
        items: Iterable[Any],
        wanted: Callable[[], int] | None = None,
    ) -> Iterator[tuple[list[Any], Mapping[str, Any]]]:
        """``(batch, reply)``: the replies to ``message(batch)`` for batches of ``items`` in
        order, each with the batch it answers: one item, then
        twice as many each time up to :data:`MAX_BATCH`, never more than ``wanted()`` less the
        items of the reply in hand when given. The next batch is asked for before a reply is
        handed back, so the loop process works on it meanwhile; a reply with an ``error`` ends
        the stream after it. One stream at a time; closed early, its unread reply is dropped
        when it comes."""
        it = iter(items)
        sent: deque[list[Any]] = deque()  # the batches asked, not yet answered

        def ask_ahead(n: int, in_hand: int = 0) -> bool:
            if wanted is not None:
                n = min(n, wanted() - in_hand)
            batch = list(itertools.islice(it, max(n, 0)))
            if not batch:
                return False
            with self._lock:
                self._send(message(batch))
                self._ahead += 1
            sent.append(batch)
            return True

        size, asked = 1, False
        try:
            while asked or ask_ahead(size):
                size = min(2 * size, MAX_BATCH)
                with self._lock:
                    if self._early:
                        reply = self._early.popleft()
                    else:
                        reply = self._recv()
                        self._ahead -= 1
                answered = sent.popleft()
                asked = "error" not in reply and ask_ahead(size, len(reply.get("ok", ())))
                yield answered, reply
        finally:
            with self._lock:
                self._stale += self._ahead
                self._ahead = 0
                self._early.clear()

    def close(self) -> None:
        self._out.close()
        self._in.close()
