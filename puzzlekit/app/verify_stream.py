"""``puzzlekit verify``'s chunks: the puzzles of a file read and verified together, each report
the one :func:`~puzzlekit.app.commands.core.verify_item` gives for its puzzle.

The text lines of a chunk that read into one grid schema (a Sudoku file) are read together
and verified from their cell values (:func:`~puzzlekit.verifiers.many.read_line_chunk`,
:func:`~puzzlekit.verifiers.many.verify_line_chunk`): no line becomes an instance unless its
report or the output reads one (:class:`LineItem`). Every other puzzle (JSON lines, documents,
lines that do not read, a family that reads its lines its own way) is read as an
:class:`~puzzlekit.io.inputs.InputItem` and verified with the chunk's other instances
(:func:`verify_items`).

Not for: reading the file (:func:`~puzzlekit.io.inputs.iter_entries`), printing (the command).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the floors load when a command runs, not when the parser is built
    from puzzlekit.core.model import Instance
    from puzzlekit.core.report import VerifierReport
    from puzzlekit.io.inputs import InputItem, TextLine


class LineItem:
    """The input item of a text line verified in a chunk: its position and note as an
    :class:`~puzzlekit.io.inputs.InputItem` has them, its instance made from the chunk when
    first read (the one ``parse_text`` gives for the line)."""

    __slots__ = ("position", "note", "_chunk", "_row")
    violations: tuple[Any, ...] = ()
    raw_digest = ""

    def __init__(self, position: int, note: str, chunk: Any, row: int) -> None:
        self.position, self.note, self._chunk, self._row = position, note, chunk, row

    @property
    def instance(self) -> Instance:
        return self._chunk.instance(self._row)  # type: ignore[no-any-return]

    @property
    def digest(self) -> str:
        return self.instance.digest


@dataclass(frozen=True)
class Asked:
    """What ``puzzlekit verify`` was asked: how lines read (``family``, None: JSON lines name
    their own and a bare grid is a Sudoku; ``params``), and how each puzzle is verified."""

    family: str | None
    params: Mapping[str, Any] | None
    verifier: str | None
    cap: int
    budget: Any
    extras: tuple[str, ...]


def verify_entries(
    entries: Sequence[InputItem | TextLine], asked: Asked
) -> list[tuple[InputItem | LineItem, VerifierReport]]:
    """Each entry's item and report, in order (see the module docstring). Each run of text
    lines of one length is verified together where its lines read into one grid schema (the
    lines that do not read split it), the other entries as :func:`verify_items` verifies
    them; the runs in input order, so that every backend sees its puzzles in input order (a
    backend that keeps a session reports what it spent, which depends on what it saw before)."""
    if not _reads_chunks(asked.family):  # every line read on its own: verified at once
        return _verified(entries, asked)
    out: list[tuple[InputItem | LineItem, VerifierReport]] = []
    for lines, rest in _runs(entries):
        if not lines:
            out += _verified(rest, asked)
            continue
        got = _line_reports(lines, asked)
        if got is not None:
            out += got
            continue
        for reads, part in _readable_runs(lines, asked):  # split at the lines that do not read
            got = _line_reports(part, asked) if reads and len(part) < len(lines) else None
            out += got if got is not None else _verified(part, asked)
    return out


def _reads_chunks(family: str | None) -> bool:
    """Whether ``family``'s lines (None: bare Sudoku grids) may be read a chunk at a time."""
    from puzzlekit.core.model import SpecError
    from puzzlekit.families import get_family
    from puzzlekit.families.linechunk import reads_chunks

    try:
        return reads_chunks(get_family(family or "sudoku"))
    except SpecError:  # no such family: every line says so
        return False


def _runs(
    entries: Sequence[InputItem | TextLine],
) -> Iterator[tuple[list[TextLine], list[InputItem | TextLine]]]:
    """``entries`` as consecutive runs, in order: ``(lines, [])`` for text lines of one length
    that are not JSON, ``([], others)`` for the entries between them."""
    from puzzlekit.io.inputs import TextLine

    lines: list[TextLine] = []
    rest: list[InputItem | TextLine] = []
    for entry in entries:
        if type(entry) is TextLine and not entry.text.startswith("{"):
            if rest or (lines and len(lines[0].text) != len(entry.text)):
                yield lines, rest
                lines, rest = [], []
            lines.append(entry)
        else:
            if lines:
                yield lines, rest
                lines = []
            rest.append(entry)
    if lines or rest:
        yield lines, rest


def _readable_runs(lines: list[TextLine], asked: Asked) -> list[tuple[bool, list[TextLine]]]:
    """``lines`` cut into runs, in order, of lines that read on their own (True) and of lines
    that do not (False: a malformed line)."""
    from puzzlekit.verifiers.many import read_line_chunk

    runs: list[tuple[bool, list[TextLine]]] = []
    for line in lines:
        reads = read_line_chunk([line.text], asked.family, asked.params) is not None
        if runs and runs[-1][0] == reads:
            runs[-1][1].append(line)
        else:
            runs.append((reads, [line]))
    return runs


def _verified(
    entries: Sequence[InputItem | TextLine], asked: Asked
) -> list[tuple[InputItem | LineItem, VerifierReport]]:
    """The entries read one by one into items and verified as :func:`verify_items` does."""
    from puzzlekit.io.inputs import TextLine

    items = [e.item(asked.family, asked.params) if type(e) is TextLine else e for e in entries]
    reports = verify_items(items, asked.verifier, asked.cap, asked.budget, asked.extras)  # type: ignore[arg-type]
    return list(zip(items, reports, strict=True))  # type: ignore[arg-type]


def _line_reports(
    lines: Sequence[TextLine], asked: Asked
) -> list[tuple[InputItem | LineItem, VerifierReport]] | None:
    """The items and reports of text lines of one length read together into one grid
    schema, or None where they do not all read so (or, without a family, are not all bare
    Sudoku grids: ``iter_stream`` reads only those without one)."""
    from puzzlekit.core.lazyreport import with_diagnostics
    from puzzlekit.io.inputs import sniff_sudoku
    from puzzlekit.verifiers.many import read_line_chunk, verify_line_chunk

    texts = [line.text for line in lines]
    # without a family only a bare grid reads as a Sudoku: one of n*n characters, n >= 4; a
    # chunk reads only grid characters (blanks, digits, letters), so the first line decides
    if asked.family is None and sniff_sudoku(texts[0]) is None:
        return None
    chunk = read_line_chunk(texts, asked.family, asked.params)
    if chunk is None:
        return None
    reports = verify_line_chunk(
        chunk,
        verifier=asked.verifier,
        solution_cap=asked.cap,
        budget=asked.budget,
        extras=asked.extras,
        decline=True,
    )
    pairs = zip(lines, reports, strict=True)
    if asked.family is not None:
        return [
            (LineItem(line.number, "", chunk, row), rep) for row, (line, rep) in enumerate(pairs)
        ]
    note = lines[0].grid_note()  # every line has the first's length
    return [
        (LineItem(line.number, note, chunk, row), with_diagnostics(rep, (*rep.diagnostics, note)))
        for row, (line, rep) in enumerate(pairs)
    ]


def verify_items(
    items: list[InputItem], verifier: str | None, cap: int, budget: Any, extras: tuple[str, ...]
) -> list[VerifierReport]:
    """The report of each item, as :func:`~puzzlekit.app.commands.core.verify_item` gives it,
    the searches of the items' instances batched where the backend can
    (:func:`~puzzlekit.verifiers.many.verify_instances`); ``verifier``: the ``--verifier``
    name, None for each instance's default."""
    from puzzlekit.core.lazyreport import with_diagnostics
    from puzzlekit.verifiers.base import invalid_report, source
    from puzzlekit.verifiers.many import verify_instances

    instances = [item.instance for item in items if item.instance is not None]
    reports = iter(
        verify_instances(
            instances,
            verifier=verifier,
            solution_cap=cap,
            budget=budget,
            extras=extras,
            decline=True,
        )
    )
    out = []
    for item in items:
        if item.instance is None:
            rep = invalid_report(item.raw_digest, item.violations, source("input", "1"), cap)
        else:
            rep = next(reports)
        if item.note:
            rep = with_diagnostics(rep, (*rep.diagnostics, item.note))
        out.append(rep)
    return out
