"""Futoshiki, Adjacent mode (Simon Tatham's Unequal in "Adjacent" mode): an N×N Latin square
whose orthogonal neighbours are marked when their values are consecutive.

Params: ``{"size": N}``, N from 2 to 25 (Tatham generates 3 to 9); the default is 5.

Rules: every row and every column holds 1..N once (``row1``..., ``col1``... AllDifferent).

Clues (coordinates are 0-based ``[row, col]``):

- ``given``: ``data = {"value": v}``, one coordinate; the id is the cell name (``r2c3``).
- ``consecutive``: ``data = {}``, two orthogonally adjacent cells ``[a, b]`` (row-major order)
  whose values differ by exactly one (Tatham's bar); the id is ``r1c1-r1c2``.
- ``apart``: ``data = {}``, two orthogonally adjacent cells whose values differ by more than one
  (in Tatham's puzzle, the absence of a bar).

A Tatham Adjacent puzzle marks every pair: each pair of neighbours carries a ``consecutive`` or
an ``apart`` clue, and a fresh generated puzzle starts that way (every pair clue, then givens).
An instance may also leave pairs unknown (a generalization the clue model allows, e.g. after
minimization drops a pair clue); its text uses the extended header below.

Text format, one puzzle a line:

- Tatham's ``unequal`` Adjacent description when every pair is known: ``Na:`` then, for every
  cell in row-major order, its given (``0`` for none), the letters ``U``, ``R``, ``D``, ``L`` of
  the neighbours consecutive to it, and a comma; e.g. ``4a:0RD,0DL,0RD,0L,...`` (each bar is
  written at both of its cells, as Tatham does).
- ``Nap:`` (partial) when some pair is unknown: the same, with upper-case letters for
  consecutive neighbours and lower-case ``u r d l`` for neighbours known to be apart; a pair
  with neither letter is unknown.

Repair moves at a cell: reveal its digit, or add the true pair clue between it and a neighbour
that has none yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core.model import (
    Clue,
    Constraint,
    Instance,
    Origin,
    Schema,
    Solution,
    SpecError,
    Table,
    Violation,
)
from puzzlekit.core.protocols import FamilyInfo, Repair, pick_in_order
from puzzlekit.families import register_family
from puzzlekit.families._kit.dihedral import Move, canonical_square, moved_cells, moved_given
from puzzlekit.families.futoshiki import FLAGS  # the flag letters and their directions
from puzzlekit.families.grid import (
    MAX_SIZE,
    GappedDrawing,
    GivensGrid,
    cell_name,
    check_described_size,
    clue_cell,
    gap_point,
    gapped_ascii,
)

PAIR_KINDS = ("consecutive", "apart")
_DIGITS = frozenset("0123456789")


def pair_clue(a: tuple[int, int], b: tuple[int, int], kind: str) -> Clue:
    """The pair clue of ``kind`` between neighbours ``a`` and ``b`` (cells in row-major order)."""
    a, b = sorted((tuple(a), tuple(b)))
    return Clue.make(f"{cell_name(*a)}-{cell_name(*b)}", kind, {}, [a, b])


def _moved_clue(clue: Clue, move: Move, n: int, reverse: bool) -> Clue:
    """One clue's image under a move of the square (a pair's meaning, |a - b| = 1 or not, is
    the same for values reversed)."""
    if clue.kind == "given":
        return moved_given(clue, move, n, reverse)
    if clue.kind not in PAIR_KINDS or len(clue.coords) != 2:
        raise ValueError(f"clue {clue.id} is not a given or a pair")
    a, b = moved_cells(clue, move)
    return pair_clue(a, b, clue.kind)


def _pairs(n: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every pair of orthogonal neighbours of an n×n grid, in row-major order of the first."""
    out = []
    for r in range(n):
        for c in range(n):
            for b in ((r, c + 1), (r + 1, c)):
                if b[0] < n and b[1] < n:
                    out.append(((r, c), b))
    return out


def _allowed(n: int, kind: str) -> frozenset[tuple[int, int]]:
    values = range(1, n + 1)
    near = kind == "consecutive"
    return frozenset((x, y) for x in values for y in values if (abs(x - y) == 1) == near)


def _bad(detail: str, coord: Any = None, field: str = "line") -> SpecError:
    return SpecError([Violation("malformed", coord, field, detail)])


def _read_cells(body: str, n: int) -> list[tuple[int, str]]:
    """Tatham's cell list: per cell a number (ASCII digits), flag letters and a comma."""
    cells: list[tuple[int, str]] = []
    pos = 0
    while pos < len(body):
        start = pos
        while pos < len(body) and body[pos] in _DIGITS:
            pos += 1
        if start == pos:
            raise _bad(f"expected a number at {pos}")
        if pos - start > 3:
            raise _bad(f"number at {start} is too long")
        value = int(body[start:pos])
        start = pos
        while pos < len(body) and body[pos] in "URDLurdl":
            pos += 1
        cells.append((value, body[start:pos]))
        if len(cells) > n * n:
            raise SpecError([Violation("shape-mismatch", None, "line", "too much data")])
        if pos < len(body):
            if body[pos] != ",":
                raise _bad(f"expected ',' at {pos}")
            pos += 1
    if len(cells) != n * n:
        raise SpecError(
            [
                Violation(
                    "shape-mismatch", None, "line", f"{len(cells)} cells described, need {n * n}"
                )
            ]
        )
    return cells


def _pair_kinds(cells: list[tuple[int, str]], n: int, partial: bool) -> dict[tuple, str]:
    """The kind of each pair the flags describe: both cells of a pair must agree."""
    marks: dict[tuple, dict[tuple, str]] = {}
    problems = []
    for i, (_, flags) in enumerate(cells):
        coord = divmod(i, n)
        for f in flags:
            if f.islower() and not partial:
                problems.append(
                    Violation("malformed", coord, cell_name(*coord), "lower-case flag in Na:")
                )
                continue
            d = FLAGS[f.upper()]
            nb = (coord[0] + d[0], coord[1] + d[1])
            if not (0 <= nb[0] < n and 0 <= nb[1] < n):
                problems.append(
                    Violation(
                        "shape-mismatch", coord, cell_name(*coord), f"flag {f} points outside"
                    )
                )
                continue
            kind = "consecutive" if f.isupper() else "apart"
            marks.setdefault(tuple(sorted((coord, nb))), {})[coord] = kind
    out: dict[tuple, str] = {}
    for pair in _pairs(n):
        seen = marks.get(pair, {})
        kinds = set(seen.values())
        if len(kinds) > 1 or (seen and len(seen) != 2):
            a, b = pair
            problems.append(
                Violation(
                    "malformed",
                    a,
                    f"{cell_name(*a)}-{cell_name(*b)}",
                    "the two cells of a pair must carry the same flag",
                )
            )
        elif kinds:
            out[pair] = kinds.pop()
        elif not partial:
            out[pair] = "apart"
    if problems:
        raise SpecError(problems)
    return out


class FutoshikiAdjacent(GappedDrawing, GivensGrid):
    info = FamilyInfo(
        name="futoshiki-adjacent",
        description="N×N Latin square; neighbours with consecutive values are marked (Adjacent)",
        clue_kinds=("given", *PAIR_KINDS),
        listed_params=({"size": 4}, {"size": 5}, {"size": 6}),
        # its reports' backend since 0.1 (bitmask reads it too: not measured)
        default_verifier="sat",
        size_limits={"size": MAX_SIZE},
        value_clue_kind="given",
        place_name="pair",
        symmetry_group=(
            "the square's rotations and reflections, each bar moved with its two cells, and the "
            "value reversal v -> n + 1 - v (which keeps every difference)"
        ),
        rules_text=(
            "Fill every cell of the {size}×{size} grid with a number from 1 to {size} so that "
            "every row and every column holds each number exactly once. A bar between two "
            "neighbouring cells (`|` between cells of a row, `-` under a cell for the one below "
            "it) means their numbers differ by exactly one; where every pair is shown, no bar "
            "means they differ by more. Given numbers stay."
        ),
    )
    param_keys = ("size",)

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"size": self._check_size(params, default=5)}

    def canonical_instance(self, instance: Instance) -> Instance:
        return canonical_square(self, instance, _moved_clue, reverse=True)

    # -- clues ------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        if clue.kind not in PAIR_KINDS:
            return super().clue_constraints(schema, clue)
        where = f"clue {clue.id}"
        n = schema.params_dict()["size"]
        if len(clue.coords) != 2:
            raise SpecError([Violation("shape-mismatch", None, where, "a pair names two cells")])
        a, b = (tuple(c) for c in clue.coords)
        for coord in (a, b):
            if schema.var_at(coord) is None:
                raise SpecError(
                    [Violation("shape-mismatch", coord, where, f"outside the {n}x{n} grid")]
                )
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise SpecError(
                [Violation("shape-mismatch", a, where, "the two cells are not neighbours")]
            )
        va, vb = schema.var_at(a).name, schema.var_at(b).name
        return (Table((va, vb), _allowed(n, clue.kind), Origin("clue", clue.id, (a, b))),)

    def place_of(self, clue: Clue) -> Any:
        if clue.kind in PAIR_KINDS and len(clue.coords) == 2:
            try:
                return ("pair", frozenset(tuple(c) for c in clue.coords))
            except TypeError:
                return None
        return None

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        n = schema.params_dict()["size"]
        out = super().clues_from_solution(schema, solution)
        for a, b in _pairs(n):
            near = abs(solution[cell_name(*a)] - solution[cell_name(*b)]) == 1
            out.append(pair_clue(a, b, "consecutive" if near else "apart"))
        return out

    def initial_clues(
        self, schema: Schema, solution: Solution, k: int, rng: np.random.Generator
    ) -> list[Clue]:
        """Tatham's puzzle: every pair clue, then ``k`` random givens."""
        clues = self.clues_from_solution(schema, solution)
        givens = [c for c in clues if c.kind == "given"]
        pairs = [c for c in clues if c.kind != "given"]
        return pick_in_order(givens, k, rng) + pairs

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        def true_pair(a: tuple, b: tuple, sol: Solution) -> Clue:
            near = abs(sol[cell_name(*a)] - sol[cell_name(*b)]) == 1
            return pair_clue(a, b, "consecutive" if near else "apart")

        return self.pair_repairs(schema, instance, solution, coord, found, true_pair, "add-pair")

    # -- text: Tatham's unequal Adjacent description ------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        head, sep, body = text.strip().partition(":")
        partial = head.endswith("ap")
        size = head[:-2] if partial else head[:-1]
        if not sep or not head.endswith(("a", "ap")) or not size or set(size) - _DIGITS:
            raise _bad("expected Na: (or Nap:) then the cell list")
        if len(size) > 2:
            raise _bad(f"size {size} is too large")
        n = int(size)
        check_described_size(n, params)
        schema = self.schema({"size": n})
        cells = _read_cells(body, n)
        clues: list[Clue] = []
        problems = []
        for i, (value, _) in enumerate(cells):
            coord = divmod(i, n)
            if value > n:
                problems.append(
                    Violation("out-of-domain", coord, cell_name(*coord), f"{value} not in 1..{n}")
                )
            elif value:
                clues.append(self.given(schema, coord, value))
        if problems:
            raise SpecError(problems)
        kinds = _pair_kinds(cells, n, partial)
        clues += [pair_clue(a, b, kinds[(a, b)]) for a, b in _pairs(n) if (a, b) in kinds]
        return Instance.make(self.info.name, schema.params_dict(), clues)

    def format_text(self, instance: Instance) -> str:
        n = instance.params_dict()["size"]
        values = [0] * (n * n)
        kinds: dict[tuple, str] = {}
        for clue in instance.clues:
            if clue.kind == "given":
                r, c = clue_cell(clue, n)
                values[r * n + c] = clue.data_dict()["value"]
            elif clue.kind in PAIR_KINDS:
                kinds[tuple(sorted(tuple(x) for x in clue.coords))] = clue.kind
        partial = len(kinds) < len(_pairs(n))
        flags: list[str] = []
        for i in range(n * n):
            coord = divmod(i, n)
            out = ""
            for f, d in FLAGS.items():
                nb = (coord[0] + d[0], coord[1] + d[1])
                kind = kinds.get(tuple(sorted((coord, nb))))
                if kind == "consecutive":
                    out += f
                elif kind == "apart" and partial:
                    out += f.lower()
            flags.append(out)
        head = f"{n}ap" if partial else f"{n}a"
        return f"{head}:" + "".join(f"{values[i]}{flags[i]}," for i in range(n * n))

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """Tatham's layout: ``|`` between consecutive cells of a row, ``-`` between consecutive
        rows, ``x`` where a pair is known apart only in a partial puzzle; a mark follows its
        cell."""
        n = instance.params_dict()["size"]
        marks = marks or {}
        sym: dict[tuple, str] = {}
        bars: dict[tuple, str] = {}
        for clue in instance.clues:
            if clue.kind == "given" and len(clue.coords) == 1:
                sym[tuple(clue.coords[0])] = str(clue.data_dict().get("value"))
            elif clue.kind == "consecutive" and len(clue.coords) == 2:
                bars[tuple(sorted(tuple(x) for x in clue.coords))] = "bar"
        if solution:
            for r in range(n):
                for c in range(n):
                    sym.setdefault((r, c), str(solution.get(cell_name(r, c), ".")).lower())
        horiz = {a: "|" for a, b in bars if a[0] == b[0]}
        vert = {a: "-" for a, b in bars if a[0] != b[0]}
        return gapped_ascii(n, sym, marks, horiz, vert)

    def draw_gaps(self, ax: Any, instance: Instance) -> None:
        """A bar in the gap of each consecutive pair."""
        for clue in instance.clues:
            if clue.kind == "consecutive" and len(clue.coords) == 2:
                (r1, c1), (r2, c2) = sorted(tuple(x) for x in clue.coords)
                x, y = gap_point((r1 + r2) / 2, (c1 + c2) / 2)
                dx, dy = (0.0, 0.35) if r1 == r2 else (0.35, 0.0)
                ax.plot([x - dx, x + dx], [y - dy, y + dy], color="black", linewidth=2)


FUTOSHIKI_ADJACENT = register_family(FutoshikiAdjacent())
