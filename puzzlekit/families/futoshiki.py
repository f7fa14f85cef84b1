"""Futoshiki: an N×N Latin square with givens and inequalities between orthogonal neighbours.

Params: ``{"size": N}``, N from 2 to 25 (puzzles are customarily 4 to 9); the default is 5.

Rules: every row and every column holds 1..N once (``row1``..., ``col1``... AllDifferent).

Clues (coordinates are 0-based ``[row, col]``):

- ``given``: ``data = {"value": v}``, one coordinate; the id is the cell name (``r2c3``).
- ``inequality``: ``data = {"op": "<"}`` or ``{"op": ">"}``, two coordinates ``[a, b]`` of
  orthogonally adjacent cells, meaning ``value(a) op value(b)`` (a ``Compare`` constraint). The
  generator writes ``a`` before ``b`` in row-major order and names the clue ``r1c1-r1c2``.

JSON format: ``{"family": "futoshiki", "params": {"size": 4}, "clues": [{"id": "r1c1",
"kind": "given", "data": {"value": 2}, "coords": [[0, 0]]}, {"id": "r1c2-r2c2", "kind":
"inequality", "data": {"op": "<"}, "coords": [[0, 1], [1, 1]]}]}``.

Text format: Simon Tatham's ``unequal`` game description, one puzzle a line: ``N:`` then, for
every cell in row-major order, its given (``0`` for none) followed by the letters ``U``, ``R``,
``D``, ``L`` of the neighbours it is greater than, and a comma; e.g. ``4:0,0,0D,0R,...``.
"Adjacent" mode descriptions (``Na:``) belong to the family ``futoshiki-adjacent``.

Repair moves at a cell: reveal its digit, or add the true inequality between it and a neighbour
that has none yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core.model import (
    Clue,
    Compare,
    Constraint,
    Instance,
    Origin,
    Schema,
    Solution,
    SpecError,
    Violation,
    text_int,
)
from puzzlekit.core.protocols import FamilyInfo, Repair
from puzzlekit.core.reading import is_digits
from puzzlekit.families import register_family
from puzzlekit.families._kit.dihedral import Move, canonical_square, moved_cells, moved_given
from puzzlekit.families.grid import (
    MAX_SIZE,
    SYMBOLS,
    GappedDrawing,
    GivensGrid,
    cell_name,
    check_described_size,
    clue_cell,
    gap_point,
    gapped_ascii,
)

#: Tatham's flag letters: the direction of the smaller neighbour, in his order
FLAGS = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}


def inequality(a: tuple[int, int], b: tuple[int, int], op: str) -> Clue:
    """The inequality clue ``value(a) op value(b)`` with its cells in row-major order."""
    if b < a:
        a, b, op = b, a, {"<": ">", ">": "<"}[op]
    return Clue.make(f"{cell_name(*a)}-{cell_name(*b)}", "inequality", {"op": op}, [a, b])


def _moved_clue(clue: Clue, move: Move, n: int, reverse: bool) -> Clue:
    """One clue's image under a move of the square (values reversed when ``reverse``)."""
    if clue.kind == "given":
        return moved_given(clue, move, n, reverse)
    if clue.kind != "inequality" or len(clue.coords) != 2:
        raise ValueError(f"clue {clue.id} is not a given or an inequality")
    op = clue.data_dict()["op"]
    if op not in ("<", ">"):
        raise ValueError(f"clue {clue.id}: op {op!r}")
    a, b = moved_cells(clue, move)
    return inequality(a, b, {"<": ">", ">": "<"}[op] if reverse else op)


def _split_cells(body: str, n: int) -> tuple[dict[int, tuple[int, str]], list[Violation]]:
    """Tatham's cell list: ``a``-``z`` skip 1-26 blank cells, then a number, flags ``URDL`` and a
    comma per cell. Returns {cell index: (value, flags)} and the problems found."""
    cells: dict[int, tuple[int, str]] = {}
    i = pos = 0
    while pos < len(body):
        while pos < len(body) and "a" <= body[pos] <= "z":
            i += ord(body[pos]) - ord("a") + 1
            pos += 1
        if pos == len(body):
            break
        start = pos
        while pos < len(body) and is_digits(body[pos]):
            pos += 1
        if start == pos:
            return cells, [Violation("malformed", None, "line", f"expected a number at {pos}")]
        value = text_int(body[start:pos], "line")
        start = pos
        while pos < len(body) and body[pos] in FLAGS:
            pos += 1
        if i >= n * n:
            return cells, [Violation("shape-mismatch", None, "line", "too much data for the grid")]
        cells[i] = (value, body[start:pos])
        i += 1
        if pos < len(body):
            if body[pos] != ",":
                return cells, [Violation("malformed", None, "line", f"expected ',' at {pos}")]
            pos += 1
    if i != n * n:
        return cells, [
            Violation("shape-mismatch", None, "line", f"{i} cells described, the grid has {n * n}")
        ]
    return cells, []


class Futoshiki(GappedDrawing, GivensGrid):
    info = FamilyInfo(
        name="futoshiki",
        description="N×N Latin square with givens and < > between orthogonal neighbours",
        clue_kinds=("given", "inequality"),
        listed_params=({"size": 4}, {"size": 5}, {"size": 6}, {"size": 7}),
        size_limits={"size": MAX_SIZE},
        value_clue_kind="given",
        symmetry_group=(
            "the square's rotations and reflections, each sign moved and turned with its two "
            "cells, and the value reversal v -> n + 1 - v with every sign reversed"
        ),
        rules_text=(
            "Fill every cell of the {size}×{size} grid with a number from 1 to {size} so that "
            "every row and every column holds each number exactly once, and every sign between "
            "two neighbouring cells holds: `<` and `>` between cells of a row, `^` and `v` "
            "between a cell and the one below it, each pointing at the smaller number. Given "
            "numbers stay."
        ),
    )
    param_keys = ("size",)

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"size": self._check_size(params, default=5)}

    def canonical_instance(self, instance: Instance) -> Instance:
        return canonical_square(self, instance, _moved_clue, reverse=True)

    # -- clues ------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        if clue.kind != "inequality":
            return super().clue_constraints(schema, clue)
        where = f"clue {clue.id}"
        n = schema.params_dict()["size"]
        if len(clue.coords) != 2:
            raise SpecError(
                [Violation("shape-mismatch", None, where, "an inequality names two cells")]
            )
        a, b = (tuple(c) for c in clue.coords)
        for coord in (a, b):
            if schema.var_at(coord) is None:
                raise SpecError(
                    [
                        Violation(
                            "shape-mismatch",
                            coord,
                            where,
                            f"cell {list(coord)} is outside the {n}x{n} grid",
                        )
                    ]
                )
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise SpecError(
                [Violation("shape-mismatch", a, where, "the two cells are not neighbours")]
            )
        op = clue.data_dict().get("op")
        if op not in ("<", ">"):
            raise SpecError([Violation("malformed", a, where, f"op must be < or >: {op!r}")])
        va, vb = schema.var_at(a), schema.var_at(b)
        return (Compare(va.name, op, vb.name, Origin("clue", clue.id, (a, b))),)

    def validate_clues(self, schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
        out = super().validate_clues(schema, clues)
        seen: dict[frozenset, str] = {}
        for clue in clues:
            if clue.kind != "inequality" or len(clue.coords) != 2:
                continue
            pair = frozenset(tuple(c) for c in clue.coords)
            if pair in seen and seen[pair] != clue.id:  # one id twice: reported as such
                out.append(
                    Violation(
                        "duplicate-clue",
                        tuple(clue.coords[0]),
                        f"clue {clue.id}",
                        f"clues {seen[pair]} and {clue.id} both compare these cells",
                    )
                )
            else:
                seen[pair] = clue.id
        return out

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        n = schema.params_dict()["size"]
        out = super().clues_from_solution(schema, solution)
        for r in range(n):
            for c in range(n):
                for b in ((r, c + 1), (r + 1, c)):
                    if b[0] < n and b[1] < n:
                        va, vb = solution[cell_name(r, c)], solution[cell_name(*b)]
                        out.append(inequality((r, c), b, "<" if va < vb else ">"))
        return out

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        def true_inequality(a: tuple, b: tuple, sol: Solution) -> Clue:
            return inequality(a, b, "<" if sol[cell_name(*a)] < sol[cell_name(*b)] else ">")

        return self.pair_repairs(
            schema, instance, solution, coord, found, true_inequality, "add-inequality"
        )

    # -- text: Tatham's unequal description --------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        line = text.strip()
        head, sep, body = line.partition(":")
        if not sep or not is_digits(head):
            if is_digits(head[:-1]) and head.endswith("a"):
                raise SpecError(
                    [
                        Violation(
                            "malformed",
                            None,
                            "line",
                            "adjacent-mode descriptions are family futoshiki-adjacent",
                        )
                    ]
                )
            raise SpecError(
                [Violation("malformed", None, "line", "expected N: then the cell list")]
            )
        n = text_int(head, "line")
        check_described_size(n, params)
        schema = self.schema({"size": n})
        cells, problems = _split_cells(body, n)
        clues: list[Clue] = []
        seen: dict[str, str] = {}
        for i, (value, flags) in cells.items():
            coord = divmod(i, n)
            if value > n:
                problems.append(
                    Violation(
                        "out-of-domain", coord, cell_name(*coord), f"{value} is outside 1..{n}"
                    )
                )
            elif value:
                clues.append(self.given(schema, coord, value))
            for f in flags:
                nb = (coord[0] + FLAGS[f][0], coord[1] + FLAGS[f][1])
                if not (0 <= nb[0] < n and 0 <= nb[1] < n):
                    problems.append(
                        Violation(
                            "shape-mismatch",
                            coord,
                            cell_name(*coord),
                            f"flag {f} points outside the grid",
                        )
                    )
                    continue
                clue = inequality(coord, nb, ">")
                if clue.id in seen and seen[clue.id] != clue.data_dict()["op"]:
                    # the other cell's flag says the opposite: a second clue on the pair
                    clue = Clue.make(clue.id + "b", clue.kind, clue.data_dict(), clue.coords)
                seen[clue.id] = clue.data_dict()["op"]
                clues.append(clue)
        if problems:
            raise SpecError(problems)
        return Instance.make(self.info.name, schema.params_dict(), clues)

    def format_text(self, instance: Instance) -> str:
        n = instance.params_dict()["size"]
        values = [0] * (n * n)
        flags: list[set[str]] = [set() for _ in range(n * n)]
        for clue in instance.clues:
            if clue.kind == "given":
                r, c = clue_cell(clue, n)
                values[r * n + c] = clue.data_dict()["value"]
            elif clue.kind == "inequality":
                a, b = clue_cell(clue, n), clue_cell(clue, n, at=1)
                big, small = (a, b) if clue.data_dict()["op"] == ">" else (b, a)
                d = (small[0] - big[0], small[1] - big[1])
                flags[big[0] * n + big[1]].add(next(k for k, v in FLAGS.items() if v == d))
        cells = [str(values[i]) + "".join(f for f in FLAGS if f in flags[i]) for i in range(n * n)]
        return f"{n}:" + "".join(c + "," for c in cells)

    # -- rendering --------------------------------------------------------------------------
    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """Tatham's layout: ``<``/``>`` between cells of a row, ``^``/``v`` between rows (the
        point faces the smaller cell); a mark is drawn right after its cell."""
        n = instance.params_dict()["size"]
        marks = marks or {}
        sym: dict[tuple, str] = {}
        if solution:
            for r in range(n):
                for c in range(n):
                    v = solution.get(cell_name(r, c))
                    if v:
                        sym[(r, c)] = SYMBOLS[v - 1].lower()
        horiz: dict[tuple, str] = {}
        vert: dict[tuple, str] = {}
        for clue in instance.clues:
            if clue.kind == "given" and len(clue.coords) == 1:
                v = clue.data_dict().get("value")
                if isinstance(v, int) and 1 <= v <= len(SYMBOLS):
                    sym[tuple(clue.coords[0])] = SYMBOLS[v - 1]
            elif clue.kind == "inequality" and len(clue.coords) == 2:
                a, b = sorted(tuple(x) for x in clue.coords)
                op = clue.data_dict().get("op")
                if tuple(clue.coords[0]) != a:
                    op = {"<": ">", ">": "<"}.get(op, op)
                if a[0] == b[0]:
                    horiz[a] = op
                else:
                    vert[a] = {"<": "^", ">": "v"}.get(op, "?")
        return gapped_ascii(n, sym, marks, horiz, vert)

    def draw_gaps(self, ax: Any, instance: Instance) -> None:
        """``<``/``>`` between cells of a row, ``∧``/``∨`` between rows."""
        for clue in instance.clues:
            if clue.kind == "inequality" and len(clue.coords) == 2:
                (r1, c1), (r2, c2) = clue.coords
                op = clue.data_dict()["op"]
                ch = op if r1 == r2 else {"<": "∧", ">": "∨"}[op]
                ax.text(*gap_point((r1 + r2) / 2, (c1 + c2) / 2), ch, ha="center", va="center")


FUTOSHIKI = register_family(Futoshiki())
