"""Reading puzzles from files: a JSON instance, a JSON array or JSON Lines of instances (or of
``puzzlekit generate`` records, whose ``instance`` is read), or a family's one-line text format
with one puzzle per line. A bare line of n*n grid characters with no family given is read as a
Sudoku of that size, and the item says so (:attr:`InputItem.note`).

Bad input does not raise: each unreadable puzzle comes back as violations, so a command can report
it as INVALID_SPEC and go on with the next one. Only an unreadable file raises (``OSError``).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from puzzlekit.core.model import Instance, SpecError, Violation, sha256_digest
from puzzlekit.families import get_family


@dataclass(frozen=True)
class InputItem:
    """One puzzle read from input: an instance, or the violations and the digest of its text."""

    position: int  # 1-based line number (or index in a JSON array)
    instance: Instance | None
    violations: tuple[Violation, ...] = ()
    raw_digest: str = ""
    note: str = ""  # how the input was understood when that was a guess (for diagnostics)

    @property
    def digest(self) -> str:
        return self.instance.digest if self.instance is not None else self.raw_digest


def read_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _from_obj(pos: int, obj: Any, raw: str) -> InputItem:
    if isinstance(obj, Mapping) and "family" not in obj and "instance" in obj:
        obj = _record_instance(pos, obj)  # a ``puzzlekit generate`` record
        if isinstance(obj, Violation):
            return InputItem(pos, None, (obj,), sha256_digest(raw.encode("utf-8")))
    try:
        return InputItem(pos, Instance.from_json_obj(obj))
    except SpecError as exc:
        return InputItem(pos, None, exc.violations, sha256_digest(raw.encode("utf-8")))


def _record_instance(pos: int, record: Mapping[str, Any]) -> Any:
    """The ``instance`` of a generate record, or a violation when the record has none."""
    inst = record["instance"]
    if inst is None:
        status = record.get("status", "unknown")
        return Violation(
            "malformed", None, f"record {pos}", f"a {status} record has no instance to read"
        )
    return inst


def sniff_sudoku(line: str) -> int | None:
    """The size n when ``line`` is a bare Sudoku grid: n*n (n >= 4) digits, letters, ``.`` or
    ``0``; None otherwise."""
    n = math.isqrt(len(line))
    if n < 4 or n * n != len(line):
        return None
    if not all(ch.isalnum() or ch == "." for ch in line):
        return None
    return n


def iter_tatham_items(text: str, family: str | None = None) -> Iterator[InputItem]:
    """Every Simon Tatham game ID of ``text``, one a line (see :mod:`puzzlekit.io.tatham`)."""
    from puzzlekit.io.tatham import parse_line

    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            yield InputItem(lineno, parse_line(line, family))
        except SpecError as exc:
            yield InputItem(lineno, None, exc.violations, sha256_digest(line.encode("utf-8")))


def iter_items(
    text: str,
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    input_format: str = "auto",
) -> Iterator[InputItem]:
    """Every puzzle of ``text`` in input order (blank lines and ``#`` comments are skipped).

    ``input_format="tatham"`` reads one Simon Tatham game ID a line instead.
    """
    if input_format == "tatham":
        yield from iter_tatham_items(text, family)
        return
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            whole = json.loads(stripped)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, dict):
            yield _from_obj(1, whole, stripped)
            return
        if isinstance(whole, list):
            for i, obj in enumerate(whole, start=1):
                yield _from_obj(i, obj, json.dumps(obj, sort_keys=True))
            return
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        raw_digest = sha256_digest(line.encode("utf-8"))
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                v = Violation("malformed", None, f"line {lineno}", f"not JSON: {exc.msg}")
                yield InputItem(lineno, None, (v,), raw_digest)
                continue
            yield _from_obj(lineno, obj, line)
            continue
        if family is None and sniff_sudoku(line) is not None:
            note = f"read as sudoku: {len(line)} grid characters and no family given"
            try:
                yield InputItem(lineno, get_family("sudoku").parse_text(line), note=note)
            except SpecError as exc:
                yield InputItem(lineno, None, exc.violations, raw_digest, note=note)
            continue
        if family is None:
            v = Violation(
                "malformed", None, f"line {lineno}", "not a JSON instance and no family given"
            )
            yield InputItem(lineno, None, (v,), raw_digest)
            continue
        try:
            yield InputItem(lineno, get_family(family).parse_text(line, params))
        except SpecError as exc:
            yield InputItem(lineno, None, exc.violations, raw_digest)
