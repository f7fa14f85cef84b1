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
  (``Na:``) is refused.

- ``towers``: ``N:`` then 4N clue slots separated by ``/`` (top, bottom, left, right; empty
  for none), then optionally ``,`` and the givens in the solo encoding: ``skyscrapers``.
- ``pattern``: ``WxH:`` then W column and H row clues separated by ``/``, runs by ``.``, then
  optionally ``,`` and fixed cells (a letter skips its offset, upper case filled): ``nonogram``.

Not for: writing game IDs back (the families' ``format_text`` does that where it can).
"""

from __future__ import annotations

from collections.abc import Callable

from puzzlekit.core.model import Instance, SpecError, Violation
from puzzlekit.families import get_family
from puzzlekit.families._cages import decode_block_structure, regions_to_rows

#: which of Tatham's puzzles a family's game IDs come from (for lines without a puzzle name)
FAMILY_PUZZLE: dict[str, str] = {
    "sudoku": "solo",
    "sudoku-jigsaw": "solo",
    "sudoku-killer": "solo",
    "kenken": "keen",
    "futoshiki": "unequal",
    "skyscrapers": "towers",
    "nonogram": "pattern",
}


def _bad(detail: str, field: str = "game id") -> SpecError:
    return SpecError([Violation("malformed", None, field, detail)])


def _split(game_id: str) -> tuple[str, str]:
    params, sep, desc = game_id.strip().partition(":")
    if not sep:
        raise _bad("a game ID is params:description")
    return params, desc


def _leading_int(text: str) -> tuple[int, str]:
    digits = ""
    while len(digits) < len(text) and text[len(digits)].isdigit():
        digits += text[len(digits)]
    if not digits:
        raise _bad(f"params {text!r} do not start with a size", "params")
    return int(digits), text[len(digits) :]


def decode_grid(spec: str, area: int) -> list[int]:
    """Tatham's grid encoding (solo.c ``spec_to_grid``): ``a``-``z`` are runs of 1-26 blanks
    (0), numbers are values, ``_`` separates adjacent numbers."""
    out: list[int] = []
    i = 0
    while i < len(spec):
        ch = spec[i]
        if "a" <= ch <= "z":
            out += [0] * (ord(ch) - ord("a") + 1)
            i += 1
        elif ch == "_":
            i += 1
        elif ch.isdigit():
            j = i
            while j < len(spec) and spec[j].isdigit():
                j += 1
            out.append(int(spec[i:j]))
            i = j
        else:
            raise _bad(f"invalid character {ch!r} in grid")
    if len(out) != area:
        raise _bad(f"grid has {len(out)} cells, expected {area}")
    return out


def parse_solo(game_id: str) -> Instance:
    """A ``solo`` game ID as a ``sudoku``, ``sudoku-jigsaw`` or ``sudoku-killer`` instance."""
    params, desc = _split(game_id)
    c, rest = _leading_int(params)
    r, seen_r = c, False
    jigsaw = killer = xtype = False
    if rest.startswith("x") and rest[1:2].isdigit():
        r, rest = _leading_int(rest[1:])
        seen_r = True
    i = 0
    while i < len(rest):
        ch = rest[i]
        i += 1
        if ch == "j":
            jigsaw = True
            if seen_r:
                c *= r
            r = 1
        elif ch == "x":
            xtype = True
        elif ch == "k":
            killer = True
        # symmetry and difficulty letters (r2, m4, md2, a, db, ...) do not change the puzzle
    if xtype:
        raise _bad("X-diagonal Sudoku has no puzzlekit family", "params")
    if jigsaw and killer:
        raise _bad("jigsaw killer Sudoku has no puzzlekit family", "params")
    n = c * r
    parts = desc.split(",")
    expected = 1 + (1 if jigsaw else 0) + (2 if killer else 0)
    if len(parts) != expected:
        raise _bad(f"expected {expected} comma-separated parts, found {len(parts)}")
    try:
        givens = decode_grid(parts[0], n * n)
        if any(v > n for v in givens):
            raise SpecError(
                [Violation("out-of-domain", None, "game id", f"a given is outside 1..{n}")]
            )
        if jigsaw:
            regions = decode_block_structure(parts[1], n)
            if len(regions) != n or any(len(g) != n for g in regions):
                raise _bad(f"a jigsaw needs {n} regions of {n} cells")
            family = get_family("sudoku-jigsaw")
            fparams = {"size": n, "regions": regions_to_rows(n, regions)}
        elif killer:
            family = get_family("sudoku-killer")
            fparams = {"size": n, "box": [c, r]}
        else:
            family = get_family("sudoku")
            fparams = {"size": n, "box": [c, r]}
        schema = family.schema(fparams)
        clues = [
            family.given(schema, divmod(idx, n), v)  # type: ignore[attr-defined]
            for idx, v in enumerate(givens)
            if v
        ]
        if killer:
            cages = decode_block_structure(parts[1], n)
            sums = decode_grid(parts[2], n * n)
            for cells in cages:
                total = [sums[rr * n + cc] for rr, cc in cells if sums[rr * n + cc]]
                if len(total) != 1:
                    raise _bad(f"cage at r{cells[0][0] + 1}c{cells[0][1] + 1} has no single sum")
                clues.append(family.cage(cells, {"sum": total[0]}))  # type: ignore[attr-defined]
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise _bad(str(exc)) from None
    return Instance.make(family.name, schema.params_dict(), clues)


def parse_keen(game_id: str) -> Instance:
    """A ``keen`` game ID as a ``kenken`` instance."""
    params, desc = _split(game_id)
    n, _ = _leading_int(params)  # difficulty letters do not change the puzzle
    return get_family("kenken").parse_text(f"{n}:{desc}")


def parse_unequal(game_id: str) -> Instance:
    """An ``unequal`` game ID as a ``futoshiki`` instance (adjacent mode refused)."""
    params, desc = _split(game_id)
    n, rest = _leading_int(params)
    if rest.startswith("a"):
        raise _bad("adjacent-mode Unequal is not Futoshiki", "params")
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
