"""Prompts: a puzzle rendered for a solver, and the solver's answer read back.

The default hooks behind :meth:`Family.prompt`, :meth:`Family.format_answer` and
:meth:`Family.parse_answer` (the family floor names this module and loads it on first use). A
prompt is a :class:`string.Template` filled with the family's rules in plain words
(``Family.rules_text``, else its description), the puzzle (``Family.prompt_puzzle``: its drawing,
else its text line) and the answer format, which follows from the schema's layout:

- ``grid``: every cell of a rows x cols rectangle is a variable (Sudoku, Latin, KenKen, ...):
  one line per row, one symbol per cell (digits; numbers separated by spaces past 9; the
  family's ``answer_symbols`` for 0/1 grids);
- ``sparse``: cells of a grid, not all of them (Kakuro's white cells): one line per row that
  has cells, their values left to right;
- ``fields``: anything else (logicgrid, toolcall): a JSON object cell name -> value (its label
  where the family names values, ``Family.answer_values``);
- ``move``: an only-winning-move position: the winning move, written as the game labels moves.

Style ``json`` asks every family for the JSON object; ``brief`` leaves the rules out. An answer
is read back by :func:`puzzlekit.answers.reading.read_cells` (the last grid in a completion) or,
for a game, the last move written.

Not for judging the answer (:mod:`puzzlekit.answers.check`).
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from typing import Any

from puzzlekit.answers.reading import Unreadable, read_cells
from puzzlekit.core import protocols
from puzzlekit.core.model import Instance, Schema, Solution

STYLES = ("plain", "brief", "json")

TEMPLATES: dict[str, str] = {
    "plain": (
        "Solve this $family puzzle.\n\nRules: $rules\n\nThe puzzle:\n\n$puzzle\n\n"
        "Answer format: $answer_format Reason as you like, then end your reply with the "
        "answer in exactly this format."
    ),
    "brief": "Solve this $family puzzle.\n\n$puzzle\n\nAnswer format: $answer_format",
}
TEMPLATES["json"] = TEMPLATES["plain"]


@dataclass(frozen=True)
class Layout:
    """How an answer to one schema is written: ``kind`` and, for grids, the variable names
    of each written line in order."""

    kind: str  # "grid", "sparse", "fields" or "move"
    lines: tuple[tuple[str, ...], ...] = ()
    cols: int = 0


_LAYOUTS: dict[tuple[int, int], tuple[protocols.Family, Schema, Layout]] = {}


def layout_of(family: protocols.Family, schema: Schema) -> Layout:
    """The answer layout of ``schema`` (module docstring); worked out once per family and
    schema object (a dataset export asks it twice a row)."""
    key = (id(family), id(schema))
    hit = _LAYOUTS.get(key)
    if hit is not None and hit[0] is family and hit[1] is schema:
        return hit[2]
    made = _layout_of(family, schema)
    if len(_LAYOUTS) > 256:
        _LAYOUTS.clear()
    _LAYOUTS[key] = (family, schema, made)
    return made


def _layout_of(family: protocols.Family, schema: Schema) -> Layout:
    if _is_game(family):
        return Layout("move")
    coords = [v.coord for v in schema.variables]
    if (
        family.answer_values(schema)
        or not coords
        or not all(
            len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in c)
            for c in coords
        )
    ):
        return Layout("fields")
    rows = sorted({r for r, _ in coords})
    by_row: dict[int, list[tuple[int, str]]] = {r: [] for r in rows}
    for v in schema.variables:
        by_row[v.coord[0]].append((v.coord[1], v.name))
    lines = tuple(tuple(n for _, n in sorted(by_row[r])) for r in rows)
    if [n for line in lines for n in line] != list(schema.names):
        return Layout("fields")  # a reading order other than the schema's: name every cell
    cols = len({c for _, c in coords})
    full = len(coords) == len(rows) * cols and len({len(line) for line in lines}) == 1
    return Layout("grid" if full else "sparse", lines, cols)


def _is_game(family: protocols.Family) -> bool:
    from puzzlekit.families.games import OnlyWinningMove

    return isinstance(family, OnlyWinningMove)


def _wide(schema: Schema) -> bool:
    """Whether a value of the schema needs more than one digit (cached on the schema)."""
    found = schema.__dict__.get("_answers_wide")
    if found is None:
        found = any(x < 0 or x > 9 for v in schema.variables for x in v.domain)
        object.__setattr__(schema, "_answers_wide", found)
    return bool(found)


def _symbol(family: protocols.Family, value: int) -> str:
    symbols = family.info.answer_symbols
    if symbols is not None and value in symbols:
        return symbols[value]
    return str(value)


def answer_format(family: protocols.Family, instance: Instance, style: str = "plain") -> str:
    """The sentence that tells a solver how to write its answer to ``instance``."""
    schema = family.schema(instance.params_dict())
    lay = layout_of(family, schema)
    if lay.kind == "move":
        return _move_format(family, instance)
    if style == "json" or lay.kind == "fields":
        names = list(schema.names)
        shown = ", ".join(f'"{n}": ...' for n in names[:4]) + (", ..." if len(names) > 4 else "")
        labels = family.answer_values(schema)
        what = "its value as named in the puzzle" if labels else "its value (a number)"
        return (
            f"a JSON object giving each of the {len(names)} unknowns ({', '.join(names[:6])}"
            f"{', ...' if len(names) > 6 else ''}) {what}: {{{shown}}}."
        )
    if family.info.answer_symbols is not None:
        cell = " or ".join(f"`{s}`" for s in family.info.answer_symbols.values())
        each = f"one symbol per cell ({cell}), no spaces"
    elif _wide(schema):
        each = "the numbers of its cells separated by spaces"
    else:
        each = "one digit per cell, no spaces"
    if lay.kind == "grid":
        return (
            f"the solved grid as {len(lay.lines)} lines, one per row from the top, {each} "
            "(the given cells included)."
        )
    return (
        f"{len(lay.lines)} lines, one for each row that has cells to fill, from the top: the "
        f"values of all that row's cells from left to right ({each}; the given cells "
        "included, every other square left out)."
    )


def _move_format(family: protocols.Family, instance: Instance) -> str:
    game, state, _ = _game_of(family, instance)
    labels = [game.move_label(state, m) for m in game.legal_actions(state)]
    example = labels[0] if labels else "a move"
    return (
        f"the one winning move for the player to move, written as the moves are labelled "
        f"(for example `{example}`), alone on the last line."
    )


def _game_of(family: protocols.Family, instance: Instance) -> tuple[Any, Any, Any]:
    from puzzlekit.families import resolve

    problem = resolve(instance)
    game = family.game(problem.schema.params_dict())  # type: ignore[attr-defined]
    return game, family.position_of(problem), problem  # type: ignore[attr-defined]


def render_prompt(
    family: protocols.Family, instance: Instance, style: str = "plain", template: str | None = None
) -> str:
    """:meth:`Family.prompt`: the style's template (the family's own first) filled in."""
    if template is None:
        template = family.info.prompt_templates.get(style) or TEMPLATES.get(style)
        if template is None:
            known = sorted({*TEMPLATES, *family.info.prompt_templates})
            raise ValueError(f"unknown prompt style {style!r}; known: {', '.join(known)}")
    schema = family.schema(instance.params_dict())
    fields = {
        "family": family.info.name,
        "rules": rules_of(family, schema),
        "puzzle": family.prompt_puzzle(instance),
        "answer_format": answer_format(family, instance, style),
    }
    return string.Template(template).safe_substitute(fields)


class _Params(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def rules_of(family: protocols.Family, schema: Schema) -> str:
    """The family's rules in plain words, its ``{param}`` fields filled in."""
    described = family.info.description.strip().rstrip(".")
    text = family.info.rules_text or (described[:1].upper() + described[1:] + ".")
    try:
        return text.format_map(_Params(schema.params_dict()))
    except (IndexError, KeyError, ValueError, AttributeError):
        return text


def format_answer(
    family: protocols.Family, instance: Instance, solution: Solution, style: str = "plain"
) -> str:
    """:meth:`Family.format_answer`: ``solution`` in the format the prompt asks for."""
    schema = family.schema(instance.params_dict())
    lay = layout_of(family, schema)
    if lay.kind == "move":
        game, state, _ = _game_of(family, instance)
        move = family.move_of(schema, game, state, solution)  # type: ignore[attr-defined]
        if move is None:
            raise ValueError("the solution plays no legal move")
        return game.move_label(state, move)
    if style == "json" or lay.kind == "fields":
        labels = family.answer_values(schema) or {}
        out = {}
        for name in schema.names:
            value = int(solution[name])
            out[name] = labels[name][value] if name in labels else value
        return json.dumps(out)
    sep = " " if _wide(schema) else ""
    return "\n".join(
        sep.join(_symbol(family, int(solution[n])) for n in line) for line in lay.lines
    )


def parse_answer(family: protocols.Family, instance: Instance, text: str) -> dict[str, int | None]:
    """:meth:`Family.parse_answer`: cell name -> value read from ``text``."""
    schema = family.schema(instance.params_dict())
    if _is_game(family):
        from puzzlekit.answers.games import read_move

        game, state, problem = _game_of(family, instance)
        move = read_move(family, problem, game, state, text)  # type: ignore[arg-type]
        return dict(family.solution_of(schema, game, state, move))  # type: ignore[attr-defined]
    cells, _ = read_cells(instance, schema, text)
    return dict(zip(schema.names, cells, strict=True))


__all__ = [
    "STYLES",
    "TEMPLATES",
    "Layout",
    "Unreadable",
    "answer_format",
    "format_answer",
    "layout_of",
    "parse_answer",
    "render_prompt",
    "rules_of",
]
