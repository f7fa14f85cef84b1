"""Kakuro: digits 1..9 in white cells; every run adds up to its sum with no digit repeated.

Blocks and white cells. A *run* is a maximal horizontal (``across``) or vertical (``down``) line
of 2..9 white cells; its digits differ (a schema rule) and add up to its sum (a clue).

Where the layout lives: the layout decides which variables exist, so it is part of the **schema**
(params), not a clue. Params are either

- ``{"layout": ["#..#", ...]}``: one string per row, ``#`` a block and ``.`` a white cell; or
- ``{"rows": R, "cols": C, "seed": s}`` (R, C in 3..12): a seeded random layout with a block
  border along the top row and left column (where the sums are written), blocks placed at
  random with 180° symmetry, runs cut to at most nine cells and no white cell left outside
  a run. One seed gives one layout in every process; generation varies the digits and sums.

Clue kinds (coordinates are 0-based ``[row, col]`` cells):

- ``run``: ``data = {"direction": "across"|"down", "sum": s}``, ``coords`` = the cells of a run
  of the layout in order; id ``across-r2c3`` / ``down-r2c3`` (named by the first cell).
  Constraint: ``Linear(cells, 1s, "==", s)``.
- ``given``: ``data = {"value": v}``, one white cell; id ``r{row}c{col}`` (1-based).

``clues_from_solution`` gives every digit and every run sum; ``initial_clues`` every run sum plus
``k`` random digits; repair moves at a cell reveal its digit or add a missing sum of a run through
it.

JSON: ``{"family": "kakuro", "params": {"rows": 6, "cols": 6, "seed": 1}, "clues": [{"id":
"across-r2c2", "kind": "run", "data": {"direction": "across", "sum": 16}, "coords": [...]}]}``.

Text format: one line, ``RxC:`` then the R rows joined by ``/``, each row C whitespace-separated
tokens: ``#`` a block, ``D\\A`` a block with the sum of the run below it (``D``) and to its right
(``A``), either may be empty (``\\17``, ``8\\``); ``.`` an empty white cell and ``1``..``9`` a
given (``3x3:# 4\\ 3\\/\\3 . ./\\4 . .``). Rows on lines of their own (no ``RxC:``) are read too;
layouts whose runs start at the grid edge (no block for the sum) are written as one-line JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import (
    AllDifferent,
    Clue,
    Constraint,
    Instance,
    Linear,
    Origin,
    Schema,
    Solution,
    SpecError,
    Variable,
)
from puzzlekit.core.protocols import FamilyInfo, Repair, pick_in_order
from puzzlekit.core.reading import is_digits
from puzzlekit.families import register_family
from puzzlekit.families._kit.dihedral import KAKURO_GROUP, KakuroSymmetry
from puzzlekit.families._kit.regions import (
    cell_name,
    check_keys,
    clue_int,
    fail,
    int_param,
    mark_of,
    one_cell,
)

Cell = tuple[int, int]


def random_layout(rows: int, cols: int, seed: int) -> list[str]:
    """The seeded layout of ``{"rows", "cols", "seed"}`` params (see the module docstring)."""
    rng = np.random.default_rng([rows, cols, seed])
    for _ in range(100):
        white = [[r > 0 and c > 0 for c in range(cols)] for r in range(rows)]
        interior = [(r, c) for r in range(1, rows) for c in range(1, cols)]
        for r, c in interior:
            if rng.random() < 0.18:
                white[r][c] = False
                r2, c2 = rows - r, cols - c  # 180° partner inside the interior
                if 1 <= r2 < rows and 1 <= c2 < cols:
                    white[r2][c2] = False
        for _ in range(rows * cols):
            changed = False
            for kind in ("across", "down"):
                for run in _runs_of(white, kind, min_len=1):
                    if len(run) > 9:
                        r, c = run[len(run) // 2]
                        white[r][c] = False
                        changed = True
            for r in range(rows):
                for c in range(cols):
                    if white[r][c] and _lonely(white, r, c):
                        white[r][c] = False
                        changed = True
            if not changed:
                break
        layout = ["".join("." if w else "#" for w in row) for row in white]
        if sum(row.count(".") for row in layout) >= max(4, (rows - 1) * (cols - 1) // 2):
            return layout
    raise RuntimeError(f"no kakuro layout for {rows}x{cols} seed {seed}")


def _lonely(white: list[list[bool]], r: int, c: int) -> bool:
    rows, cols = len(white), len(white[0])

    def w(rr: int, cc: int) -> bool:
        return 0 <= rr < rows and 0 <= cc < cols and white[rr][cc]

    return not (w(r, c - 1) or w(r, c + 1)) or not (w(r - 1, c) or w(r + 1, c))


def _runs_of(white: Sequence[Sequence[bool]], kind: str, min_len: int = 2) -> list[list[Cell]]:
    rows, cols = len(white), len(white[0])
    out: list[list[Cell]] = []
    outer, inner = (rows, cols) if kind == "across" else (cols, rows)
    for i in range(outer):
        run: list[Cell] = []
        for j in range(inner + 1):
            cell = (i, j) if kind == "across" else (j, i)
            if j < inner and white[cell[0]][cell[1]]:
                run.append(cell)
                continue
            if len(run) >= min_len:
                out.append(run)
            run = []
    return out


def sum_range(length: int) -> tuple[int, int]:
    """The smallest and largest sums of ``length`` different digits 1..9."""
    return length * (length + 1) // 2, sum(range(10 - length, 10))


#: a layout has at most this many rows and columns (declared in ``Kakuro.size_limits``)
MAX_LAYOUT_SIDE = 30


class Kakuro(KakuroSymmetry, protocols.Family):
    info = FamilyInfo(
        name="kakuro",
        description="Blocks and white cells; each run's digits differ and add up to its sum",
        clue_kinds=("run", "given"),
        listed_params=(
            {"rows": 5, "cols": 5, "seed": 1},
            {"rows": 7, "cols": 7, "seed": 1},
            {"rows": 9, "cols": 9, "seed": 1},
        ),
        # its reports' backend since 0.1 (bitmask reads it too: not measured)
        default_verifier="sat",
        size_limits={"rows": 12, "cols": 12, "layout": MAX_LAYOUT_SIDE},
        value_clue_kind="given",
        place_name="run or cell",
        symmetry_group=KAKURO_GROUP,
        rules_text=(
            "Fill every white cell `.` with a digit 1..9. A block `D\\A` gives the sums of the "
            "runs of white cells below it (D) and right of it (A); a run's digits differ and add "
            "up to its sum."
        ),
    )

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(params, ("layout", "rows", "cols", "seed"), self.info.name)
        if "layout" in params:
            extra = sorted({"rows", "cols", "seed"} & set(params))
            if extra:
                raise fail("malformed", None, f"params.{extra[0]}", "give layout or rows/cols/seed")
            layout = params["layout"]
            if isinstance(layout, list | tuple) and any(
                isinstance(row, str) and len(row) > MAX_LAYOUT_SIDE for row in layout
            ):
                raise fail(
                    "out-of-domain",
                    None,
                    "params.layout",
                    f"a row is beyond kakuro's declared limit of {MAX_LAYOUT_SIDE} columns",
                )
            if (
                not isinstance(layout, list | tuple)
                or not layout
                or not all(isinstance(row, str) and row for row in layout)
                or len({len(row) for row in layout}) != 1
                or any(ch not in "#." for row in layout for ch in row)
            ):
                raise fail(
                    "malformed", None, "params.layout", "rows of equal length made of '#' and '.'"
                )
            white = [[ch == "." for ch in row] for row in layout]
            for kind in ("across", "down"):
                for run in _runs_of(white, kind):
                    if len(run) > 9:
                        raise fail(
                            "shape-mismatch", run[0], "params.layout", "a run is longer than 9"
                        )
            if not any(any(row) for row in white):
                raise fail("shape-mismatch", None, "params.layout", "no white cell")
            return {"layout": list(layout)}
        return {
            "rows": int_param(params, "rows", 3, 12, None),
            "cols": int_param(params, "cols", 3, 12, None),
            "seed": int_param(params, "seed", 0, 2**31 - 1, 0),
        }

    def schema_id(self, params: Mapping[str, Any]) -> str:
        if "layout" in params:
            return f"{self.info.name}-{len(params['layout'])}x{len(params['layout'][0])}-fixed"
        return f"{self.info.name}-{params['rows']}x{params['cols']}-s{params['seed']}"

    @staticmethod
    def layout_of(params: Mapping[str, Any]) -> list[str]:
        if "layout" in params:
            return list(params["layout"])
        return random_layout(params["rows"], params["cols"], params["seed"])

    def runs(self, schema: Schema) -> list[tuple[str, list[Cell]]]:
        """Every run of the schema's layout as (``across``/``down``, cells)."""
        cached = schema.__dict__.get("_kakuro_runs")
        if cached is None:
            white = [[ch == "." for ch in row] for row in self.layout_of(schema.params_dict())]
            cached = [(k, run) for k in ("across", "down") for run in _runs_of(white, k)]
            object.__setattr__(schema, "_kakuro_runs", cached)
        return cached

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        layout = self.layout_of(params)
        variables = tuple(
            Variable((r, c), cell_name(r, c), tuple(range(1, 10)))
            for r, row in enumerate(layout)
            for c, ch in enumerate(row)
            if ch == "."
        )
        white = [[ch == "." for ch in row] for row in layout]
        rules = tuple(
            AllDifferent(
                tuple(cell_name(*x) for x in run),
                Origin("rule", f"{kind}-{cell_name(*run[0])}", tuple(run)),
            )
            for kind in ("across", "down")
            for run in _runs_of(white, kind)
        )
        key = tuple(sorted(params.items()))
        return Schema(self.info.name, key, variables, rules, self.info.clue_kinds)

    # -- clues ------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        where = f"clue {clue.id}"
        if clue.kind == "given":
            var = one_cell(schema, clue)
            value = clue_int(clue, "value", 1, 9, var.coord)
            return (Linear((var.name,), (1,), "==", value, Origin("clue", clue.id, (var.coord,))),)
        if clue.kind != "run":
            raise fail("malformed", None, where, f"unknown clue kind {clue.kind!r}")
        for coord in clue.coords:
            if schema.var_at(coord) is None:
                raise fail("shape-mismatch", coord, where, f"{list(coord)} is not a white cell")
        direction = clue.data_dict().get("direction")
        cells = [tuple(c) for c in clue.coords]
        if (direction, cells) not in [(k, run) for k, run in self.runs(schema)]:
            raise fail(
                "shape-mismatch",
                cells[0] if cells else None,
                where,
                f"coords are not the cells of an {direction!r} run of the layout",
            )
        total = clue_int(clue, "sum", 1, 45, cells[0])
        names = tuple(cell_name(*c) for c in cells)
        origin = Origin("clue", clue.id, tuple(cells))
        return (Linear(names, (1,) * len(names), "==", total, origin),)

    def place_of(self, clue: Clue) -> Any:
        if clue.kind not in ("run", "given") or not clue.coords:
            return None
        return (clue.kind, clue.data_dict().get("direction"), clue.coords[0])

    def run_clues(self, schema: Schema, solution: Solution) -> list[Clue]:
        return [
            self.run_clue(kind, run, sum(solution[cell_name(*c)] for c in run))
            for kind, run in self.runs(schema)
        ]

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        givens = [self.given(v.coord, solution[v.name]) for v in schema.variables]
        return givens + self.run_clues(schema, solution)

    # -- generation -------------------------------------------------------------------------
    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        givens = [self.given(v.coord, solution[v.name]) for v in schema.variables]
        return self.run_clues(schema, solution) + pick_in_order(givens, k, rng)

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        coord = tuple(coord)
        if schema.var_at(coord) is None:
            return []
        present = {c.id for c in instance.clues}
        moves = []
        given = self.given(coord, solution[cell_name(*coord)])
        if given.id not in present:
            moves.append(Repair("reveal", coord, add=(given,)))
        for kind, run in self.runs(schema):
            if coord in run:
                clue = self.run_clue(kind, run, sum(solution[cell_name(*c)] for c in run))
                if clue.id not in present:
                    moves.append(Repair("add-sum", coord, add=(clue,)))
        return moves

    # -- text -------------------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        """One line ``RxC:`` then rows joined by ``/`` (what :meth:`format_text` writes), or the
        rows on lines of their own (tokens: ``#`` block, ``down\\across`` sums, ``.``, digits)."""
        if text.lstrip().startswith("{"):  # what format_text writes when the grid cannot
            return protocols.Family.parse_text(self, text, params)
        rows = [ln.split() for ln in _text_rows(text)]
        if not rows or len({len(r) for r in rows}) != 1:
            raise fail("malformed", None, "text", "expected rows of equally many tokens")
        layout = []
        givens: list[Clue] = []
        sums: dict[tuple[str, Cell], int] = {}
        for r, row in enumerate(rows):
            line = ""
            for c, tok in enumerate(row):
                if tok == "#":
                    line += "#"
                elif "\\" in tok:
                    line += "#"
                    down, _, across = tok.partition("\\")
                    for kind, part in (("down", down), ("across", across)):
                        if part:
                            if not is_digits(part) or len(part) > 6:
                                raise fail("malformed", (r, c), cell_name(r, c), f"bad sum {tok!r}")
                            sums[(kind, (r, c))] = int(part)
                elif tok == ".":
                    line += "."
                elif is_digits(tok) and len(tok) == 1 and tok != "0":
                    line += "."
                    givens.append(self.given((r, c), int(tok)))
                else:
                    raise fail("malformed", (r, c), cell_name(r, c), f"unknown token {tok!r}")
            layout.append(line)
        if params and self.layout_of(self.normalize_params(params)) == layout:
            schema = self.schema(params)
        else:
            schema = self.schema({"layout": layout})
        clues: list[Clue] = []
        for kind, run in self.runs(schema):
            r, c = run[0]
            block = (r, c - 1) if kind == "across" else (r - 1, c)
            if (kind, block) in sums:
                clues.append(self.run_clue(kind, run, sums.pop((kind, block))))
        if sums:
            (kind, cell), _ = next(iter(sums.items()))
            raise fail("shape-mismatch", cell, cell_name(*cell), f"no {kind} run after this sum")
        return Instance.make(self.info.name, schema.params_dict(), clues + givens)

    def format_text(self, instance: Instance) -> str:
        from puzzlekit.families.grid import clue_cell

        layout = self.layout_of(instance.params_dict())
        tokens = [["#" if ch == "#" else "." for ch in row] for row in layout]
        sums: dict[Cell, dict[str, int]] = {}
        for clue in instance.clues:
            d = clue.data_dict()
            if clue.kind == "given":
                r, c = clue_cell(clue, len(tokens), len(tokens[0]))
                tokens[r][c] = str(d["value"])
            elif clue.kind == "run":
                r, c = clue_cell(clue, len(tokens), len(tokens[0]))
                block = (r, c - 1) if d["direction"] == "across" else (r - 1, c)
                if block[0] < 0 or block[1] < 0:
                    return instance.to_json()  # a run at the grid edge has no sum block
                sums.setdefault(block, {})[d["direction"]] = d["sum"]
        for (r, c), s in sums.items():
            tokens[r][c] = f"{s.get('down', '')}\\{s.get('across', '')}"
        return f"{len(tokens)}x{len(tokens[0])}:" + "/".join(" ".join(row) for row in tokens)

    # -- rendering --------------------------------------------------------------------------
    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """The text format's grid with solution digits filled in; ``marks`` maps a cell to a
        mark drawn after it (reject coordinates)."""
        params = instance.params_dict()
        try:
            layout = self.layout_of(self.normalize_params(params))
        except SpecError:
            return instance.to_json()
        tokens = [["#" if ch == "#" else "." for ch in row] for row in layout]
        if solution:
            for r, row in enumerate(layout):
                for c, ch in enumerate(row):
                    if ch == "." and cell_name(r, c) in solution:
                        tokens[r][c] = str(solution[cell_name(r, c)])
        sums: dict[Cell, dict[str, Any]] = {}
        for clue in instance.clues:
            d = clue.data_dict()
            if not clue.coords:
                continue
            r, c = clue.coords[0]
            if clue.kind == "given" and 0 <= r < len(layout) and 0 <= c < len(layout[0]):
                tokens[r][c] = str(d.get("value"))
            elif clue.kind == "run":
                block = (r, c - 1) if d.get("direction") == "across" else (r - 1, c)
                if block[0] >= 0 and block[1] >= 0:
                    sums.setdefault(block, {})[d.get("direction")] = d.get("sum")
        for (r, c), s in sums.items():
            tokens[r][c] = f"{s.get('down', '')}\\{s.get('across', '')}"
        width = max(len(t) for row in tokens for t in row)
        lines = []
        for r, row in enumerate(tokens):
            lines.append(
                " ".join(f"{t:>{width}}{mark_of(marks, (r, c))}" for c, t in enumerate(row))
            )
        return "\n".join(lines)

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        import matplotlib.pyplot as plt

        layout = self.layout_of(instance.params_dict())
        h, w = len(layout), len(layout[0])
        if ax is None:
            _, ax = plt.subplots(figsize=(w * 0.5, h * 0.5))
        for r, row in enumerate(layout):
            for c, ch in enumerate(row):
                ax.add_patch(
                    plt.Rectangle(
                        (c, h - r - 1),
                        1,
                        1,
                        facecolor="dimgray" if ch == "#" else "white",
                        edgecolor="black",
                        lw=0.5,
                    )
                )
        givens = {c.coords[0]: c.data_dict()["value"] for c in instance.clues if c.kind == "given"}
        for clue in instance.clues:
            d = clue.data_dict()
            if clue.kind == "run":
                r, c = clue.coords[0]
                if d["direction"] == "across":
                    ax.text(
                        c - 0.1,
                        h - r - 0.5,
                        str(d["sum"]),
                        ha="right",
                        va="center",
                        color="white",
                        fontsize=7,
                    )
                else:
                    ax.text(
                        c + 0.5,
                        h - r + 0.1,
                        str(d["sum"]),
                        ha="center",
                        va="bottom",
                        color="white",
                        fontsize=7,
                    )
        for r, row in enumerate(layout):
            for c, ch in enumerate(row):
                if ch != ".":
                    continue
                v, color = givens.get((r, c)), "black"
                if v is None and solution:
                    v, color = solution.get(cell_name(r, c)), "tab:blue"
                if v:
                    ax.text(c + 0.5, h - r - 0.5, str(v), ha="center", va="center", color=color)
        ax.set_xlim(0, w)
        ax.set_ylim(0, h)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax


def _text_rows(text: str) -> list[str]:
    """The rows of a kakuro text: ``RxC:row/row/...`` on one line, or one row a line."""
    text = text.strip()
    head, sep, body = text.partition(":")
    rows_cols = head.split("x")
    if sep and len(rows_cols) == 2 and all(is_digits(p) and len(p) < 6 for p in rows_cols):
        rows = [r.strip() for r in body.split("/")]
        if len(rows) != int(rows_cols[0]) or any(len(r.split()) != int(rows_cols[1]) for r in rows):
            raise fail("shape-mismatch", None, "text", f"expected {head} tokens")
        return rows
    return [ln for ln in text.splitlines() if ln.strip()]


KAKURO = register_family(Kakuro())
