"""A hash-chained, append-only ledger in SQLite, for auditing escalations and decisions later.

Each entry is ``(seq, prev_hash, entry_hash, body)`` with ``entry_hash = "sha256:" +
sha256(RFC 8785 canonical JSON of {"v": 1, "seq": seq, "prev": prev_hash, "body": body})`` and
``prev_hash`` the hash of the entry before (:data:`GENESIS` for seq 1). The table declares
``UNIQUE(prev_hash)`` and ``UNIQUE(entry_hash)``, so two writers can never both extend the same
head; every append runs inside ``BEGIN IMMEDIATE``; the database runs in WAL mode with
``synchronous=FULL``, so a committed entry survives a crash and a killed writer leaves no half
entry.

Bodies are JSON objects without floats: a float's text differs between languages and
libraries, and a hash over it would not be reproducible. Record times as integers (milliseconds)
or strings.

:meth:`Ledger.verify` finds an edited, deleted or swapped entry and names its seq. A truncated
tail, or a rewrite that recomputes every hash after the change, yields a chain that is valid on
its own; only a :class:`Checkpoint` ``(seq, entry_hash)`` kept elsewhere exposes it. Hence
checkpoints are exported to files, and every escalation payload carries one.

A :class:`Ledger` is callable: ``ledger(body)`` appends, so it serves as the ``ledger_anchor_fn``
of :func:`puzzlekit.audit.stopping.escalate`. This module does not know what the bodies mean.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import rfc8785

from puzzlekit.audit.checkpoint import (  # noqa: F401  (importable from here, as before)
    CHECKPOINT_FORMAT,
    FORMAT_VERSION,
    GENESIS,
    MAX_CHECKPOINT_BYTES,
    Checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from puzzlekit.core.jsondata import plain
from puzzlekit.core.reading import MAX_DEPTH, ReadError, faults, parse_json

_MAX_SAFE_INT = 2**53 - 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger_entries (
    seq        INTEGER PRIMARY KEY CHECK (seq >= 1),
    prev_hash  TEXT NOT NULL UNIQUE,
    entry_hash TEXT NOT NULL UNIQUE,
    body       TEXT NOT NULL
);
"""


def _lenient_text(data: bytes) -> str:
    """SQLite text as ``str``: UTF-8, with bytes that are not kept as lone surrogates."""
    return data.decode("utf-8", "surrogateescape")


class LedgerError(Exception):
    """The ledger cannot be opened or written as asked."""


class BodyError(LedgerError, ValueError):
    """A body that cannot be hashed reproducibly: not a JSON object, or holding a float."""


@dataclass(frozen=True)
class Entry:
    """One stored entry, as read back."""

    seq: int
    prev_hash: str
    entry_hash: str
    body: Any  # None when the stored text cannot be read (``body_error`` says why)
    body_error: str | None = None


@dataclass(frozen=True)
class Verification:
    """The result of :meth:`Ledger.verify`.

    ``problem`` is a stable code (``missing-entry``, ``prev-mismatch``, ``hash-mismatch``,
    ``unreadable-body``, ``float-in-body``, ``checkpoint-beyond-head``, ``checkpoint-mismatch``,
    ``foreign-object``: a trigger or view in the database, which the ledger never creates)
    and ``detail`` says it in words; ``first_bad_seq`` is the first seq that is wrong or missing.
    """

    ok: bool
    entries: int
    head: Checkpoint
    first_bad_seq: int | None = None
    problem: str | None = None
    detail: str = ""

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "entries": self.entries,
            "head": {"seq": self.head.seq, "entry_hash": self.head.entry_hash},
            "first_bad_seq": self.first_bad_seq,
            "problem": self.problem,
            "detail": self.detail,
        }

    def summary(self) -> str:
        if self.ok:
            return f"ok: {self.entries} entries, head seq {self.head.seq} {self.head.entry_hash}"
        return f"broken at seq {self.first_bad_seq}: {self.problem}: {self.detail}"


# --- hashing --------------------------------------------------------------------------------


def _check_json(value: Any, where: str, depth: int = 0) -> None:
    """Raise :class:`BodyError` naming where ``value`` is not float-free JSON data."""
    if value is None or isinstance(value, bool | str):
        return
    if depth > MAX_DEPTH:
        raise BodyError(f"{where} is nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, int):
        if abs(value) > _MAX_SAFE_INT:
            raise BodyError(
                f"{where} = {value} lies outside the exact JSON integer range (|n| <= 2**53 - 1); "
                "record it as a string"
            )
        return
    if isinstance(value, float):
        raise BodyError(
            f"ledger bodies must not hold floats: {where} = {value!r}; record it as an integer "
            "(for example milliseconds) or as a string"
        )
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise BodyError(f"{where} has the key {key!r}; JSON object keys are strings")
            _check_json(item, f"{where}.{key}", depth + 1)
        return
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_json(item, f"{where}[{i}]", depth + 1)
        return
    raise BodyError(f"{where} is a {type(value).__name__}, which is not JSON data")


def normalize_body(body: Any) -> dict[str, Any]:
    """``body`` as plain JSON data; raises :class:`BodyError` if it is not a float-free object."""
    if not isinstance(body, Mapping):
        raise BodyError(f"a ledger body must be a JSON object, got {type(body).__name__}")
    _check_json(body, "$")
    found = faults(body)  # what remains: strings that are not valid Unicode
    if found:
        raise BodyError(f"{found[0].path}: {found[0].detail}")
    return plain(body)


def compute_entry_hash(seq: int, prev_hash: str, body: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` over the canonical JSON of ``{v, seq, prev, body}``."""
    material = {"v": FORMAT_VERSION, "seq": seq, "prev": prev_hash, "body": body}
    return "sha256:" + hashlib.sha256(rfc8785.dumps(material)).hexdigest()


def read_body(text: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A stored body read back through the reading boundary: ``(body, None)``, or ``(None,
    why)`` when it is not JSON, nests too deeply, holds what canonical JSON cannot, or is not an
    object (appends refuse non-objects, so a stored one was put there by hand)."""
    try:
        body = parse_json(text if isinstance(text, str | bytes) else str(text), "body")
    except ReadError as exc:
        return None, f"body {exc.detail}"
    found = faults(body, "$")
    if found:
        return None, f"body at {found[0].path}: {found[0].detail}"
    if not isinstance(body, dict):
        return None, f"body is a JSON {type(body).__name__}, not an object"
    return body, None


def _find_float(value: Any, where: str = "$") -> str | None:
    if isinstance(value, float):
        return where
    if isinstance(value, dict):
        for key, item in value.items():
            found = _find_float(item, f"{where}.{key}")
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _find_float(item, f"{where}[{i}]")
            if found:
                return found
    return None


# --- the ledger -----------------------------------------------------------------------------


def _planted(conn: sqlite3.Connection) -> str | None:
    """What a trigger or view in the database is (the ledger and the escalation queues create
    neither: one planted there can change entries as they are written or read), or None."""
    found = conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY type, name"
    ).fetchone()
    if found is None:
        return None
    return (
        f"the database holds a {found[0]} {found[1]!r} the ledger did not create: it can change "
        "entries as they are written or read"
    )


class Ledger:
    """The ledger stored in the SQLite database at ``path`` (created unless ``create=False``).

    Other tables may share the database (the escalation queues do); a write that must commit
    together with its ledger entry runs in :meth:`transaction` and appends with
    :meth:`append_in`. Safe across processes and threads; each process opens its own connection.
    ``readonly=True`` (audits: verify, show) opens an existing database with SQLite's
    ``mode=ro`` and changes nothing, not even the journal mode: the file's bytes stay as they are.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        timeout: float = 60.0,
        readonly: bool = False,
    ) -> None:
        self.path = Path(path)
        self.timeout = float(timeout)
        self.readonly = readonly
        create = create and not readonly
        if not create and not self.path.is_file():
            raise FileNotFoundError(f"no ledger database at {self.path}")
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        conn = self._connection()
        if create:
            with self.transaction() as tx:
                tx.execute(_SCHEMA)
        else:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_entries'"
            ).fetchone()
            if found is None:
                raise LedgerError(f"{self.path} holds no ledger (no ledger_entries table)")

    # -- connection ---------------------------------------------------------------------------
    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            # A connection inherited across fork is left alone, not closed: closing it could
            # drop locks the parent still holds.
            try:
                conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro" if self.readonly else self.path,
                    timeout=self.timeout,
                    isolation_level=None,
                    check_same_thread=False,
                    uri=self.readonly,
                )
                # text that is not UTF-8 (a flipped byte) is read, not raised mid-walk: its
                # undecodable bytes become lone surrogates, which no body or hash may hold, so
                # verify names the entry (unreadable-body, prev- or hash-mismatch)
                conn.text_factory = _lenient_text
                if not self.readonly:
                    self._set_wal(conn)
                    conn.execute("PRAGMA synchronous=FULL")
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # a damaged file's message
                raise LedgerError(f"cannot open {self.path} as a SQLite database: {exc}") from None
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def _set_wal(self, conn: sqlite3.Connection) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:  # another process is switching it right now
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        if str(mode).lower() != "wal":
            raise LedgerError(f"{self.path}: cannot switch to WAL mode (journal_mode={mode})")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``): committed on success, rolled back on error."""
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent view of the database, taking no write lock."""
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    # -- writing ------------------------------------------------------------------------------
    def append(self, body: Mapping[str, Any]) -> tuple[int, str]:
        """Append ``body`` (a float-free JSON object); returns ``(seq, entry_hash)``."""
        plain = normalize_body(body)
        with self.transaction() as tx:
            return self._append_plain(tx, plain)

    __call__ = append

    def append_in(self, tx: sqlite3.Connection, body: Mapping[str, Any]) -> tuple[int, str]:
        """Append inside a transaction opened by :meth:`transaction` (commits with it)."""
        if not tx.in_transaction:
            raise LedgerError("append_in needs an open transaction; use Ledger.transaction()")
        return self._append_plain(tx, normalize_body(body))

    def _append_plain(self, tx: sqlite3.Connection, body: dict[str, Any]) -> tuple[int, str]:
        row = tx.execute(
            "SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        seq, prev = (row[0] + 1, row[1]) if row else (1, GENESIS)
        entry_hash = compute_entry_hash(seq, prev, body)
        tx.execute(
            "INSERT INTO ledger_entries (seq, prev_hash, entry_hash, body) VALUES (?, ?, ?, ?)",
            (seq, prev, entry_hash, rfc8785.dumps(body).decode("utf-8")),
        )
        return seq, entry_hash

    # -- reading ------------------------------------------------------------------------------
    def checkpoint(self) -> Checkpoint:
        """The head of the chain as a checkpoint; ``(0, GENESIS)`` when empty."""
        with self.snapshot() as conn:
            row = conn.execute(
                "SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        return Checkpoint(row[0], row[1]) if row else Checkpoint(0, GENESIS)

    def export_checkpoint(self, path: str | os.PathLike[str]) -> Checkpoint:
        """Write the current head to a checkpoint file (keep it somewhere else) and return it."""
        cp = self.checkpoint()
        write_checkpoint(path, cp, ledger=str(self.path), exported_at=datetime.now(UTC).isoformat())
        return cp

    def __len__(self) -> int:
        with self.snapshot() as conn:
            return conn.execute("SELECT COUNT(*) FROM ledger_entries").fetchone()[0]

    def entries(self, start: int = 1, stop: int | None = None) -> list[Entry]:
        """Stored entries with ``start <= seq`` (and ``seq < stop``), in order, as stored."""
        with self.snapshot() as conn:
            rows = conn.execute(
                "SELECT seq, prev_hash, entry_hash, body FROM ledger_entries "
                "WHERE seq >= ? AND seq < ? ORDER BY seq",
                (start, stop if stop is not None else 2**62),
            ).fetchall()
        return [Entry(s, p, h, *read_body(b)) for s, p, h, b in rows]

    def verify(self, checkpoint: Checkpoint | None = None) -> Verification:
        """Walk the chain from seq 1; report the first seq that is missing or wrong, and what.

        With ``checkpoint``, also require the chain to reach its seq with its hash: this exposes
        a truncated tail and a rewrite whose hashes were recomputed.
        """
        expected, prev, count = 1, GENESIS, 0
        head = Checkpoint(0, GENESIS)

        def broken(seq: int, problem: str, detail: str) -> Verification:
            return Verification(False, count, head, seq, problem, detail)

        with self.snapshot() as conn:
            planted = _planted(conn)
            if planted is not None:
                return broken(0, "foreign-object", planted)
            cursor = conn.execute(
                "SELECT seq, prev_hash, entry_hash, body FROM ledger_entries ORDER BY seq"
            )
            for seq, prev_hash, entry_hash, body_text in cursor:
                if seq != expected:
                    return broken(
                        expected,
                        "missing-entry",
                        f"entry {expected} is missing: the entry after {expected - 1} is {seq}",
                    )
                if prev_hash != prev:
                    return broken(
                        seq,
                        "prev-mismatch",
                        f"prev_hash {prev_hash} is not the hash of entry {seq - 1} ({prev}): "
                        "an entry was removed, moved or rewritten here",
                    )
                body, why = read_body(body_text)
                if body is None:
                    return broken(seq, "unreadable-body", str(why))
                try:
                    actual = compute_entry_hash(seq, prev_hash, body)
                except (ValueError, TypeError) as exc:
                    return broken(seq, "unreadable-body", f"body cannot be canonicalized: {exc}")
                if actual != entry_hash:
                    return broken(
                        seq,
                        "hash-mismatch",
                        f"stored entry_hash {entry_hash} but the content hashes to {actual}: "
                        "the entry was edited",
                    )
                where = _find_float(body)
                if where is not None:
                    return broken(seq, "float-in-body", f"the body holds a float at {where}")
                count += 1
                head = Checkpoint(seq, entry_hash)
                expected, prev = seq + 1, entry_hash
            if checkpoint is not None and checkpoint.seq == 0 and checkpoint.entry_hash != GENESIS:
                return broken(0, "checkpoint-mismatch", "a seq-0 checkpoint must hold GENESIS")
            if checkpoint is not None and checkpoint.seq > 0:
                if checkpoint.seq > head.seq:
                    return broken(
                        head.seq + 1,
                        "checkpoint-beyond-head",
                        f"the chain ends at seq {head.seq} but the checkpoint names seq "
                        f"{checkpoint.seq}: entries were truncated",
                    )
                row = conn.execute(
                    "SELECT entry_hash FROM ledger_entries WHERE seq = ?", (checkpoint.seq,)
                ).fetchone()
                if row[0] != checkpoint.entry_hash:
                    return broken(
                        checkpoint.seq,
                        "checkpoint-mismatch",
                        f"entry {checkpoint.seq} hashes to {row[0]}, the checkpoint holds "
                        f"{checkpoint.entry_hash}: the chain up to here was rewritten",
                    )
        return Verification(True, count, head)
