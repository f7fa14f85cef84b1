"""Answers to an only-winning-move puzzle: a move, CORRECT when it wins under perfect play.

A move is read from a mapping (``{"r2c3": 1}``, ``{"h2": 3}``: the puzzle's solution form) or
from text, where the last move written counts: a board cell ``r2c3``, a Nim take ``h2-3`` (also
``h2 = 3``, ``h2: 3``), case-insensitive. A cell of the board that no legal move plays is an
``illegal-move``; a legal move that does not win is ``not-winning``, with its result and
distance. A winning move's report gives its distance (plies to the win, the move included) and
whether it is the only winning move (``unique``: known from the game's values, so always
given). With ``variant = "fastest"`` only the fastest wins are CORRECT, as the rules say.

Not for boards of values (:mod:`puzzlekit.answers.check`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from puzzlekit.answers.reading import Unreadable
from puzzlekit.answers.report import AnswerReport, AnswerVerdict, AnswerViolation
from puzzlekit.core.model import Instance
from puzzlekit.families import get_family, resolve
from puzzlekit.families.games import OnlyWinningMove, move_values, winning_moves


def _norm(text: str) -> str:
    return re.sub(r"\s*[-=:]\s*", "-", text.lower())


def _read_move(fam: OnlyWinningMove, problem: Any, game: Any, state: Any, answer: Any) -> Any:
    """The legal move of ``answer``; ``("illegal", coord, name)`` for a cell no legal move
    plays; ``("unreadable", reason)`` otherwise."""
    schema = problem.schema
    if isinstance(answer, Mapping):
        names = set(schema.names)
        unknown = [k for k in answer if k not in names]
        if unknown:
            return ("unreadable", f"the puzzle has no move coordinate {str(unknown[0])[:40]!r}")
        full = {n: 0 for n in schema.names}
        for k, v in answer.items():
            if v in (None, "", 0):
                continue
            if not isinstance(v, int) or isinstance(v, bool):
                return ("unreadable", f"{k}: {str(v)[:40]!r} is not a value")
            full[k] = v
        played = [k for k, v in full.items() if v]
        if len(played) != 1:
            return ("unreadable", f"a move plays exactly one coordinate, not {len(played)}")
        move = fam.move_of(schema, game, state, full)
        if move is None:
            var = schema.var(played[0])
            return ("illegal", var.coord, var.name)
        return move
    if not isinstance(answer, str):
        return ("unreadable", f"a move is text or a mapping, not {type(answer).__name__}")
    text = _norm(answer)
    labels: dict[str, Any] = {}
    for m in game.legal_actions(state):
        labels[_norm(game.move_label(state, m))] = m
    cells = {v.name.lower(): v for v in schema.variables}
    words = sorted({*labels, *cells}, key=len, reverse=True)
    if not words:
        return ("unreadable", "the position has no move")
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, words)) + r")(?![a-z0-9])")
    found = pattern.findall(text)
    if not found:
        return ("unreadable", "no move found in the answer (write it as " + _example(labels) + ")")
    last = found[-1]
    if last in labels:
        return labels[last]
    var = cells[last]
    if any(tuple(game.move_coord(state, m)) == var.coord for m in labels.values()):
        at = [k for k, m in labels.items() if tuple(game.move_coord(state, m)) == var.coord]
        return ("unreadable", f"the move at {var.name} needs its value (write it as {at[0]})")
    return ("illegal", var.coord, var.name)


def read_move(fam: OnlyWinningMove, problem: Any, game: Any, state: Any, answer: Any) -> Any:
    """The legal move ``answer`` writes; :class:`Unreadable` with the reason otherwise (a cell
    that no legal move plays included)."""
    move = _read_move(fam, problem, game, state, answer)
    if isinstance(move, tuple) and move and move[0] == "unreadable":
        raise Unreadable(move[1])
    if isinstance(move, tuple) and move and move[0] == "illegal":
        raise Unreadable(f"no legal move plays {move[2]}")
    return move


def _example(labels: Mapping[str, Any]) -> str:
    return next(iter(labels), "a move")


def check_move(instance: Instance, answer: Any) -> AnswerReport:
    """Judge a move answering the only-winning-move puzzle ``instance`` (module docstring)."""
    fam = get_family(instance.family)
    assert isinstance(fam, OnlyWinningMove)
    problem = resolve(instance)
    params = problem.schema.params_dict()
    game = fam.game(params)
    state = fam.position_of(problem)
    wins = winning_moves(game, state, fam.fastest(params))
    unique = len(wins) == 1
    move = _read_move(fam, problem, game, state, answer)
    if isinstance(move, tuple) and move and move[0] in ("illegal", "unreadable"):
        if move[0] == "unreadable":
            v = AnswerViolation("malformed", None, "answer", move[1])
            return AnswerReport(AnswerVerdict.MALFORMED, 0.0, 1, 0, (v,), instance.digest, unique)
        v = AnswerViolation(
            "illegal-move", move[1], move[2], "no legal move plays there", (move[1],)
        )
        return AnswerReport(AnswerVerdict.INCORRECT, 0.0, 1, 0, (v,), instance.digest, unique)
    values = {m: (r, d) for m, r, d in move_values(game, state)}
    result, distance = values[move]
    coord = tuple(game.move_coord(state, move))
    label = game.move_label(state, move)
    if move in wins:
        note = () if unique else (f"{len(wins)} moves win: the puzzle is not unique",)
        return AnswerReport(
            AnswerVerdict.CORRECT, 1.0, 1, 1, (), instance.digest, unique, distance,
            diagnostics=note,
        )  # fmt: skip
    how = {1: "wins", 0: "draws", -1: "loses"}[result]
    detail = f"{label} {how} in {distance} plies under perfect play"
    if result > 0:
        detail = f"{label} wins in {distance} plies, but a faster win exists"
    v = AnswerViolation("not-winning", coord, label, detail, (coord,), "a-winning-move")
    return AnswerReport(AnswerVerdict.INCORRECT, 0.0, 1, 0, (v,), instance.digest, unique, distance)
