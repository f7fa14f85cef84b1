"""Star Battle: place k stars in every row, column and region so that no two stars touch.

An N×N grid (N = 4..14) of cells, 1 a star and 0 empty; each row, column and region holds
exactly ``k`` stars and no two stars are neighbours, diagonals included.

Params: ``{"size": N, "stars": k}`` (``stars`` 1..3, default 1, with ``N >= 4k``), and optionally
``"regions"``: N strings of N letters, one region per letter, for a fixed layout that is part of
the schema (rules ``region-A`` ...).

Where the layout lives: a puzzle is mostly its region layout, and the generator grows a new layout
for every puzzle and reshapes it where a reject points, so generated layouts are **clues** (kind
``region``), which a :class:`~puzzlekit.core.protocols.Repair` can add and remove and which the sat
backend passes as assumptions to one solver per size. The ``regions`` param is for importing a
fixed layout as schema rules; both forms mean the same constraints.

Clue kinds (coordinates are 0-based ``[row, col]`` cells):

- ``region``: ``data = {}``, ``coords`` = the cells of one region (sorted); id ``region{i}``.
  Constraint: ``Count(cells, 1, "==", k)``. Regions of one instance must not overlap.
- ``star`` / ``empty``: ``data = {}``, one coordinate; id ``r{row}c{col}`` (1-based). A revealed
  cell. (Any data field is an ``unknown-field`` violation: the kind says the value.)

Rules: ``Count(row, 1, "==", k)``, ``Count(col, 1, "==", k)`` and, for every pair of touching
cells, ``Linear([a, b], [1, 1], "<=", 1)`` (rule ``touch-r1c1-r2c2``).

JSON format: ``{"family": "starbattle", "params": {"size": 5, "stars": 1}, "clues": [{"id":
"region1", "kind": "region", "data": {}, "coords": [[0, 0], [0, 1], [1, 0]]}, ..., {"id":
"r2c3", "kind": "star", "data": {}, "coords": [[1, 2]]}]}``.

Text format: one line of rows joined by ``/``: N rows of N region letters (``A``..), then
optionally an empty row and N rows of revealed cells (``*`` star, ``-`` empty, ``.`` unknown);
a cell outside every region is ``.``. The row ``stars=k`` comes first when k > 1
(``stars=2/AABB/.../DDCC//*.../....``). The same rows on lines of their own are read too.

Generation: a seeded random star placement, then regions grown at random from the stars (for k > 1
from single stars, then merged in touching groups of k). ``initial_clues`` gives the layout plus
``k`` random revealed cells; repair moves at a cell reveal it, or move it (when it holds no star)
into a neighbouring region whose shape stays connected. The star placement, the region growth and
the exhaustive solver :func:`star_solutions` are in :mod:`puzzlekit.families._kit.starlayout`
(re-exported here).
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import (
    Clue,
    Constraint,
    Count,
    Instance,
    Linear,
    Origin,
    Problem,
    Schema,
    Solution,
    Variable,
    Violation,
)
from puzzlekit.core.protocols import FamilyInfo, Repair, pick_in_order
from puzzlekit.core.reading import is_digits
from puzzlekit.families import register_family
from puzzlekit.families._kit.dihedral import STAR_BATTLE_GROUP, StarBattleSymmetry
from puzzlekit.families._kit.regions import (
    cell_name,
    check_keys,
    connected,
    fail,
    grow,
    int_param,
    mark_of,
    neighbours4,
    one_cell,
)
from puzzlekit.families._kit.starlayout import RULES_TEXT, merge, place, row_choices, star_solutions

LETTERS = string.ascii_uppercase


class StarBattle(StarBattleSymmetry, protocols.Family):
    info = FamilyInfo(
        name="starbattle",
        description="N×N grid; k stars per row, column and region, no two stars touching",
        clue_kinds=("region", "star", "empty"),
        listed_params=(
            {"size": 5, "stars": 1},
            {"size": 6, "stars": 1},
            {"size": 8, "stars": 1},
        ),
        size_limits={"size": 14, "stars": 3, "regions": 14},
        placement_kinds={1: "star", 0: "empty"},
        symmetry_group=STAR_BATTLE_GROUP,
        rules_text=RULES_TEXT,
        answer_symbols={1: "*", 0: "-"},
    )

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(params, ("size", "stars", "regions"), self.info.name)
        n = int_param(params, "size", 4, 14, None)
        k = int_param(params, "stars", 1, 3, 1)
        if n < 4 * k:
            raise fail("malformed", None, "params.stars", f"{k} stars need size >= {4 * k}")
        out: dict[str, Any] = {"size": n, "stars": k}
        regions = params.get("regions")
        if regions is not None:
            if (
                not isinstance(regions, list | tuple)
                or len(regions) != n
                or not all(isinstance(row, str) and len(row) == n for row in regions)
            ):
                raise fail(
                    "shape-mismatch", None, "params.regions", f"must be {n} strings of {n} letters"
                )
            if any(ch not in LETTERS for row in regions for ch in row):
                raise fail("malformed", None, "params.regions", "regions are letters A..Z")
            out["regions"] = list(regions)
        return out

    def schema_id(self, params: Mapping[str, Any]) -> str:
        n, k = params["size"], params["stars"]
        base = f"{self.info.name}-{n}x{n}-{k}star"
        return base if "regions" not in params else base + "-fixed"

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        n, k = params["size"], params["stars"]
        variables = tuple(
            Variable((r, c), cell_name(r, c), (0, 1)) for r in range(n) for c in range(n)
        )
        rules: list[Constraint] = []
        units: list[tuple[str, list[tuple[int, int]]]] = []
        units += [(f"row{i + 1}", [(i, c) for c in range(n)]) for i in range(n)]
        units += [(f"col{i + 1}", [(r, i) for r in range(n)]) for i in range(n)]
        if "regions" in params:
            cells_of: dict[str, list[tuple[int, int]]] = {}
            for r, row in enumerate(params["regions"]):
                for c, ch in enumerate(row):
                    cells_of.setdefault(ch, []).append((r, c))
            units += [(f"region-{ch}", cells) for ch, cells in sorted(cells_of.items())]
        for rid, cells in units:
            names = tuple(cell_name(*c) for c in cells)
            rules.append(Count(names, 1, "==", k, Origin("rule", rid, tuple(cells))))
        for r in range(n):
            for c in range(n):
                for dr, dc in ((0, 1), (1, -1), (1, 0), (1, 1)):
                    r2, c2 = r + dr, c + dc
                    if 0 <= r2 < n and 0 <= c2 < n:
                        a, b = cell_name(r, c), cell_name(r2, c2)
                        origin = Origin("rule", f"touch-{a}-{b}", ((r, c), (r2, c2)))
                        rules.append(Linear((a, b), (1, 1), "<=", 1, origin))
        key = tuple(sorted(params.items()))
        return Schema(self.info.name, key, variables, tuple(rules), self.info.clue_kinds)

    # -- clues ------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        p = schema.params_dict()
        where = f"clue {clue.id}"
        if clue.kind in ("star", "empty", "region") and clue.data:
            key = clue.data[0][0]
            raise fail(
                "unknown-field", None, where, f"a {clue.kind} clue has no data field {key!r}"
            )
        if clue.kind in ("star", "empty"):
            var = one_cell(schema, clue)
            value = 1 if clue.kind == "star" else 0
            return (Linear((var.name,), (1,), "==", value, Origin("clue", clue.id, (var.coord,))),)
        if clue.kind != "region":
            raise fail("malformed", None, where, f"unknown clue kind {clue.kind!r}")
        if not clue.coords:
            raise fail("shape-mismatch", None, where, "a region needs at least one cell")
        for coord in clue.coords:
            if schema.var_at(coord) is None:
                raise fail("shape-mismatch", coord, where, f"cell {list(coord)} is outside")
        if len(set(clue.coords)) != len(clue.coords):
            raise fail("duplicate-clue", clue.coords[0], where, "a cell is listed twice")
        names = tuple(schema.var_at(c).name for c in clue.coords)
        return (Count(names, 1, "==", p["stars"], Origin("clue", clue.id, clue.coords)),)

    def validate_clues(self, schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
        out = super().validate_clues(schema, clues)
        region_of: dict[tuple, str] = {}
        cell_of: dict[tuple, str] = {}
        for clue in clues:
            seen = region_of if clue.kind == "region" else cell_of
            if clue.kind not in ("region", "star", "empty"):
                continue
            for coord in clue.coords:
                if coord in seen and seen[coord] != clue.id:
                    out.append(
                        Violation(
                            "duplicate-clue",
                            coord,
                            f"clue {clue.id}",
                            f"clues {seen[coord]} and {clue.id} both cover this cell",
                        )
                    )
                seen[coord] = clue.id
        return out

    def given_values(self, problem: Problem) -> dict[str, int]:
        return {
            cell_name(*c.coords[0]): int(c.kind == "star")
            for c in problem.clues
            if c.kind in ("star", "empty")
        }

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        return [self.reveal(v.coord, solution[v.name]) for v in schema.variables]

    # -- generation -------------------------------------------------------------------------
    def sample_solution(self, schema: Schema, rng: Any) -> Solution:
        """Stars row by row: a randomized depth-first search over k-subsets of columns."""
        p = schema.params_dict()
        n, k = p["size"], p["stars"]
        choices = row_choices(n, k)
        for _ in range(200):
            rows = place(n, k, choices, rng, [], [0] * n, [0])
            if rows is not None:
                return {cell_name(r, c): int(c in rows[r]) for r in range(n) for c in range(n)}
        raise RuntimeError(f"no {k}-star placement found for size {n}")

    def layout(
        self, schema: Schema, solution: Solution, rng: np.random.Generator
    ) -> list[list[tuple[int, int]]]:
        """A random region layout with ``k`` stars of ``solution`` in every region."""
        p = schema.params_dict()
        n, k = p["size"], p["stars"]
        stars = [(r, c) for r in range(n) for c in range(n) if solution[cell_name(r, c)]]
        for _ in range(200):
            label = grow(n, n, [[s] for s in stars], rng)
            pieces = [[] for _ in stars]  # type: list[list[tuple[int, int]]]
            for r in range(n):
                for c in range(n):
                    pieces[label[r][c]].append((r, c))
            if k == 1:
                return pieces
            groups = merge(pieces, label, k, rng)
            if groups is not None:
                return groups
        raise RuntimeError("no region layout found")

    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        regions = [
            self.region(i, cells) for i, cells in enumerate(self.layout(schema, solution, rng))
        ]
        return regions + pick_in_order(self.clues_from_solution(schema, solution), k, rng)

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        n = schema.params_dict()["size"]
        coord = tuple(coord)
        if schema.var_at(coord) is None:
            return []
        present = {c.id for c in instance.clues}
        moves = []
        cell = self.reveal(coord, solution[cell_name(*coord)])
        if cell.id not in present:
            moves.append(Repair("reveal", coord, add=(cell,)))
        if solution[cell_name(*coord)]:
            return moves
        regions = [c for c in instance.clues if c.kind == "region"]
        home = next((c for c in regions if coord in c.coords), None)
        if home is None or len(home.coords) == 1:
            return moves
        rest = [x for x in home.coords if x != coord]
        if not connected(rest):
            return moves
        for other in regions:
            if other.id == home.id:
                continue
            if any(nb in other.coords for nb in neighbours4(coord, n, n)):
                grown = Clue.make(other.id, "region", {}, sorted([*other.coords, coord]))
                shrunk = Clue.make(home.id, "region", {}, rest)
                moves.append(
                    Repair("reshape", coord, add=(shrunk, grown), remove=(home.id, other.id))
                )
        return moves

    def golden_instances(
        self, params: Mapping[str, Any], *, seed: int = 0
    ) -> dict[str, tuple[str, Instance, int]] | None:
        """The regression cases of a schema with generated layouts
        (``puzzlekit.quality.golden.corpus.CASES``), each as (note, instance, solution cap): a
        seeded layout with the reveals that make it
        unique (each at a cell where a solution found is not the layout's own, a star first),
        then its variants.
        The true clues of a solution are reveals only, so the generic builder would make
        reveal-only puzzles; a fixed ``regions`` layout is left to it (None)."""
        norm = self.normalize_params(params)
        if "regions" in norm:
            return None
        n, k = norm["size"], norm["stars"]
        schema = self.schema(norm)
        cap = 8 if n * n <= 36 else 3
        rng = np.random.default_rng([seed, 13])
        sol = self.sample_solution(schema, rng)
        regions = [self.region(i, cells) for i, cells in enumerate(self.layout(schema, sol, rng))]
        cells = [(r, c) for r in range(n) for c in range(n)]
        unique = list(regions)
        while len(found := star_solutions(n, k, unique, 2)) > 1:
            # a cell where a found solution is not ``sol``, a star of ``sol`` first
            differ = [x for x in cells if any((x in f) != bool(sol[cell_name(*x)]) for f in found)]
            cell = min(differ, key=lambda x: (not sol[cell_name(*x)], x))
            unique.append(self.reveal(cell, sol[cell_name(*cell)]))
        multiple = None
        for clue in unique:  # the unique case less one clue it needs, an exact count first
            trial = [c for c in unique if c.id != clue.id]
            count = len(star_solutions(n, k, trial, cap))
            if count > 1 and (multiple is None or count < cap):
                multiple = trial
                if count < cap:
                    break
        if multiple is None:
            raise RuntimeError(f"{self.info.name} {norm}: no clue of the unique case is needed")
        capped = regions[:1] if len(star_solutions(n, k, regions[:1], cap)) >= cap else []
        star = next(x for x in cells if sol[cell_name(*x)] and self.reveal(x, 1) not in unique)
        wrong = self.reveal(star, 0)
        first, second = regions[0], regions[1]
        outside = Clue.make(first.id, "region", {}, [*first.coords, (n, 0)])
        reveal = next((c for c in unique if c.kind != "region"), self.reveal(star, 1))
        valued = Clue.make(reveal.id, reveal.kind, {"value": 2}, reveal.coords)
        twin = Clue(first.id, "region", second.data, second.coords)
        cases = (
            ("unique", "a generated layout with the reveals that make it unique", unique),
            ("multiple", "the unique case less one clue it needs", multiple),
            ("multiple-capped", "one region (or none) only", capped),
            (
                "unsolvable",
                f"the unique case with {wrong.id} revealed empty (it holds a star)",
                [*unique, wrong],
            ),
            (
                "invalid-outside",
                f"clue {first.id} with a cell outside the grid",
                [outside, *unique[1:3]],
            ),
            (
                "invalid-value",
                f"clue {reveal.id} with a value 2 (a reveal's kind is its value)",
                [valued, *[c for c in unique if c.id != reveal.id][:2]],
            ),
            ("invalid-duplicate", f"clue id {first.id} on two clues", [first, twin]),
        )
        return {
            case: (note, Instance.make(self.info.name, norm, cs), cap) for case, note, cs in cases
        }

    # -- text -------------------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        """One line of ``/``-joined rows (what :meth:`format_text` writes): an optional
        ``stars=K``, the region letters, then after an empty row (``//``) the known cells
        (``*`` star, ``-`` empty, ``.`` unknown); or the same rows on lines of their own."""
        text = text.strip()
        if "\n" not in text:
            text = text.replace("/", "\n")
        lines = [ln.strip() for ln in text.splitlines()]
        stars = 1
        if lines and lines[0].startswith("stars="):
            value = lines.pop(0)[len("stars=") :]
            if not is_digits(value) or len(value) > 6:
                raise fail("malformed", None, "text", f"bad header stars={value}")
            stars = int(value)
        blocks: list[list[str]] = [[]]
        for ln in lines:
            if ln:
                blocks[-1].append(ln)
            elif blocks[-1]:
                blocks.append([])
        blocks = [b for b in blocks if b]
        if not blocks or len(blocks) > 2:
            raise fail("malformed", None, "text", "expected a region grid and optional cell grid")
        n = len(blocks[0])
        if any(len(row) != n for b in blocks for row in b) or (
            len(blocks) == 2 and len(blocks[1]) != n
        ):
            raise fail("shape-mismatch", None, "text", f"every grid must be {n}x{n}")
        schema = self.schema({**dict(params or {}), "size": n, "stars": stars})
        cells_of: dict[str, list[tuple[int, int]]] = {}
        for r, row in enumerate(blocks[0]):
            for c, ch in enumerate(row):
                if ch == ".":
                    continue
                if ch not in LETTERS:
                    raise fail("malformed", (r, c), cell_name(r, c), f"not a region letter: {ch!r}")
                cells_of.setdefault(ch, []).append((r, c))
        clues = [self.region(LETTERS.index(ch), cells) for ch, cells in sorted(cells_of.items())]
        if len(blocks) == 2:
            for r, row in enumerate(blocks[1]):
                for c, ch in enumerate(row):
                    if ch in "*-":
                        clues.append(self.reveal((r, c), int(ch == "*")))
                    elif ch != ".":
                        raise fail("malformed", (r, c), cell_name(r, c), f"not *, - or .: {ch!r}")
        return Instance.make(self.info.name, schema.params_dict(), clues)

    def format_text(self, instance: Instance) -> str:
        p = instance.params_dict()
        n = p["size"]
        regions = [["."] * n for _ in range(n)]
        cells = [["."] * n for _ in range(n)]
        for clue in instance.clues:
            if clue.kind == "region":
                letter = LETTERS[int(clue.id[len("region") :]) - 1]
                for r, c in clue.coords:
                    regions[r][c] = letter
            elif clue.kind in ("star", "empty"):
                r, c = clue.coords[0]
                cells[r][c] = "*" if clue.kind == "star" else "-"
        out = [] if p["stars"] == 1 else [f"stars={p['stars']}"]
        out += ["".join(row) for row in regions]
        if any(ch != "." for row in cells for ch in row):
            out += [""] + ["".join(row) for row in cells]
        return "/".join(out)

    # -- rendering --------------------------------------------------------------------------
    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """Region letters with ``*`` for stars (revealed or from ``solution``) and ``-`` for
        revealed empty cells; ``marks`` maps a cell to a mark drawn after it."""
        n = instance.params_dict()["size"]
        grid = [["." for _ in range(n)] for _ in range(n)]
        for clue in instance.clues:
            if clue.kind == "region" and is_digits(clue.id[len("region") :]):
                letter = LETTERS[(int(clue.id[len("region") :]) - 1) % 26].lower()
                for r, c in clue.coords:
                    if 0 <= r < n and 0 <= c < n:
                        grid[r][c] = letter
        if solution:
            for r in range(n):
                for c in range(n):
                    if solution.get(cell_name(r, c)):
                        grid[r][c] = "*"
        for clue in instance.clues:
            if clue.kind in ("star", "empty") and len(clue.coords) == 1:
                r, c = clue.coords[0]
                if 0 <= r < n and 0 <= c < n:
                    grid[r][c] = "*" if clue.kind == "star" else "-"
        lines = ["+" + "---" * n + "+"]
        for r in range(n):
            lines.append(
                "|" + "".join(f" {grid[r][c]}{mark_of(marks, (r, c))}" for c in range(n)) + "|"
            )
        lines.append("+" + "---" * n + "+")
        return "\n".join(lines)

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        import matplotlib.pyplot as plt

        n = instance.params_dict()["size"]
        if ax is None:
            _, ax = plt.subplots(figsize=(n * 0.45, n * 0.45))
        owner = {}
        for clue in instance.clues:
            if clue.kind == "region":
                for cell in clue.coords:
                    owner[tuple(cell)] = clue.id
        for r in range(n):
            for c in range(n):
                for (r2, c2), (x0, y0, x1, y1) in (
                    ((r, c + 1), (c + 1, n - r - 1, c + 1, n - r)),
                    ((r + 1, c), (c, n - r - 1, c + 1, n - r - 1)),
                ):
                    thick = owner.get((r, c)) != owner.get((r2, c2))
                    if r2 < n and c2 < n:
                        ax.plot([x0, x1], [y0, y1], color="black", lw=2 if thick else 0.4)
        ax.plot([0, n, n, 0, 0], [0, 0, n, n, 0], color="black", lw=2)
        shown = {
            c.coords[0]: c.kind == "star" for c in instance.clues if c.kind in ("star", "empty")
        }
        for r in range(n):
            for c in range(n):
                star, color = shown.get((r, c)), "black"
                if star is None and solution:
                    star, color = bool(solution.get(cell_name(r, c))), "tab:blue"
                if star:
                    ax.text(c + 0.5, n - r - 0.5, "★", ha="center", va="center", color=color)
        ax.set_xlim(0, n)
        ax.set_ylim(0, n)
        ax.set_aspect("equal")
        ax.axis("off")
        return ax


STARBATTLE = register_family(StarBattle())
