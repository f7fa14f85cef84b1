"""Reading puzzles from files: a JSON instance, a JSON array or JSON Lines of instances (or of
``puzzlekit generate`` records and of ``verify``/``solve`` lines written ``--with-instance``,
whose ``instance`` is read), or a family's one-line text format with one puzzle per line. A
report line without its instance is an item whose violation names ``--with-instance``. A bare
line of n*n grid characters with no family given is read as a Sudoku of that size, and the item
says so (:attr:`InputItem.note`).

Bad input does not raise: each unreadable puzzle comes back as violations, so a command can report
it as INVALID_SPEC and go on with the next one. Only an unreadable file raises (``OSError``).
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any, NamedTuple

from puzzlekit.core.model import Instance, SpecError, Violation, sha256_digest
from puzzlekit.core.reading import MAX_DOCUMENT_BYTES, Line, ReadError, iter_lines, parse_json
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
    """The whole of ``path`` (``-``: stdin) as text; commands stream with :func:`open_input`."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def open_input(path: str) -> IO[bytes]:
    """``path`` (``-``: stdin) opened for reading bytes; raises OSError when it cannot be."""
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        return buffer if buffer is not None else _EncodedText(sys.stdin)
    return open(path, "rb")  # noqa: SIM115 - the caller reads it lazily and closes it


class _EncodedText(io.RawIOBase):
    """A text stream read as UTF-8 bytes, a line at a time (a stdin replaced by a StringIO)."""

    def __init__(self, text: IO[str]) -> None:
        self._text = text

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> bytes:
        return self._text.readline(size if size is not None else -1).encode(
            "utf-8", "surrogatepass"
        )

    def read1(self, size: int = -1) -> bytes:
        """One line (at most ``size`` characters): what a terminal hands out per read."""
        return self.readline(size)


def bad_line(line: Line) -> InputItem:
    """The item of a line that cannot be read (too long, not UTF-8): one ``malformed``
    violation naming the line, under the digest of its bytes."""
    v = Violation("malformed", None, f"line {line.number}", line.error or "unreadable")
    return InputItem(line.number, None, (v,), sha256_digest(line.raw))


#: the flag that makes ``verify`` and ``solve`` lines carry their input's instance
WITH_INSTANCE = "--with-instance"
#: the verdict of a ``verify`` report or a ``solve`` line; ``verdict``: solve's old name, still read
REPORT_VERDICT_KEYS = ("uniquenessVerdict", "verdict")


def report_verdict(obj: Mapping[str, Any]) -> str | None:
    """The uniqueness verdict of a ``verify`` report or a ``solve`` line under today's name
    (``uniquenessVerdict``) or solve's old one (``verdict``); None for anything else."""
    if "instanceDigest" not in obj:
        return None
    for key in REPORT_VERDICT_KEYS:
        if isinstance(obj.get(key), str):
            return obj[key]
    return None


def _from_obj(pos: int, obj: Any, raw: str) -> InputItem:
    if isinstance(obj, Mapping) and "family" not in obj:
        if "instance" in obj:  # a ``generate`` record, or a report written --with-instance
            obj = _record_instance(pos, obj)
        elif report_verdict(obj) is not None:
            obj = Violation(
                "malformed",
                None,
                "instance",
                f"line {pos} is a verify or solve report without its puzzle; write it with "
                f"{WITH_INSTANCE}",
            )
        if isinstance(obj, Violation):
            return InputItem(pos, None, (obj,), sha256_digest(raw.encode("utf-8")))
    try:
        return InputItem(pos, Instance.from_json_obj(obj))
    except SpecError as exc:
        return InputItem(pos, None, exc.violations, sha256_digest(raw.encode("utf-8")))


def _record_instance(pos: int, record: Mapping[str, Any]) -> Any:
    """The ``instance`` of a generate record or of a report written ``--with-instance``, or a
    violation when it has none (an exhausted loop, an unreadable input)."""
    inst = record["instance"]
    if inst is None:
        verdict = report_verdict(record)
        what = f"{verdict} report" if verdict else f"{record.get('status', 'unknown')} record"
        return Violation("malformed", None, f"record {pos}", f"this {what} has no instance to read")
    return inst


_GRID_CHARS = frozenset("0123456789.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def sniff_sudoku(line: str) -> int | None:
    """The size n when ``line`` is a bare Sudoku grid: n*n (n >= 4) ASCII digits, letters or
    ``.``; None otherwise."""
    n = math.isqrt(len(line))
    if n < 4 or n * n != len(line) or not set(line) <= _GRID_CHARS:
        return None
    return n


def _from_line(lineno: int, line: str, family: str | None, params: Any) -> InputItem:
    """One stripped, non-blank line: a JSON instance, or ``family``'s text format."""
    raw_digest = sha256_digest(line.encode("utf-8"))
    if line.startswith("{"):
        try:
            obj = parse_json(line)
        except ReadError as exc:
            v = Violation("malformed", None, f"line {lineno}", exc.detail)
            return InputItem(lineno, None, (v,), raw_digest)
        return _from_obj(lineno, obj, line)
    if family is None and sniff_sudoku(line) is not None:
        note = _grid_note(line)
        try:
            return InputItem(lineno, get_family("sudoku").parse_text(line), note=note)
        except SpecError as exc:
            return InputItem(lineno, None, exc.violations, raw_digest, note=note)
    if family is None:
        detail = "not a JSON instance and no family given"
        v = Violation("malformed", None, f"line {lineno}", detail)
        return InputItem(lineno, None, (v,), raw_digest)
    try:
        return InputItem(lineno, get_family(family).parse_text(line, params))
    except SpecError as exc:
        return InputItem(lineno, None, exc.violations, raw_digest)


def _tatham_item(lineno: int, line: str, family: str | None) -> InputItem:
    from puzzlekit.io.tatham import parse_line

    try:
        return InputItem(lineno, parse_line(line, family))
    except SpecError as exc:
        return InputItem(lineno, None, exc.violations, sha256_digest(line.encode("utf-8")))


def iter_tatham_items(text: str, family: str | None = None) -> Iterator[InputItem]:
    """Every Simon Tatham game ID of ``text``, one a line (see :mod:`puzzlekit.io.tatham`)."""
    return iter_stream(_as_stream(text), family, input_format="tatham")


def _as_stream(text: str) -> IO[bytes]:
    return io.BytesIO(text.encode("utf-8", "surrogatepass"))  # a lone surrogate: a bad line


def iter_items(
    text: str,
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    input_format: str = "auto",
) -> Iterator[InputItem]:
    """Every puzzle of ``text`` in input order (see :func:`iter_stream`)."""
    return iter_stream(_as_stream(text), family, params, input_format)


def _document(first: Line, lines: Iterator[Line]) -> tuple[Any, list[Line]]:
    """A JSON document that starts on ``first`` and may run over several lines: the parsed
    value (None when the lines are not one JSON document) and every line read for it."""
    buffered = [first]
    size = len(first.raw)
    for line in lines:
        buffered.append(line)
        size += len(line.raw)
        if line.text is None or size > MAX_DOCUMENT_BYTES:
            return None, buffered
    try:
        return parse_json("\n".join(line.text or "" for line in buffered)), buffered
    except ReadError:
        return None, buffered


class TextLine(NamedTuple):
    """A stripped, non-blank line that :func:`iter_entries` leaves unread: a JSON instance or a
    puzzle in a family's one-line text format. :meth:`item` reads it as :func:`iter_stream`
    does; a caller that reads many lines of one grid schema together (``puzzlekit verify``)
    reads them its own way first."""

    number: int  # 1-based line number
    text: str

    def item(self, family: str | None, params: Mapping[str, Any] | None) -> InputItem:
        """The item :func:`iter_stream` gives for this line."""
        return _from_line(self.number, self.text, family, params)

    def grid_note(self) -> str:
        """The note of a bare grid line read as a Sudoku because no family was given."""
        return _grid_note(self.text)


def _grid_note(line: str) -> str:
    return f"read as sudoku: {len(line)} grid characters and no family given"


def iter_stream(
    stream: IO[bytes],
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    input_format: str = "auto",
) -> Iterator[InputItem]:
    """Every puzzle of a binary stream in input order, each answered before the next line is
    read: JSON Lines of instances, a family's text format one puzzle a line (blank lines and
    ``#`` comments are skipped), a JSON array of instances, or one JSON instance over several
    lines. ``input_format="tatham"`` reads one Simon Tatham game ID a line instead.

    Every line passes the reading boundary (:mod:`puzzlekit.core.reading`): a line that is too
    long or not UTF-8 is an item with a violation, and reading goes on at the next line.
    """
    for entry in iter_entries(stream, family, input_format):
        yield entry.item(family, params) if type(entry) is TextLine else entry  # type: ignore[misc]


def iter_entries(
    stream: IO[bytes], family: str | None = None, input_format: str = "auto"
) -> Iterator[InputItem | TextLine]:
    """:func:`iter_stream`'s puzzles, in the same order, each line that reads on its own left
    as a :class:`TextLine` (``TextLine.item`` reads it): documents over several lines, JSON
    arrays, unreadable lines and Tatham game IDs come as items."""
    lines = _Pushback(iter_lines(stream))
    first_seen = False
    for line in lines:
        if line.text is None:
            yield bad_line(line)
            continue
        text = line.text.strip()
        if not text or text.startswith("#"):
            continue
        if input_format == "tatham":
            yield _tatham_item(line.number, text, family)
            continue
        if not first_seen and text.startswith(("{", "[")):
            first_seen = True
            whole, unused = _one_line_or_document(line, text, lines)
            lines.push(unused)
            if isinstance(whole, dict):
                yield _from_obj(line.number, whole, text)
            elif isinstance(whole, list):
                for i, obj in enumerate(whole, start=1):
                    yield _from_obj(i, obj, _raw_json(obj))
            else:
                yield TextLine(line.number, text)
            continue
        first_seen = True
        yield TextLine(line.number, text)


class _Pushback:
    """An iterator of lines that can take read lines back (to be read again first)."""

    def __init__(self, lines: Iterator[Line]) -> None:
        self._lines = lines
        self._back: list[Line] = []

    def push(self, lines: list[Line]) -> None:
        self._back = self._back + list(reversed(lines))

    def __iter__(self) -> Iterator[Line]:
        return self

    def __next__(self) -> Line:
        if self._back:
            return self._back.pop()
        return next(self._lines)


def _one_line_or_document(line: Line, text: str, lines: Iterator[Line]) -> tuple[Any, list[Line]]:
    """The first JSON line: parsed alone when it is whole (nothing more is read), else the
    document it starts (the lines read for it come back to be read as lines if it is none)."""
    try:
        return parse_json(text), []
    except ReadError:
        pass
    whole, buffered = _document(line, lines)
    if whole is None:
        return None, buffered[1:]
    return whole, []


def _raw_json(obj: Any) -> str:
    try:
        return json.dumps(obj, sort_keys=True, default=repr)
    except (ValueError, TypeError):
        return repr(obj)
