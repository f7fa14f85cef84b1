"""Nonograms (Tatham's "Pattern"): fill cells so that every row and column shows its runs.

An R×C grid (1..30 each) of cells, 1 filled and 0 empty. A line clue lists the lengths of the
maximal runs of filled cells along a row (left to right) or column (top to bottom).

Params: ``{"rows": R, "cols": C, "density": D}``; ``density`` (percent, 10..90, default 50) is the
share of filled cells in the seeded random images of :meth:`Nonogram.sample_solution` and
changes nothing else.

Clue kinds (coordinates are 0-based ``[row, col]`` cells):

- ``row`` / ``col``: ``data = {"index": i, "runs": [3, 1, ...]}`` (``[]`` for an empty line);
  ``coords`` are the cells of the line in reading order; id ``row{i+1}`` / ``col{i+1}``.
  Constraint: a ``Regular`` over the line (the automaton of ``0* 1^a 0+ 1^b ... 0*``).
- ``cell``: ``data = {"value": 0|1}``, one coordinate; id ``r{row}c{col}`` (1-based).

``clues_from_solution`` gives every line clue and every cell (all lines alone need not be
unique); ``initial_clues`` gives all line clues plus ``k`` random cells.

JSON format: ``{"family": "nonogram", "params": {"rows": 10, "cols": 10, "density": 50},
"clues": [{"id": "row1", "kind": "row", "data": {"index": 0, "runs": [2, 3]}, "coords": [[0, 0],
..., [0, 9]]}, {"id": "r2c5", "kind": "cell", "data": {"value": 1}, "coords": [[1, 4]]}]}``.

Text format: Simon Tatham's Pattern game ID ``CxR:col1/col2/.../row1/...[,cells]``: the column
clues (left to right) then the row clues (top to bottom), runs separated by ``.``, an empty line
written ``0``, and (an extension: Tatham's IDs always give every line) ``?`` for a line
without a clue; the optional cells part skips ``n`` unknown cells with the letter ``chr(97+n)``
then fixes one cell, upper case filled, lower case empty (``z`` skips 25 without fixing one).

Generation: repair moves at a cell reveal it or add the row or column clue through it.
Not for: the enumerative backend on big grids: it checks a line only once the whole line is
assigned, so it is listed up to 10×10 (sat solves 30×30 in well under a second).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import (
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
)
from puzzlekit.core.protocols import FamilyInfo, Repair, pick_in_order
from puzzlekit.core.reading import is_digits
from puzzlekit.families import register_family
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

MAX_SIDE = 30


def runs_of(values: Sequence[int]) -> list[int]:
    """Lengths of the maximal runs of 1s in ``values``."""
    out, run = [], 0
    for v in values:
        if v:
            run += 1
        elif run:
            out.append(run)
            run = 0
    if run:
        out.append(run)
    return out


@functools.lru_cache(maxsize=4096)
def runs_automaton(runs: tuple[int, ...]) -> Automaton:
    """The DFA of ``0* 1^runs[0] 0+ 1^runs[1] ... 0*``: state ``s`` = pattern symbols read."""
    pattern: list[int] = []
    for i, r in enumerate(runs):
        if i:
            pattern.append(0)
        pattern += [1] * r
    t = len(pattern)
    transitions = []
    for s in range(t + 1):
        if s == 0 or s == t or pattern[s - 1] == 0:
            transitions.append((s, 0, s))  # a gap may grow
        if s < t and not (pattern[s] == 0 and (s == 0 or pattern[s - 1] == 0)):
            transitions.append((s, pattern[s], s + 1))
    return Automaton(0, frozenset({t}), tuple(sorted(set(transitions))))


class Nonogram(protocols.Family):
    info = FamilyInfo(
        name="nonogram",
        description=(
            "R×C black-and-white picture; row and column clues give the runs of filled cells"
        ),
        clue_kinds=("row", "col", "cell"),
        listed_params=(
            {"rows": 5, "cols": 5},
            {"rows": 8, "cols": 8},
            {"rows": 10, "cols": 10},
        ),
        size_limits={"rows": MAX_SIDE, "cols": MAX_SIDE},
        value_clue_kind="cell",
        place_name="line or cell",
        symmetry_group=(
            "the rectangle's reflections (rows reversed, columns reversed, both), and on a square "
            "grid the transpose and the quarter turns too: each line clue moved with its line, "
            "its runs reversed when its line is"
        ),
        rules_text=(
            "Shade cells of the {rows}×{cols} grid so that the numbers left of each row (above "
            "each column) give, in order, the lengths of its runs of consecutive shaded cells, "
            "with at least one empty cell between runs. In the drawing `#` is a cell known to be "
            "shaded, `.` one known to be empty, `?` one to decide. In the answer write `#` for a "
            "shaded cell and `-` for an empty one."
        ),
        answer_symbols={1: "#", 0: "-"},
    )

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(params, ("rows", "cols", "density"), self.info.name)
        return {
            "rows": int_param(params, "rows", 1, MAX_SIDE, None),
            "cols": int_param(params, "cols", 1, MAX_SIDE, None),
            "density": int_param(params, "density", 10, 90, 50),
        }

    def schema_id(self, params: Mapping[str, Any]) -> str:
        base = f"{self.info.name}-{params['rows']}x{params['cols']}"
        return base if params["density"] == 50 else f"{base}-d{params['density']}"

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        h, w = params["rows"], params["cols"]
        variables = tuple(
            Variable((r, c), cell_name(r, c), (0, 1)) for r in range(h) for c in range(w)
        )
        key = tuple(sorted(params.items()))
        return Schema(self.info.name, key, variables, (), self.info.clue_kinds)

    # -- clues ------------------------------------------------------------------------------
    @staticmethod
    def _shape(schema: Schema) -> tuple[int, int]:
        p = schema.params_dict()
        return p["rows"], p["cols"]

    @staticmethod
    def line(kind: str, index: int, h: int, w: int) -> list[tuple[int, int]]:
        if kind == "row":
            return [(index, c) for c in range(w)]
        return [(r, index) for r in range(h)]

    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        h, w = self._shape(schema)
        where = f"clue {clue.id}"
        if clue.kind == "cell":
            var = one_cell(schema, clue)
            value = clue_int(clue, "value", 0, 1, var.coord)
            return (Linear((var.name,), (1,), "==", value, Origin("clue", clue.id, (var.coord,))),)
        if clue.kind not in ("row", "col"):
            raise fail("malformed", None, where, f"unknown clue kind {clue.kind!r}")
        length = w if clue.kind == "row" else h
        index = clue_int(clue, "index", 0, (h if clue.kind == "row" else w) - 1)
        cells = self.line(clue.kind, index, h, w)
        runs = clue.data_dict().get("runs")
        if (
            not isinstance(runs, list)
            or not all(isinstance(r, int) and not isinstance(r, bool) and r >= 1 for r in runs)
            or sum(runs) + len(runs) - 1 > length
        ):
            raise fail(
                "out-of-domain",
                cells[0],
                where,
                f"runs must be positive integers that fit in {length} cells: {runs!r}",
            )
        same_cells(clue, cells)
        names = tuple(cell_name(*c) for c in cells)
        return (Regular(names, runs_automaton(tuple(runs)), Origin("clue", clue.id, tuple(cells))),)

    def canonical_instance(self, instance: Instance) -> Instance:
        """The image of least digest over :attr:`symmetry_group` (the whole orbit: at most 8
        images, each rebuilt by :meth:`line_clue` and :meth:`cell`); ``instance`` itself when a
        clue does not read as a line or a cell of its grid."""
        try:
            schema = self.schema(instance.params_dict())
            h, w = self._shape(schema)
            images = [
                _moved_clues(self, instance, h, w, flip_r, flip_c, swap)
                for swap in ((False, True) if h == w else (False,))
                for flip_r in (False, True)
                for flip_c in (False, True)
            ]
        except (SpecError, KeyError, TypeError, ValueError):
            return instance
        moved = [Instance.make(self.info.name, schema.params_dict(), clues) for clues in images]
        return min(moved, key=lambda inst: inst.digest)

    def place_of(self, clue: Clue) -> Any:
        if clue.kind in ("row", "col"):
            return (clue.kind, clue.data_dict().get("index"))
        if clue.kind == "cell" and len(clue.coords) == 1:
            return clue.coords[0]
        return None

    def line_clue(self, kind: str, index: int, h: int, w: int, runs: Sequence[int]) -> Clue:
        cells = self.line(kind, index, h, w)
        return Clue.make(f"{kind}{index + 1}", kind, {"index": index, "runs": list(runs)}, cells)

    @staticmethod
    def cell(coord: tuple[int, int], value: int) -> Clue:
        return Clue.make(cell_name(*coord), "cell", {"value": value}, [coord])

    def line_clues(self, schema: Schema, solution: Solution) -> list[Clue]:
        h, w = self._shape(schema)
        out = []
        for kind, count in (("row", h), ("col", w)):
            for i in range(count):
                values = [solution[cell_name(*c)] for c in self.line(kind, i, h, w)]
                out.append(self.line_clue(kind, i, h, w, runs_of(values)))
        return out

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        cells = [self.cell(v.coord, solution[v.name]) for v in schema.variables]
        return self.line_clues(schema, solution) + cells

    # -- generation -------------------------------------------------------------------------
    def sample_solution(self, schema: Schema, rng: Any) -> Solution:
        """A seeded random image: each cell filled with probability ``density`` percent."""
        p = schema.params_dict()["density"] / 100
        draws = rng.random(len(schema.variables))
        return {v.name: int(x < p) for v, x in zip(schema.variables, draws, strict=True)}

    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        cells = [self.cell(v.coord, solution[v.name]) for v in schema.variables]
        return self.line_clues(schema, solution) + pick_in_order(cells, k, rng)

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        h, w = self._shape(schema)
        coord = tuple(coord)
        if schema.var_at(coord) is None:
            return []
        present = {c.id for c in instance.clues}
        r, c = coord
        moves = []
        cell = self.cell(coord, solution[cell_name(r, c)])
        if cell.id not in present:
            moves.append(Repair("reveal", coord, add=(cell,)))
        for kind, i in (("row", r), ("col", c)):
            values = [solution[cell_name(*x)] for x in self.line(kind, i, h, w)]
            clue = self.line_clue(kind, i, h, w, runs_of(values))
            if clue.id not in present:
                moves.append(Repair("add-line", coord, add=(clue,)))
        return moves

    # -- text -------------------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        line = text.strip()
        head, sep, desc = line.partition(":")
        size = head.split("x")
        if not sep or not all(is_digits(s) and len(s) < 6 for s in size) or len(size) not in (1, 2):
            raise fail("malformed", None, "text", "expected a Pattern game ID 'CxR:clues[,cells]'")
        w = int(size[0])
        h = int(size[1]) if len(size) == 2 else w
        extra = dict(params or {})
        schema = self.schema({**extra, "rows": h, "cols": w})
        clue_part, comma, cells_part = desc.partition(",")
        lines = clue_part.split("/")
        if len(lines) != w + h:
            raise fail(
                "shape-mismatch", None, "text", f"{len(lines)} line clues, {w}x{h} needs {w + h}"
            )
        clues: list[Clue] = []
        for j, item in enumerate(lines):
            kind, i = ("col", j) if j < w else ("row", j - w)
            if item == "?":
                continue
            parts = [p for p in item.split(".") if p != ""] if item else []
            if not all(is_digits(p) and len(p) < 6 for p in parts):
                raise fail("malformed", None, f"line[{j}]", f"not run lengths: {item!r}")
            runs = [int(p) for p in parts if int(p) > 0]
            length = w if kind == "row" else h
            if sum(runs) + len(runs) - 1 > length:
                raise fail("out-of-domain", None, f"line[{j}]", f"runs {runs} exceed {length}")
            clues.append(self.line_clue(kind, i, h, w, runs))
        clues = [c for c in clues if c.kind == "row"] + [c for c in clues if c.kind == "col"]
        if comma:
            pos = 0
            for ch in cells_part:
                if not ch.isalpha() or not ch.isascii():
                    raise fail("malformed", None, "cells", f"unexpected character {ch!r}")
                skip = ord(ch.lower()) - ord("a")
                pos += skip
                if skip < 25 and pos < w * h:
                    clues.append(self.cell(divmod(pos, w), int(ch.isupper())))
                    pos += 1
        return Instance.make(self.info.name, schema.params_dict(), clues)

    def format_text(self, instance: Instance) -> str:
        p = instance.params_dict()
        h, w = p["rows"], p["cols"]
        slots = ["?"] * (w + h)
        known: dict[int, int] = {}
        for clue in instance.clues:
            d = clue.data_dict()
            if clue.kind in ("row", "col"):
                j = d["index"] + (w if clue.kind == "row" else 0)
                slots[j] = ".".join(str(x) for x in d["runs"]) or "0"
            elif clue.kind == "cell":
                r, c = clue.coords[0]
                known[r * w + c] = d["value"]
        out = f"{w}x{h}:" + "/".join(slots)
        if known:
            parts, last = [], 0
            for pos in sorted(known):
                gap = pos - last
                while gap >= 25:
                    parts.append("z")
                    gap -= 25
                ch = chr(ord("a") + gap)
                parts.append(ch.upper() if known[pos] else ch)
                last = pos + 1
            out += "," + "".join(parts)
        return out

    # -- rendering --------------------------------------------------------------------------
    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """Row clues left of the grid, column clues above it; ``#`` filled, ``.`` empty, ``?``
        unknown; ``marks`` maps a cell to a mark drawn after it (reject coordinates)."""
        p = instance.params_dict()
        h, w = p["rows"], p["cols"]
        rows: dict[int, list[int]] = {}
        cols: dict[int, list[int]] = {}
        grid = [["?"] * w for _ in range(h)]
        if solution:
            for r in range(h):
                for c in range(w):
                    if cell_name(r, c) in solution:
                        grid[r][c] = "#" if solution[cell_name(r, c)] else "."
        for clue in instance.clues:
            d = clue.data_dict()
            if clue.kind == "row":
                rows[d.get("index")] = d.get("runs", [])
            elif clue.kind == "col":
                cols[d.get("index")] = d.get("runs", [])
            elif clue.kind == "cell" and len(clue.coords) == 1:
                r, c = clue.coords[0]
                if 0 <= r < h and 0 <= c < w:
                    grid[r][c] = "#" if d.get("value") else "."
        left = [" ".join(str(x) for x in rows.get(r, [])) if r in rows else "-" for r in range(h)]
        lw = max(len(s) for s in left)
        depth = max([len(v) for v in cols.values()] + [1])
        lines = []
        for k in range(depth):
            cells = []
            for c in range(w):
                runs = cols.get(c)
                label = "-" if runs is None and k == depth - 1 else ""
                if runs is not None and k >= depth - max(len(runs), 1):
                    label = str(runs[k - depth + len(runs)]) if runs else "0"
                cells.append(f"{label:>2} ")
            lines.append(" " * (lw + 2) + "".join(cells))
        lines.append(" " * (lw + 1) + "+" + "---" * w + "+")
        for r in range(h):
            row = "".join(f" {grid[r][c]}{mark_of(marks, (r, c))}" for c in range(w))
            lines.append(f"{left[r]:>{lw}} |{row}|")
        lines.append(" " * (lw + 1) + "+" + "---" * w + "+")
        return "\n".join(lines)

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        import matplotlib.pyplot as plt

        p = instance.params_dict()
        h, w = p["rows"], p["cols"]
        if ax is None:
            _, ax = plt.subplots(figsize=(w * 0.35 + 1, h * 0.35 + 1))
        known = {c.coords[0]: c.data_dict()["value"] for c in instance.clues if c.kind == "cell"}
        for r in range(h):
            for c in range(w):
                v = known.get((r, c))
                color = "black"
                if v is None and solution:
                    v, color = solution.get(cell_name(r, c)), "tab:blue"
                if v:
                    ax.add_patch(plt.Rectangle((c, h - r - 1), 1, 1, color=color))
        for i in range(h + 1):
            ax.plot([0, w], [i, i], color="grey", lw=0.5)
        for i in range(w + 1):
            ax.plot([i, i], [0, h], color="grey", lw=0.5)
        for clue in instance.clues:
            d = clue.data_dict()
            text = " ".join(str(x) for x in d.get("runs", [])) or "0"
            if clue.kind == "row":
                ax.text(-0.2, h - d["index"] - 0.5, text, ha="right", va="center", fontsize=8)
            elif clue.kind == "col":
                ax.text(d["index"] + 0.5, h + 0.2, text.replace(" ", "\n"), ha="center", fontsize=8)
        ax.set_xlim(-w * 0.5, w)
        ax.set_ylim(0, h + h * 0.5)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax


def _moved_clues(
    fam: Nonogram, instance: Instance, h: int, w: int, flip_r: bool, flip_c: bool, swap: bool
) -> list[Clue]:
    """The clues of ``instance`` moved by one group element: rows reversed (``flip_r``),
    columns reversed (``flip_c``), then transposed (``swap``; square grids only)."""
    out = []
    for clue in instance.clues:
        data = clue.data_dict()
        if clue.kind == "cell" and len(clue.coords) == 1:
            r, c = clue.coords[0]
            r, c = (h - 1 - r if flip_r else r), (w - 1 - c if flip_c else c)
            out.append(fam.cell((c, r) if swap else (r, c), data["value"]))
            continue
        if clue.kind not in ("row", "col"):
            raise ValueError(f"no move for a {clue.kind!r} clue")
        index, runs = data["index"], list(data["runs"])
        along, across = (flip_c, flip_r) if clue.kind == "row" else (flip_r, flip_c)
        if across:
            index = (h if clue.kind == "row" else w) - 1 - index
        if along:
            runs.reverse()
        kind = {"row": "col", "col": "row"}[clue.kind] if swap else clue.kind
        out.append(fam.line_clue(kind, index, h, w, runs))
    return out


NONOGRAM = register_family(Nonogram())
