"""The mutations every fuzz builder breaks its seeds with, and the case they build: a
:class:`Case` (a command line with its stdin and files, or an in-process call), JSON broken at
seeded places (:func:`break_json`), text with look-alike digits and junk (:func:`break_text`),
bytes in broken encodings (:func:`to_bytes`).

Shared by the stream and argument builders (:mod:`.fuzz_cases`) and the file builders
(:mod:`.fuzz_files`). Not for: running or judging cases (:mod:`.fuzz`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

#: raw JSON tokens that stand for values canonical JSON cannot hold, or that nest too deeply
EVIL_TOKENS = (
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    str(2**53),
    str(-(2**64)),
    "9" * 5000,
    '"\\ud800"',
    '"a\\udfffb"',
    "[" * 3000 + "]" * 3000,
    '{"a":' * 1200 + "1" + "}" * 1200,
    "[" * 70 + "]" * 70,
    '"\\u00b2"',
    '"\\u0663"',
    '"\\uff13"',
    "[[1,2]]",
    '{"r":1}',
    "-1",
    "0",
    "2000",
    "100000",
    "-2000",
    "true",
    "null",
    '""',
    "1.5",
    "[]",
    "{}",
)
#: characters that look like digits to ``str.isdigit`` (or to a reader) but are not ASCII
LOOKALIKE_DIGITS = ("\u00b2", "\u0663", "\uff13", "\u2075", "\u09e9", "\U0001d7d9", "\u2460")
JUNK = ("\x00", "\r", "\t", "\ufeff", "\ud800", "\x7f", "é", ":", ",", "/", "_", "[", "{", "\\")


@dataclass
class Case:
    """One fuzz case: a CLI ``argv`` (``{dir}`` in it is the case's temporary directory) with
    ``stdin`` and ``files`` (name -> bytes, written under that directory), or an in-process
    ``call`` (``mcp-verify``, ``mcp-generate``, ``kernel``) with ``kwargs``."""

    command: str
    argv: list[str] = field(default_factory=list)
    stdin: bytes = b""
    files: dict[str, bytes] = field(default_factory=dict)
    call: str | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    items: int | None = None  # input items a streaming command must answer (None: not checked)
    bad: int = 1  # how many malformed inputs the case holds (lines, documents, argument sets)
    ledger: str | None = None  # a file to build as a ledger first (entries mutated in ``files``)


def _paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indices) to a value inside ``obj``, ``()`` for the whole."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _set(obj: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return obj


def break_json(rng: random.Random, obj: Any, marks: int = 1) -> str:
    """``obj`` as a JSON line with ``marks`` values (or keys) replaced by evil tokens, or a
    coordinate by an array or object, or a member dropped or added."""
    obj = json.loads(json.dumps(obj))
    tokens: dict[str, str] = {}
    for n in range(marks):
        path = rng.choice(_paths(obj))
        mark = f"@@{n}@@"
        roll = rng.random()
        if roll < 0.7:
            tokens[mark] = rng.choice(EVIL_TOKENS)
            obj = _set(obj, path, mark)
        elif roll < 0.8 and path:
            obj = _set(obj, path, rng.choice([[0, [1]], {"r": 0}, [[0, 1]], [], [0.5, 1], [True]]))
        elif roll < 0.9 and path:
            parent = obj
            for key in path[:-1]:
                parent = parent[key]
            del parent[path[-1]]
        else:
            obj = _set(obj, path, {"extra": obj if not path else 1, "family": "sudoku"})
    text = json.dumps(obj, ensure_ascii=rng.random() < 0.5)
    for mark, token in tokens.items():
        text = text.replace(f'"{mark}"', token)
    return text


def break_text(rng: random.Random, text: str) -> str:
    """``text`` with a few characters replaced, inserted or dropped: look-alike digits, junk,
    long runs of digits, truncation."""
    chars = list(text) or [""]
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(chars))
        roll = rng.random()
        if roll < 0.3:
            chars[i] = rng.choice(LOOKALIKE_DIGITS)
        elif roll < 0.5:
            chars.insert(i, rng.choice(JUNK))
        elif roll < 0.6:
            chars.insert(i, rng.choice(["9" * rng.choice([7, 20, 5000]), "0" * 40, "-1"]))
        elif roll < 0.75:
            del chars[i:]
            chars = chars or [""]
        elif roll < 0.9:
            chars[i] = chr(rng.randrange(32, 127))
        else:
            chars[i : i + 1] = [chars[i]] * rng.randint(2, 200)
    return "".join(chars)


def to_bytes(rng: random.Random, text: str) -> bytes:
    """``text`` as UTF-8 (lone surrogates kept as their raw bytes), now and then with a byte that
    is not UTF-8 or a NUL spliced in."""
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.1 and data:
        i = rng.randrange(len(data))
        data = data[:i] + rng.choice([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"]) + data[i:]
    return data


# --- cases per command -----------------------------------------------------------------------
