from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import rfc8785

from puzzlekit.audit.ledger import (
    GENESIS,
    BodyError,
    Checkpoint,
    Ledger,
    LedgerError,
    read_checkpoint,
    write_checkpoint,
)
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import ReasoningStep, run_stopping_condition

ROOT = Path(__file__).resolve().parents[1]


def independent_hash(seq: int, prev: str, body: dict) -> str:
    material = {"v": 1, "seq": seq, "prev": prev, "body": body}
    return "sha256:" + hashlib.sha256(rfc8785.dumps(material)).hexdigest()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite"


def filled(db: Path, n: int = 10) -> Ledger:
    ledger = Ledger(db)
    for i in range(n):
        ledger.append({"i": i, "text": f"entry {i}"})
    return ledger


def raw(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(db, isolation_level=None)


def rewrite_from(db: Path, start: int, change: dict) -> None:
    """Tamper like someone who knows the scheme: edit entry ``start`` and recompute every hash."""
    con = raw(db)
    rows = con.execute("SELECT seq, prev_hash, body FROM ledger_entries ORDER BY seq").fetchall()
    prev = GENESIS
    con.execute("BEGIN")
    new_rows = []
    for seq, _, body_text in rows:
        body = json.loads(body_text)
        if seq == start:
            body.update(change)
        h = independent_hash(seq, prev, body)
        new_rows.append((seq, prev, h, rfc8785.dumps(body).decode()))
        prev = h
    con.execute("DELETE FROM ledger_entries")
    con.executemany("INSERT INTO ledger_entries VALUES (?, ?, ?, ?)", new_rows)
    con.execute("COMMIT")
    con.close()


# --- appending ------------------------------------------------------------------------------


def test_append_returns_seq_and_the_hash_of_v_seq_prev_body(db: Path) -> None:
    ledger = Ledger(db)
    s1, h1 = ledger.append({"a": 1})
    s2, h2 = ledger.append({"b": [True, None, "x"]})
    assert (s1, s2) == (1, 2)
    assert h1 == independent_hash(1, GENESIS, {"a": 1})
    assert h2 == independent_hash(2, h1, {"b": [True, None, "x"]})
    assert ledger.checkpoint() == Checkpoint(2, h2)
    assert [e.body for e in ledger.entries()] == [{"a": 1}, {"b": [True, None, "x"]}]
    assert [e.prev_hash for e in ledger.entries()] == [GENESIS, h1]


def test_an_empty_ledger_verifies_and_checkpoints_at_genesis(db: Path) -> None:
    ledger = Ledger(db)
    assert ledger.checkpoint() == Checkpoint(0, GENESIS)
    assert ledger.verify().ok and ledger.verify(Checkpoint(0, GENESIS)).ok
    assert len(ledger) == 0


def test_database_runs_in_wal_with_synchronous_full(db: Path) -> None:
    ledger = filled(db, 1)
    assert raw(db).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert ledger._connection().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_prev_hash_and_entry_hash_are_unique(db: Path) -> None:
    filled(db, 2)
    con = raw(db)
    prev, h = con.execute(
        "SELECT prev_hash, entry_hash FROM ledger_entries WHERE seq = 2"
    ).fetchone()
    with pytest.raises(sqlite3.IntegrityError):  # a fork of the chain at entry 1
        con.execute(
            "INSERT INTO ledger_entries VALUES (3, ?, ?, '{}')", (prev, "sha256:" + "1" * 64)
        )
    with pytest.raises(sqlite3.IntegrityError):
        con.execute("INSERT INTO ledger_entries VALUES (3, ?, ?, '{}')", (h, h))


def test_floats_are_refused_with_the_place_named_and_nothing_appended(db: Path) -> None:
    ledger = filled(db, 1)
    with pytest.raises(BodyError, match=r"\$\.report\.stats\[1\]\.seconds = 0\.5.*integer"):
        ledger.append({"report": {"stats": [1, {"seconds": 0.5}]}})
    with pytest.raises(BodyError, match="float"):
        ledger.append({"x": 2.0})
    assert len(ledger) == 1


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ([1, 2], "JSON object"),
        ({"n": 2**60}, "string"),
        ({1: "x"}, "keys are strings"),
        ({"s": {1, 2}}, "not JSON"),
    ],
)
def test_bodies_that_cannot_hash_reproducibly_are_refused(
    db: Path, body: object, match: str
) -> None:
    with pytest.raises(BodyError, match=match):
        Ledger(db).append(body)  # type: ignore[arg-type]


def test_tuples_are_stored_as_lists(db: Path) -> None:
    ledger = Ledger(db)
    _, h = ledger.append({"coord": (1, 2)})
    assert h == independent_hash(1, GENESIS, {"coord": [1, 2]})
    assert ledger.verify().ok


def test_opening_without_create_needs_an_existing_ledger(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Ledger(tmp_path / "missing.sqlite", create=False)
    junk = tmp_path / "junk.sqlite"
    junk.write_text("this is not a database, just some text that is long enough" * 20)
    with pytest.raises(LedgerError):
        Ledger(junk, create=False)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)")
    with pytest.raises(LedgerError, match="no ledger"):
        Ledger(other, create=False)


# --- verify: what the chain alone catches ---------------------------------------------------


def test_an_intact_chain_verifies(db: Path) -> None:
    result = filled(db).verify()
    assert result.ok and result.entries == 10 and result.head.seq == 10
    assert result.first_bad_seq is None


def test_an_edited_body_is_caught_at_its_seq(db: Path) -> None:
    ledger = filled(db)
    raw(db).execute("UPDATE ledger_entries SET body = ? WHERE seq = 6", ('{"i":600,"text":"x"}',))
    result = ledger.verify()
    assert not result.ok
    assert (result.first_bad_seq, result.problem) == (6, "hash-mismatch")
    assert result.entries == 5


def test_an_edited_hash_is_caught_at_its_seq(db: Path) -> None:
    ledger = filled(db)
    raw(db).execute(
        "UPDATE ledger_entries SET entry_hash = ? WHERE seq = 3", ("sha256:" + "f" * 64,)
    )
    assert (ledger.verify().first_bad_seq, ledger.verify().problem) == (3, "hash-mismatch")


def test_a_deleted_middle_entry_is_caught_at_its_seq(db: Path) -> None:
    ledger = filled(db)
    raw(db).execute("DELETE FROM ledger_entries WHERE seq = 4")
    result = ledger.verify()
    assert (result.first_bad_seq, result.problem) == (4, "missing-entry")


def test_a_deleted_and_renumbered_entry_is_caught_at_its_seq(db: Path) -> None:
    ledger = filled(db)
    con = raw(db)
    con.execute("DELETE FROM ledger_entries WHERE seq = 4")
    for seq in range(5, 11):
        con.execute("UPDATE ledger_entries SET seq = ? WHERE seq = ?", (seq - 1, seq))
    result = ledger.verify()
    assert (result.first_bad_seq, result.problem) == (4, "prev-mismatch")


def test_two_swapped_entries_are_caught_at_the_first(db: Path) -> None:
    ledger = filled(db)
    con = raw(db)
    con.execute("BEGIN")
    con.execute("UPDATE ledger_entries SET seq = 1000 WHERE seq = 7")
    con.execute("UPDATE ledger_entries SET seq = 7 WHERE seq = 8")
    con.execute("UPDATE ledger_entries SET seq = 8 WHERE seq = 1000")
    con.execute("COMMIT")
    result = ledger.verify()
    assert (result.first_bad_seq, result.problem) == (7, "prev-mismatch")


def test_two_swapped_bodies_are_caught_at_the_first(db: Path) -> None:
    ledger = filled(db)
    con = raw(db)
    body = "SELECT body FROM ledger_entries WHERE seq = ?"
    b2, b3 = (con.execute(body, (s,)).fetchone()[0] for s in (2, 3))
    con.execute("UPDATE ledger_entries SET body = ? WHERE seq = 2", (b3,))
    con.execute("UPDATE ledger_entries SET body = ? WHERE seq = 3", (b2,))
    assert ledger.verify().first_bad_seq == 2


def test_a_non_json_body_is_caught(db: Path) -> None:
    ledger = filled(db, 3)
    raw(db).execute("UPDATE ledger_entries SET body = '{broken' WHERE seq = 2")
    assert (ledger.verify().first_bad_seq, ledger.verify().problem) == (2, "unreadable-body")


@pytest.mark.parametrize("column", ["body", "entry_hash"])
def test_a_byte_that_is_not_utf8_is_named_not_raised(db: Path, column: str, capsys) -> None:
    """A flipped byte in stored text: verify names the entry; entries() and the CLI still read."""
    from puzzlekit.app.cli import main

    ledger = filled(db, 3)
    con = raw(db)
    (text,) = con.execute(f"SELECT {column} FROM ledger_entries WHERE seq = 2").fetchone()
    damaged = text.encode()[:9] + b"\xff" + text.encode()[10:]
    con.execute(f"UPDATE ledger_entries SET {column} = CAST(? AS TEXT) WHERE seq = 2", (damaged,))
    con.close()
    result = ledger.verify()
    want = "unreadable-body" if column == "body" else "hash-mismatch"
    assert (result.first_bad_seq, result.problem) == (2, want)
    assert len(ledger.entries()) == 3
    ledger.close()
    assert main(["ledger", "verify", str(db)]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_a_float_smuggled_in_with_a_recomputed_hash_is_caught(db: Path) -> None:
    ledger = filled(db, 3)
    rewrite_from(db, 3, {"x": 1.5})
    assert (ledger.verify().first_bad_seq, ledger.verify().problem) == (3, "float-in-body")


# --- verify: what only a checkpoint catches -------------------------------------------------


def test_a_truncated_tail_is_caught_only_against_a_checkpoint(db: Path) -> None:
    ledger = filled(db)
    cp = ledger.checkpoint()
    raw(db).execute("DELETE FROM ledger_entries WHERE seq > 7")
    assert ledger.verify().ok  # undetectable from the chain alone
    result = ledger.verify(cp)
    assert not result.ok
    assert (result.first_bad_seq, result.problem) == (8, "checkpoint-beyond-head")


def test_a_rewrite_with_recomputed_hashes_is_caught_only_against_a_checkpoint(db: Path) -> None:
    ledger = filled(db)
    early = Checkpoint(5, ledger.entries(5, 6)[0].entry_hash)
    head = ledger.checkpoint()
    rewrite_from(db, 3, {"text": "rewritten"})
    assert ledger.verify().ok
    for cp in (early, head):
        result = ledger.verify(cp)
        assert (result.first_bad_seq, result.problem) == (cp.seq, "checkpoint-mismatch")
    before_the_change = Checkpoint(2, ledger.entries(2, 3)[0].entry_hash)
    assert ledger.verify(before_the_change).ok


def test_a_checkpoint_of_the_intact_chain_verifies_as_it_grows(db: Path) -> None:
    ledger = filled(db, 3)
    cp = ledger.checkpoint()
    ledger.append({"later": True})
    assert ledger.verify(cp).ok


def test_checkpoint_files_round_trip(db: Path, tmp_path: Path) -> None:
    ledger = filled(db, 4)
    path = tmp_path / "cp.json"
    cp = ledger.export_checkpoint(path)
    assert cp == ledger.checkpoint()
    assert read_checkpoint(path) == cp
    assert json.loads(path.read_text())["ledger"] == str(db)
    write_checkpoint(tmp_path / "cp2.json", Checkpoint(2, ledger.entries(2, 3)[0].entry_hash))
    assert read_checkpoint(tmp_path / "cp2.json").seq == 2


@pytest.mark.parametrize(
    "text", ["not json", "[1]", '{"seq": -1, "entry_hash": "sha256:00"}', '{"seq": 1}']
)
def test_malformed_checkpoint_files_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "cp.json"
    path.write_text(text)
    with pytest.raises(ValueError):
        read_checkpoint(path)


# --- the ledger as an anchor ----------------------------------------------------------------


def test_a_ledger_is_an_anchor_function_for_escalations(db: Path) -> None:
    ledger = filled(db, 2)
    steps = [
        ReasoningStep("valid", "instance is valid", LogicValue.TRUE, "parsed", "model"),
        ReasoningStep("holdout", "holdout agrees", LogicValue.BOTH, "differs", "sat", {"t": 0.5}),
    ]
    out = run_stopping_condition("run-1/7", steps, anchor_to_ledger=True, ledger_anchor_fn=ledger)
    anchor = out.escalation.ledger_anchor
    assert anchor["appended"] is True and anchor["entrySeq"] == 3
    assert ledger.checkpoint() == Checkpoint(3, anchor["entryHash"])
    body = ledger.entries(3)[0].body
    assert body["escalation_id"] == out.escalation.escalation_id
    assert body["target"] == "peer-review" and body["sequence_id"] == "run-1/7"
    assert ledger.verify().ok


# --- concurrency and crashes ----------------------------------------------------------------

WORKER = textwrap.dedent(
    """
    import os, sys, time
    from puzzlekit.audit.ledger import Ledger
    db, worker, n, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    ledger = Ledger(db)
    while not os.path.exists(go):
        time.sleep(0.005)
    for i in range(n):
        ledger.append({"worker": worker, "i": i})
    """
)


def run_python(code: str, *args: object) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], env=env)


def test_eight_processes_appending_concurrently_give_one_valid_chain(
    db: Path, tmp_path: Path
) -> None:
    Ledger(db).close()
    go = tmp_path / "go"
    procs = [run_python(WORKER, db, w, 200, go) for w in range(8)]
    time.sleep(0.3)
    go.touch()
    assert [p.wait(timeout=120) for p in procs] == [0] * 8
    ledger = Ledger(db)
    result = ledger.verify()
    assert result.ok, result.summary()
    assert result.entries == 1600
    entries = ledger.entries()
    assert [e.seq for e in entries] == list(range(1, 1601))
    assert sorted((e.body["worker"], e.body["i"]) for e in entries) == [
        (w, i) for w in range(8) for i in range(200)
    ]
    for w in range(8):  # each writer's entries keep its own order
        mine = [e.body["i"] for e in entries if e.body["worker"] == w]
        assert mine == list(range(200))


ENDLESS = textwrap.dedent(
    """
    import sys
    from puzzlekit.audit.ledger import Ledger
    ledger = Ledger(sys.argv[1])
    i = 0
    while True:
        ledger.append({"i": i, "pad": "x" * 200})
        i += 1
    """
)


def test_sigkill_while_appending_leaves_a_chain_that_verifies(db: Path) -> None:
    Ledger(db).close()
    proc = run_python(ENDLESS, db)
    deadline = time.monotonic() + 30
    reader = Ledger(db)
    while len(reader) < 300 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    result = reader.verify()
    assert result.ok, result.summary()
    assert result.entries >= 300
    seq, _ = reader.append({"after": "crash"})
    assert seq == result.entries + 1 and reader.verify().ok


HANG_BEFORE_COMMIT = textwrap.dedent(
    """
    import pathlib, sys, time
    from puzzlekit.audit.ledger import Ledger
    ledger = Ledger(sys.argv[1])
    for i in range(50):
        ledger.append({"i": i})
    def trace(statement):
        if statement.strip().upper() == "COMMIT":
            pathlib.Path(sys.argv[2]).touch()  # the entry is inserted, not yet committed
            time.sleep(600)
    ledger._connection().set_trace_callback(trace)
    ledger.append({"i": 50})
    """
)


def test_sigkill_between_insert_and_commit_leaves_no_half_entry(db: Path, tmp_path: Path) -> None:
    Ledger(db).close()
    marker = tmp_path / "inserted"
    proc = run_python(HANG_BEFORE_COMMIT, db, marker)
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert marker.exists()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    ledger = Ledger(db, timeout=5)
    result = ledger.verify()
    assert result.ok and result.entries == 50
    assert ledger.append({"i": "after"})[0] == 51
    assert ledger.verify().ok


def test_a_damaged_file_whose_error_message_is_not_utf8_is_a_ledger_error(tmp_path: Path) -> None:
    """A ledger file the fuzz run damaged: SQLite's message about it is not UTF-8."""
    path = tmp_path / "ledger.db"
    path.write_bytes((ROOT / "tests" / "data" / "ledger_bad_utf8_header.bin").read_bytes())
    with pytest.raises(LedgerError, match="cannot open .* as a SQLite database"):
        Ledger(path)
