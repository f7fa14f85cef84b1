"""The ``logicgrid`` family: zebra / whodunit puzzles whose clues are statements, not cells.

A schema is a list of categories (house, colour, drink, ...), each with ``size`` values; one
category may be ordered (house position). The entities are the values of the *anchor* category
(the ordered one, else the first); every other category gets one variable per entity, named
``<category>@<anchor value>`` at coordinate ``(entity, category)`` (both 0-based: the category
is its position in the params' list), whose value
is the index of that category's value. A solution is one bijection per category (an
``AllDifferent`` rule per category).

Clue kinds (data in JSON; an *atom* is ``[category, value]``, the entity holding that value):

- ``is`` / ``is-not``: ``{"entity", "category", "value"}``, that entity has (not) that value;
- ``same-entity``: ``{"a": atom, "b": atom}``, both atoms belong to one entity;
- ``left-of`` / ``right-of`` / ``next-to`` / ``immediately-left``: ``{"a": atom, "b": atom}``,
  positions in the ordered category (only when one is ordered);
- ``either-or``: ``{"subject": atom, "either": atom, "or": atom}``, the subject's entity holds
  one of the two (or both);
- ``if-then``: ``{"if": fact, "then": fact}`` with facts shaped like an ``is`` clue.

Every clue becomes ``Table`` constraints over at most three variables (plus the permutation
rules), so both the enumerative and the sat backend verify the family. :func:`clue_text` renders a
clue as an English sentence (``render_ascii`` lists them); the text format is the instance's JSON
on one line (``parse_text`` also reads it followed by the sentences as ``#`` comments).

Layout: the grid of categories, the clue kinds' constraints and :func:`holds` are in
:mod:`~puzzlekit.families.logicgrid.clues`, the English in
:mod:`~puzzlekit.families.logicgrid.text`, the true-clue pool and repair candidates in
:mod:`~puzzlekit.families.logicgrid.generate`; this module is the family itself and Einstein's
puzzle, and re-exports the public names of the other three.

Not for: puzzles whose categories have different sizes, or clues about counts ("two people ...").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import (
    AllDifferent,
    Clue,
    Constraint,
    Instance,
    Origin,
    Schema,
    Solution,
    SpecError,
    Variable,
    freeze,
)
from puzzlekit.core.protocols import FamilyInfo, Repair, pick_in_order
from puzzlekit.families import register_family
from puzzlekit.families.logicgrid.clues import (
    CLUE_KINDS,
    _bad,
    _categories_of,
    _constraints,
    _grid,
    grid_of,
    holds,
    ruled_out,
)
from puzzlekit.families.logicgrid.generate import _candidates, _pair, _true_clues
from puzzlekit.families.logicgrid.text import clue_text, solution_json


class LogicGrid(protocols.Family):
    """Logic-grid puzzles: categories, one bijection per category, statement clues."""

    info = FamilyInfo(
        name="logicgrid",
        description="zebra / whodunit puzzles: categories matched by statement clues",
        clue_kinds=CLUE_KINDS,
        listed_params=({"size": 4, "categories": 3}, {"preset": "einstein"}),
        default_verifier="sat",
        size_limits={"size": 8, "categories": 6},
        rules_text=(
            "A logic-grid puzzle: every value of every category belongs to exactly one entity and "
            "no two entities share one; each numbered statement is true. The cells of the answer "
            "are named `category@entity` (`color@1`: the color of entity 1)."
        ),
    )

    # -- schema --------------------------------------------------------------------------------
    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        params = dict(params)
        unknown = sorted(set(params) - {"size", "categories", "preset"})
        if unknown:
            raise _bad(f"params.{unknown[0]}", "not a param of logicgrid", "unknown-field")
        if "preset" in params:
            if params["preset"] != "einstein" or len(params) > 1:
                raise _bad("params.preset", "the only preset is 'einstein', alone")
            return {"preset": "einstein"}
        cats = params.get("categories", 3)
        if isinstance(cats, list):
            if "size" in params:
                raise _bad("params.size", "size comes from the categories' values")
            if len(cats) < 2:
                raise _bad("params.categories", "at least two categories")
            grid = _grid(freeze(cats))
            if len({len(c.values) for c in grid.categories}) != 1:
                raise _bad("params.categories", "every category needs the same number of values")
            if sum(c.ordered for c in grid.categories) > 1:
                raise _bad("params.categories", "at most one category may be ordered")
            if len({c.name for c in grid.categories}) != len(cats):
                raise _bad("params.categories", "category names must be distinct")
            return {"categories": cats}
        size = params.get("size", 4)
        for key, value, lo, hi in (("size", size, 2, 8), ("categories", cats, 2, 6)):
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise _bad(f"params.{key}", f"{key} must be an integer in {lo}..{hi}")
        return {"size": size, "categories": cats}

    def schema_id(self, params: Mapping[str, Any]) -> str:
        if params.get("preset"):
            return f"logicgrid-{params['preset']}"
        if isinstance(params.get("categories"), int):
            return f"logicgrid-{params['size']}x{params['categories']}"
        grid = _grid(freeze(params["categories"]))
        names = "-".join(c.name for c in grid.categories)
        return f"logicgrid-{grid.size}x{len(grid.categories)}-{names}"

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        grid = _grid(freeze(_categories_of(params)))
        variables = tuple(
            Variable((e, grid.index(c.name)), grid.var(e, c.name), tuple(range(grid.size)))
            for e in range(grid.size)
            for c in grid.others
        )
        rules = tuple(
            AllDifferent(
                tuple(grid.var(e, c.name) for e in range(grid.size)),
                Origin(
                    "rule",
                    f"category {c.name}",
                    tuple((e, grid.index(c.name)) for e in range(grid.size)),
                ),
            )
            for c in grid.others
        )
        return Schema(self.info.name, freeze(dict(params)), variables, rules, CLUE_KINDS)

    # -- clues ---------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        grid = grid_of(schema)
        try:
            constraints, coords = _constraints(grid, clue)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, SpecError):
                raise
            raise _bad(f"clue {clue.id}", f"malformed {clue.kind} clue: {exc}") from None
        if sorted(tuple(c) for c in clue.coords) != sorted(coords):
            raise _bad(
                f"clue {clue.id}",
                f"coords {[list(c) for c in clue.coords]} are not the coordinates the clue "
                f"touches ({[list(c) for c in coords]})",
                "shape-mismatch",
                clue.coords[0] if clue.coords else None,
            )
        return tuple(constraints)

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        """True clues with ids by position (``is:e2:color``): the same id in another solution
        says something else, so swapping one makes a small conflict. Cached per solution (the
        blind strategy asks once per filter call, repairs once per coordinate)."""
        values = tuple(int(solution[v.name]) for v in schema.variables)
        return list(_true_clues(schema.params, values))

    # -- generation ----------------------------------------------------------------------------
    def sample_solution(self, schema: Schema, rng: Any) -> Solution:
        grid = grid_of(schema)
        sol: dict[str, int] = {}
        perms = {c.name: [int(x) for x in rng.permutation(grid.size)] for c in grid.others}
        for v in schema.variables:
            e, ci = v.coord
            sol[v.name] = perms[grid.categories[ci].name][e]
        return sol

    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        """``k`` random relational clues (no ``is`` clue): the repairs add the pinning ones."""
        clues = [c for c in self.clues_from_solution(schema, solution) if c.kind != "is"]
        return pick_in_order(clues, k, rng)

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        """At a discriminative ``(entity, category)``: reveal the ``is`` clue that pins it, or a
        true relational clue about the value the solution puts there (same-entity, a position
        relation, either-or), the ``is`` clue first.

        With ``found`` (the solutions the filter found): the candidates are ranked by how many
        of the found alternatives (found solutions other than ``solution``) each one rules out,
        and only the best are offered (ties in the order above; the strategy's rng picks one).
        Without, the first four candidates.
        """
        coord = tuple(coord)
        if not schema.has_coord(coord):
            return []
        values = tuple(int(solution[v.name]) for v in schema.variables)
        present = {c.id for c in instance.clues}
        moves = [
            Repair(action, coord, add=(clue,))
            for clue, action in _candidates(schema.params, values).get(coord, ())
            if clue.id not in present
        ]
        names = schema.names
        alternatives = [
            s for s in found if any(int(s[n]) != int(solution[n]) for n in names if n in s)
        ]
        if not alternatives or not moves:
            return moves[:4]
        grid = grid_of(schema)
        scores = [sum(not holds(grid, m.add[0], s) for s in alternatives) for m in moves]
        best = max(scores)
        if best == 0:
            return moves[:4]
        return [
            dataclasses.replace(m, rules_out=score)
            for m, score in zip(moves, scores, strict=True)
            if score == best
        ]

    # -- text ----------------------------------------------------------------------------------
    def format_text(self, instance: Instance) -> str:
        """The instance's JSON on one line (the sentences are in :meth:`render_ascii`)."""
        return instance.to_json()

    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        body = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if len(body) != 1:
            raise _bad("text", "expected one line of instance JSON (sentences as # comments)")
        inst = Instance.from_json(body[0])
        if inst.family != self.info.name:
            raise _bad("family", f"not a logicgrid instance: {inst.family!r}")
        return inst

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        schema = self.schema(instance.params_dict())
        grid = grid_of(schema)
        lines = [f"{i + 1}. {clue_text(schema, c)}" for i, c in enumerate(instance.clues)]
        if solution is not None:
            width = max(len(v) for c in grid.categories for v in (c.name, *c.values)) + 2
            lines.append("")
            lines.append("".join(c.name.ljust(width) for c in (grid.anchor_cat, *grid.others)))
            for e in range(grid.size):
                row = [grid.anchor_cat.values[e]]
                row += [c.values[int(solution[grid.var(e, c.name)])] for c in grid.others]
                lines.append("".join(x.ljust(width) for x in row).rstrip())
        return "\n".join(lines)

    def prompt_puzzle(self, instance: Instance) -> str:
        grid = grid_of(self.schema(instance.params_dict()))
        cats = [
            f"- {c.name}: {', '.join(c.values)}{' (in this order)' if c.ordered else ''}"
            for c in grid.categories
        ]
        head = f"The entities are the {grid.anchor_cat.name} values. Categories:"
        return "\n".join([head, *cats, "", "Statements:", self.render_ascii(instance)])

    def answer_values(self, schema: Schema) -> dict[str, dict[int, Any]]:
        grid = grid_of(schema)
        return {
            grid.var(e, c.name): dict(enumerate(c.values))
            for e in range(grid.size)
            for c in grid.others
        }


LOGICGRID = register_family(LogicGrid())


# --- Einstein's five-house puzzle ---------------------------------------------------------------

_EINSTEIN_CLUES: tuple[tuple[str, list[str], list[str]], ...] = (
    ("same-entity", ["nationality", "Brit"], ["color", "red"]),
    ("same-entity", ["nationality", "Swede"], ["pet", "dogs"]),
    ("same-entity", ["nationality", "Dane"], ["drink", "tea"]),
    ("immediately-left", ["color", "green"], ["color", "white"]),
    ("same-entity", ["color", "green"], ["drink", "coffee"]),
    ("same-entity", ["smoke", "Pall Mall"], ["pet", "birds"]),
    ("same-entity", ["color", "yellow"], ["smoke", "Dunhill"]),
    ("same-entity", ["house", "3"], ["drink", "milk"]),
    ("same-entity", ["house", "1"], ["nationality", "Norwegian"]),
    ("next-to", ["smoke", "Blends"], ["pet", "cats"]),
    ("next-to", ["pet", "horses"], ["smoke", "Dunhill"]),
    ("same-entity", ["smoke", "Bluemaster"], ["drink", "beer"]),
    ("same-entity", ["nationality", "German"], ["smoke", "Prince"]),
    ("next-to", ["nationality", "Norwegian"], ["color", "blue"]),
    ("next-to", ["smoke", "Blends"], ["drink", "water"]),
)

#: the known unique solution, house by house (who owns the fish: the German in house 4)
EINSTEIN_SOLUTION_TABLE = (
    ("yellow", "Norwegian", "water", "Dunhill", "cats"),
    ("blue", "Dane", "tea", "Blends", "horses"),
    ("red", "Brit", "milk", "Pall Mall", "birds"),
    ("green", "German", "coffee", "Prince", "fish"),
    ("white", "Swede", "beer", "Bluemaster", "dogs"),
)


def einstein_instance() -> Instance:
    """Einstein's puzzle with its fifteen clues, in the ``logicgrid-einstein`` schema."""
    schema = LOGICGRID.schema({"preset": "einstein"})
    grid = grid_of(schema)
    clues = [_pair(grid, f"c{i + 1}", kind, a, b) for i, (kind, a, b) in enumerate(_EINSTEIN_CLUES)]
    return Instance.make("logicgrid", {"preset": "einstein"}, clues)


def einstein_solution() -> dict[str, int]:
    """The known solution of :func:`einstein_instance` as variable values."""
    schema = LOGICGRID.schema({"preset": "einstein"})
    grid = grid_of(schema)
    out = {}
    for e, row in enumerate(EINSTEIN_SOLUTION_TABLE):
        for cat, value in zip(grid.others, row, strict=True):
            out[grid.var(e, cat.name)] = cat.values.index(value)
    return {v.name: out[v.name] for v in schema.variables}


__all__ = [
    "CLUE_KINDS",
    "LOGICGRID",
    "LogicGrid",
    "clue_text",
    "einstein_instance",
    "einstein_solution",
    "grid_of",
    "holds",
    "ruled_out",
    "solution_json",
]
