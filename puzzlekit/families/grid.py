"""Shared machinery of N×N grid families whose clues are givens (Sudoku, Latin squares).

Families subclass :class:`GivensGrid`; its one-line form keeps the givens as a :class:`GridLine`
(:mod:`puzzlekit.families._kit.gridline`), which the bitmask backend reads. Not for other clues.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.jsondata import FrozenMap, freeze, typed_key
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
    Violation,
)
from puzzlekit.core.protocols import Repair
from puzzlekit.families._kit.gridline import GridLine, kept_givens

SYMBOLS = "123456789ABCDEFGHIJKLMNOP"  # value v is SYMBOLS[v - 1]; '.' or '0' is a blank
MAX_SIZE = len(SYMBOLS)


def check_described_size(n: int, params: Mapping[str, Any] | None) -> None:
    """A text description of an n×n grid must agree with a ``size`` given in params."""
    if params and "size" in params and params["size"] != n:
        raise SpecError(
            [
                Violation(
                    "shape-mismatch",
                    None,
                    "params.size",
                    f"the description is {n}x{n}, params say {params['size']}",
                )
            ]
        )


def neighbours(cell: tuple[int, int], n: int) -> list[tuple[int, int]]:
    """Orthogonal neighbours of ``cell`` inside an n×n grid, in the order up, left, right, down."""
    r, c = cell
    steps = ((-1, 0), (0, -1), (0, 1), (1, 0))
    return [(r + a, c + b) for a, b in steps if 0 <= r + a < n and 0 <= c + b < n]


def cell_name(r: int, c: int) -> str:
    """Players' name of the cell at 0-based (r, c): ``r1c1`` is the top-left cell."""
    return f"r{r + 1}c{c + 1}"


def clue_cell(clue: Clue, rows: int, cols: int | None = None, at: int = 0) -> tuple[int, int]:
    """The ``at``-th cell of ``clue``, in a ``rows`` × ``cols`` grid (square by default), for a
    ``format_text`` that writes it into a list: a cell outside the grid is a SpecError at the
    clue (``shape-mismatch``, as a verifier reports it), not an IndexError or another cell."""
    cols = rows if cols is None else cols
    r, c = clue.coords[at]
    if not (0 <= r < rows and 0 <= c < cols):
        where, detail = f"clue {clue.id}", f"cell {[r, c]} is outside the {rows}x{cols} grid"
        raise SpecError([Violation("shape-mismatch", (r, c), where, detail)])
    return int(r), int(c)


def _value_bytes(n: int) -> bytes:
    """The translation of a line's characters (latin-1 bytes) to cell values: 0 for a blank,
    1..n for a symbol, 255 for anything else."""
    table = bytearray(b"\xff" * 256)
    table[ord(".")] = table[ord("0")] = 0
    for v, ch in enumerate(SYMBOLS[:n], start=1):
        table[ord(ch)] = table[ord(ch.lower())] = v
    return bytes(table)


_VALUE_BYTES = {n: _value_bytes(n) for n in range(MAX_SIZE + 1)}
#: (family name, family object id, line length, params key) -> (frozen params, size, params
#: key of the instance) of the
#: schema a text line reads into (the family and params are checked once, not per line)
_LINE_PARAMS: dict[Any, tuple[Any, int, tuple[str, str]]] = {}


def _line_problems(line: str, n: int) -> list[Violation]:
    """The violations of a line's characters that are neither a blank nor a symbol of 1..n."""
    problems = []
    for i, ch in enumerate(line):
        if ch in ".0":
            continue
        coord = divmod(i, n)
        value = SYMBOLS.find(ch.upper()) + 1
        if value == 0:
            problems.append(
                Violation(
                    "malformed",
                    coord,
                    cell_name(*coord),
                    f"character {ch!r} at position {i + 1} is not a digit, letter or blank",
                )
            )
        elif value > n:
            problems.append(
                Violation(
                    "out-of-domain",
                    coord,
                    cell_name(*coord),
                    f"symbol {ch!r} means {value}, outside 1..{n}",
                )
            )
    return problems


class GivensGrid(protocols.Family):
    """An N×N grid of values 1..N, rows and columns all different, clues are given values."""

    param_keys: tuple[str, ...] = ("size",)

    # -- params -----------------------------------------------------------------------------
    def _check_size(self, params: Mapping[str, Any], default: int | None) -> int:
        problems = [
            Violation("unknown-field", None, f"params.{k}", f"{self.info.name} has no param {k!r}")
            for k in sorted(set(params) - set(self.param_keys))
        ]
        size = params.get("size", default)
        if size is None:
            problems.append(Violation("malformed", None, "params.size", "missing required param"))
        elif not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_SIZE:
            problems.append(
                Violation(
                    "malformed", None, "params.size", f"must be an integer 1..{MAX_SIZE}: {size!r}"
                )
            )
        if problems:
            raise SpecError(problems)
        return size

    def regions(self, params: Mapping[str, Any]) -> list[tuple[str, list[tuple[int, int]]]]:
        """Extra all-different regions (boxes) beyond rows and columns, as (rule id, cells)."""
        return []

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        n = params["size"]
        variables = tuple(
            Variable((r, c), cell_name(r, c), tuple(range(1, n + 1)))
            for r in range(n)
            for c in range(n)
        )
        units: list[tuple[str, list[tuple[int, int]]]] = []
        units += [(f"row{r + 1}", [(r, c) for c in range(n)]) for r in range(n)]
        units += [(f"col{c + 1}", [(r, c) for r in range(n)]) for c in range(n)]
        units += self.regions(params)
        rules = tuple(
            AllDifferent(
                tuple(cell_name(r, c) for r, c in cells), Origin("rule", rid, tuple(cells))
            )
            for rid, cells in units
        )
        key = tuple(sorted(params.items()))
        return Schema(self.info.name, key, variables, rules, self.info.clue_kinds)

    # -- clues ------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        where = f"clue {clue.id}"
        if clue.kind != "given":
            raise SpecError(
                [Violation("malformed", None, where, f"unknown clue kind {clue.kind!r}")]
            )
        if len(clue.coords) != 1:
            raise SpecError(
                [Violation("shape-mismatch", None, where, "a given names exactly one cell")]
            )
        coord = clue.coords[0]
        var = schema.var_at(coord)
        n = int(math.isqrt(len(schema.variables)))
        if var is None:
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
        value = clue.data_dict().get("value")
        if not isinstance(value, int) or isinstance(value, bool) or value not in var.domain:
            raise SpecError(
                [
                    Violation(
                        "out-of-domain",
                        coord,
                        var.name,
                        f"value {value!r} is not in 1..{n}",
                    )
                ]
            )
        return (Linear((var.name,), (1,), "==", value, Origin("clue", clue.id, (coord,))),)

    def validate_clues(self, schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
        out = super().validate_clues(schema, clues)
        seen: dict[tuple, str] = {}
        for clue in clues:
            if clue.kind != "given" or len(clue.coords) != 1:
                continue
            coord = clue.coords[0]
            if coord in seen and seen[coord] != clue.id:  # one id twice: reported as such
                var = schema.var_at(coord)
                out.append(
                    Violation(
                        "duplicate-clue",
                        coord,
                        var.name if var else f"clue {clue.id}",
                        f"clues {seen[coord]} and {clue.id} both give this cell",
                    )
                )
            else:
                seen[coord] = clue.id
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
        """Reveal the true digit at ``coord`` (the default, without building every clue: this
        runs for each candidate cell of every adaptive step)."""
        var = schema.var_at(tuple(coord))
        if var is None or any(c.id == var.name for c in instance.clues):
            return []
        return [
            Repair("reveal", var.coord, add=(self.given(schema, var.coord, solution[var.name]),))
        ]

    def pair_repairs(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        found: Sequence[Solution],
        pair_clue: Callable[[tuple, tuple, Solution], Clue],
        action: str,
    ) -> list[Repair]:
        """The given at ``coord`` and, for each orthogonal neighbour without one, the true pair
        clue ``pair_clue(coord, neighbour, solution)`` (for families with clues between
        neighbours: Futoshiki's inequalities, Adjacent's bars)."""
        coord = tuple(coord)
        if schema.var_at(coord) is None:
            return []
        present = {c.id for c in instance.clues}
        moves = GivensGrid.repair_moves(self, schema, instance, solution, coord, found=found)
        for nb in neighbours(coord, schema.params_dict()["size"]):
            clue = pair_clue(coord, nb, solution)
            if clue.id not in present:
                moves.append(Repair(action, coord, add=(clue,)))
        return moves

    @staticmethod
    def given(schema: Schema, coord: tuple[int, int], value: int) -> Clue:
        if type(value) is not int:  # anything but a plain digit: frozen the general way
            return Clue.make(schema.var_at(coord).name, "given", {"value": value}, [coord])
        data = FrozenMap((("value", value),))  # Clue.make's result, built directly
        return Clue(schema.var_at(coord).name, "given", data, (tuple(coord),))

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        return [self.given(schema, v.coord, solution[v.name]) for v in schema.variables]

    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        return kept_givens(self, GivensGrid.clues_from_solution, schema, solution, k, rng)

    # -- the one-line text format -----------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        """The instance of one text line, its clues built when first read
        (:class:`~puzzlekit.families._kit.gridline.GridLine`)."""
        line = text.strip()
        frozen_params, n, key = self._line_params(line, params)
        if len(line) != n * n:
            raise SpecError(
                [
                    Violation(
                        "shape-mismatch",
                        None,
                        "line",
                        f"line has {len(line)} characters, a {n}x{n} grid needs {n * n}",
                    )
                ]
            )
        values = line.encode("latin-1", "replace").translate(_VALUE_BYTES[n])
        if b"\xff" in values:  # a character outside the table: read one by one
            problems = _line_problems(line, n)
            if problems:
                raise SpecError(problems)
            values = bytes(0 if ch in ".0" else SYMBOLS.find(ch.upper()) + 1 for ch in line)
        source = GridLine(self.info.name, frozen_params, n, values)
        return Instance.deferred(self.info.name, frozen_params, source, key)

    def _line_params(
        self, line: str, params: Mapping[str, Any] | None
    ) -> tuple[Any, int, tuple[str, str]]:
        """The frozen params, size and params key (``Instance.params_key``) of the schema a
        line of this length reads into (cached per family, length and params: the schema lookup
        costs more than reading the line)."""
        try:
            given_key = typed_key(freeze(dict(params))) if params else ""
            key = (self.info.name, id(self), len(line), given_key)
        except ValueError:  # params nested too deep: the schema lookup says what is wrong
            key = None
        found = _LINE_PARAMS.get(key) if key is not None else None
        if found is None:
            given = dict(params or {})
            if "size" not in given and line:
                root = math.isqrt(len(line))
                if root * root == len(line):
                    given["size"] = root
            schema = self.schema(given)  # raises SpecError for unusable params: not cached
            norm = schema.params_dict()
            frozen = freeze(dict(norm))
            found = (frozen, norm["size"], (self.info.name, typed_key(frozen)))
            if key is not None:
                if len(_LINE_PARAMS) > 256:
                    _LINE_PARAMS.clear()
                _LINE_PARAMS[key] = found
        return found

    def format_text(self, instance: Instance) -> str:
        n = instance.params_dict()["size"]
        cells = ["."] * (n * n)
        for clue in instance.clues:
            r, c = clue_cell(clue, n)
            cells[r * n + c] = SYMBOLS[clue.data_dict()["value"] - 1]
        return "".join(cells)

    # -- rendering --------------------------------------------------------------------------
    def box_shape(self, params: Mapping[str, Any]) -> tuple[int, int] | None:
        return None

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """The grid as text; ``marks`` maps a coord to a one-character mark drawn beside it."""
        params = instance.params_dict()
        n = params["size"]
        box = self.box_shape(params) or (n, n)
        grid = [["."] * n for _ in range(n)]
        if solution:
            for r in range(n):
                for c in range(n):
                    v = solution.get(cell_name(r, c))
                    if v:
                        grid[r][c] = SYMBOLS[v - 1].lower() if n <= 9 else SYMBOLS[v - 1]
        source = instance.clue_source
        lined = isinstance(source, GridLine) and source.size == n
        if lined and "clues" not in instance.__dict__:
            for i, v in source.givens():  # a grid line's values: no clue objects built
                if v <= MAX_SIZE:
                    grid[i // n][i % n] = SYMBOLS[v - 1]
        for clue in () if lined and "clues" not in instance.__dict__ else instance.clues:
            if clue.kind == "given" and len(clue.coords) == 1:
                r, c = clue.coords[0]
                if 0 <= r < n and 0 <= c < n:
                    v = clue.data_dict().get("value")
                    if isinstance(v, int) and 1 <= v <= MAX_SIZE:
                        grid[r][c] = SYMBOLS[v - 1]
        marks = marks or {}
        lines = []
        sep = "+" + "+".join("-" * (3 * box[1]) for _ in range(n // box[1])) + "+"
        for r in range(n):
            if r % box[0] == 0:
                lines.append(sep)
            row = "|"
            for c in range(n):
                row += " " + grid[r][c] + marks.get((r, c), " ")
                if (c + 1) % box[1] == 0:
                    row += "|"
            lines.append(row)
        lines.append(sep)
        return "\n".join(lines)

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        import matplotlib.pyplot as plt

        params = instance.params_dict()
        n = params["size"]
        box = self.box_shape(params) or (n, n)
        if ax is None:
            _, ax = plt.subplots(figsize=(n * 0.45, n * 0.45))
        for i in range(n + 1):
            ax.plot([0, n], [i, i], color="black", lw=2 if i % box[0] == 0 else 0.5)
            ax.plot([i, i], [0, n], color="black", lw=2 if i % box[1] == 0 else 0.5)
        givens = {clue.coords[0]: clue.data_dict()["value"] for clue in instance.clues}
        for r in range(n):
            for c in range(n):
                v = givens.get((r, c))
                color = "black"
                if v is None and solution:
                    v, color = solution.get(cell_name(r, c)), "tab:blue"
                if v:
                    ax.text(
                        c + 0.5,
                        n - r - 0.5,
                        SYMBOLS[v - 1],
                        ha="center",
                        va="center",
                        color=color,
                        fontsize=12,
                    )
        ax.set_xlim(0, n)
        ax.set_ylim(0, n)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax


# --- grids with symbols between their cells (Futoshiki and Futoshiki Adjacent) ---------------

#: how far apart the cells of a gapped grid are drawn (a cell is 1 wide): room for a symbol
GAP_PITCH = 1.5


def gapped_ascii(
    n: int,
    sym: Mapping[tuple, str],
    marks: Mapping[tuple, str],
    horiz: Mapping[tuple, str],
    vert: Mapping[tuple, str],
) -> str:
    """``n``×``n`` cells as text: each cell's symbol (``.`` unknown) followed by its mark, then
    ``horiz[(r, c)]`` between (r, c) and (r, c + 1) and, on the line below, ``vert[(r, c)]``
    between (r, c) and (r + 1, c); a space where there is none."""
    lines = []
    for r in range(n):
        row = ""
        for c in range(n):
            row += sym.get((r, c), ".") + marks.get((r, c), " ")
            if c < n - 1:
                row += " " + horiz.get((r, c), " ") + " "
        lines.append(row.rstrip())
        if r < n - 1:
            lines.append("   ".join(vert.get((r, c), " ") + " " for c in range(n)).rstrip())
    return "\n".join(lines)


def gap_point(r: float, c: float) -> tuple[float, float]:
    """Where the centre of cell (r, c) is drawn (fractional: the gap between two cells)."""
    return (c * GAP_PITCH + 0.5, -r * GAP_PITCH + 0.5)


class GappedDrawing:
    """The matplotlib drawing shared by grids with symbols between their cells: cells
    :data:`GAP_PITCH` apart, givens in bold, solution values plain. A family draws its own
    symbols with :meth:`draw_gaps`."""

    def mark_center(self, instance: Instance, coord: tuple) -> tuple[float, float] | None:
        return gap_point(*coord)

    def draw_gaps(self, ax: Any, instance: Instance) -> None:
        """The family's symbols between the cells (required)."""
        raise NotImplementedError

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        import matplotlib.pyplot as plt

        n = instance.params_dict()["size"]
        if ax is None:
            _, ax = plt.subplots(figsize=(n * 0.6, n * 0.6))
        givens = {
            tuple(c.coords[0]): c.data_dict().get("value")
            for c in instance.clues
            if c.kind == "given" and len(c.coords) == 1
        }
        self.draw_gaps(ax, instance)
        for r in range(n):
            for c in range(n):
                ax.add_patch(plt.Rectangle((c * GAP_PITCH, -r * GAP_PITCH), 1, 1, fill=False))
                v = givens.get((r, c)) or (solution.get(cell_name(r, c)) if solution else None)
                if v:
                    weight = "bold" if (r, c) in givens else "normal"
                    x, y = gap_point(r, c)
                    ax.text(x, y, str(v), ha="center", va="center", fontweight=weight)
        ax.set_xlim(-0.25, n * GAP_PITCH - 0.25)
        ax.set_ylim(-n * GAP_PITCH + 0.75, 1.25)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax
