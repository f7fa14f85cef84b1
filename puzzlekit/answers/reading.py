"""Reading a solver's answer into one value per cell of the puzzle's schema.

An answer comes as a mapping (JSON object: cell name -> value; ``None``, ``""`` or ``"."`` for
an unfilled cell), a sequence (the values in schema order, or rows of them), the family's text
line (``puzzlekit solve`` prints it; its value clues are the answer), or a model's free text:
the last grid in it, tolerant of spaces, separators (``|``, ``+``, ``,``, border lines) and code
fences, with ``.``, ``_``, ``?`` (and ``0`` where 0 is no value) for an unfilled cell, the
digits, then ``A``.. for 10.. (Sudoku's symbols), and for 0/1 cells ``1``/``#``/``*``/``x`` and
``0``/``-``. What cannot be read raises :class:`Unreadable` with the reason (a MALFORMED report).

Not for judging the values read (:mod:`puzzlekit.answers.check`) nor for game moves
(:mod:`puzzlekit.answers.games`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core.model import Constraint, Instance, Linear, Schema, SpecError, Table

#: a value read for one cell: an int (maybe outside its domain) or None (unfilled)
Cell = int | None

BLANKS = frozenset("._?")
BINARY_ONE = frozenset("1#*xX\u25a0\u2588")
BINARY_ZERO = frozenset("0-\u25a1")
SYMBOLS = "123456789ABCDEFGHIJKLMNOP"
#: separators dropped from a grid line (box borders, commas, brackets, quotes)
SEPARATORS = re.compile(r"[|+,;:\[\](){}'\"=\u2502\u2500\u253c\u2503\u2501]")
FENCE = re.compile(r"^\s*```")
#: an answer longer than this is refused unread
MAX_ANSWER_CHARS = 1 << 20


class Unreadable(ValueError):
    """The answer could not be read; the message is the reason."""


def fixed_value(c: Constraint) -> tuple[str, int] | None:
    """(variable, value) when ``c`` fixes one variable outright (a given), else None."""
    if isinstance(c, Linear) and len(c.vars) == 1 and c.op == "==" and c.coeffs[0]:
        q, r = divmod(c.rhs, c.coeffs[0])
        return (c.vars[0], q) if r == 0 else None
    if isinstance(c, Table) and len(c.vars) == 1 and len(c.allowed) == 1:
        return c.vars[0], next(iter(c.allowed))[0]
    return None


class Alphabet:
    """How the cells of one schema are written in a grid: symbol -> value."""

    def __init__(self, schema: Schema) -> None:
        values = sorted({x for v in schema.variables for x in v.domain})
        self.binary = bool(values) and set(values) <= {0, 1}
        self.single = bool(values) and values[0] >= 0 and values[-1] <= 9
        self.table: dict[str, int | None] = {b: None for b in BLANKS}
        if self.binary:
            self.table.update({s: 1 for s in BINARY_ONE})
            self.table.update({s: 0 for s in BINARY_ZERO})
        else:
            for d in "0123456789":
                self.table[d] = int(d)
            if 0 not in values:
                self.table["0"] = None
            if not self.single:
                for i, s in enumerate(SYMBOLS[9:], start=10):
                    self.table[s] = i
                    self.table[s.lower()] = i
        self.widest = max((len(str(x)) for x in values), default=1)

        # value + 1 by ASCII byte (0: not a symbol, 255: unfilled), for :meth:`plain`
        plain = bytearray(256)
        for ch, value in self.table.items():
            if len(ch) == 1 and ord(ch) < 128 and (value is None or 0 <= value < 254):
                plain[ord(ch)] = 255 if value is None else value + 1
        self.plain_table = bytes(plain)
        # the same table over ASCII bytes, for answers read many at a time (:meth:`fast`)
        self.lut_value = np.zeros(256, dtype=np.int64)
        self.lut_kind = np.zeros(256, dtype=np.int8)  # 0 not a symbol, 1 a value, 2 unfilled
        for ch, value in self.table.items():
            if len(ch) == 1 and ord(ch) < 128:
                self.lut_kind[ord(ch)] = 2 if value is None else 1
                self.lut_value[ord(ch)] = 0 if value is None else value

    def plain(self, text: str, n: int) -> list[int] | None:
        """One answer of exactly ``n`` ASCII one-symbol cells, all filled: its values; None
        otherwise (read it with :func:`read_cells`)."""
        if len(text) != n or not self.single or not text.isascii():
            return None
        raw = text.encode("ascii").translate(self.plain_table)
        if 0 in raw or 255 in raw:
            return None
        return [x - 1 for x in raw]

    def fast(self, texts: Sequence[str], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The common case read at once: answers of exactly ``n`` ASCII one-symbol cells and
        nothing else. Values and filled flags (B, n) of those of ``texts`` (their indices)."""
        if not self.single:
            return np.zeros(0, dtype=np.int64), *_empty(n)
        picked = [i for i, t in enumerate(texts) if len(t) == n and t.isascii()]
        if not picked:
            return np.zeros(0, dtype=np.int64), *_empty(n)
        raw = "".join(texts[i] for i in picked).encode("ascii")
        codes = np.frombuffer(raw, dtype=np.uint8).reshape(len(picked), n)
        kind = self.lut_kind[codes]
        good = (kind != 0).all(axis=1)
        return np.asarray(picked)[good], self.lut_value[codes[good]], kind[good] == 1

    def line_cells(self, line: str) -> list[Cell] | None:
        """The cells written on one line, or None when it is not a grid line."""
        if ":" in line:  # "Answer: 1234..." or "row 1: 1 2 3 4"
            line = line.rsplit(":", 1)[1]
        body = SEPARATORS.sub(" ", line)
        if not self.binary:
            body = body.replace("-", " ")
        out: list[Cell] = []
        for token in body.split():
            if not self.single and token.isdigit() and len(token) <= self.widest:
                out.append(int(token))
                continue
            for ch in token:
                if ch not in self.table:
                    return None
                out.append(self.table[ch])
        return out


def _grid_cells(text: str, alphabet: Alphabet, n: int) -> list[Cell]:
    """The last block of grid lines in ``text`` holding exactly ``n`` cells."""
    runs: list[list[list[Cell]]] = [[]]
    for line in text.splitlines():
        if FENCE.match(line):
            runs.append([])
            continue
        cells = alphabet.line_cells(line)
        if cells is None or (not cells and not line.strip()):
            runs.append([])
        elif cells:
            runs[-1].append(cells)
    seen = 0
    for run in reversed(runs):
        total = 0
        for j in range(len(run) - 1, -1, -1):
            total += len(run[j])
            if total == n:
                return [c for row in run[j:] for c in row]
            if total > n:
                break
        seen = seen or sum(len(r) for r in run)
    found = f" (the last grid-like block has {seen})" if seen else ""
    raise Unreadable(f"no grid of {n} cells found in the answer{found}")


def _from_mapping(
    puzzle: Instance, schema: Schema, answer: Mapping[str, Any], alphabet: Alphabet
) -> list[Cell]:
    index = {name: i for i, name in enumerate(schema.names)}
    labels = _labels(puzzle, schema)
    out: list[Cell] = [None] * len(index)
    for key, value in answer.items():
        i = index.get(str(key))
        if i is None:
            close = ", ".join(list(index)[:3])
            raise Unreadable(
                f"the puzzle has no cell named {str(key)[:40]!r} (cells: {close}, ...)"
            )
        named = labels.get(str(key))
        if named is not None:
            hit = [x for x, label in named.items() if type(label) is type(value) and label == value]
            if hit:
                out[i] = hit[0]
                continue
        out[i] = _one_value(value, alphabet, str(key))
    return out


def _labels(puzzle: Instance, schema: Schema) -> Mapping[str, Mapping[int, Any]]:
    """The family's value labels (``Family.answer_values``: logicgrid's ``red``), so that an
    answer may name a value instead of numbering it."""
    from puzzlekit.families import get_family

    return get_family(puzzle.family).answer_values(schema) or {}


def _one_value(value: Any, alphabet: Alphabet, where: str) -> Cell:
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value) if alphabet.binary else _bad_value(value, where)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        s = value.strip()
        if s == "":
            return None
        if s.lstrip("-").isdigit() and s.isascii():
            return int(s)
        if len(s) == 1 and s in alphabet.table:
            return alphabet.table[s]
    return _bad_value(value, where)


def _bad_value(value: Any, where: str) -> Cell:
    raise Unreadable(f"{where}: {str(value)[:40]!r} is not a value")


def _from_sequence(schema: Schema, answer: Sequence[Any], alphabet: Alphabet) -> list[Cell]:
    flat: list[Any] = []
    for item in answer:
        if isinstance(item, list | tuple):
            flat.extend(item)
        else:
            flat.append(item)
    if len(flat) != len(schema.variables):
        raise Unreadable(f"{len(flat)} values given for {len(schema.variables)} cells")
    return [_one_value(v, alphabet, f"value {i + 1}") for i, v in enumerate(flat)]


def _from_instance(instance: Instance, puzzle: Instance, schema: Schema) -> list[Cell] | None:
    """The values of an answer written as a puzzle of the family (its value clues), or None
    when it is not one of this schema."""
    from puzzlekit.families import MISREAD_ERRORS, get_family

    if instance.family != puzzle.family:
        return None
    family = get_family(puzzle.family)
    try:
        if family.schema(instance.params_dict()) is not schema:
            return None
    except (SpecError, *MISREAD_ERRORS):
        return None
    index = {name: i for i, name in enumerate(schema.names)}
    out: list[Cell] = [None] * len(index)
    found = False
    for clue in instance.clues:
        try:
            cs = family.clue_constraints(schema, clue)
        except (SpecError, *MISREAD_ERRORS):
            continue
        if len(cs) == 1 and (fv := fixed_value(cs[0])) is not None:
            out[index[fv[0]]] = fv[1]
            found = True
    return out if found else None


def _family_line(text: str, puzzle: Instance, schema: Schema) -> list[Cell] | None:
    from puzzlekit.families import MISREAD_ERRORS, get_family

    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not FENCE.match(ln)]
    if not lines:
        return None
    family = get_family(puzzle.family)
    try:
        parsed = family.parse_text(lines[-1], puzzle.params_dict())
    except (SpecError, NotImplementedError, *MISREAD_ERRORS):
        return None
    return _from_instance(parsed, puzzle, schema)


def read_cells(puzzle: Instance, schema: Schema, answer: Any) -> tuple[list[Cell], str]:
    """One value (or None) per schema variable, and how the answer was read (``mapping``,
    ``sequence``, ``json``, ``text-line``, ``grid``); :class:`Unreadable` otherwise."""
    alphabet = alphabet_of(schema)
    if isinstance(answer, Mapping):
        return _from_mapping(puzzle, schema, answer, alphabet), "mapping"
    if isinstance(answer, list | tuple):
        return _from_sequence(schema, answer, alphabet), "sequence"
    if isinstance(answer, bytes):
        answer = answer.decode("utf-8", "replace")
    if not isinstance(answer, str):
        raise Unreadable(f"an answer is text, a mapping or a sequence, not {type(answer).__name__}")
    if len(answer) > MAX_ANSWER_CHARS:
        raise Unreadable(f"an answer of {len(answer)} characters is too long")
    n = len(schema.variables)
    if len(answer) == n and alphabet.single and all(ch in alphabet.table for ch in answer):
        return [alphabet.table[ch] for ch in answer], "grid"
    body = "\n".join(ln for ln in answer.strip().splitlines() if not FENCE.match(ln)).strip()
    if body.startswith(("{", "[")):
        try:
            obj = json.loads(body)
        except ValueError as exc:
            raise Unreadable(f"not valid JSON: {exc}") from None
        if isinstance(obj, dict) and {"family", "clues"} <= set(obj):
            try:
                cells = _from_instance(Instance.from_json_obj(obj), puzzle, schema)
            except SpecError as exc:
                raise Unreadable(f"an instance that does not read: {exc}") from None
            if cells is None:
                raise Unreadable("an instance of another schema, or with no values")
            return cells, "json"
        return read_cells(puzzle, schema, obj)[0], "json"
    line = _family_line(answer, puzzle, schema)
    if line is not None:
        return line, "text-line"
    obj = _trailing_object(body)
    if obj is not None:
        return _from_mapping(puzzle, schema, obj, alphabet), "json"
    return _grid_cells(answer, alphabet, n), "grid"


def _trailing_object(body: str) -> dict[str, Any] | None:
    """The JSON object that ends a free-text answer (``... so the answer is {"r1c1": 2}``),
    or None: the last ``{`` whose object reaches the end of the text, but for punctuation."""
    decoder = json.JSONDecoder()
    start = len(body)
    for _ in range(64):
        start = body.rfind("{", 0, start)
        if start < 0:
            return None
        try:
            obj, end = decoder.raw_decode(body, start)
        except ValueError:
            continue
        if isinstance(obj, dict) and not body[end:].strip(" \t\n.`"):
            return obj
    return None


_ALPHABETS: dict[int, tuple[Schema, Alphabet]] = {}


def alphabet_of(schema: Schema) -> Alphabet:
    hit = _ALPHABETS.get(id(schema))
    if hit is None or hit[0] is not schema:
        hit = (schema, Alphabet(schema))
        _ALPHABETS[id(schema)] = hit
    return hit[1]


def _empty(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((0, n), dtype=np.int64), np.zeros((0, n), dtype=bool)
