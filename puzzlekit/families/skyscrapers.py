"""Skyscrapers (Tatham's "Towers"): a Latin square of building heights with visibility clues.

An N×N grid (N = 3..9; listed sizes 4..8) holds heights 1..N, each once per row and column. A
clue outside the grid says how many buildings are seen looking into its line from that side (a
taller building hides every shorter one behind it).

Params: ``{"size": N}``.

Clue kinds (coordinates are 0-based ``[row, col]`` cells):

- ``edge``: ``data = {"side": "top"|"bottom"|"left"|"right", "index": i, "value": v}``; ``i`` is
  the 0-based column (top, bottom) or row (left, right); ``coords`` are the cells of that line in
  viewing order, from the clue inwards. Id ``top1`` .. ``right{N}`` (1-based index).
  Constraint: a ``Regular`` over the line whose automaton tracks (tallest so far, seen so far).
- ``given``: ``data = {"value": v}``, one coordinate; id ``r{row}c{col}`` (1-based).

JSON format: ``{"family": "skyscrapers", "params": {"size": 5}, "clues": [{"id": "top2",
"kind": "edge", "data": {"side": "top", "index": 1, "value": 3}, "coords": [[0, 1], [1, 1],
...]}, {"id": "r3c4", "kind": "given", "data": {"value": 2}, "coords": [[2, 3]]}]}``.

Text format: Simon Tatham's Towers game ID, ``N:c1/c2/.../c4N[,grid]``: 4N clue slots (empty
for none) for the top (columns left to right), bottom (columns left to right), left (rows top
to bottom) and right (rows top to bottom) sides, then optionally the givens, row by row, as
digits with runs of blanks written ``a`` (1) .. ``z`` (26) and ``_`` between adjacent digits.

Generation: ``initial_clues`` draws ``k`` random edge clues (then givens when ``k > 4N``);
repair moves at a cell reveal its height or add an edge clue of its row or column.
Not for: sizes above 9 (clue digits and the Tatham format stop there).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import (
    AllDifferent,
    Automaton,
    Clue,
    Constraint,
    Instance,
    Linear,
    Origin,
    Regular,
    Schema,
    Solution,
    SpecError,
    Variable,
    text_int,
)
from puzzlekit.core.protocols import FamilyInfo, Repair, pick_in_order
from puzzlekit.core.reading import is_digits
from puzzlekit.families import register_family
from puzzlekit.families._kit.dihedral import Move, canonical_square, moved_cells, moved_given
from puzzlekit.families._kit.regions import (
    cell_name,
    check_keys,
    clue_int,
    fail,
    int_param,
    mark_of,
    one_cell,
    same_cells,
)
from puzzlekit.families.grid import clue_cell

SIDES = ("top", "bottom", "left", "right")


def line_cells(side: str, index: int, n: int) -> list[tuple[int, int]]:
    """The cells seen from clue ``side``/``index``, nearest first."""
    if side == "top":
        return [(r, index) for r in range(n)]
    if side == "bottom":
        return [(r, index) for r in reversed(range(n))]
    if side == "left":
        return [(index, c) for c in range(n)]
    return [(index, c) for c in reversed(range(n))]


def visible(heights: Sequence[int]) -> int:
    """How many of ``heights`` (nearest first) are seen: each one taller than all before it."""
    seen, best = 0, 0
    for h in heights:
        if h > best:
            seen, best = seen + 1, h
    return seen


@functools.lru_cache(maxsize=128)
def visibility_automaton(n: int, value: int) -> Automaton:
    """Accepts the words over 1..n (all different, enforced elsewhere) with ``value`` visible.

    A state is (tallest so far, seen so far); only states that can still reach ``value`` seen with
    height ``n`` last seen are kept, so the unrolled SAT encoding stays small.
    """
    index: dict[tuple[int, int], int] = {(0, 0): 0}
    transitions = []
    todo = [(0, 0)]
    while todo:
        m, c = todo.pop()
        for x in range(1, n + 1):
            if x > m:
                nxt = (x, c + 1)
                # taller buildings than x still to come: at most n - x more can be seen
                if nxt[1] > value or nxt[1] + (n - x) < value:
                    continue
            elif x < m:
                nxt = (m, c)
            else:
                continue
            if nxt not in index:
                index[nxt] = len(index)
                todo.append(nxt)
            transitions.append((index[(m, c)], x, index[nxt]))
    accepting = frozenset(i for (m, c), i in index.items() if m == n and c == value)
    return Automaton(0, accepting, tuple(sorted(transitions)))


class Skyscrapers(protocols.Family):
    info = FamilyInfo(
        name="skyscrapers",
        description="N×N Latin square of heights; edge clues count the buildings seen",
        clue_kinds=("edge", "given"),
        listed_params=({"size": 4}, {"size": 5}, {"size": 6}, {"size": 8}),
        # its edge clues are ``Regular`` constraints, which the compiled ``bitmask`` backend cannot
        # take, though its all-different rules compile: every loop's filter is ``sat``
        default_verifier="sat",
        size_limits={"size": 9},
        value_clue_kind="given",
        place_name="place",
        symmetry_group=(
            "the square's rotations and reflections, each edge clue moved to the side its line "
            "and its viewpoint go to (a reflection across a line swaps the line's two ends)"
        ),
        rules_text=(
            "Fill every cell of the {size}×{size} grid with a building height from 1 to {size} so "
            "that every row and every column holds each height exactly once. A number outside the "
            "grid counts the buildings seen from there looking along that row or column: a taller "
            "building hides every lower one behind it. Given heights stay."
        ),
    )

    def canonical_instance(self, instance: Instance) -> Instance:
        return canonical_square(self, instance, self._moved_clue)

    def _moved_clue(self, clue: Clue, move: Move, n: int, reverse: bool) -> Clue:
        """One clue's image: an edge clue's cells (from its viewpoint on) moved give its side
        (where the line's first cell now is) and index."""
        if clue.kind == "given":
            return moved_given(clue, move, n)
        value = clue.data_dict()["value"]
        if clue.kind != "edge" or len(clue.coords) != n or not isinstance(value, int):
            raise ValueError(f"clue {clue.id} is not an edge clue or a given")
        (r0, c0), (r1, c1) = moved_cells(clue, move)[:2]
        if r0 == r1:
            return self.edge(n, "left" if c1 > c0 else "right", r0, value)
        return self.edge(n, "top" if r1 > r0 else "bottom", c0, value)

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(params, ("size",), self.info.name)
        return {"size": int_param(params, "size", 3, 9, None)}

    def schema_id(self, params: Mapping[str, Any]) -> str:
        n = params["size"]
        return f"{self.info.name}-{n}x{n}"

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        n = params["size"]
        variables = tuple(
            Variable((r, c), cell_name(r, c), tuple(range(1, n + 1)))
            for r in range(n)
            for c in range(n)
        )
        rules: list[Constraint] = []
        for i in range(n):
            for rid, cells in (
                (f"row{i + 1}", [(i, c) for c in range(n)]),
                (f"col{i + 1}", [(r, i) for r in range(n)]),
            ):
                names = tuple(cell_name(*cell) for cell in cells)
                rules.append(AllDifferent(names, Origin("rule", rid, tuple(cells))))
        key = tuple(sorted(params.items()))
        return Schema(self.info.name, key, variables, tuple(rules), self.info.clue_kinds)

    # -- clues ------------------------------------------------------------------------------
    @staticmethod
    def _n(schema: Schema) -> int:
        return schema.params_dict()["size"]

    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        n = self._n(schema)
        where = f"clue {clue.id}"
        if clue.kind == "given":
            var = one_cell(schema, clue)
            value = clue_int(clue, "value", 1, n, var.coord)
            origin = Origin("clue", clue.id, (var.coord,))
            return (Linear((var.name,), (1,), "==", value, origin),)
        if clue.kind != "edge":
            raise fail("malformed", None, where, f"unknown clue kind {clue.kind!r}")
        data = clue.data_dict()
        side = data.get("side")
        if side not in SIDES:
            raise fail("malformed", None, where, f"side must be one of {SIDES}: {side!r}")
        index = clue_int(clue, "index", 0, n - 1)
        cells = line_cells(side, index, n)
        value = clue_int(clue, "value", 1, n, cells[0])
        same_cells(clue, cells)
        names = tuple(cell_name(*c) for c in cells)
        origin = Origin("clue", clue.id, tuple(cells))
        return (Regular(names, visibility_automaton(n, value), origin),)

    def place_of(self, clue: Clue) -> Any:
        if clue.kind == "edge":
            data = clue.data_dict()
            return (data.get("side"), data.get("index"))
        if clue.kind == "given" and len(clue.coords) == 1:
            return clue.coords[0]
        return None

    @staticmethod
    def edge(n: int, side: str, index: int, value: int) -> Clue:
        return Clue.make(
            f"{side}{index + 1}",
            "edge",
            {"side": side, "index": index, "value": value},
            line_cells(side, index, n),
        )

    @staticmethod
    def given(coord: tuple[int, int], value: int) -> Clue:
        return Clue.make(cell_name(*coord), "given", {"value": value}, [coord])

    def edge_clues(self, schema: Schema, solution: Solution) -> list[Clue]:
        n = self._n(schema)
        out = []
        for side in SIDES:
            for i in range(n):
                heights = [solution[cell_name(*c)] for c in line_cells(side, i, n)]
                out.append(self.edge(n, side, i, visible(heights)))
        return out

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        givens = [self.given(v.coord, solution[v.name]) for v in schema.variables]
        return self.edge_clues(schema, solution) + givens

    # -- generation -------------------------------------------------------------------------
    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        edges = self.edge_clues(schema, solution)
        givens = [self.given(v.coord, solution[v.name]) for v in schema.variables]
        k = max(0, min(k, len(edges) + len(givens)))
        out = pick_in_order(edges, k, rng)
        if k > len(out):
            out += pick_in_order(givens, k - len(out), rng)
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
        n = self._n(schema)
        coord = tuple(coord)
        if schema.var_at(coord) is None:
            return []
        present = {c.id for c in instance.clues}
        r, c = coord
        moves = []
        given = self.given(coord, solution[cell_name(r, c)])
        if given.id not in present:
            moves.append(Repair("reveal", coord, add=(given,)))
        for side, i in (("top", c), ("bottom", c), ("left", r), ("right", r)):
            heights = [solution[cell_name(*x)] for x in line_cells(side, i, n)]
            clue = self.edge(n, side, i, visible(heights))
            if clue.id not in present:
                moves.append(Repair("add-edge", coord, add=(clue,)))
        return moves

    # -- text -------------------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        line = text.strip()
        head, sep, desc = line.partition(":")
        if not sep or not is_digits(head):
            raise fail("malformed", None, "text", "expected a Towers game ID 'N:clues[,grid]'")
        n = text_int(head, "line")
        schema = self.schema({"size": n} if params is None else {**params, "size": n})
        clue_part, comma, grid = desc.partition(",")
        slots = clue_part.split("/")
        if len(slots) != 4 * n:
            raise fail(
                "shape-mismatch", None, "text", f"{len(slots)} clue slots, size {n} needs {4 * n}"
            )
        clues: list[Clue] = []
        for j, slot in enumerate(slots):
            if not slot:
                continue
            if not is_digits(slot) or len(slot) > 3 or not 1 <= int(slot) <= n:
                raise fail("out-of-domain", None, f"clue[{j}]", f"{slot!r} is not in 1..{n}")
            clues.append(self.edge(n, SIDES[j // n], j % n, int(slot)))
        if comma:
            pos, i = 0, 0
            while i < len(grid):
                ch = grid[i]
                if "a" <= ch <= "z":
                    pos += ord(ch) - ord("a") + 1
                    i += 1
                elif ch == "_":
                    i += 1
                elif is_digits(ch):
                    j = i
                    while j < len(grid) and is_digits(grid[j]):
                        j += 1
                    value = text_int(grid[i:j], "line")
                    if not 1 <= value <= n or pos >= n * n:
                        raise fail("out-of-domain", None, "grid", f"given {value} out of place")
                    clues.append(self.given(divmod(pos, n), value))
                    pos, i = pos + 1, j
                else:
                    raise fail("malformed", None, "grid", f"unexpected character {ch!r}")
            if pos != n * n:
                raise fail("shape-mismatch", None, "grid", f"grid covers {pos} of {n * n} cells")
        return Instance.make(self.info.name, schema.params_dict(), clues)

    def format_text(self, instance: Instance) -> str:
        n = instance.params_dict()["size"]
        slots = [""] * (4 * n)
        grid = [0] * (n * n)
        for clue in instance.clues:
            d = clue.data_dict()
            if clue.kind == "edge":
                slots[SIDES.index(d["side"]) * n + d["index"]] = str(d["value"])
            elif clue.kind == "given":
                r, c = clue_cell(clue, n)
                grid[r * n + c] = d["value"]
        out = f"{n}:" + "/".join(slots)
        if any(grid):
            out += "," + _run_length(grid)
        return out

    # -- rendering --------------------------------------------------------------------------
    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """Edge clues around the grid, givens (or solution heights) inside; ``marks`` maps a cell
        to a one-character mark drawn after it (reject coordinates)."""
        n = instance.params_dict()["size"]
        edge = {s: [" "] * n for s in SIDES}
        grid = [["."] * n for _ in range(n)]
        if solution:
            for r in range(n):
                for c in range(n):
                    v = solution.get(cell_name(r, c))
                    if v:
                        grid[r][c] = str(v)
        for clue in instance.clues:
            d = clue.data_dict()
            if clue.kind == "edge" and d.get("side") in SIDES and 0 <= d.get("index", -1) < n:
                edge[d["side"]][d["index"]] = str(d.get("value"))
            elif clue.kind == "given" and len(clue.coords) == 1:
                r, c = clue.coords[0]
                if 0 <= r < n and 0 <= c < n:
                    grid[r][c] = str(d.get("value"))
        lines = ["    " + "".join(f" {x} " for x in edge["top"])]
        lines.append("   +" + "---" * n + "+")
        for r in range(n):
            row = "".join(f" {grid[r][c]}{mark_of(marks, (r, c))}" for c in range(n))
            lines.append(f" {edge['left'][r]} |{row}| {edge['right'][r]}")
        lines.append("   +" + "---" * n + "+")
        lines.append("    " + "".join(f" {x} " for x in edge["bottom"]))
        return "\n".join(lines)

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        import matplotlib.pyplot as plt

        n = instance.params_dict()["size"]
        if ax is None:
            _, ax = plt.subplots(figsize=((n + 2) * 0.45, (n + 2) * 0.45))
        for i in range(n + 1):
            ax.plot([0, n], [i, i], color="black", lw=1)
            ax.plot([i, i], [0, n], color="black", lw=1)
        for clue in instance.clues:
            d = clue.data_dict()
            if clue.kind == "edge":
                i, side = d["index"], d["side"]
                x, y = {
                    "top": (i + 0.5, n + 0.5),
                    "bottom": (i + 0.5, -0.5),
                    "left": (-0.5, n - i - 0.5),
                    "right": (n + 0.5, n - i - 0.5),
                }[side]
                ax.text(x, y, str(d["value"]), ha="center", va="center", fontsize=12)
            else:
                r, c = clue.coords[0]
                ax.text(c + 0.5, n - r - 0.5, str(d["value"]), ha="center", va="center")
        if solution:
            givens = {c.coords[0] for c in instance.clues if c.kind == "given"}
            for r in range(n):
                for c in range(n):
                    if (r, c) not in givens:
                        v = solution[cell_name(r, c)]
                        ax.text(
                            c + 0.5, n - r - 0.5, str(v), ha="center", va="center", color="tab:blue"
                        )
        ax.set_xlim(-1, n + 1)
        ax.set_ylim(-1, n + 1)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax


def _run_length(grid: Sequence[int]) -> str:
    """Tatham's grid encoding: digits, runs of zeros as ``a``..``z``, ``_`` between digits."""
    out, run = [], 0
    for i, v in enumerate(grid):
        if v == 0:
            run += 1
            continue
        if run:
            while run > 0:
                step = min(run, 26)
                out.append(chr(ord("a") + step - 1))
                run -= step
        elif i > 0:
            out.append("_")
        out.append(str(v))
    while run > 0:
        step = min(run, 26)
        out.append(chr(ord("a") + step - 1))
        run -= step
    return "".join(out)


SKYSCRAPERS = register_family(Skyscrapers())

__all__ = ["SKYSCRAPERS", "Skyscrapers", "SpecError", "line_cells", "visible"]
