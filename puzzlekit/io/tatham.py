"""Import of Simon Tatham's game IDs (his Portable Puzzle Collection) as puzzlekit instances.

A game ID is ``params:description`` as ``sgt-solo --generate`` prints it (``3x3:a6a5c1...``,
``5:a3ba__...,a6s1m96``); a line of input may name the puzzle first (``keen:5:a3ba__...``) or
leave it to the family the caller names (``--family kenken`` means ``keen``). :data:`PARSERS`
maps a puzzle name to a function from a game ID to an :class:`~puzzlekit.core.model.Instance`;
every parser raises :class:`~puzzlekit.core.model.SpecError` for a description it cannot read, never
another exception. Formats read from Tatham's sources (solo.c, keen.c, unequal.c):

- ``solo``: params ``CxR`` (boxes of C rows by R columns; ``Nj`` jigsaw, ``k`` killer, ``x``
  diagonals, which puzzlekit has no family for), then the givens (``a``-``z`` skip 1-26 blank
  cells, numbers are digits, ``_`` separates two numbers), then for jigsaw ``,`` and the
  regions' block structure, and for killer ``,`` the cages' block structure and ``,`` a grid in
  the givens' encoding that holds each cage's sum in one of its cells. Plain IDs give
  ``sudoku``, jigsaw IDs ``sudoku-jigsaw``, killer IDs ``sudoku-killer``.
- ``keen``: ``N:`` block structure, ``,``, one clue per cage in order of the cage's first cell
  (``a`` add, ``s`` subtract, ``m`` multiply, ``d`` divide, then the target): ``kenken``.
- ``unequal``: ``N:`` then per cell its given (``0`` none) and the letters ``U R D L`` of the
  neighbours it is greater than, each cell ending in ``,``: ``futoshiki``. Adjacent mode
  (``Na:``, the letters naming the neighbours whose values are consecutive):
  ``futoshiki-adjacent``.

- ``towers``: ``N:`` then 4N clue slots separated by ``/`` (top, bottom, left, right; empty
  for none), then optionally ``,`` and the givens in the solo encoding: ``skyscrapers``.
- ``pattern``: ``WxH:`` then W column and H row clues separated by ``/``, runs by ``.``, then
  optionally ``,`` and fixed cells (a letter skips its offset, upper case filled): ``nonogram``.

The decoders that families share (the block structure, the grid of givens, whole ``solo`` IDs)
live on the families floor in :mod:`puzzlekit.families.tatham`; this module dispatches a line to
the right puzzle's parser and re-exports :func:`decode_grid` and :func:`parse_solo`.

Not for: writing game IDs back (the families' ``format_text`` does that where it can).
"""

from __future__ import annotations

from collections.abc import Callable

from puzzlekit.core.model import Instance
from puzzlekit.families import get_family
from puzzlekit.families.tatham import bad as _bad
from puzzlekit.families.tatham import decode_grid, parse_solo
from puzzlekit.families.tatham import leading_int as _leading_int
from puzzlekit.families.tatham import split_game_id as _split

__all__ = [
    "FAMILY_PUZZLE",
    "PARSERS",
    "decode_grid",
    "parse_keen",
    "parse_line",
    "parse_pattern",
    "parse_solo",
    "parse_towers",
    "parse_unequal",
]

#: which of Tatham's puzzles a family's game IDs come from (for lines without a puzzle name)
FAMILY_PUZZLE: dict[str, str] = {
    "sudoku": "solo",
    "sudoku-jigsaw": "solo",
    "sudoku-killer": "solo",
    "kenken": "keen",
    "futoshiki": "unequal",
    "futoshiki-adjacent": "unequal",
    "skyscrapers": "towers",
    "nonogram": "pattern",
}


def parse_keen(game_id: str) -> Instance:
    """A ``keen`` game ID as a ``kenken`` instance."""
    params, desc = _split(game_id)
    n, _ = _leading_int(params)  # difficulty letters do not change the puzzle
    return get_family("kenken").parse_text(f"{n}:{desc}")


def parse_unequal(game_id: str) -> Instance:
    """An ``unequal`` game ID as a ``futoshiki`` instance, or in Adjacent mode (``Na``) as a
    ``futoshiki-adjacent`` one; difficulty letters do not change the puzzle."""
    params, desc = _split(game_id)
    n, rest = _leading_int(params)
    if rest.startswith("a"):
        return get_family("futoshiki-adjacent").parse_text(f"{n}a:{desc}")
    return get_family("futoshiki").parse_text(f"{n}:{desc}")


def parse_towers(game_id: str) -> Instance:
    """A ``towers`` game ID (``N:`` 4N edge clues ``/``-separated, optional ``,`` givens) as a
    ``skyscrapers`` instance; the format is read by :meth:`Skyscrapers.parse_text`."""
    params, desc = _split(game_id)
    n, _ = _leading_int(params)  # difficulty letters do not change the puzzle
    return get_family("skyscrapers").parse_text(f"{n}:{desc}")


def parse_pattern(game_id: str) -> Instance:
    """A ``pattern`` game ID (``WxH:`` column then row runs, optional ``,`` fixed cells) as a
    ``nonogram`` instance; the format is read by :meth:`Nonogram.parse_text`."""
    params, desc = _split(game_id)
    return get_family("nonogram").parse_text(f"{params}:{desc}")


#: puzzle name -> parser of that puzzle's game IDs
PARSERS: dict[str, Callable[[str], Instance]] = {
    "solo": parse_solo,
    "keen": parse_keen,
    "unequal": parse_unequal,
    "towers": parse_towers,
    "pattern": parse_pattern,
}


def parse_line(line: str, family: str | None = None) -> Instance:
    """One input line: ``puzzle:params:desc``, or ``params:desc`` with the puzzle taken from
    ``family`` (see :data:`FAMILY_PUZZLE`). Raises SpecError when neither names a puzzle."""
    line = line.strip()
    name, sep, rest = line.partition(":")
    if sep and name in PARSERS:
        return PARSERS[name](rest)
    puzzle = FAMILY_PUZZLE.get(family or "", family)
    if puzzle not in PARSERS:
        known = ", ".join(sorted(PARSERS))
        raise _bad(f"start the line with a puzzle name ({known}) or give a family", "line")
    return PARSERS[puzzle](line)
