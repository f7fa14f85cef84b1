"""Escalation chains: every escalation anchored in a ledger records the ledger entry hash of the
previous escalation of the same sequence id, so the escalations of one sequence form a chain of
their own inside the ledger's chain, and :func:`walk_chain` follows it back.

:class:`EscalationChain` is the anchor function that does this (``escalate`` wraps a
:class:`~puzzlekit.audit.ledger.Ledger` in one, :func:`chain_anchor`): inside one ``BEGIN
IMMEDIATE`` transaction it looks up the sequence's last escalation, writes its hash into the new
body as :data:`PREVIOUS_KEY` (``None`` for the first one, and for a body without a sequence id)
and appends. The lookup reads a small table of chain heads kept beside the ledger
(``escalation_heads``); it is only an index, filled from the entries themselves when it is
created, and the chain's truth is the hashed bodies: :func:`walk_chain` reads only those.

Not for deciding or acting on escalations (:mod:`puzzlekit.audit.stopping`,
:mod:`puzzlekit.audit.escalation.targets`), nor for the ledger's own hash chain
(:meth:`~puzzlekit.audit.ledger.Ledger.verify`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from puzzlekit.audit.ledger import Entry, Ledger, read_body

__all__ = [
    "PREVIOUS_KEY",
    "Chain",
    "EscalationChain",
    "chain_anchor",
    "walk_chain",
]

#: the key of an escalation body that holds the previous escalation's entry hash
PREVIOUS_KEY = "previous_escalation_hash"

_HEADS = """
CREATE TABLE IF NOT EXISTS escalation_heads (
    sequence_id TEXT PRIMARY KEY,
    seq         INTEGER NOT NULL,
    entry_hash  TEXT NOT NULL
)
"""

_ESCALATIONS = (
    "SELECT seq, prev_hash, entry_hash, body FROM ledger_entries "
    "WHERE json_extract(body, '$.type') = 'escalation' {where} ORDER BY seq"
)


def _heads_ready(tx: sqlite3.Connection) -> None:
    """Create the heads table when it is missing, filled from the escalations already stored."""
    found = tx.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'escalation_heads'"
    ).fetchone()
    if found:
        return
    tx.execute(_HEADS)
    rows = tx.execute(
        _ESCALATIONS.format(where="AND json_extract(body, '$.sequence_id') IS NOT NULL")
    ).fetchall()
    for seq, _, entry_hash, text in rows:
        body, _why = read_body(text)
        if body is not None and isinstance(body.get("sequence_id"), str):
            _set_head(tx, body["sequence_id"], seq, entry_hash)


def _set_head(tx: sqlite3.Connection, sequence_id: str, seq: int, entry_hash: str) -> None:
    tx.execute(
        "INSERT INTO escalation_heads (sequence_id, seq, entry_hash) VALUES (?, ?, ?) "
        "ON CONFLICT(sequence_id) DO UPDATE SET seq = excluded.seq, "
        "entry_hash = excluded.entry_hash",
        (sequence_id, seq, entry_hash),
    )


class EscalationChain:
    """An anchor function that appends escalation bodies to ``ledger``, each linked to the
    previous escalation of its sequence id (:data:`PREVIOUS_KEY`). Returns ``(seq,
    entry_hash)`` as :meth:`Ledger.append` does."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def __call__(self, body: Mapping[str, Any]) -> tuple[int, str]:
        sequence_id = body.get("sequence_id")
        with self.ledger.transaction() as tx:
            _heads_ready(tx)
            previous = None
            if isinstance(sequence_id, str):
                row = tx.execute(
                    "SELECT entry_hash FROM escalation_heads WHERE sequence_id = ?", (sequence_id,)
                ).fetchone()
                previous = row[0] if row else None
            seq, entry_hash = self.ledger.append_in(tx, {**body, PREVIOUS_KEY: previous})
            if isinstance(sequence_id, str):
                _set_head(tx, sequence_id, seq, entry_hash)
        return seq, entry_hash


def chain_anchor(fn: Callable[[Mapping[str, Any]], Any] | None) -> Any:
    """``fn`` as the anchor function ``escalate`` calls: a bare :class:`Ledger` becomes an
    :class:`EscalationChain` on it, anything else is used as given."""
    return EscalationChain(fn) if isinstance(fn, Ledger) else fn


@dataclass(frozen=True)
class Chain:
    """The escalations of one sequence id, oldest first, as their links name them.

    ``problems`` is empty when the links form one unbroken chain from the newest escalation back
    to the first, passing every escalation of the sequence; otherwise each problem says which
    entry breaks it. ``unlinked`` counts entries written before escalations were chained (no
    :data:`PREVIOUS_KEY`), where the walk stops.
    """

    sequence_id: str
    entries: tuple[Entry, ...]
    problems: tuple[str, ...] = field(default=())
    unlinked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def _walk(sequence_id: str, found: list[Entry]) -> Chain:
    by_hash = {e.entry_hash: e for e in found}
    walked: list[Entry] = []
    problems: list[str] = []
    unlinked = 0
    entry: Entry | None = found[-1]
    while entry is not None:
        walked.append(entry)
        if PREVIOUS_KEY not in entry.body:
            unlinked = 1
            break
        previous = entry.body[PREVIOUS_KEY]
        if previous is None:
            break
        nxt = by_hash.get(previous)
        if nxt is None or nxt.seq >= entry.seq:
            problems.append(
                f"entry {entry.seq} names {previous} as the previous escalation, which is no "
                f"earlier escalation of {sequence_id!r}"
            )
            break
        entry = nxt
    seen = {e.seq for e in walked}
    older_than_chains = walked[-1].seq if unlinked else 0
    for e in found:
        if e.seq not in seen and e.seq > older_than_chains:
            problems.append(f"the escalation at entry {e.seq} is not on the chain")
    return Chain(sequence_id, tuple(reversed(walked)), tuple(problems), unlinked)


def walk_chain(ledger: Ledger, sequence_id: str) -> Chain:
    """Follow the escalation chain of ``sequence_id`` from its newest escalation back to the
    first, reading only the hashed entries (a read-only ledger will do)."""
    with ledger.snapshot() as conn:
        rows = conn.execute(
            _ESCALATIONS.format(where="AND json_extract(body, '$.sequence_id') = ?"),
            (sequence_id,),
        ).fetchall()
    found = []
    for seq, prev_hash, entry_hash, text in rows:
        body, why = read_body(text)
        if body is not None and body.get("sequence_id") == sequence_id:
            found.append(Entry(seq, prev_hash, entry_hash, body, why))
    if not found:
        return Chain(sequence_id, ())
    return _walk(sequence_id, found)
