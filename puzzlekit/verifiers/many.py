"""Many puzzles verified at once: :func:`verify_many` (``pk.verify_many``) and
:func:`iter_verify_many`, the reports ``pk.verify`` gives one puzzle at a time, with the searches
of a backend that can batch them (``bitmask``:
:meth:`~puzzlekit.verifiers.bitmask.backend.BitmaskVerifier.verify_batch`) run in one compiled call
per chunk.

An item is an :class:`~puzzlekit.core.model.Instance` or a line of text: a JSON instance, or a
puzzle in ``family``'s one-line format (without a family, a Sudoku grid). A line that does not
read gives the ``INVALID_SPEC`` report ``puzzlekit verify`` prints for it, at its position.

Not for: reading files (``puzzlekit verify`` reads a file's lines itself, for line numbers,
notes and documents, and verifies a chunk of one grid schema's lines through
:func:`read_line_chunk` and :func:`verify_line_chunk`, other puzzles through
:func:`verify_instances`).
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from puzzlekit.core.model import Instance, SpecError, sha256_digest
from puzzlekit.core.protocols import DEFAULT_CAP, SearchBudget, report_extras
from puzzlekit.core.report import VerifierReport
from puzzlekit.families import get_family
from puzzlekit.families.linechunk import LineChunk, read_values
from puzzlekit.verifiers import registry
from puzzlekit.verifiers.reports import invalid_report, source

#: puzzles read and verified together (one chunk of reports at a time)
CHUNK = 256


def verify_many(
    items: Iterable[Instance | str],
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    *,
    verifier: str | None = None,
    solution_cap: int = DEFAULT_CAP,
    budget: SearchBudget | None = None,
    extras: Collection[str] = (),
) -> list[VerifierReport]:
    """The report of each item, in order, equal to ``pk.verify``'s (see the module docstring;
    ``stats.seconds`` is a share of the chunk's time)."""
    out: list[VerifierReport] = []
    for batch in _batches(items, CHUNK):
        out += _batch_reports(batch, family, params, verifier, solution_cap, budget, extras)
    return out


def iter_verify_many(
    items: Iterable[Instance | str],
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    *,
    verifier: str | None = None,
    solution_cap: int = DEFAULT_CAP,
    budget: SearchBudget | None = None,
    extras: Collection[str] = (),
    chunk: int = CHUNK,
) -> Iterator[VerifierReport]:
    """:func:`verify_many` a chunk at a time: the reports of each ``chunk`` items are given
    before the next items are read."""
    for batch in _batches(items, chunk):
        yield from _batch_reports(batch, family, params, verifier, solution_cap, budget, extras)


def _batches(items: Iterable[Instance | str], chunk: int) -> Iterator[list[Instance | str]]:
    """``items`` ``chunk`` at a time (a list of at most ``chunk`` items: itself)."""
    if type(items) is list and len(items) <= chunk:
        if items:
            yield items
        return
    it = iter(items)
    while batch := list(itertools.islice(it, chunk)):
        yield batch


def _batch_reports(
    batch: list[Instance | str],
    family: str | None,
    params: Mapping[str, Any] | None,
    verifier: str | None,
    solution_cap: int,
    budget: SearchBudget | None,
    extras: Collection[str],
) -> list[VerifierReport]:
    """The reports of one chunk of items (:func:`iter_verify_many`)."""
    lines = _lines(batch, family, params)
    if lines is not None:  # one schema's grid lines: chosen for once
        return verify_line_chunk(
            lines, verifier=verifier, solution_cap=solution_cap, budget=budget, extras=extras
        )
    reader = _reader(family)
    read = [_instance(item, family, params, solution_cap, reader) for item in batch]
    instances = [r for r in read if isinstance(r, Instance)]
    reports = iter(
        verify_instances(
            instances, verifier=verifier, solution_cap=solution_cap, budget=budget, extras=extras
        )
    )
    return [next(reports) if isinstance(r, Instance) else r for r in read]


def read_line_chunk(
    lines: Sequence[str], family: str | None, params: Mapping[str, Any] | None
) -> LineChunk | None:
    """Text lines of one givens-grid schema read together
    (:func:`~puzzlekit.families.linechunk.read_values`; ``family`` None: Sudoku), or None where
    they do not all read so (each line is then read on its own, saying what is wrong with it)."""
    return _lines(lines, family, params)  # type: ignore[no-any-return]


def verify_line_chunk(
    lines: LineChunk,
    *,
    verifier: str | None = None,
    solution_cap: int = DEFAULT_CAP,
    budget: SearchBudget | None = None,
    extras: Collection[str] = (),
    decline: bool = False,
) -> list[VerifierReport]:
    """The report of each line of a chunk (:func:`read_line_chunk`), as ``pk.verify`` gives it
    for the line's instance: on the backend its schema's choice names, from the cell values
    where that backend runs chunks of lines, else through :func:`verify_instances` (also with
    ``decline``, where the backend declines the chunk)."""
    got = None
    try:
        got = _grid_lines(lines, verifier, solution_cap, budget, extras)
    except NotImplementedError:  # the backend declines: each instance says so below
        if not decline:
            raise
    if got is None:
        got = verify_instances(
            lines.instances(),
            verifier=verifier,
            solution_cap=solution_cap,
            budget=budget,
            extras=extras,
            decline=decline,
        )
    return got


def verify_instances(
    instances: Sequence[Instance],
    *,
    verifier: str | None = None,
    solution_cap: int = DEFAULT_CAP,
    budget: SearchBudget | None = None,
    extras: Collection[str] = (),
    decline: bool = False,
) -> list[VerifierReport]:
    """The report of each instance with the named backend (default: each instance's
    :func:`~puzzlekit.verifiers.registry.default_verifier_name`), kept verifiers as
    ``pk.verify`` uses them; the instances of ``bitmask`` go to its ``verify_batch`` together.
    ``decline``: a backend that declines an instance gives INVALID_SPEC
    (:func:`~puzzlekit.verifiers.registry.verify_or_decline`, as ``puzzlekit verify``)."""
    from puzzlekit.verifiers.bitmask.backend import BitmaskVerifier

    kept_verifier, declining = registry.kept_verifier, registry.verify_or_decline

    asked = report_extras(extras)  # a misspelt extra is named on every path, batched or not
    seconds = registry.choice_seconds(budget)
    names = (
        [verifier] * len(instances)
        if verifier
        else registry.default_verifier_names(instances, seconds)
    )
    out: list[VerifierReport | None] = [None] * len(instances)
    for name in dict.fromkeys(names):
        where = [i for i, n in enumerate(names) if n == name]
        with kept_verifier(name) as v:
            got = None
            if isinstance(v, BitmaskVerifier) and len(where) > 1:  # the backend that batches
                try:
                    got = v.verify_batch(
                        [instances[i] for i in where],
                        solution_cap=solution_cap,
                        budget=budget,
                        extras=asked,
                    )
                except NotImplementedError:  # declined one of them: each on its own below
                    if not decline:
                        raise
            if got is None:
                got = [
                    declining(
                        v, instances[i], solution_cap=solution_cap, budget=budget, extras=asked
                    )
                    if decline
                    else v.verify(
                        instances[i], solution_cap=solution_cap, budget=budget, extras=asked
                    )
                    for i in where
                ]
        for i, rep in zip(where, got, strict=True):
            out[i] = rep
    return out  # type: ignore[return-value]


def _lines(
    batch: Sequence[Instance | str], family: str | None, params: Mapping[str, Any] | None
) -> Any:
    """A chunk of text lines read together (``families.linechunk.read_values``: one
    schema, every line reads), else None (read one by one)."""
    if set(map(type, batch)) != {str}:
        return None
    try:
        fam = get_family(family or "sudoku")
    except SpecError:
        return None
    return read_values(fam, batch, params)


def _grid_lines(
    lines: Any,
    verifier: str | None,
    cap: int,
    budget: SearchBudget | None,
    extras: Collection[str],
) -> list[VerifierReport] | None:
    """The reports of grid lines of one schema read together (:func:`_lines`) on the backend
    their schema's choice names, asked once (the choice is the schema's): on the 9×9 band
    search from their cell values, an instance made only for a report that reads more than its
    row; None where that is not a backend that batches them (verify_instances then does)."""
    asked = report_extras(extras)
    if verifier not in (None, "bitmask"):  # another backend: verified as instances
        return None
    if verifier is None:  # the schema's choice, lent from its pool as ``pk.verify`` lends it
        lent = registry.lend_line_verifier(lines.instance(0), registry.choice_seconds(budget))
        if lent is None:
            return None
        try:
            return _verified_lines(lent[1], lines, cap, budget, asked)
        finally:
            registry.give_back(lent)
    with registry.kept_verifier(verifier) as v:
        return _verified_lines(v, lines, cap, budget, asked)


def _verified_lines(
    v: Any, lines: Any, cap: int, budget: SearchBudget | None, asked: Collection[str]
) -> list[VerifierReport] | None:
    """``v.verify_lines`` of a chunk, or None where ``v``'s class has none."""
    if getattr(type(v), "verify_lines", None) is None:
        return None
    return v.verify_lines(lines, cap, budget, asked)  # type: ignore[no-any-return]


def _reader(family: str | None) -> Any:
    """The text reader of ``family`` (None: Sudoku), or None where the family is unknown (each
    line then says so)."""
    try:
        return get_family(family or "sudoku").parse_text
    except SpecError:
        return None


def _instance(
    item: Instance | str,
    family: str | None,
    params: Mapping[str, Any] | None,
    cap: int,
    reader: Any = None,
) -> Instance | VerifierReport:
    """The instance of an item, or the INVALID_SPEC report of a line that does not read (the
    one ``puzzlekit verify`` gives: digest of the line, source ``input``). ``reader``:
    :func:`_reader` of ``family``, when the caller has it."""
    if isinstance(item, Instance):
        return item
    if not isinstance(item, str):
        raise TypeError(f"verify_many takes instances or lines of text, got {type(item).__name__}")
    line = item.strip()
    try:
        if line.startswith("{"):
            return Instance.from_json(line)
        if reader is not None:
            return reader(line, params)  # type: ignore[no-any-return]
        return get_family(family or "sudoku").parse_text(line, params)
    except SpecError as exc:
        digest = sha256_digest(line.encode("utf-8"))
        return invalid_report(digest, exc.violations, source("input", "1"), cap)
