"""KenKen (Tatham's Keen): an N×N Latin square divided into cages, each with an operation and a
target that its cells' values reach.

Params: ``{"size": N}``, N from 2 to 9; the default is 4.

Rules: every row and every column holds 1..N once (``row1``..., ``col1``... AllDifferent).

Clues (coordinates are 0-based ``[row, col]``):

- ``cage``: ``data = {"op": op, "target": t}`` and the cage's cells as coordinates (distinct,
  orthogonally connected, no cell in two cages). ``op`` is ``+`` (sum, a ``Linear``), ``*``
  (product, a ``Table`` of the tuples whose product is t; over
  :data:`MAX_PRODUCT_ROWS` tuples, a ``Predicate`` on the product), ``-`` and ``/`` (two cells only:
  the larger minus, or divided by, the smaller is t; a ``Table``), or ``=`` (one cell, whose
  value is t). Digits may repeat inside a cage when the cells share no row or column. The id is
  ``cage-`` and the name of the cage's first cell in row-major order (``cage-r1c1``).
- ``given``: ``data = {"value": v}`` and one coordinate; the id is the cell name. Not customary
  in KenKen; the generator reveals digits through it.

``clues_from_solution`` gives every given and the cages of a fixed tiling by horizontal dominoes
(``/`` where the quotient is whole, ``-`` otherwise). A fresh puzzle (``initial_clues``) is a
random layout covering the grid: single cells merged at random into cages of at most 4 cells
until ``k`` cages remain, each with a random true operation.

JSON format: ``{"family": "kenken", "params": {"size": 4}, "clues": [{"id": "cage-r1c1",
"kind": "cage", "data": {"op": "*", "target": 12}, "coords": [[0, 0], [0, 1], [1, 0]]}, ...]}``.

Text format: Simon Tatham's ``keen`` description (``N:`` block structure, comma, one clue per cage
``a``/``s``/``m``/``d`` and the target), for instances whose cages cover the grid and have no
``given`` and no ``=`` cage but single cells; :mod:`puzzlekit.io.tatham` reads the same IDs.
Any other instance is written as its JSON on one line, which ``parse_text`` reads too.

Repair moves at a cell: reveal its digit, or split its cage into the cell alone and the rest.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from puzzlekit.core import deadline, protocols
from puzzlekit.core.model import (
    Clue,
    Constraint,
    Instance,
    Linear,
    Origin,
    Predicate,
    Schema,
    Solution,
    SpecError,
    Table,
    Violation,
    text_int,
)
from puzzlekit.core.protocols import FamilyInfo
from puzzlekit.core.reading import is_digits
from puzzlekit.families import register_family
from puzzlekit.families._kit.cages import (
    CageGrid,
    Cell,
    components,
    decode_block_structure,
    encode_block_structure,
    int_field,
)
from puzzlekit.families._kit.dihedral import canonical_square, moved_cage
from puzzlekit.families.grid import GivensGrid, cell_name, check_described_size

OPS = ("+", "-", "*", "/", "=")


#: Tatham's letters for the operations of keen descriptions
TATHAM_OPS = {"a": "+", "s": "-", "m": "*", "d": "/"}


#: a product cage with more tuples than this is not tabulated (a 9-cell product cage of a 9×9
#: grid has 651,960: 23 s to list and about 1 GB in ``sat``); it becomes a rule on the product
MAX_PRODUCT_ROWS = 20_000


def product_tuples(
    cells: list[Cell], n: int, target: int, limit: int = MAX_PRODUCT_ROWS
) -> frozenset[tuple[int, ...]] | None:
    """Tuples of 1..n for ``cells`` whose product is ``target``, with different values in cells
    that share a row or column (the grid's rules require it anyway; the table is smaller); None
    when there are more than ``limit`` of them (or listing them takes over ``limit`` times the
    cage's size in steps), so that reading a clue stays cheap whatever the cage.

    The listing stops on the deadline of the search that reads the clue
    (:func:`puzzlekit.core.deadline.check` raises ``BudgetExceeded``: nine 9-cell product cages
    cost seconds), and the tables of the last few cage shapes are remembered (a shape: which
    cells share a line), so that choosing a backend and then verifying list a cage once."""
    peers = tuple(
        tuple(j for j in range(i) if cells[j][0] == cells[i][0] or cells[j][1] == cells[i][1])
        for i in range(len(cells))
    )
    return _product_tuples(peers, n, target, limit)


#: the clock is read once per this many steps of listing a product cage's tuples
CLOCK_STEPS = 1024


@functools.lru_cache(maxsize=16)
def _product_tuples(
    peers: tuple[tuple[int, ...], ...], n: int, target: int, limit: int
) -> frozenset[tuple[int, ...]] | None:
    """:func:`product_tuples` of a cage whose cell ``i`` shares a line with the cells
    ``peers[i]`` before it."""
    out: list[tuple[int, ...]] = []
    steps = [limit * max(1, len(peers))]
    divisors = [v for v in range(1, n + 1) if target >= 1 and target % v == 0]
    size = len(peers)

    def rec(i: int, rest: int, acc: list[int]) -> bool:
        steps[0] -= 1
        if steps[0] < 0 or len(out) > limit:
            return False
        if not steps[0] % CLOCK_STEPS:
            deadline.check()
        if i == size:
            if rest == 1:
                out.append(tuple(acc))
            return True
        mine = peers[i]
        for v in divisors:
            if rest % v or any(acc[j] == v for j in mine):
                continue
            acc.append(v)
            more = rec(i + 1, rest // v, acc)
            acc.pop()
            if not more:
                return False
        return True

    if target >= 1 and not rec(0, target, []):
        return None
    return frozenset(out)


def product_rule(
    names: tuple[str, ...], n: int, target: int, origin: Origin
) -> tuple[Constraint, ...]:
    """A product cage too large to tabulate: each cell a divisor of ``target`` (a one-cell
    ``Table``) and the product a ``Predicate`` (only the enumerative backend takes it, within
    its budget)."""
    divisors = frozenset((v,) for v in range(1, n + 1) if target % v == 0)
    return (
        *(Table((name,), divisors, origin) for name in names),
        Predicate(names, lambda *values: math.prod(values) == target, origin),
    )


def pair_tuples(n: int, op: str, target: int) -> frozenset[tuple[int, int]]:
    """Pairs of 1..n (different values) whose difference or quotient is ``target``."""
    out = set()
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            if a == b:
                continue
            hi, lo = max(a, b), min(a, b)
            if (op == "-" and hi - lo == target) or (op == "/" and hi == lo * target):
                out.add((a, b))
    return frozenset(out)


class KenKen(CageGrid, GivensGrid):
    info = FamilyInfo(
        name="kenken",
        description="N×N Latin square in cages with + − × ÷ targets (Tatham's Keen)",
        clue_kinds=("cage", "given"),
        listed_params=({"size": 3}, {"size": 4}, {"size": 5}, {"size": 6}),
        size_limits={"size": 9},
        value_clue_kind="given",
        symmetry_group=(
            "the square's rotations and reflections, each cage and given moved with its cells (no "
            "relabelling of values: a sum, product or quotient is not kept by one)"
        ),
        rules_text=(
            "Fill every cell of the {size}×{size} grid with a number from 1 to {size} so that "
            "every row and every column holds each number exactly once, and the numbers of every "
            "cage (outlined in the drawing and listed below it) make its target with its "
            "operation: `+` their sum, `*` their product, `-` the difference and `/` the quotient "
            "of its two cells (larger by smaller); a cage with a number alone is that number."
        ),
    )
    param_keys = ("size",)
    max_cage = 4

    def canonical_instance(self, instance: Instance) -> Instance:
        return canonical_square(self, instance, moved_cage)

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        n = self._check_size(params, default=4)
        if n > 9:
            raise SpecError(
                [Violation("malformed", None, "params.size", f"KenKen sizes are 1..9: {n}")]
            )
        return {"size": n}

    # -- cages -------------------------------------------------------------------------------
    def cage_options(self, cells: list[Cell], solution: Solution) -> list[dict[str, Any]]:
        vals = [solution[cell_name(*c)] for c in cells]
        if len(vals) == 1:
            return [{"op": "=", "target": vals[0]}]
        out = []
        if len(vals) == 2:
            hi, lo = max(vals), min(vals)
            if hi % lo == 0 and hi != lo:
                out.append({"op": "/", "target": hi // lo})
            if hi != lo:
                out.append({"op": "-", "target": hi - lo})
        out.append({"op": "*", "target": math.prod(vals)})
        out.append({"op": "+", "target": sum(vals)})
        return out

    def cage_constraints(
        self, schema: Schema, clue: Clue, cells: list[Cell]
    ) -> tuple[Constraint, ...]:
        n = schema.params_dict()["size"]
        where = f"clue {clue.id}"
        op = clue.data_dict().get("op")
        if op not in OPS:
            raise SpecError(
                [Violation("malformed", cells[0], where, f"op must be one of {OPS}: {op!r}")]
            )
        target = int_field(clue, "target", cells[0])
        names = tuple(cell_name(*c) for c in cells)
        origin = Origin("clue", clue.id, tuple(cells))
        if op in ("-", "/", "=") and len(cells) != (1 if op == "=" else 2):
            size = "one cell" if op == "=" else "two cells"
            raise SpecError(
                [Violation("shape-mismatch", cells[0], where, f"a {op} cage has {size}")]
            )
        if op in ("+", "="):
            return (Linear(names, (1,) * len(names), "==", target, origin),)
        if op == "*":
            rows = product_tuples(cells, n, target)
            if rows is None:
                return product_rule(names, n, target, origin)
            return (Table(names, rows, origin),)
        return (Table(names, pair_tuples(n, op, target), origin),)

    def cage_label(self, clue: Clue) -> str:
        data = clue.data_dict()
        op = data.get("op")
        return f"{data.get('target')}{'' if op == '=' else op}"

    # -- text: Tatham's keen description ------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        line = text.strip()
        if line.startswith("{"):  # what format_text writes when keen cannot say it
            return protocols.Family.parse_text(self, line, params)
        head, sep, body = line.partition(":")
        if not sep or not is_digits(head):
            raise SpecError(
                [Violation("malformed", None, "line", "expected N: then a keen description")]
            )
        n = text_int(head, "line")
        check_described_size(n, params)
        schema = self.schema({"size": n})
        blocks, sep, clue_text = body.partition(",")
        if not sep:
            raise SpecError([Violation("malformed", None, "line", "no ',' after the blocks")])
        try:
            groups = decode_block_structure(blocks, n)
        except ValueError as exc:
            raise SpecError([Violation("malformed", None, "line", str(exc))]) from None
        clues = []
        pos = 0
        for cells in sorted(groups, key=min):
            if pos >= len(clue_text) or clue_text[pos] not in TATHAM_OPS:
                raise SpecError(
                    [Violation("malformed", cells[0], "line", f"expected a clue at {pos}")]
                )
            op = TATHAM_OPS[clue_text[pos]]
            end = pos + 1
            while end < len(clue_text) and is_digits(clue_text[end]):
                end += 1
            if end == pos + 1:
                raise SpecError([Violation("malformed", cells[0], "line", "clue without number")])
            target = text_int(clue_text[pos + 1 : end], "line")
            pos = end
            if len(cells) == 1:
                op = "="
            clues.append(self.cage(cells, {"op": op, "target": target}))
        if pos != len(clue_text):
            raise SpecError([Violation("malformed", None, "line", "more clues than cages")])
        return Instance.make(self.info.name, schema.params_dict(), clues)

    def format_text(self, instance: Instance) -> str:
        n = instance.params_dict()["size"]
        cages = [c for c in instance.clues if c.kind == "cage"]
        cells = sorted(tuple(x) for c in cages for x in c.coords)
        groups = [[tuple(x) for x in c.coords] for c in cages]
        if (
            len(cages) != len(instance.clues)
            or cells != [(r, c) for r in range(n) for c in range(n)]
            or any(len(components(g)) != 1 for g in groups)
        ):
            # a keen description has connected cages covering the grid and no givens
            return instance.to_json()
        letter = {v: k for k, v in TATHAM_OPS.items()}
        parts = []
        for clue in sorted(cages, key=lambda c: min(tuple(x) for x in c.coords)):
            data = clue.data_dict()
            parts.append(letter.get(data["op"], "a") + str(data["target"]))
        return f"{n}:" + encode_block_structure(groups, n) + "," + "".join(parts)


KENKEN = register_family(KenKen())
