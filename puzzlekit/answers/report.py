"""What a check of a solver's answer says: :class:`AnswerVerdict`, :class:`AnswerViolation` and
:class:`AnswerReport`, with their JSON wire form (camelCase, as the verifier report's).

An answer violation speaks the report vocabulary (``violationType``, ``coord``, ``fieldName``,
``detail``) and adds the cells it involves (``coords``) and the rule or clue broken (``rule``).
Its types (:data:`ANSWER_VIOLATION_TYPES`): ``rule-broken`` (a rule of the schema or a clue of
the puzzle does not hold; its cells), ``given-overwritten`` (a cell the puzzle gives holds
another value), ``out-of-domain`` (a value no cell may hold), ``unfilled`` (a cell without a
value), ``not-winning`` and ``illegal-move`` (games), ``malformed`` (what could not be read).

This module describes results; it does not compute them (:mod:`puzzlekit.answers.check`).
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

from puzzlekit.core.model import Coord

ANSWER_VIOLATION_TYPES = (
    "rule-broken",
    "given-overwritten",
    "out-of-domain",
    "unfilled",
    "not-winning",
    "illegal-move",
    "malformed",
)


class AnswerVerdict(enum.StrEnum):
    """CORRECT: every rule and clue holds; INCORRECT: one does not (or a given was overwritten,
    a value is outside its domain, a move does not win); INCOMPLETE: nothing is wrong but some
    cells are unfilled; MALFORMED: the answer could not be read."""

    CORRECT = "CORRECT"
    INCORRECT = "INCORRECT"
    INCOMPLETE = "INCOMPLETE"
    MALFORMED = "MALFORMED"


@dataclass(frozen=True)
class AnswerViolation:
    """One thing wrong with an answer, where: the first cell (``coord``, ``field_name``), every
    cell involved (``coords``), the rule or clue id (``rule``, None when none is broken)."""

    violation_type: str
    coord: Coord | None
    field_name: str
    detail: str
    coords: tuple[Coord, ...] = ()
    rule: str | None = None

    def __post_init__(self) -> None:
        if self.violation_type not in ANSWER_VIOLATION_TYPES:
            raise ValueError(f"unknown answer violation type {self.violation_type!r}")

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "violationType": self.violation_type,
            "coord": list(self.coord) if self.coord is not None else None,
            "fieldName": self.field_name,
            "detail": self.detail,
            "coords": [list(c) for c in self.coords],
            "rule": self.rule,
        }


@dataclass(frozen=True)
class AnswerReport:
    """The judgement of one answer to one puzzle.

    ``score``: the share of the cells that are right (filled, in their domain, not overwriting a
    given, in no broken rule); 1.0 exactly when CORRECT. ``unique``: whether the puzzle has only
    this solution (None when not asked or not known; False says a MULTIPLE puzzle was answered by
    one of its solutions). ``distance``: for a winning move, the plies to the win under perfect
    play. ``dead_cells``: a partial check's smallest set of placed cells after which no completion
    exists (``dead_kind`` ``direct``, ``minimum``, ``minimal``, or ``unshrunk``: every placed
    cell, not shrunk); ``completable`` whether one exists.
    ``first_dead_move``: a move sequence's first move (1-based) after which the board is dead.
    """

    verdict: AnswerVerdict
    score: float
    cells: int
    cells_right: int
    violations: tuple[AnswerViolation, ...] = ()
    instance_digest: str = ""
    unique: bool | None = None
    distance: int | None = None
    completable: bool | None = None
    dead_cells: tuple[Coord, ...] | None = None
    dead_kind: str | None = None
    first_dead_move: int | None = None
    moves: tuple[dict[str, Any], ...] = ()
    diagnostics: tuple[str, ...] = field(default=())

    @property
    def correct(self) -> bool:
        return self.verdict is AnswerVerdict.CORRECT

    def to_json_obj(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "verdict": self.verdict.value,
            "score": self.score,
            "cells": self.cells,
            "cellsRight": self.cells_right,
            "violations": [v.to_json_obj() for v in self.violations],
            "instanceDigest": self.instance_digest,
            "unique": self.unique,
            "diagnostics": list(self.diagnostics),
        }
        if self.distance is not None:
            out["distance"] = self.distance
        if self.completable is not None:
            out["completable"] = self.completable
            out["deadCells"] = (
                None if self.dead_cells is None else [list(c) for c in self.dead_cells]
            )
            out["deadKind"] = self.dead_kind
        if self.moves:
            out["firstDeadMove"] = self.first_dead_move
            out["moves"] = [dict(m) for m in self.moves]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_json_obj(), ensure_ascii=False, separators=(",", ":"))
