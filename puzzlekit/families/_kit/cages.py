"""Shared machinery of grid families whose clues group cells: cages (KenKen, Killer Sudoku) and
irregular regions (Jigsaw Sudoku).

Not part of the public API. It holds the pure geometry (connected components; a cell's neighbours
are :func:`puzzlekit.families.grid.neighbours`), the
seeded random layouts (cages grown by random merges, regions grown from a random Latin square),
the checks a cage clue must pass, and the cage family mixin :class:`CageGrid`. Tatham's block
structure lives in :mod:`puzzlekit.families.tatham` and the drawing of grouped cells in
:mod:`puzzlekit.families._kit.cagedraw`; both are re-exported here for the families that import them
from this module. It imports only :mod:`puzzlekit.core.model` and the families package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from puzzlekit.core.model import Clue, Constraint, Instance, Schema, Solution, SpecError, Violation
from puzzlekit.core.protocols import Repair
from puzzlekit.families._kit.cagedraw import json_label, render_groups, render_groups_mpl
from puzzlekit.families.grid import SYMBOLS, cell_name, neighbours
from puzzlekit.families.tatham import decode_block_structure, encode_block_structure

__all__ = [
    "CageGrid",
    "Cell",
    "cage_id",
    "check_cells",
    "components",
    "decode_block_structure",
    "domino_tiling",
    "encode_block_structure",
    "grow_cages",
    "grow_regions",
    "int_field",
    "is_connected",
    "json_label",
    "overlapping_cages",
    "render_groups",
    "render_groups_mpl",
]

Cell = tuple[int, int]


def components(cells: Iterable[Cell]) -> list[list[Cell]]:
    """The orthogonally connected components of ``cells``, each sorted, in row-major order."""
    todo = set(cells)
    out = []
    for start in sorted(todo):
        if start not in todo:
            continue
        todo.discard(start)
        comp, stack = [start], [start]
        while stack:
            r, c = stack.pop()
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if nb in todo:
                    todo.discard(nb)
                    comp.append(nb)
                    stack.append(nb)
        out.append(sorted(comp))
    return out


def is_connected(cells: Sequence[Cell]) -> bool:
    return len(components(cells)) == 1


def cage_id(cells: Sequence[Cell]) -> str:
    """The id of a cage: ``cage-`` and the name of its first cell in row-major order."""
    return "cage-" + cell_name(*min(cells))


def check_cells(schema: Schema, clue: Clue, n: int) -> list[Cell]:
    """The cells of a cage-like clue, checked: inside the grid, distinct, connected."""
    where = f"clue {clue.id}"
    if not clue.coords:
        raise SpecError([Violation("shape-mismatch", None, where, "a cage names its cells")])
    cells: list[Cell] = []
    for coord in clue.coords:
        if schema.var_at(coord) is None:
            raise SpecError(
                [
                    Violation(
                        "shape-mismatch",
                        tuple(coord),
                        where,
                        f"cell {list(coord)} is outside the {n}x{n} grid",
                    )
                ]
            )
        cells.append((int(coord[0]), int(coord[1])))
    if len(set(cells)) != len(cells):
        raise SpecError([Violation("shape-mismatch", cells[0], where, "a cell is named twice")])
    if not is_connected(cells):
        raise SpecError(
            [Violation("shape-mismatch", cells[0], where, "cage cells are not connected")]
        )
    return cells


def int_field(clue: Clue, key: str, coord: Any) -> int:
    """``clue.data[key]`` as an int, or SpecError (``malformed``)."""
    value = clue.data_dict().get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SpecError(
            [Violation("malformed", coord, f"clue {clue.id}", f"{key} must be an integer")]
        )
    return value


def overlapping_cages(schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
    """A violation for every cell that two cage clues both claim."""
    out = []
    owner: dict[tuple, str] = {}
    for clue in clues:
        if clue.kind != "cage":
            continue
        for coord in clue.coords:
            coord = tuple(coord)
            if coord in owner and owner[coord] != clue.id:
                var = schema.var_at(coord)
                out.append(
                    Violation(
                        "duplicate-clue",
                        coord,
                        var.name if var else f"clue {clue.id}",
                        f"cages {owner[coord]} and {clue.id} both hold this cell",
                    )
                )
            owner.setdefault(coord, clue.id)
    return out


def domino_tiling(n: int) -> list[list[Cell]]:
    """A fixed tiling of the grid by horizontal dominoes (vertical ones in an odd last column)."""
    out = [[(r, c), (r, c + 1)] for r in range(n) for c in range(0, n - 1, 2)]
    if n % 2:
        out += [[(r, n - 1), (r + 1, n - 1)] for r in range(0, n - 1, 2)]
    return out


def grow_cages(
    n: int,
    rng: Any,
    target: int,
    max_size: int,
    allowed: Callable[[list[Cell]], bool] = lambda cells: True,
) -> list[list[Cell]]:
    """A seeded random partition of the n×n grid into connected cages.

    Starts from single cells and merges a random cage with a random neighbouring cage while more
    than ``target`` cages remain and a merge is possible (the union has at most ``max_size``
    cells and ``allowed(union)`` holds).
    """
    cage_of = {(r, c): i for i, (r, c) in enumerate((r, c) for r in range(n) for c in range(n))}
    cages: dict[int, list[Cell]] = {i: [cell] for cell, i in cage_of.items()}
    stuck: set[int] = set()
    while len(cages) > max(1, target):
        live = sorted(set(cages) - stuck)
        if not live:
            break
        cid = live[int(rng.integers(len(live)))]
        options = sorted(
            {
                cage_of[nb]
                for cell in cages[cid]
                for nb in neighbours(cell, n)
                if cage_of[nb] != cid
                and len(cages[cage_of[nb]]) + len(cages[cid]) <= max_size
                and allowed(cages[cid] + cages[cage_of[nb]])
            }
        )
        if not options:
            stuck.add(cid)
            continue
        other = options[int(rng.integers(len(options)))]
        for cell in cages[other]:
            cage_of[cell] = cid
        cages[cid] = sorted(cages[cid] + cages.pop(other))
        stuck.discard(other)
    return sorted(cages.values())


def _solvable(n: int, region: Mapping[Cell, int], limit: int = 20_000) -> bool | None:
    """Whether a jigsaw layout admits a filled grid (a small bitmask search); None when the
    search passes ``limit`` nodes."""
    full = (1 << n) - 1
    rows, cols, regs = [0] * n, [0] * n, [0] * n
    free = [(r, c) for r in range(n) for c in range(n)]
    nodes = 0

    def rec() -> bool | None:
        nonlocal nodes
        nodes += 1
        if nodes > limit:
            return None
        if not free:
            return True
        best, best_mask, best_count = -1, 0, n + 1
        for i, (r, c) in enumerate(free):
            mask = full & ~(rows[r] | cols[c] | regs[region[(r, c)]])
            count = bin(mask).count("1")
            if count < best_count:
                best, best_mask, best_count = i, mask, count
                if count <= 1:
                    break
        if best_count == 0:
            return False
        r, c = free.pop(best)
        g = region[(r, c)]
        result: bool | None = False
        while best_mask:
            bit = best_mask & -best_mask
            best_mask ^= bit
            rows[r] |= bit
            cols[c] |= bit
            regs[g] |= bit
            found = rec()
            rows[r] ^= bit
            cols[c] ^= bit
            regs[g] ^= bit
            if found or found is None:
                result = found
                break
        free.insert(best, (r, c))
        return result

    return rec()


def grow_regions(n: int, rng: Any, attempts: int = 100) -> list[list[Cell]]:
    """A seeded random partition of the n×n grid into n connected regions of n cells each that
    admits a Jigsaw Sudoku solution.

    Starts from the rows and applies random boundary swaps (a cell of region A joins a
    neighbouring region B and a cell of B next to A joins A, kept only when both stay connected),
    then checks with a small search that the layout can be filled; an unfillable layout gets
    more swaps.
    """
    region = {(r, c): r for r in range(n) for c in range(n)}
    members: list[set[Cell]] = [{(r, c) for c in range(n)} for r in range(n)]
    cells = sorted(region)
    if n < 3:
        return [sorted(m) for m in members]
    for _ in range(attempts):
        for _ in range(100 * n * n):
            a = cells[int(rng.integers(len(cells)))]
            ga = region[a]
            others = [nb for nb in neighbours(a, n) if region[nb] != ga]
            if not others:
                continue
            gb = region[others[int(rng.integers(len(others)))]]
            members[ga].discard(a)
            back = sorted(
                b
                for b in members[gb]
                if any(region[nb] == ga and nb != a for nb in neighbours(b, n))
            )
            if not back:
                members[ga].add(a)
                continue
            b = back[int(rng.integers(len(back)))]
            members[gb].discard(b)
            members[ga].add(b)
            members[gb].add(a)
            if is_connected(sorted(members[ga])) and is_connected(sorted(members[gb])):
                region[a], region[b] = gb, ga
            else:
                members[ga].discard(b)
                members[gb].discard(a)
                members[ga].add(a)
                members[gb].add(b)
        if _solvable(n, region):
            return sorted(sorted(m) for m in members)
    raise RuntimeError(f"no fillable {n}x{n} jigsaw layout after {attempts} attempts")


# --- the cage family mixin ---------------------------------------------------------------------


class CageGrid:
    """Mixin for a :class:`~puzzlekit.families.grid.GivensGrid` family whose clues are givens
    and ``cage`` clues (KenKen, Killer Sudoku). Put it before GivensGrid in the bases.

    A subclass fills in :meth:`cage_options` (the true cage clues for some cells of a solution,
    most informative first) and :meth:`cage_constraints`, and sets :attr:`max_cage`.
    ``clues_from_solution`` reveals every given and the cages of a fixed domino tiling; a fresh
    puzzle (:meth:`initial_clues`) is a random cage layout grown by random merges down to ``k``
    cages; repair moves reveal a digit or split the cage at the coordinate.
    """

    max_cage = 4

    # -- to fill in --------------------------------------------------------------------------
    def cage_options(self, cells: list[Cell], solution: Solution) -> list[dict[str, Any]]:
        raise NotImplementedError

    def cage_constraints(
        self, schema: Schema, clue: Clue, cells: list[Cell]
    ) -> tuple[Constraint, ...]:
        raise NotImplementedError

    def cage_allowed(self, cells: list[Cell], solution: Solution) -> bool:
        """Whether ``cells`` may form one cage of ``solution`` (default: always)."""
        return True

    # -- clues -------------------------------------------------------------------------------
    @staticmethod
    def cage(cells: Sequence[Cell], data: Mapping[str, Any]) -> Clue:
        cells = sorted(tuple(c) for c in cells)
        return Clue.make(cage_id(cells), "cage", data, cells)

    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        if clue.kind != "cage":
            return super().clue_constraints(schema, clue)  # type: ignore[misc]
        n = schema.params_dict()["size"]
        cells = check_cells(schema, clue, n)
        return self.cage_constraints(schema, clue, cells)

    def validate_clues(self, schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
        out = super().validate_clues(schema, clues)  # type: ignore[misc]
        return out + overlapping_cages(schema, clues)

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        n = schema.params_dict()["size"]
        out = list(super().clues_from_solution(schema, solution))  # type: ignore[misc]
        for cells in domino_tiling(n):
            if self.cage_allowed(cells, solution):
                out.append(self.cage(cells, self.cage_options(cells, solution)[0]))
        return out

    def least_k(self, schema: Schema) -> int:
        """At least ceil(n² / :attr:`max_cage`) cages cover the n×n grid."""
        return -(-(schema.params_dict()["size"] ** 2) // self.max_cage)

    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        """A random cage layout over the whole grid: ``k`` cages (or as few as the size limit
        allows), each with a random clue true of ``solution``."""
        n = schema.params_dict()["size"]
        layout = grow_cages(
            n, rng, k, self.max_cage, lambda cells: self.cage_allowed(cells, solution)
        )
        out = []
        for cells in layout:
            options = self.cage_options(cells, solution)
            out.append(self.cage(cells, options[int(rng.integers(len(options)))]))
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
        coord = tuple(coord)
        if schema.var_at(coord) is None:
            return []
        name = cell_name(*coord)
        present = {c.id for c in instance.clues}
        moves = []
        holder = next((c for c in instance.clues if c.kind == "cage" and coord in c.coords), None)
        if name not in present and (holder is None or len(holder.coords) > 1):
            given = Clue.make(name, "given", {"value": solution[name]}, [coord])
            moves.append(Repair("reveal", coord, add=(given,)))
        if holder is not None and len(holder.coords) > 1:
            rest = components(c for c in holder.coords if c != coord)
            single = self.cage([coord], self.cage_options([coord], solution)[0])
            options = [self.cage_options(part, solution) for part in rest]
            for variant in range(max(len(o) for o in options)):
                parts = [
                    self.cage(p, o[min(variant, len(o) - 1)])
                    for p, o in zip(rest, options, strict=True)
                ]
                moves.append(Repair("split", coord, add=(single, *parts), remove=(holder.id,)))
        return moves

    def merge_moves(
        self, schema: Schema, instance: Instance, solution: Solution, coord: tuple
    ) -> list[Repair]:
        """Merge the cage at ``coord`` with a neighbouring cage (a coarsening move: it makes a
        puzzle harder, so :meth:`repair_moves` does not offer it)."""
        n = schema.params_dict()["size"]
        coord = tuple(coord)
        cages = [c for c in instance.clues if c.kind == "cage"]
        holder = next((c for c in cages if coord in c.coords), None)
        if holder is None:
            return []
        mine = set(holder.coords)
        moves = []
        for other in cages:
            if other.id == holder.id:
                continue
            if not any(nb in mine for cell in other.coords for nb in neighbours(cell, n)):
                continue
            cells = sorted(mine | set(other.coords))
            if len(cells) > self.max_cage or not self.cage_allowed(cells, solution):
                continue
            for data in self.cage_options(cells, solution):
                moves.append(
                    Repair(
                        "merge", coord, add=(self.cage(cells, data),), remove=(holder.id, other.id)
                    )
                )
        return moves

    # -- rendering ---------------------------------------------------------------------------
    def cage_label(self, clue: Clue) -> str:
        return json_label(clue.data_dict())

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """Cages as walled groups, digits (givens upper case, solution lower case), marks after
        their cell, and one legend line per cage."""
        n = instance.params_dict()["size"]
        group_of, symbols, legend = {}, {}, []
        if solution:
            for r in range(n):
                for c in range(n):
                    v = solution.get(cell_name(r, c))
                    if isinstance(v, int) and 1 <= v <= len(SYMBOLS):
                        symbols[(r, c)] = SYMBOLS[v - 1].lower()
        for clue in instance.clues:
            cells = [tuple(c) for c in clue.coords if len(c) == 2]
            if clue.kind == "cage":
                for cell in cells:
                    group_of[cell] = clue.id
                names = " ".join(cell_name(*c) for c in cells)
                legend.append(f"{clue.id}: {self.cage_label(clue)} [{names}]")
            elif clue.kind == "given" and cells:
                v = clue.data_dict().get("value")
                if isinstance(v, int) and 1 <= v <= len(SYMBOLS):
                    symbols[cells[0]] = SYMBOLS[v - 1]
        return render_groups(n, group_of, symbols, marks, legend)

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        n = instance.params_dict()["size"]
        group_of, symbols, labels = {}, {}, {}
        for clue in instance.clues:
            if clue.kind == "cage":
                for cell in clue.coords:
                    group_of[tuple(cell)] = clue.id
                labels[tuple(min(clue.coords))] = self.cage_label(clue)
            elif clue.kind == "given":
                symbols[tuple(clue.coords[0])] = str(clue.data_dict()["value"])
        if solution:
            for r in range(n):
                for c in range(n):
                    symbols.setdefault((r, c), str(solution[cell_name(r, c)]))
        return render_groups_mpl(n, group_of, symbols, labels, ax)
