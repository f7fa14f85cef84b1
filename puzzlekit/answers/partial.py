"""Partly filled boards and move sequences: is the board still completable, and if not, why.

:func:`check_partial` judges a board with unfilled cells: unfilled is not wrong here; the
question is whether a completion still exists. A placed value that breaks a rule with other
placed values, overwrites a given or lies outside its domain makes the board dead at once
(``deadKind`` ``direct``, those cells). Otherwise the placed cells become clues
(:meth:`~puzzlekit.core.protocols.Family.placement_clue`) and the default verifier looks for a
completion; when there is none, the placed cells are shrunk to the smallest set that is still
dead with the puzzle's clues (the conflict machinery of :mod:`puzzlekit.verifiers.conflicts`:
a minimal set by deletion, then a minimum by implicit hitting sets while its check budget lasts;
``deadKind`` says which). That set is the step feedback a solver can act on: erase one of them.
With ``shrink=False`` the set is not shrunk: ``deadCells`` is every placed cell (``deadKind``
``unshrunk``), one verification in all, for a caller that needs only whether the board is dead.

:func:`check_moves` plays placements one at a time on an empty board (``[cell, value]``, value
None erases) and names the first move after which the board is dead (the stopping pipeline's
"first non-TRUE step").

Not for full answers (:mod:`puzzlekit.answers.check`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from puzzlekit.answers.check import default_verdict, malformed, report_of
from puzzlekit.answers.compiled import Compiled, as_arrays, compiled
from puzzlekit.answers.reading import Cell, Unreadable, read_cells
from puzzlekit.answers.report import AnswerReport, AnswerVerdict
from puzzlekit.core.model import Instance

#: what a verification of a partial board may spend (seconds); UNDECIDED leaves it unknown
PARTIAL_SECONDS = 10.0


def _verdict_of(instance: Instance) -> str:
    from puzzlekit.core.protocols import SearchBudget

    return default_verdict(instance, SearchBudget(seconds=PARTIAL_SECONDS))


def _dead_set(
    instance: Instance, placed: dict[str, Any], seed: Sequence[str]
) -> tuple[list[str], str]:
    """The smallest placed set (clue ids) dead with the puzzle's clues, and its kind."""
    from puzzlekit.verifiers.conflicts import shrink, smallest

    def is_unsat(ids: Sequence[str]) -> bool | None:
        verdict = _verdict_of(instance.with_clues([*instance.clues, *(placed[i] for i in ids)]))
        if verdict == "UNSOLVABLE":
            return True
        return False if verdict in ("UNIQUE", "MULTIPLE") else None

    start = list(seed) if seed and is_unsat(seed) else list(placed)
    kept, minimal = shrink(start, is_unsat)
    if not minimal:
        return kept, "dead"
    if len(kept) <= 1:
        return kept, "minimum"
    least, proven = smallest(list(placed), kept, is_unsat)
    return least, "minimum" if proven else "minimal"


def _partial(
    comp: Compiled, instance: Instance, cells: list[Cell], *, shrink: bool = True
) -> AnswerReport:
    vals, filled = as_arrays([cells], comp.n)
    dom_ok, over, broken = comp.judge(vals, filled)
    rep = report_of(
        comp, instance, vals[0], filled[0], dom_ok[0], over[0], broken.get(0, ()),
        unfilled_is_wrong=False,
    )  # fmt: skip
    direct = [v for v in rep.violations if v.violation_type != "unfilled"]
    if direct:
        # the placed cells of each clash: a given it repeats is not the solver's to erase (a
        # given overwritten is: that cell was placed)
        given = {comp.coords[i] for i in comp.given_idx.tolist()}
        sets = [
            tuple(c for c in v.coords if c not in given) or v.coords
            if v.violation_type == "rule-broken"
            else v.coords
            for v in direct
        ]
        least = min(sets, key=len)
        return replace(rep, completable=False, dead_cells=least, dead_kind="direct")
    if None not in cells:
        return replace(rep, completable=True)
    from puzzlekit.families import get_family

    family = get_family(instance.family)
    schema = comp.problem.schema
    givens = set(comp.given_idx.tolist())
    placed: dict[str, Any] = {}
    where: dict[str, tuple] = {}
    for i, x in enumerate(cells):
        if x is None or i in givens:
            continue
        clue = family.placement_clue(schema, comp.names[i], x)
        if clue is None:
            note = f"{family.info.name} has no placement clue: completability is not checked"
            return replace(rep, diagnostics=(*rep.diagnostics, note))
        placed[clue.id] = clue
        where[clue.id] = comp.coords[i]
    board = instance.with_clues([*instance.clues, *placed.values()])
    verdict = _verdict_of(board)
    if verdict in ("UNIQUE", "MULTIPLE"):
        return replace(rep, completable=True)
    if verdict != "UNSOLVABLE":
        note = f"the verifier could not decide whether a completion exists ({verdict})"
        return replace(rep, diagnostics=(*rep.diagnostics, note))
    ids, kind = _dead_set(instance, placed, []) if shrink else (list(placed), "unshrunk")
    verdict_now = AnswerVerdict.INCORRECT
    note = () if ids else ("the puzzle itself has no solution",)
    return replace(
        rep,
        verdict=verdict_now,
        completable=False,
        dead_cells=tuple(where[i] for i in ids),
        dead_kind=kind,
        diagnostics=(*rep.diagnostics, *note),
    )


def check_partial(instance: Instance, answer: Any, *, shrink: bool = True) -> AnswerReport:
    """Judge a partly filled board (any answer form; unfilled cells allowed): its report says
    whether it is ``completable`` and, when not, the ``dead_cells`` (module docstring; with
    ``shrink=False`` every placed cell, unshrunk). The verdict is CORRECT for a full right
    board, INCOMPLETE while a completion exists, INCORRECT once none does (or a placed value is
    wrong outright)."""
    comp = compiled(instance)
    try:
        cells, _ = read_cells(instance, comp.problem.schema, answer)
    except Unreadable as exc:
        return malformed(instance, str(exc), comp.n)
    return _partial(comp, instance, cells, shrink=shrink)


def _move(comp: Compiled, move: Any) -> tuple[int, Cell]:
    index = {n: i for i, n in enumerate(comp.names)}
    if isinstance(move, dict):
        move = (move.get("cell"), move.get("value"))
    if isinstance(move, str) and "=" in move:
        move = tuple(part.strip() for part in move.split("=", 1))
    if not isinstance(move, list | tuple) or len(move) != 2:
        raise Unreadable(f"a move is [cell, value], not {str(move)[:40]!r}")
    cell, value = move
    if str(cell) not in index:
        raise Unreadable(f"the puzzle has no cell named {str(cell)[:40]!r}")
    if value in (None, "", "."):
        return index[str(cell)], None
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Unreadable(f"{cell}: {str(value)[:40]!r} is not a value")
    return index[str(cell)], value


def check_moves(instance: Instance, moves: Any) -> AnswerReport:
    """Play ``moves`` (a list of ``[cell, value]``, or its JSON text) one at a time on the
    puzzle's board (its givens placed): the report of the board after the first move that
    leaves it dead (else after the last move), with ``first_dead_move`` (1-based; None when
    none does) and every move judged up to there in ``moves``."""
    import json

    comp = compiled(instance)
    if isinstance(moves, str):
        try:
            moves = json.loads(moves)
        except ValueError as exc:
            return malformed(instance, f"moves are a JSON list of [cell, value]: {exc}", comp.n)
    if not isinstance(moves, list | tuple) or not moves:
        return malformed(instance, "moves are a non-empty list of [cell, value]", comp.n)
    cells: list[Cell] = [None] * comp.n
    for i, x in zip(comp.given_idx.tolist(), comp.given_val.tolist(), strict=True):
        cells[i] = x  # the board starts as the puzzle: its givens in place
    judged: list[dict[str, Any]] = []
    rep: AnswerReport | None = None
    for k, move in enumerate(moves, start=1):
        try:
            i, value = _move(comp, move)
        except Unreadable as exc:
            return malformed(instance, f"move {k}: {exc}", comp.n)
        cells[i] = value
        rep = _partial(comp, instance, cells)
        judged.append(
            {"move": k, "cell": comp.names[i], "value": value, "completable": rep.completable}
        )
        if rep.completable is False:
            return replace(rep, first_dead_move=k, moves=tuple(judged))
    assert rep is not None
    return replace(rep, moves=tuple(judged))
