"""Simon Tatham's encodings that families read and write: the block structure of cages and
regions (keen.c, solo.c), the grid of givens (solo.c ``spec_to_grid``) and whole ``solo`` game IDs.

Families (``kenken``, ``sudoku-killer``, ``sudoku-jigsaw``) decode their text formats here, and
:mod:`puzzlekit.io.tatham` builds its reader of game IDs on it, so that decoding lives on the
families floor and nothing in a family imports :mod:`puzzlekit.io`. Every decoder raises
:class:`~puzzlekit.core.model.SpecError` (or ``ValueError`` for the block structure alone) for a
string it cannot read. Not part of the public API, and not the dispatch of game IDs to families
(that is :func:`puzzlekit.io.tatham.parse_line`).
"""

from __future__ import annotations

from collections.abc import Sequence

from puzzlekit.core.model import Instance, SpecError, Violation
from puzzlekit.core.reading import is_digits, leading_digits

Cell = tuple[int, int]


# --- the block structure of cages and regions ----------------------------------------------------


def decode_block_structure(spec: str, n: int) -> list[list[Cell]]:
    """The groups of Simon Tatham's block-structure string for an n×n grid.

    Edges are listed as the n*(n-1) vertical edges (row by row) and then the n*(n-1) horizontal
    ones (column by column); a letter ``a``-``y`` counts 1-25 non-edges followed by an edge, ``_``
    an edge alone, ``z`` 25 non-edges with no edge, and a number after a letter repeats it.
    Raises ValueError for a malformed string.
    """
    parent = list(range(n * n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    total = 2 * n * (n - 1)
    pos = 0
    i = 0
    while i < len(spec):
        ch = spec[i]
        i += 1
        if ch == "_":
            count = 0
        elif "a" <= ch <= "z":
            count = ord(ch) - ord("a") + 1
        else:
            raise ValueError(f"invalid character {ch!r} in block structure")
        j = i
        while j < len(spec) and is_digits(spec[j]):
            j += 1
        if j - i > 6:
            raise ValueError("a repeat count is too large")
        repeat = int(spec[i:j]) if j > i else 1
        i = j
        for _ in range(repeat):
            for _ in range(count):
                if pos >= total:
                    raise ValueError("too much data in block structure")
                if pos < n * (n - 1):
                    y, x = divmod(pos, n - 1)
                    p0, p1 = y * n + x, y * n + x + 1
                else:
                    x, y = pos // (n - 1) - n, pos % (n - 1)
                    p0, p1 = y * n + x, (y + 1) * n + x
                parent[find(p0)] = find(p1)
                pos += 1
            if count != 25:
                pos += 1
    if pos != total + 1:
        raise ValueError("block structure does not cover the grid")
    groups: dict[int, list[Cell]] = {}
    for idx in range(n * n):
        groups.setdefault(find(idx), []).append(divmod(idx, n))
    return sorted(sorted(g) for g in groups.values())


def encode_block_structure(groups: Sequence[Sequence[Cell]], n: int) -> str:
    """The inverse of :func:`decode_block_structure` (with Tatham's run compression)."""
    group_of: dict[Cell, int] = {}
    for gi, cells in enumerate(groups):
        for cell in cells:
            group_of[tuple(cell)] = gi
    raw = []
    run = 0
    total = 2 * n * (n - 1)
    for pos in range(total + 1):
        if pos == total:
            edge = True
        elif pos < n * (n - 1):
            y, x = divmod(pos, n - 1)
            edge = group_of[(y, x)] != group_of[(y, x + 1)]
        else:
            x, y = pos // (n - 1) - n, pos % (n - 1)
            edge = group_of[(y, x)] != group_of[(y + 1, x)]
        if edge:
            while run > 25:
                raw.append("z")
                run -= 25
            raw.append(chr(ord("a") - 1 + run) if run else "_")
            run = 0
        else:
            run += 1
    out = []
    i = 0
    while i < len(raw):
        j = i
        while j < len(raw) and raw[j] == raw[i]:
            j += 1
        count = j - i
        out.append(raw[i] + (raw[i] if count == 2 else str(count) if count > 2 else ""))
        i = j
    return "".join(out)


# --- game IDs: params, the grid of givens, solo ---------------------------------------------------


def bad(detail: str, field: str = "game id") -> SpecError:
    return SpecError([Violation("malformed", None, field, detail)])


def split_game_id(game_id: str) -> tuple[str, str]:
    params, sep, desc = game_id.strip().partition(":")
    if not sep:
        raise bad("a game ID is params:description")
    return params, desc


def leading_int(text: str) -> tuple[int, str]:
    digits = leading_digits(text)
    if not digits:
        raise bad(f"params {text!r} do not start with a size", "params")
    if len(digits) > 6:
        raise bad(f"params {text[:12]!r}... hold a size of {len(digits)} digits", "params")
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
        elif is_digits(ch):
            j = i
            while j < len(spec) and is_digits(spec[j]):
                j += 1
            if j - i > 6:
                raise bad(f"a number of {j - i} digits in the grid")
            out.append(int(spec[i:j]))
            i = j
        else:
            raise bad(f"invalid character {ch!r} in grid")
    if len(out) != area:
        raise bad(f"grid has {len(out)} cells, expected {area}")
    return out


def encode_grid(values: Sequence[int]) -> str:
    """The inverse of :func:`decode_grid`: 0 is a blank (runs of up to 26 as ``a``-``z``),
    adjacent numbers are separated by ``_``."""
    out: list[str] = []
    blanks = 0
    after_number = False
    for v in [*values, None]:
        if v == 0:
            blanks += 1
            continue
        while blanks:
            step = min(blanks, 26)
            out.append(chr(ord("a") + step - 1))
            blanks -= step
            after_number = False
        if v is None:
            break
        if after_number:
            out.append("_")
        out.append(str(v))
        after_number = True
    return "".join(out)


def parse_solo(game_id: str) -> Instance:
    """A ``solo`` game ID as a ``sudoku``, ``sudoku-jigsaw`` or ``sudoku-killer`` instance."""
    from puzzlekit.families import get_family  # the registry imports the families that use this
    from puzzlekit.families._kit.regions import regions_to_rows

    params, desc = split_game_id(game_id)
    c, rest = leading_int(params)
    r, seen_r = c, False
    jigsaw = killer = xtype = False
    if rest.startswith("x") and is_digits(rest[1:2]):
        r, rest = leading_int(rest[1:])
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
        raise bad("X-diagonal Sudoku has no puzzlekit family", "params")
    if jigsaw and killer:
        raise bad("jigsaw killer Sudoku has no puzzlekit family", "params")
    n = c * r
    parts = desc.split(",")
    expected = 1 + (1 if jigsaw else 0) + (2 if killer else 0)
    if len(parts) != expected:
        raise bad(f"expected {expected} comma-separated parts, found {len(parts)}")
    try:
        givens = decode_grid(parts[0], n * n)
        if any(v > n for v in givens):
            raise SpecError(
                [Violation("out-of-domain", None, "game id", f"a given is outside 1..{n}")]
            )
        if jigsaw:
            regions = decode_block_structure(parts[1], n)
            if len(regions) != n or any(len(g) != n for g in regions):
                raise bad(f"a jigsaw needs {n} regions of {n} cells")
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
                    raise bad(f"cage at r{cells[0][0] + 1}c{cells[0][1] + 1} has no single sum")
                clues.append(family.cage(cells, {"sum": total[0]}))  # type: ignore[attr-defined]
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise bad(str(exc)) from None
    return Instance.make(family.info.name, schema.params_dict(), clues)
