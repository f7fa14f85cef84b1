"""Takuzu (Binairo): fill an n×n grid with 0 and 1 so that every row and column is balanced,
no three equal cells are adjacent in a row or column, and no two rows (or columns) are equal.

Params: ``{"size": n}``, n even, 4..16 (default 6). Variables ``r1c1`` ... at coords
``(row, col)`` (0-based), domain ``(0, 1)``.

Rules, in the backend-neutral vocabulary (so ``sat`` and ``enumerative`` both read them), with
the ids of :func:`puzzlekit_takuzu.lines.rule_specs`:

- ``row3`` (and ``col3``): ``Regular(line, automaton)``, the line is balanced and has no three
  equal cells in a run, one automaton for both (its states count the ones and zeros read and
  the current run);
- ``distinct-row1-row2`` (and ``distinct-col1-col2``): ``Regular`` over the two lines
  interleaved (``a1 b1 a2 b2 ...``), whose four-state automaton accepts once some
  ``a_k != b_k``. "Two lines differ" needs no auxiliary variable this way.

Why whole lines: the sat backend unrolls an automaton into clauses, and the enumerative backend
keeps a ``Regular`` arc consistent on partial assignments, so one automaton per line gives it
the line reasoning a player uses. Measured on the 6×6 UNSOLVABLE samples of ``check_family``
(seed 3), the enumerative backend took 35 to 90 s each (conflict shrinking) with a ``Count``
per line and a ``Table`` per run of three, under 1 s with one ``Regular`` per line. The price:
the generic sampler ``puzzlekit.core.solutions.random_solution`` (which ``check_family`` and the
golden-corpus builder use) prunes a constraint only when one of its cells is left, which is
too weak to draw an 8×8 grid from whole-line rules; so only 4×4 and 6×6 are listed schemas.
Every size 4..16 verifies and generates (``sample_solution`` is this family's own sampler).

Clues: ``given``, ``data = {"value": 0 or 1}``, one coordinate ``[row, col]``, id the cell name.

Text format: one line of n² characters, row by row from the top-left cell: ``0``, ``1``, or
``.`` for a blank (the size is the square root of the length).

Not for: solving (the verifiers do; ``puzzlekit_takuzu.verifier`` is a dedicated one).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

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
    Violation,
)
from puzzlekit.core.protocols import Family, FamilyInfo, Repair
from puzzlekit.families import register_family

from puzzlekit_takuzu.lines import (
    DISTINCT,
    LINE,
    board,
    cell_name,
    line_automaton,
    line_cells,
    rule_specs,
    solve,
)

MIN_SIZE, MAX_SIZE, DEFAULT_SIZE = 4, 16, 6
#: two interleaved lines ``a1 b1 a2 b2 ...`` differ: state 0 equal so far, 1/2 read a_k = 0/1,
#: 3 some pair differed (accepting, absorbing)
DIFFER = Automaton(
    start=0,
    accepting=frozenset({3}),
    transitions=(
        (0, 0, 1),
        (0, 1, 2),
        (1, 0, 0),
        (1, 1, 3),
        (2, 1, 0),
        (2, 0, 3),
        (3, 0, 3),
        (3, 1, 3),
    ),
)
#: how many random restarts :meth:`Takuzu.sample_solution` may make, and nodes per restart
SAMPLE_RESTARTS, SAMPLE_NODES = 50, 2_000


class _OutOfNodes(Exception):
    """A randomized search of :meth:`Takuzu.sample_solution` ran long: restart it."""


def _node_limit(limit: int) -> Callable[[], None]:
    """A search's ``tick`` that raises :class:`_OutOfNodes` after ``limit`` nodes."""
    nodes = itertools.count(1)

    def tick() -> None:
        if next(nodes) > limit:
            raise _OutOfNodes

    return tick


def _fail(vtype: str, coord: Any, field: str, detail: str) -> SpecError:
    return SpecError([Violation(vtype, coord, field, detail)])


class Takuzu(Family):
    info = FamilyInfo(
        name="takuzu",
        description="n×n grid of 0/1; balanced lines, no three equal adjacent, no two lines equal",
        clue_kinds=("given",),
        listed_params=({"size": 4}, {"size": 6}),  # 8×8 and up are not: see the docstring
        value_clue_kind="given",
        place_name="cell",
    )

    # -- schema -----------------------------------------------------------------------------
    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        problems = [
            Violation("unknown-field", None, f"params.{k}", f"takuzu has no param {k!r}")
            for k in sorted(set(params) - {"size"})
        ]
        n = params.get("size", DEFAULT_SIZE)
        if not isinstance(n, int) or isinstance(n, bool) or not MIN_SIZE <= n <= MAX_SIZE or n % 2:
            problems.append(
                Violation(
                    "malformed",
                    None,
                    "params.size",
                    f"must be an even integer {MIN_SIZE}..{MAX_SIZE}: {n!r}",
                )
            )
        if problems:
            raise SpecError(problems)
        return {"size": n}

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        n = params["size"]
        variables = tuple(
            Variable((r, c), cell_name(r, c), (0, 1)) for r in range(n) for c in range(n)
        )
        valid_line = Automaton(*line_automaton(n))
        rules: list[Constraint] = []
        for spec in rule_specs(n):
            cells = line_cells(spec.axis, spec.line, n)
            if spec.kind == LINE:
                names = tuple(cell_name(*x) for x in cells)
                rules.append(Regular(names, valid_line, Origin("rule", spec.id, tuple(cells))))
            elif spec.kind == DISTINCT:
                other = line_cells(spec.axis, spec.other, n)
                pairs = [x for pair in zip(cells, other, strict=True) for x in pair]
                names = tuple(cell_name(*x) for x in pairs)
                origin = Origin("rule", spec.id, (*cells, *other))
                rules.append(Regular(names, DIFFER, origin))
        key = tuple(sorted(params.items()))
        return Schema(self.info.name, key, variables, tuple(rules), self.info.clue_kinds)

    # -- clues ------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        where = f"clue {clue.id}"
        if clue.kind != "given":
            raise _fail("malformed", None, where, f"unknown clue kind {clue.kind!r}")
        if len(clue.coords) != 1:
            raise _fail("shape-mismatch", None, where, "a given names exactly one cell")
        coord = clue.coords[0]
        var = schema.var_at(coord)
        if var is None:
            n = schema.params_dict()["size"]
            raise _fail(
                "shape-mismatch", coord, where, f"cell {list(coord)} is outside the {n}x{n} grid"
            )
        data = clue.data_dict()
        extra = sorted(set(data) - {"value"})
        if extra:
            raise _fail("unknown-field", coord, where, f"a given has no data field {extra[0]!r}")
        value = data.get("value")
        if not isinstance(value, int) or isinstance(value, bool) or value not in (0, 1):
            raise _fail("out-of-domain", coord, var.name, f"value {value!r} is not 0 or 1")
        return (Linear((var.name,), (1,), "==", value, Origin("clue", clue.id, (coord,))),)

    def place_of(self, clue: Clue) -> Any:
        return clue.coords[0] if clue.kind == "given" and len(clue.coords) == 1 else None

    @staticmethod
    def given(coord: tuple[int, int], value: int) -> Clue:
        return Clue.make(cell_name(*coord), "given", {"value": int(value)}, [coord])

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        return [self.given(v.coord, solution[v.name]) for v in schema.variables]

    # -- generation -------------------------------------------------------------------------
    def sample_solution(self, schema: Schema, rng: Any) -> Solution:
        """A seeded random grid: the line-propagation search of ``puzzlekit_takuzu.lines``
        visiting each branch's candidate patterns in a random order (restarted when a search
        runs long).

        Every grid has a positive probability; the distribution is not uniform (a randomized
        depth-first search favours grids reached through fewer dead ends).
        """
        n = schema.params_dict()["size"]
        rules = board(n)
        for _ in range(SAMPLE_RESTARTS):
            try:
                found = solve(rules, {}, 1, _node_limit(SAMPLE_NODES), lex=False, rng=rng)
            except _OutOfNodes:
                continue
            if found:
                return found[0]
        raise RuntimeError(f"no {n}x{n} takuzu grid found in {SAMPLE_RESTARTS} restarts")

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        """Reveal the true value at ``coord``; where a given there is false of ``solution``,
        change it to the true one (the adaptive strategy asks at an UNSOLVABLE conflict's
        clues). Built directly: the default builds every clue of the solution per call."""
        var = schema.var_at(tuple(coord))
        if var is None:
            return []
        true = self.given(var.coord, solution[var.name])
        here = [
            c
            for c in instance.clues
            if c.kind == "given" and len(c.coords) == 1 and tuple(c.coords[0]) == var.coord
        ]
        if not here:
            return [Repair("reveal", var.coord, add=(true,))]
        wrong = [c for c in here if c.data_dict().get("value") != solution[var.name]]
        if wrong:
            return [Repair("change", var.coord, add=(true,), remove=tuple(c.id for c in wrong))]
        return []

    # -- text -------------------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        line = text.strip()
        if not line:
            raise _fail("malformed", None, "line", "empty line; expected n*n characters 0, 1, .")
        n = math.isqrt(len(line))
        if n * n != len(line):
            raise _fail(
                "shape-mismatch",
                None,
                "line",
                f"line has {len(line)} characters, not a square number (n*n for an n x n grid)",
            )
        if params and "size" in params and params["size"] != n:
            raise _fail(
                "shape-mismatch",
                None,
                "params.size",
                f"the line describes {n}x{n}, params say {params['size']}",
            )
        schema = self.schema({**dict(params or {}), "size": n})
        clues, problems = [], []
        for i, ch in enumerate(line):
            coord = divmod(i, n)
            if ch in "01":
                clues.append(self.given(coord, int(ch)))
            elif ch != ".":
                problems.append(
                    Violation(
                        "malformed",
                        coord,
                        cell_name(*coord),
                        f"character {ch!r} at position {i + 1} is not 0, 1 or .",
                    )
                )
        if problems:
            raise SpecError(problems)
        return Instance.make(self.info.name, schema.params_dict(), clues)

    def format_text(self, instance: Instance) -> str:
        n = instance.params_dict()["size"]
        cells = ["."] * (n * n)
        for clue in instance.clues:
            r, c = clue.coords[0]
            cells[r * n + c] = str(clue.data_dict()["value"])
        return "".join(cells)

    # -- rendering --------------------------------------------------------------------------
    def _grid(self, instance: Instance, solution: Solution | None) -> list[list[str]]:
        n = instance.params_dict()["size"]
        grid = [["."] * n for _ in range(n)]
        for r in range(n):
            for c in range(n):
                v = (solution or {}).get(cell_name(r, c))
                if v in (0, 1):
                    grid[r][c] = str(v)
        for clue in instance.clues:
            if clue.kind == "given" and len(clue.coords) == 1:
                r, c = clue.coords[0]
                v = clue.data_dict().get("value")
                if 0 <= r < n and 0 <= c < n and v in (0, 1):
                    grid[r][c] = str(v)
        return grid

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """The grid, ``.`` for an unknown cell (values of ``solution`` filled in); ``marks``
        maps a cell to a one-character mark drawn after it."""
        n = instance.params_dict()["size"]
        grid = self._grid(instance, solution)
        marks = marks or {}
        edge = "+" + "-" * (2 * n + 1) + "+"
        rows = ["|" + "".join(f" {grid[r][c]}" for c in range(n)) + " |" for r in range(n)]
        if marks:
            rows = [
                "|" + "".join(f" {grid[r][c]}{marks.get((r, c), ' ')}" for c in range(n)) + "|"
                for r in range(n)
            ]
            edge = "+" + "-" * (3 * n) + "+"
        return "\n".join([edge, *rows, edge])

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        """Circles: 1 black, 0 white; givens outlined in black, values from ``solution`` in
        blue."""
        import matplotlib.patches as patches
        import matplotlib.pyplot as plt

        n = instance.params_dict()["size"]
        if ax is None:
            _, ax = plt.subplots(figsize=(n * 0.45, n * 0.45))
        for i in range(n + 1):
            lw = 2 if i in (0, n) else 0.5
            ax.plot([0, n], [i, i], color="black", lw=lw)
            ax.plot([i, i], [0, n], color="black", lw=lw)
        givens = {
            tuple(c.coords[0]): c.data_dict().get("value")
            for c in instance.clues
            if c.kind == "given" and len(c.coords) == 1
        }
        for r in range(n):
            for c in range(n):
                v, edge = givens.get((r, c)), "black"
                if v is None and solution:
                    v, edge = solution.get(cell_name(r, c)), "tab:blue"
                if v not in (0, 1):
                    continue
                face = (
                    ("white" if v == 0 else "black")
                    if edge == "black"
                    else ("white" if v == 0 else "tab:blue")
                )
                ax.add_patch(patches.Circle((c + 0.5, n - r - 0.5), 0.32, fc=face, ec=edge, lw=1.5))
        ax.set_xlim(0, n)
        ax.set_ylim(0, n)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax


TAKUZU = register_family(Takuzu())
