"""The MCP worker pool serves calls first-in first-out and keeps a share of its workers for calls
that declare a short limit: with 3 workers, 10 slow calls and 40 fast ones behind them, every fast
call is answered within its own limit (through the server, past anyio's 40 threads), and a call's
limit counts from its arrival. Fake workers (threads that sleep or wait) keep it to a second."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping
from typing import Any

import pytest

from puzzlekit.app.mcp.args import Limits
from puzzlekit.app.mcp.pool import WorkerPool, reserved_share
from puzzlekit.app.mcp.server import build_server
from puzzlekit.app.mcp.work import WorkTimeout, verify_work

FAST_SECONDS = 0.01


class FakeWorker:
    """``generate`` waits until ``release`` is set; ``verify`` sleeps a little and answers."""

    def __init__(self, release: threading.Event, answer: dict[str, Any]) -> None:
        self.release = release
        self.answer = answer
        self.log: list[tuple[str, Any]] = []

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def call(self, op: str, kwargs: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        self.log.append((op, kwargs.get("seed")))
        if op == "generate":
            if not self.release.wait(timeout):
                raise WorkTimeout("over the time limit")
            trust = {"judge": "kept-out", "loopPlugins": [], "reasons": []}
            return {"jsonl": "", "accepted": 0, "puzzles": [], "trust": trust}
        time.sleep(FAST_SECONDS)
        return self.answer


@pytest.fixture(scope="module")
def answer() -> dict[str, Any]:
    return verify_work(family="sudoku", text="1" + "." * 15)


def test_the_reserved_share() -> None:
    assert [reserved_share(n) for n in (1, 2, 3, 6, 9)] == [0, 1, 1, 2, 3]


def test_fast_calls_behind_slow_ones_are_answered_within_their_limit(answer) -> None:
    release = threading.Event()
    workers = [FakeWorker(release, answer) for _ in range(3)]
    server = build_server(Limits(grace_seconds=1.0), worker=WorkerPool(workers=workers))
    fast_limit = 2.0  # the call's limit: its budget + grace
    waited: list[float] = []

    async def slow(seed: int) -> Any:
        args = {"family": "sudoku", "seed": seed, "time_limit_seconds": 60}
        return await server.call_tool("puzzle_generate", args)

    async def fast() -> None:
        start = time.monotonic()
        args = {"family": "sudoku", "text": "1" + "." * 15, "budget_seconds": 1}
        out = await server.call_tool("puzzle_verify", args)
        assert not out.is_error, out
        waited.append(time.monotonic() - start)

    async def main() -> None:
        slows = []
        for seed in range(10):  # one after the other, so their order of arrival is known
            slows.append(asyncio.ensure_future(slow(seed)))
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)  # the slow calls hold two workers and queue up
        await asyncio.gather(*(fast() for _ in range(40)))
        release.set()
        await asyncio.gather(*slows)

    asyncio.run(main())
    assert len(waited) == 40
    assert max(waited) < fast_limit, max(waited)
    # the slow calls were served in the order they came, none on the reserved worker
    for w in workers:
        seeds = [seed for op, seed in w.log if op == "generate"]
        assert seeds == sorted(seeds)
    slow_seeds = [seed for w in workers for op, seed in w.log if op == "generate"]
    assert sorted(slow_seeds) == list(range(10))
    assert sum(op == "generate" for w in workers[2:] for op, _ in w.log) == 0
    firsts = [seed for w in workers[:2] for op, seed in w.log[:1] if op == "generate"]
    assert sorted(firsts) == [0, 1]


def test_the_limit_counts_from_the_arrival() -> None:
    release = threading.Event()
    pool = WorkerPool(workers=[FakeWorker(release, {})], reserved=0)
    busy = threading.Thread(target=pool.call, args=("generate", {}, 30.0))
    busy.start()
    time.sleep(0.05)
    start = time.monotonic()
    with pytest.raises(WorkTimeout, match="stayed busy for 0.3 s"):
        pool.call("verify", {}, 0.3)
    assert time.monotonic() - start < 0.6
    release.set()
    busy.join()
    assert pool.call("verify", {}, 0.3) == {}


def test_a_pool_refuses_a_reserve_that_leaves_no_worker() -> None:
    with pytest.raises(ValueError, match="reserved"):
        WorkerPool(workers=[FakeWorker(threading.Event(), {})], reserved=1)
