"""``run_stopping_condition_async``: the pipeline with awaitable anchor functions."""

from __future__ import annotations

import asyncio
import itertools
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from puzzlekit.audit.escalation.chain import PREVIOUS_KEY
from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import (
    ReasoningStep,
    run_stopping_condition,
    run_stopping_condition_async,
)

SEED_EXAMPLE = "stopping-condition | seq(2/4) | kind=neither-halt | target=w48-negcap | anchor=ok"


def steps_of(*verdicts: str) -> list[ReasoningStep]:
    return [
        ReasoningStep(f"s{i}", f"claim {i}", LogicValue(v), f"reason {i}", "test")
        for i, v in enumerate(verdicts)
    ]


def test_an_awaitable_anchor_function_is_awaited_and_gives_the_seeds_example() -> None:
    seen: list[dict] = []

    async def anchor(body: dict) -> dict:
        await asyncio.sleep(0)
        seen.append(body)
        return {"entrySeq": 5, "entryHash": "sha256:" + "a" * 64}

    out = asyncio.run(
        run_stopping_condition_async(
            "x",
            steps_of("TRUE", "TRUE", "NEITHER", "TRUE"),
            anchor_to_ledger=True,
            ledger_anchor_fn=anchor,
        )
    )
    assert out.summary == SEED_EXAMPLE
    assert out.escalation.ledger_anchor == {
        "appended": True,
        "entryHash": "sha256:" + "a" * 64,
        "entrySeq": 5,
    }
    assert seen == [out.escalation.anchor_body()]


def test_anchor_functions_of_concurrent_runs_interleave_on_one_event_loop() -> None:
    """Two runs whose anchors each wait for the other: only awaited anchors can finish."""

    async def main() -> list[str]:
        events = [asyncio.Event(), asyncio.Event()]

        def anchor_for(mine: int):
            async def anchor(body: dict) -> tuple[int, str]:
                events[mine].set()
                await asyncio.wait_for(events[1 - mine].wait(), 5)
                return mine + 1, f"sha256:{mine + 1:064x}"

            return anchor

        outs = await asyncio.gather(
            *(
                run_stopping_condition_async(
                    f"r{i}",
                    steps_of("FALSE"),
                    anchor_to_ledger=True,
                    ledger_anchor_fn=anchor_for(i),
                )
                for i in range(2)
            )
        )
        return [o.summary for o in outs]

    summaries = asyncio.run(main())
    line = "stopping-condition | seq(0/1) | kind=false-violation | target=external-oracle"
    assert summaries == [line + " | anchor=ok"] * 2


@pytest.mark.parametrize("exc", [RuntimeError(), TimeoutError(), ValueError("disk full")])
def test_an_awaitable_that_raises_is_reported_never_raised(exc: Exception) -> None:
    async def anchor(body: dict) -> None:
        raise exc

    out = asyncio.run(
        run_stopping_condition_async(
            "x", steps_of("ZERO"), anchor_to_ledger=True, ledger_anchor_fn=anchor
        )
    )
    reason = f"anchor-threw:{exc}" if str(exc) else f"anchor-threw:{type(exc).__name__}"
    assert out.escalation.ledger_anchor == {"appended": False, "reason": reason}
    assert out.summary.endswith("anchor=failed")


def test_a_plain_function_returning_an_awaitable_is_awaited() -> None:
    async def later() -> tuple[int, str]:
        return 2, "sha256:" + "b" * 64

    out = asyncio.run(
        run_stopping_condition_async(
            "x", steps_of("SELF"), anchor_to_ledger=True, ledger_anchor_fn=lambda body: later()
        )
    )
    assert out.escalation.ledger_anchor["entrySeq"] == 2


def test_a_blocking_anchor_function_runs_off_the_event_loop_thread() -> None:
    threads: list[int] = []

    def anchor(body: dict) -> tuple[int, str]:
        threads.append(threading.get_ident())
        return 1, "sha256:" + "c" * 64

    async def main() -> int:
        await run_stopping_condition_async(
            "x", steps_of("BOTH"), anchor_to_ledger=True, ledger_anchor_fn=anchor
        )
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert len(threads) == 1 and threads[0] != loop_thread


def test_a_ledger_anchors_and_chains_as_in_the_synchronous_pipeline(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.db") as ledger:
        first = run_stopping_condition(
            "s", steps_of("NEITHER"), anchor_to_ledger=True, ledger_anchor_fn=ledger
        )
        second = asyncio.run(
            run_stopping_condition_async(
                "s", steps_of("FALSE"), anchor_to_ledger=True, ledger_anchor_fn=ledger
            )
        )
        anchor = second.escalation.ledger_anchor
        assert anchor["appended"] and ledger.checkpoint().entry_hash == anchor["entryHash"]
        body = ledger.entries(anchor["entrySeq"])[0].body
        assert body[PREVIOUS_KEY] == first.escalation.ledger_anchor["entryHash"]


@pytest.mark.parametrize(
    "options",
    [{}, {"anchor_to_ledger": True}, {"target_override": "hold"}],
    ids=["off", "no-anchor-fn", "alias"],
)
def test_the_async_outcome_is_the_synchronous_one(options: dict) -> None:
    verdicts = [v.value for v in LogicValue]
    for seq in itertools.chain(itertools.product(verdicts, repeat=1), [("TRUE", "ZERO")]):
        fixed = {"clock": lambda: datetime(2026, 1, 1, tzinfo=UTC), "new_id": lambda: "e"}
        sync = run_stopping_condition("x", steps_of(*seq), **options, **fixed)
        got = asyncio.run(run_stopping_condition_async("x", steps_of(*seq), **options, **fixed))
        assert got.to_json_obj() == sync.to_json_obj()


def test_invalid_input_is_an_error_outcome() -> None:
    out = asyncio.run(run_stopping_condition_async("x", []))
    assert out.error == "invalid-input" and out.escalation is None
