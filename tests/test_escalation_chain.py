"""Escalation chains: each escalation anchored in a ledger names the previous escalation of its
sequence id, and ``puzzlekit ledger show --chain SEQUENCE_ID`` walks them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.audit.escalation.chain import PREVIOUS_KEY, EscalationChain, walk_chain
from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import ReasoningStep, run_stopping_condition


def escalate(ledger: Ledger, sequence_id: str | None, value: str = "NEITHER") -> dict:
    steps = [ReasoningStep("s0", "claim", LogicValue(value), "why", "test")]
    out = run_stopping_condition(sequence_id, steps, anchor_to_ledger=True, ledger_anchor_fn=ledger)
    return out.escalation.to_json_obj()["ledger_anchor"]


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "l.db") as led:
        yield led


def bodies(ledger: Ledger) -> dict[str, dict]:
    return {e.entry_hash: e.body for e in ledger.entries()}


def test_every_escalation_names_the_previous_one_of_its_sequence(ledger: Ledger) -> None:
    a1 = escalate(ledger, "a")
    b1 = escalate(ledger, "b", "FALSE")
    ledger.append({"type": "note", "text": "something else in between"})
    a2 = escalate(ledger, "a", "ZERO")
    a3 = escalate(ledger, "a", "SELF")
    b2 = escalate(ledger, "b")
    got = bodies(ledger)
    assert got[a1["entryHash"]][PREVIOUS_KEY] is None
    assert got[a2["entryHash"]][PREVIOUS_KEY] == a1["entryHash"]
    assert got[a3["entryHash"]][PREVIOUS_KEY] == a2["entryHash"]
    assert got[b1["entryHash"]][PREVIOUS_KEY] is None
    assert got[b2["entryHash"]][PREVIOUS_KEY] == b1["entryHash"]
    chain = walk_chain(ledger, "a")
    assert chain.ok and [e.entry_hash for e in chain.entries] == [
        a1["entryHash"],
        a2["entryHash"],
        a3["entryHash"],
    ]
    assert [e.body["kind"] for e in chain.entries] == [
        "neither-halt",
        "zero-void",
        "other-nondefinite",
    ]
    assert ledger.verify().ok


def test_an_explicit_chain_anchor_links_like_a_bare_ledger(ledger: Ledger) -> None:
    first = escalate(ledger, "a")
    steps = [ReasoningStep("s0", "claim", LogicValue.FALSE, "why", "test")]
    out = run_stopping_condition(
        "a", steps, anchor_to_ledger=True, ledger_anchor_fn=EscalationChain(ledger)
    )
    second = out.escalation.to_json_obj()["ledger_anchor"]
    assert bodies(ledger)[second["entryHash"]][PREVIOUS_KEY] == first["entryHash"]


def test_an_escalation_without_a_sequence_id_starts_no_chain(ledger: Ledger) -> None:
    first = escalate(ledger, None)
    second = escalate(ledger, None)
    got = bodies(ledger)
    assert got[first["entryHash"]][PREVIOUS_KEY] is None
    assert got[second["entryHash"]][PREVIOUS_KEY] is None


def test_a_ledger_written_before_chains_links_the_next_escalation_to_its_last(
    ledger: Ledger,
) -> None:
    old = {"type": "escalation", "sequence_id": "a", "kind": "neither-halt", "target": "hold"}
    seq, old_hash = ledger.append(old)  # as earlier versions wrote it: no link
    new = escalate(ledger, "a")
    assert bodies(ledger)[new["entryHash"]][PREVIOUS_KEY] == old_hash
    chain = walk_chain(ledger, "a")
    assert chain.ok and chain.unlinked == 1
    assert [e.seq for e in chain.entries] == [seq, new["entrySeq"]]


def test_a_forked_chain_is_reported(ledger: Ledger) -> None:
    escalate(ledger, "a")
    with ledger.transaction() as tx:  # a writer that bypassed the chain: names no previous one
        ledger.append_in(tx, {"type": "escalation", "sequence_id": "a", PREVIOUS_KEY: None})
    chain = walk_chain(ledger, "a")
    assert not chain.ok and "entry 1 is not on the chain" in chain.problems[0]


def test_a_link_to_no_escalation_of_the_sequence_is_reported(ledger: Ledger) -> None:
    other = escalate(ledger, "b")
    ledger.append({"type": "escalation", "sequence_id": "a", PREVIOUS_KEY: other["entryHash"]})
    chain = walk_chain(ledger, "a")
    assert not chain.ok and "no earlier escalation of 'a'" in chain.problems[0]


# --- puzzlekit ledger show --chain ----------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ledger_show_chain_walks_one_sequence_oldest_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "run.db"
    with Ledger(db) as led:
        hashes = [escalate(led, "loop:1")["entryHash"], escalate(led, "loop:2")["entryHash"]]
        hashes.append(escalate(led, "loop:1", "FALSE")["entryHash"])
    code, out, err = run(capsys, "ledger", "show", str(db), "--chain", "loop:1")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and err == ""
    assert [o["entry_hash"] for o in lines] == [hashes[0], hashes[2]]
    assert lines[1]["body"][PREVIOUS_KEY] == lines[0]["entry_hash"]
    assert lines[0]["body"]["sequence_id"] == "loop:1"


def test_ledger_show_chain_of_an_unknown_sequence_prints_nothing_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "run.db"
    with Ledger(db) as led:
        escalate(led, "a")
    code, out, err = run(capsys, "ledger", "show", str(db), "--chain", "zzz")
    assert (code, out) == (0, "") and "no escalation of sequence 'zzz'" in err


def test_ledger_show_chain_takes_no_range(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "run.db"
    Ledger(db).close()
    code, _, err = run(capsys, "ledger", "show", str(db), "--chain", "a", "--limit", "2")
    assert code == 2 and "--chain" in err and "Traceback" not in err


def test_ledger_show_chain_exits_1_on_a_broken_chain(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "run.db"
    with Ledger(db) as led:
        escalate(led, "a")
        second = escalate(led, "a")
    conn = sqlite3.connect(db, isolation_level=None)
    row = conn.execute("SELECT body FROM ledger_entries WHERE seq = ?", (second["entrySeq"],))
    body = json.loads(row.fetchone()[0])
    body[PREVIOUS_KEY] = "sha256:" + "e" * 64
    conn.execute(
        "UPDATE ledger_entries SET body = ? WHERE seq = ?", (json.dumps(body), second["entrySeq"])
    )
    conn.close()
    code, out, err = run(capsys, "ledger", "show", str(db), "--chain", "a")
    assert code == 1 and "broken" in err and len(out.splitlines()) == 1
