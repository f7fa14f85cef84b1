"""Seed 000, the stopping-condition seed, exactly (DESIGN §7).

The expected kind, target and summary of every sequence of 1-4 steps over the eight verdicts
are derived here from the seed's rules as the seed states them, written out on their own (not
read from :mod:`puzzlekit.audit.stopping`): the first step that is not TRUE stops the sequence;
NEITHER is a neither-halt sent to ``w48-negcap``, FALSE a false-violation sent to
``external-oracle``, ZERO a zero-void sent to ``human``, BOTH, INFINITY, FLOWING and SELF an
other-nondefinite sent to ``peer-review``; a sequence that is TRUE throughout is all-clear with
target ``none`` and no anchor. The summary names the stop's 0-based index among the n steps.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest

from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import (
    ReasoningStep,
    run_stopping_condition,
    run_stopping_condition_async,
)

VERDICTS = ("TRUE", "FALSE", "BOTH", "NEITHER", "INFINITY", "ZERO", "FLOWING", "SELF")

#: the seed's table: the kind of stop each first non-TRUE verdict makes, and its default target
SEED_RULES = {
    "NEITHER": ("neither-halt", "w48-negcap"),
    "FALSE": ("false-violation", "external-oracle"),
    "ZERO": ("zero-void", "human"),
    "BOTH": ("other-nondefinite", "peer-review"),
    "INFINITY": ("other-nondefinite", "peer-review"),
    "FLOWING": ("other-nondefinite", "peer-review"),
    "SELF": ("other-nondefinite", "peer-review"),
}

SEED_EXAMPLE = "stopping-condition | seq(2/4) | kind=neither-halt | target=w48-negcap | anchor=ok"


def seed_expectation(verdicts: tuple[str, ...]) -> tuple[str, str, str]:
    """(kind, target, summary) of an anchored run, by the seed's rules alone."""
    n = len(verdicts)
    for i, v in enumerate(verdicts):
        if v != "TRUE":
            kind, target = SEED_RULES[v]
            return (
                kind,
                target,
                f"stopping-condition | seq({i}/{n}) | kind={kind} | "
                + (f"target={target} | anchor=ok"),
            )
    return (
        "all-clear",
        "none",
        f"stopping-condition | seq({n}/{n}) | kind=all-clear | target=none | anchor=none",
    )


def steps_of(verdicts: tuple[str, ...]) -> list[ReasoningStep]:
    return [
        ReasoningStep(f"s{i}", f"claim {i}", LogicValue(v), f"reason {i}", "seed-test")
        for i, v in enumerate(verdicts)
    ]


def every_sequence() -> list[tuple[str, ...]]:
    return [seq for n in range(1, 5) for seq in itertools.product(VERDICTS, repeat=n)]


def test_the_sequences_are_every_one_of_1_to_4_steps_over_the_8_verdicts() -> None:
    assert len(every_sequence()) == 8 + 8**2 + 8**3 + 8**4 == 4680


def test_every_sequence_of_1_to_4_steps_gives_the_seeds_kind_target_and_summary() -> None:
    anchored: list[dict] = []

    def anchor(body: dict) -> tuple[int, str]:
        anchored.append(body)
        return len(anchored), f"sha256:{len(anchored):064x}"

    wrong = []
    for verdicts in every_sequence():
        kind, target, summary = seed_expectation(verdicts)
        before = len(anchored)
        out = run_stopping_condition(
            "seed", steps_of(verdicts), anchor_to_ledger=True, ledger_anchor_fn=anchor
        )
        esc = out.escalation
        got = (esc.kind.value, esc.target, out.summary)
        wire = out.to_json_obj()
        if got != (kind, target, summary) or wire["summary"] != summary:
            wrong.append((verdicts, got))
        elif wire["escalation"]["kind"] != kind or wire["escalation"]["target"] != target:
            wrong.append((verdicts, "wire", wire["escalation"]))
        elif (len(anchored) - before) != (0 if kind == "all-clear" else 1):
            wrong.append((verdicts, "anchored", len(anchored) - before))
        elif kind != "all-clear" and wire["escalation"]["ledger_anchor"] != seed_anchor(anchored):
            wrong.append((verdicts, "anchor record", wire["escalation"]["ledger_anchor"]))
    assert wrong == [], f"{len(wrong)} sequences differ from the seed, first: {wrong[:3]}"


def seed_anchor(anchored: list[dict]) -> dict:
    """The seed's anchor record of the last of ``anchored`` (the test's anchor functions give
    entry n the hash of n)."""
    n = len(anchored)
    return {"appended": True, "entryHash": f"sha256:{n:064x}", "entrySeq": n}


def test_the_async_pipeline_with_an_awaitable_anchor_gives_the_same_for_every_sequence() -> None:
    anchored: list[dict] = []

    async def anchor(body: dict) -> tuple[int, str]:
        await asyncio.sleep(0)  # a real suspension: the pipeline awaits it
        anchored.append(body)
        return len(anchored), f"sha256:{len(anchored):064x}"

    async def every() -> list:
        wrong = []
        for verdicts in every_sequence():
            kind, target, summary = seed_expectation(verdicts)
            before = len(anchored)
            out = await run_stopping_condition_async(
                "seed", steps_of(verdicts), anchor_to_ledger=True, ledger_anchor_fn=anchor
            )
            esc = out.escalation.to_json_obj()
            if (esc["kind"], esc["target"], out.summary) != (kind, target, summary):
                wrong.append((verdicts, esc["kind"], esc["target"], out.summary))
            elif kind == "all-clear":
                if len(anchored) != before:
                    wrong.append((verdicts, "an all-clear was anchored"))
            elif esc["ledger_anchor"] != seed_anchor(anchored):
                wrong.append((verdicts, "anchor record", esc["ledger_anchor"]))
        return wrong

    wrong = asyncio.run(every())
    assert wrong == [], f"{len(wrong)} sequences differ from the seed, first: {wrong[:3]}"
    assert len(anchored) == len(every_sequence()) - 4  # TRUE, TRUE TRUE, ... are not anchored


@pytest.mark.parametrize("verdicts", [("TRUE",), ("NEITHER",), ("TRUE", "SELF", "FALSE")])
def test_without_anchoring_kind_and_target_are_the_same_and_no_anchor_is_recorded(
    verdicts: tuple[str, ...],
) -> None:
    kind, target, _ = seed_expectation(verdicts)
    esc = run_stopping_condition("seed", steps_of(verdicts)).escalation
    assert (esc.kind.value, esc.target) == (kind, target)
    assert "ledger_anchor" not in esc.to_json_obj()


def test_the_seeds_example_byte_for_byte(tmp_path: Path) -> None:
    """The stop at the third of four steps, anchored in a real ledger."""
    with Ledger(tmp_path / "ledger.db") as ledger:
        out = run_stopping_condition(
            "seed-example",
            steps_of(("TRUE", "TRUE", "NEITHER", "TRUE")),
            anchor_to_ledger=True,
            ledger_anchor_fn=ledger,
        )
        assert out.summary.encode("utf-8") == SEED_EXAMPLE.encode("utf-8")
        anchor = out.escalation.to_json_obj()["ledger_anchor"]
        head = ledger.checkpoint()
        assert anchor == {"appended": True, "entryHash": head.entry_hash, "entrySeq": head.seq}
