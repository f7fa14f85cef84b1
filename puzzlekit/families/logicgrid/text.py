"""The ``logicgrid`` family's English: a clue as a sentence (:func:`clue_text`) and a solution as
one row per entity (:func:`solution_json`), for the text format's comments and for readers.

Private to :mod:`puzzlekit.families.logicgrid.family`, which re-exports both functions. Not for
parsing: the text format is parsed from its JSON line alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core.model import (
    Clue,
    Schema,
    Solution,
)
from puzzlekit.families.logicgrid.clues import Category, grid_of

# --- English ----------------------------------------------------------------------------------


def _noun(cat: Category, value: str) -> str:
    return cat.noun.format(value)


def _phrase(cat: Category, value: str) -> str:
    return cat.phrase.format(value)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def clue_text(schema: Schema, clue: Clue) -> str:
    """``clue`` as an English sentence (the clue must resolve in ``schema``)."""
    grid = grid_of(schema)
    d = clue.data_dict()
    anchor = grid.anchor_cat

    def fact(f: Mapping[str, Any]) -> str:
        cat = grid.category(f["category"], "fact")
        return f"{_noun(anchor, anchor.values[f['entity']])} {_phrase(cat, f['value'])}"

    def noun(atom: Sequence[str]) -> str:
        return _noun(grid.category(atom[0], "atom"), atom[1])

    def phrase(atom: Sequence[str]) -> str:
        return _phrase(grid.category(atom[0], "atom"), atom[1])

    kind = clue.kind
    if kind == "is":
        return _cap(fact(d)) + "."
    if kind == "is-not":
        return f"It is not true that {fact(d)}."
    if kind == "if-then":
        return f"If {fact(d['if'])}, then {fact(d['then'])}."
    if kind == "either-or":
        o1, o2 = d["either"], d["or"]
        return _cap(f"{noun(d['subject'])} either {phrase(o1)} or {phrase(o2)}.")
    if kind == "same-entity":
        return _cap(f"{noun(d['a'])} {phrase(d['b'])}.")
    where = {
        "left-of": "somewhere to the left of",
        "right-of": "somewhere to the right of",
        "next-to": "next to",
        "immediately-left": "directly to the left of",
    }[kind]
    return _cap(f"{noun(d['a'])} lives {where} {noun(d['b'])}.")


def solution_json(schema: Schema, solution: Solution) -> list[dict[str, str]]:
    """A solution as one object per entity mapping category names to value names."""
    grid = grid_of(schema)
    return [
        {
            grid.anchor_cat.name: grid.anchor_cat.values[e],
            **{c.name: c.values[int(solution[grid.var(e, c.name)])] for c in grid.others},
        }
        for e in range(grid.size)
    ]
