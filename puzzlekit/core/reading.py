"""The reading boundary: every byte that comes from outside (files, stdin, text formats, game IDs,
MCP arguments, review kernel requests and policies, ledger bodies) is read through this module.

What it guarantees of anything it lets through: nesting at most :data:`MAX_DEPTH` levels,
integers within ±(2**53 - 1) (what RFC 8785 canonical JSON can hold, so digests never fail),
finite numbers only (NaN and Infinity refused), strings of valid Unicode (no lone surrogates),
mapping keys that are strings, and lines of at most :data:`MAX_LINE_BYTES` bytes of UTF-8. Digits
are ASCII digits where a format says digits (:func:`ascii_int`): ``str.isdigit()`` also accepts
``²``, ``٣`` and ``３``, which ``int()`` either refuses or silently reads.

How failures come back: :class:`ReadError` carries the JSON path of the fault (``$`` is the
whole document, ``clues[3].data.value`` a member) and a sentence; :func:`faults` lists every
fault of a parsed value without raising, so :mod:`puzzlekit.core.model` can turn them into
``INVALID_SPEC`` violations with the clue's coordinate. :func:`parse_json` leaves an
:class:`Unreadable` leaf where a number cannot be held, so the fault is reported at its path.

Files that are read whole (configs, policies, requests, checkpoints, run-directory files) come
through :func:`read_file_bytes`, :func:`read_file_text`, :func:`load_json_file` and
:func:`load_toml_file`: size bounded (``/dev/zero`` is refused after :data:`MAX_FILE_BYTES`, not
read into memory), UTF-8 with a leading byte-order mark skipped, then the bounds above.

Not for: what a family or the review kernel accepts (their schemas say that); streams of
puzzles (the callers open them and pass binary streams to :func:`iter_lines`).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

#: nesting levels of arrays and objects accepted anywhere (an instance needs about six)
MAX_DEPTH = 64
#: the largest integer magnitude accepted: what RFC 8785 (I-JSON) holds exactly
MAX_SAFE_INT = 2**53 - 1
#: one input line (one puzzle, one game ID) at most this many bytes
MAX_LINE_BYTES = 4 * 1024 * 1024
#: a whole JSON document spread over several lines (a pretty-printed instance or array)
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
#: a file read whole (a config, a policy, a checkpoint, a manifest) at most this many bytes
MAX_FILE_BYTES = 64 * 1024 * 1024
#: digits read by :func:`ascii_int` at most (larger numbers are never a size, value or sum)
MAX_DIGITS = 15

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
#: every ASCII character but a bracket deleted (``str.translate``)
_ONLY_BRACKETS = dict.fromkeys(i for i in range(128) if chr(i) not in "[]{}")
_ASCII_DIGITS = re.compile(r"[0-9]+")


class ReadError(ValueError):
    """Input that cannot be read: ``field`` is where (a JSON path or a format's field name),
    ``detail`` what is wrong, ``coord`` the grid coordinate when there is one."""

    def __init__(self, field: str, detail: str, coord: tuple | None = None) -> None:
        super().__init__(f"{field}: {detail}")
        self.field = field
        self.detail = detail
        self.coord = coord


@dataclass(frozen=True)
class Unreadable:
    """A JSON number that cannot be held (NaN, Infinity, beyond ±2**53), left by
    :func:`parse_json` in place of the value so that :func:`faults` reports it at its path."""

    text: str
    why: str


@dataclass(frozen=True)
class Fault:
    """One thing wrong inside a parsed value: its path and a sentence."""

    path: str
    detail: str


# --- JSON ----------------------------------------------------------------------------------------


def _short(text: str, n: int = 24) -> str:
    return text if len(text) <= n else f"{text[:n]}... ({len(text)} characters)"


def _parse_int(text: str) -> int | Unreadable:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS + 1:
        return Unreadable(_short(text), f"an integer of {digits} digits, beyond ±(2**53 - 1)")
    value = int(text)
    if abs(value) > MAX_SAFE_INT:
        return Unreadable(text, "an integer beyond ±(2**53 - 1), which canonical JSON cannot hold")
    return value


def _parse_float(text: str) -> float | Unreadable:
    value = float(text)
    if not math.isfinite(value):
        return Unreadable(_short(text), "a number too large to be finite")
    return value


def _parse_constant(text: str) -> Unreadable:
    return Unreadable(text, f"{text} is not a JSON number (only finite numbers are)")


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """How deeply arrays and objects nest in JSON ``text`` (strings skipped), counted up to the
    first level beyond ``limit``: enough to refuse a document before :func:`json.loads` recurses."""
    if text.count("[") + text.count("{") <= limit:
        return min(text.count("[") + text.count("{"), limit)
    if len(text) <= 1 << 16 and "\\" not in text:
        # no escapes: strings are the pieces between pairs of quotes (an unpaired last quote
        # opens none, as for _STRING); the same count at C speed
        pieces = text.split('"')
        outside = pieces[0::2] if len(pieces) % 2 else [*pieces[0::2], pieces[-1]]
        brackets = "".join(outside).translate(_ONLY_BRACKETS)
        if brackets.isascii():
            steps = map(_DEPTH_STEP.__getitem__, brackets)
            return min(max(0, max(itertools.accumulate(steps), default=0)), limit + 1)
    depth = deepest = 0
    for m in _BRACKETS.finditer(_STRING.sub("", text)):
        depth += 1 if m.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                break
    return deepest


def nesting_depth_of(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply lists, tuples and mappings nest in ``value``, counted up to ``limit + 1``
    (so a value nested thousands deep is measured without recursing that far)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_json(text: str | bytes, field: str = "$") -> Any:
    """``text`` parsed as JSON, nesting bounded; a number that cannot be held is left as an
    :class:`Unreadable` leaf (see :func:`faults`). Raises :class:`ReadError` when ``text`` is
    not JSON, not UTF-8, or nested deeper than :data:`MAX_DEPTH`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReadError(field, f"not UTF-8 (byte {exc.start})") from None
    if nesting_depth(text) > MAX_DEPTH:
        raise ReadError(field, f"nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except json.JSONDecodeError as exc:
        raise ReadError(
            field, f"not JSON: {exc.msg} (line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:  # a stack smaller than MAX_DEPTH needs: still an answer
        raise ReadError(field, f"nested deeper than {MAX_DEPTH} levels") from None


def _key_path(path: str, key: str) -> str:
    if key.isidentifier():
        return key if path == "$" else f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=True)}]"


def valid_unicode(text: str) -> bool:
    """True when ``text`` holds no lone surrogate (so it can be written as UTF-8)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def faults(value: Any, path: str = "$", *, limit: int = 1, depth: int = 0) -> list[Fault]:
    """Up to ``limit`` faults of a parsed JSON value (see the module docstring for what counts),
    without raising and without recursing past :data:`MAX_DEPTH`."""
    out: list[Fault] = []
    _walk(value, path, depth, out, limit)
    return out


def _walk(value: Any, path: str, depth: int, out: list[Fault], limit: int) -> None:
    if len(out) >= limit:
        return
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INT:
            out.append(Fault(path, "an integer beyond ±(2**53 - 1)"))
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            out.append(Fault(path, f"{value} is not a finite number"))
        return
    if isinstance(value, str):
        if not valid_unicode(value):
            out.append(Fault(path, "a string with a lone surrogate (not valid Unicode)"))
        return
    if isinstance(value, Unreadable):
        out.append(Fault(path, f"{value.text}: {value.why}"))
        return
    if depth >= MAX_DEPTH and isinstance(value, Mapping | list | tuple):
        out.append(Fault(path, f"nested deeper than {MAX_DEPTH} levels"))
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                out.append(Fault(path, f"a key that is not a string: {key!r}"))
            elif not valid_unicode(key):
                out.append(Fault(path, "a key with a lone surrogate (not valid Unicode)"))
            else:
                _walk(item, _key_path(path, key), depth + 1, out, limit)
            if len(out) >= limit:
                return
        return
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _walk(item, f"{path}[{i}]", depth + 1, out, limit)
            if len(out) >= limit:
                return
        return
    out.append(Fault(path, f"not JSON data ({type(value).__name__})"))


def check(value: Any, field: str = "$") -> Any:
    """``value`` itself when it is plain JSON data within the module's bounds; else
    :class:`ReadError` at the first fault (for values parsed elsewhere, such as MCP arguments)."""
    found = faults(value, field)
    if found:
        raise ReadError(found[0].path, found[0].detail)
    return value


def loads(text: str | bytes, field: str = "$") -> Any:
    """:func:`parse_json` then :func:`check`: plain JSON data, or :class:`ReadError`."""
    return check(parse_json(text, field), field)


# --- whole files -------------------------------------------------------------------------------


def read_file_bytes(path: Any, limit: int | None = None) -> bytes:
    """The bytes of the file at ``path``, at most ``limit`` (default :data:`MAX_FILE_BYTES`);
    :class:`ReadError` when it holds more (an endless device included) and ``OSError`` when it
    cannot be opened (callers name the file)."""
    limit = limit or MAX_FILE_BYTES
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ReadError("$", f"larger than {limit} bytes")
    return data


def read_file_text(path: Any, limit: int | None = None) -> str:
    """:func:`read_file_bytes` decoded as UTF-8 (a leading byte-order mark skipped); a file in
    another encoding (UTF-16, Latin-1) is :class:`ReadError` naming the first bad byte."""
    data = read_file_bytes(path, limit)
    if data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff"):
        raise ReadError("$", "UTF-16, not UTF-8 (save the file as UTF-8)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReadError("$", f"not UTF-8 (byte {exc.start})") from None
    if not valid_unicode(text):
        raise ReadError("$", "a lone surrogate (not valid Unicode)")
    return text


def load_json_file(path: Any, limit: int | None = None) -> Any:
    """The JSON document in the file at ``path``, read through :func:`loads`."""
    return loads(read_file_text(path, limit))


def load_toml_file(path: Any, limit: int | None = None) -> dict[str, Any]:
    """The TOML document in the file at ``path``: size, encoding and nesting bounded, its
    integers within ±(2**53 - 1); :class:`ReadError` otherwise (``field`` a key path)."""
    return loads_toml(read_file_text(path, limit))


#: the digits Python reads of an integer literal (its ``int_max_str_digits``)
_INT_DIGITS = sys.get_int_max_str_digits()


def loads_toml(text: str) -> dict[str, Any]:
    """``text`` parsed as TOML, nesting bounded before the parser recurses, then checked like
    JSON data (see :func:`check`; TOML dates and times are refused: no config needs one)."""
    import tomllib

    if nesting_depth(text) > MAX_DEPTH:
        raise ReadError("$", f"nested deeper than {MAX_DEPTH} levels")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ReadError("$", f"not TOML: {exc}") from None
    except ValueError:  # the only other one tomllib lets out: int() of a too long literal
        raise ReadError("$", f"not TOML: an integer of more than {_INT_DIGITS} digits") from None
    except RecursionError:
        raise ReadError("$", f"nested deeper than {MAX_DEPTH} levels") from None
    return check(data)


# --- text formats ----------------------------------------------------------------------------


def is_digits(text: str) -> bool:
    """True when ``text`` is one or more ASCII digits ``0-9`` (never ``²``, ``٣`` or ``３``)."""
    return _ASCII_DIGITS.fullmatch(text) is not None


def ascii_int(
    text: str,
    field: str,
    lo: int | None = None,
    hi: int | None = None,
    coord: tuple | None = None,
) -> int:
    """The ASCII-digit integer ``text`` (in ``lo..hi`` when given); :class:`ReadError` naming
    ``field`` (and ``coord``) otherwise. Never calls ``int()`` on anything but ASCII digits."""
    if not is_digits(text):
        raise ReadError(field, f"expected digits 0-9, got {_short(text)!r}", coord)
    if len(text) > MAX_DIGITS:
        raise ReadError(field, f"a number of {len(text)} digits is too large", coord)
    value = int(text)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"{lo if lo is not None else ''}..{hi if hi is not None else ''}"
        raise ReadError(field, f"{value} is not in {span}", coord)
    return value


def leading_digits(text: str, start: int = 0) -> str:
    """The run of ASCII digits of ``text`` from ``start`` (empty when there is none)."""
    m = _ASCII_DIGITS.match(text, start)
    return m.group() if m else ""


# --- lines ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One line of input: its 1-based number and text, or the reason it cannot be read (too
    long, not UTF-8) and the digest-able bytes read of it (at most :data:`MAX_LINE_BYTES`)."""

    number: int
    text: str | None
    error: str | None = None
    raw: bytes = b""


_BOM = b"\xef\xbb\xbf"
_EOL = re.compile(rb"\r\n|\r|\n")
#: bytes asked of a stream at a time by :func:`iter_lines` (``read1``: never waits for more
#: than is there, so a line on an interactive pipe is answered before the next is typed)
_BLOCK = 64 * 1024


def _read_block(stream: IO[bytes]) -> bytes:
    read1 = getattr(stream, "read1", None)  # file objects that are not buffered lack it
    return read1(_BLOCK) if read1 is not None else stream.read(_BLOCK)


def _raw_lines(stream: IO[bytes], max_bytes: int) -> Iterator[tuple[bytes, bytes, bool]]:
    """``(content, line end, too long)`` for each line of ``stream``, split at ``\\n``,
    ``\\r\\n`` and a lone ``\\r``. A line longer than ``max_bytes`` comes back at once with
    its first ``max_bytes + 1`` bytes (its end may never come: /dev/zero) and the rest of it is
    skipped, so memory stays bounded whatever the stream holds."""
    buf = bytearray()
    skipping = False  # inside a line already answered as too long
    pending_cr = False  # a block ended in \r: the next block's first byte says \r or \r\n
    while True:
        block = _read_block(stream)
        if pending_cr:
            end = b"\r\n" if block[:1] == b"\n" else b"\r"
            if not skipping:
                yield bytes(buf), end, False
            buf.clear()
            skipping = pending_cr = False
            block = block[len(end) - 1 :]
        if not block:
            if buf and not skipping:
                yield bytes(buf), b"", False
            return
        start = 0
        while start < len(block):
            m = _EOL.search(block, start)
            stop = m.start() if m is not None else len(block)
            if not skipping:
                buf.extend(block[start:stop])
                if len(buf) > max_bytes:
                    yield bytes(buf[: max_bytes + 1]), b"", True
                    buf.clear()
                    skipping = True
            if m is None:
                break
            if m.group() == b"\r" and m.end() == len(block):
                pending_cr = True
                break
            if not skipping:
                yield bytes(buf), m.group(), False
            buf.clear()
            skipping = False
            start = m.end()


def iter_lines(stream: IO[bytes], max_bytes: int | None = None) -> Iterator[Line]:
    """The lines of a binary stream, read a block at a time (memory bounded by ``max_bytes``,
    default :data:`MAX_LINE_BYTES`): a line longer than that comes back as an error and reading
    goes on after its end; a line that is not UTF-8 comes back as an error too. ``\\n``,
    ``\\r\\n`` and a lone ``\\r`` all end a line; a UTF-8 byte-order mark opening the stream
    is skipped (editors on some systems write one)."""
    max_bytes = max_bytes or MAX_LINE_BYTES
    for number, (content, end, over) in enumerate(_raw_lines(stream, max_bytes), start=1):
        if number == 1 and content.startswith(_BOM):
            content = content[len(_BOM) :]
        if over:
            error = f"a line longer than {max_bytes} bytes"
            yield Line(number, None, error, content[:max_bytes])
            continue
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield Line(number, None, f"not UTF-8 (byte {exc.start} of the line)", content + end)
            continue
        yield Line(number, text, None, content + end)
