"""The ``logicgrid`` family's clue kinds: the grid of categories a schema describes (computed once
per params), what each clue kind means as ``Table`` constraints over at most three variables,
and whether a clue holds in a solution (a fast check used to rank repairs).

Private to :mod:`puzzlekit.families.logicgrid.family`, which documents the clue kinds and re-exports
:func:`grid_of`, :func:`holds`, :func:`ruled_out` and :data:`CLUE_KINDS`. Not for rendering
clues (:mod:`puzzlekit.families.logicgrid.text`) or choosing them
(:mod:`puzzlekit.families.logicgrid.generate`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from puzzlekit.core.jsondata import thaw
from puzzlekit.core.model import (
    Clue,
    Constraint,
    Origin,
    Schema,
    Solution,
    SpecError,
    Table,
    Violation,
    freeze,
)

RELATIONS: dict[str, Callable[[int, int], bool]] = {
    "left-of": lambda e1, e2: e1 < e2,
    "right-of": lambda e1, e2: e1 > e2,
    "next-to": lambda e1, e2: abs(e1 - e2) == 1,
    "immediately-left": lambda e1, e2: e2 == e1 + 1,
}
ATOM_PAIR_KINDS = ("same-entity", *RELATIONS)
CLUE_KINDS = ("is", "is-not", *ATOM_PAIR_KINDS, "either-or", "if-then")

#: value pools of the generic schemas (``{"size": n, "categories": k}``)
_POOLS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("color", ("red", "green", "blue", "yellow", "white", "black", "orange", "purple")),
    ("pet", ("dog", "cat", "bird", "fish", "horse", "rabbit", "snake", "turtle")),
    ("drink", ("tea", "coffee", "milk", "water", "juice", "beer", "cocoa", "soda")),
    ("name", ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi")),
    ("sport", ("chess", "golf", "tennis", "rugby", "judo", "polo", "darts", "squash")),
)

EINSTEIN_CATEGORIES: tuple[dict[str, Any], ...] = (
    {
        "name": "house",
        "values": ["1", "2", "3", "4", "5"],
        "ordered": True,
        "noun": "the person in house {}",
        "phrase": "lives in house {}",
    },
    {
        "name": "color",
        "values": ["red", "green", "white", "yellow", "blue"],
        "noun": "the owner of the {} house",
        "phrase": "lives in the {} house",
    },
    {
        "name": "nationality",
        "values": ["Brit", "Swede", "Dane", "Norwegian", "German"],
        "noun": "the {}",
        "phrase": "is the {}",
    },
    {
        "name": "drink",
        "values": ["tea", "coffee", "milk", "beer", "water"],
        "noun": "the {} drinker",
        "phrase": "drinks {}",
    },
    {
        "name": "smoke",
        "values": ["Pall Mall", "Dunhill", "Blends", "Bluemaster", "Prince"],
        "noun": "the {} smoker",
        "phrase": "smokes {}",
    },
    {
        "name": "pet",
        "values": ["dogs", "birds", "cats", "horses", "fish"],
        "noun": "the owner of the {}",
        "phrase": "keeps {}",
    },
)


def _bad(field: str, detail: str, kind: str = "malformed", coord: Any = None) -> SpecError:
    return SpecError([Violation(kind, coord, field, detail)])


# --- structure of a schema (computed once per params) -----------------------------------------


@dataclass(frozen=True)
class Category:
    name: str
    values: tuple[str, ...]
    ordered: bool
    noun: str
    phrase: str


@dataclass(frozen=True)
class Grid:
    """The categories of a schema, which one is the anchor, and the variable of each coordinate."""

    categories: tuple[Category, ...]
    anchor: int

    @property
    def size(self) -> int:
        return len(self.categories[0].values)

    @property
    def anchor_cat(self) -> Category:
        return self.categories[self.anchor]

    @property
    def others(self) -> tuple[Category, ...]:
        return tuple(c for i, c in enumerate(self.categories) if i != self.anchor)

    @property
    def ordered(self) -> bool:
        return self.anchor_cat.ordered

    def category(self, name: Any, where: str) -> Category:
        for c in self.categories:
            if c.name == name:
                return c
        raise _bad(where, f"no category {name!r}; categories: {[c.name for c in self.categories]}")

    def index(self, name: str) -> int:
        """The position of category ``name`` (the second half of a coordinate)."""
        return next(i for i, c in enumerate(self.categories) if c.name == name)

    def var(self, entity: int, category: str) -> str:
        return f"{category}@{self.anchor_cat.values[entity]}"

    def value_index(self, cat: Category, value: Any, where: str) -> int:
        if not isinstance(value, str) or value not in cat.values:
            raise _bad(
                where,
                f"{value!r} is not a value of category {cat.name!r} ({list(cat.values)})",
                "out-of-domain",
            )
        return cat.values.index(value)


def _category(raw: Any, i: int) -> Category:
    where = f"params.categories[{i}]"
    if not isinstance(raw, Mapping):
        raise _bad(where, "a category is an object with name and values")
    unknown = sorted(set(raw) - {"name", "values", "ordered", "noun", "phrase"})
    if unknown:
        raise _bad(f"{where}.{unknown[0]}", "not a field of a category", "unknown-field")
    name, values = raw.get("name"), raw.get("values")
    if not isinstance(name, str) or not name:
        raise _bad(f"{where}.name", "a category needs a non-empty name")
    if not isinstance(values, list | tuple) or not all(isinstance(v, str) for v in values):
        raise _bad(f"{where}.values", "values must be a list of strings")
    if len(set(values)) != len(values) or not values:
        raise _bad(f"{where}.values", "values must be distinct and non-empty")
    ordered = raw.get("ordered", False)
    if not isinstance(ordered, bool):
        raise _bad(f"{where}.ordered", "ordered must be true or false")
    noun = raw.get("noun", "the one in " + name + " {}" if ordered else "the " + name + " {} one")
    phrase = raw.get("phrase", "is in " + name + " {}" if ordered else "has " + name + " {}")
    for key, text in (("noun", noun), ("phrase", phrase)):
        if not isinstance(text, str) or text.count("{}") != 1:
            raise _bad(f"{where}.{key}", "a template must be a string with one {}")
    return Category(name, tuple(values), ordered, noun, phrase)


@functools.lru_cache(maxsize=64)
def _grid(frozen_categories: Any) -> Grid:
    cats = tuple(_category(c, i) for i, c in enumerate(thaw(frozen_categories)))
    anchor = next((i for i, c in enumerate(cats) if c.ordered), 0)
    return Grid(cats, anchor)


def _generic_categories(size: int, count: int) -> list[dict[str, Any]]:
    cats: list[dict[str, Any]] = [
        {
            "name": "house",
            "values": [str(i + 1) for i in range(size)],
            "ordered": True,
            "noun": "the person in house {}",
            "phrase": "lives in house {}",
        }
    ]
    for name, pool in _POOLS[: count - 1]:
        cats.append({"name": name, "values": list(pool[:size])})
    return cats


def grid_of(schema: Schema) -> Grid:
    """The categories and anchor of a logicgrid schema."""
    return _grid(freeze(_categories_of(schema.params_dict())))


def _categories_of(params: Mapping[str, Any]) -> list[Any]:
    if params.get("preset") == "einstein":
        return [dict(c) for c in EINSTEIN_CATEGORIES]
    if "categories" in params and not isinstance(params["categories"], int):
        return list(params["categories"])
    return _generic_categories(int(params["size"]), int(params["categories"]))


# --- constraints from formulas over atoms -----------------------------------------------------

#: an atom located at an entity: a constant truth (anchor atoms) or (variable, value index)
Located = bool | tuple[str, int]


def _atom(grid: Grid, raw: Any, where: str) -> tuple[Category, int]:
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        raise _bad(where, "an atom is [category, value]")
    cat = grid.category(raw[0], f"{where}[0]")
    return cat, grid.value_index(cat, raw[1], f"{where}[1]")


def _at(grid: Grid, atom: tuple[Category, int], entity: int) -> Located:
    cat, value = atom
    if cat is grid.anchor_cat:
        return entity == value
    return (grid.var(entity, cat.name), value)


def _formula(
    grid: Grid, located: Sequence[Located], fn: Callable[..., bool], origin: Origin
) -> list[Constraint]:
    """A Table over the distinct variables of ``located`` allowing the rows where ``fn`` holds
    (``fn`` gets one truth per located atom); nothing when every row holds."""
    names = sorted({x[0] for x in located if isinstance(x, tuple)})
    rows = []
    for values in itertools.product(range(grid.size), repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        truths = [x if isinstance(x, bool) else env[x[0]] == x[1] for x in located]
        if fn(*truths):
            rows.append(values)
    if len(rows) == grid.size ** len(names):
        return []
    if not names:  # a false statement about anchors alone: no row of any variable
        names = [grid.var(0, grid.others[0].name)]
    return [Table(tuple(names), frozenset(rows), origin)]


def _fact(grid: Grid, raw: Any, where: str) -> tuple[int, Category, int]:
    if not isinstance(raw, Mapping):
        raise _bad(where, "a fact is an object with entity, category and value")
    unknown = sorted(set(raw) - {"entity", "category", "value"})
    if unknown:
        raise _bad(f"{where}.{unknown[0]}", "not a field of a fact", "unknown-field")
    entity = raw.get("entity")
    if not isinstance(entity, int) or isinstance(entity, bool):
        raise _bad(f"{where}.entity", "entity must be an integer")
    if not 0 <= entity < grid.size:
        raise _bad(
            f"{where}.entity", f"entity {entity} outside 0..{grid.size - 1}", "out-of-domain"
        )
    cat = grid.category(raw.get("category"), f"{where}.category")
    if cat is grid.anchor_cat:
        raise _bad(f"{where}.category", f"{cat.name} identifies the entities; name another")
    return entity, cat, grid.value_index(cat, raw.get("value"), f"{where}.value")


_FIELDS = {
    "is": {"entity", "category", "value"},
    "is-not": {"entity", "category", "value"},
    "either-or": {"subject", "either", "or"},
    "if-then": {"if", "then"},
    **{k: {"a", "b"} for k in ATOM_PAIR_KINDS},
}


def _constraints(grid: Grid, clue: Clue) -> tuple[list[Constraint], list[tuple[int, str]]]:
    """The constraints of ``clue`` and the coordinates it touches."""
    where = f"clue {clue.id}"
    kind = clue.kind
    if kind not in _FIELDS:
        raise _bad(where, f"unknown clue kind {kind!r}; kinds: {', '.join(CLUE_KINDS)}")
    data = clue.data_dict()
    extra = sorted(set(data) ^ _FIELDS[kind])
    if extra:
        raise _bad(f"{where}.{extra[0]}", f"a {kind} clue has fields {sorted(_FIELDS[kind])}")
    origin = Origin("clue", clue.id, ())
    out: list[Constraint] = []
    if kind in ("is", "is-not"):
        e, cat, v = _fact(grid, data, where)
        name = grid.var(e, cat.name)
        rows = [x for x in range(grid.size) if (x == v) == (kind == "is")]
        coords = [(e, grid.index(cat.name))]
        origin = Origin("clue", clue.id, tuple(coords))
        return [Table((name,), frozenset((x,) for x in rows), origin)], coords
    if kind == "if-then":
        f1 = _fact(grid, data["if"], f"{where}.if")
        f2 = _fact(grid, data["then"], f"{where}.then")
        coords = sorted({(f1[0], grid.index(f1[1].name)), (f2[0], grid.index(f2[1].name))})
        origin = Origin("clue", clue.id, tuple(coords))
        located = [(grid.var(f[0], f[1].name), f[2]) for f in (f1, f2)]
        return _formula(grid, located, lambda p, q: (not p) or q, origin), coords
    if kind == "either-or":
        atoms = [_atom(grid, data[k], f"{where}.{k}") for k in ("subject", "either", "or")]
    else:
        atoms = [_atom(grid, data["a"], f"{where}.a"), _atom(grid, data["b"], f"{where}.b")]
        if kind in RELATIONS and not grid.ordered:
            raise _bad(where, f"a {kind} clue needs an ordered category")
    cats = sorted({grid.index(a[0].name) for a in atoms if a[0] is not grid.anchor_cat})
    coords = [(e, c) for c in cats for e in range(grid.size)]
    origin = Origin("clue", clue.id, tuple(coords))
    n = grid.size
    if kind == "either-or":
        for e in range(n):
            located = [_at(grid, a, e) for a in atoms]
            out += _formula(grid, located, lambda s, o1, o2: (not s) or o1 or o2, origin)
    elif kind == "same-entity":
        for e in range(n):
            located = [_at(grid, a, e) for a in atoms]
            out += _formula(grid, located, lambda p, q: p == q, origin)
    else:
        rel = RELATIONS[kind]
        # each atom holds at exactly one entity, so forbidding every pair of entities outside
        # the relation says that the pair they do hold satisfies it
        for e1, e2 in itertools.product(range(n), repeat=2):
            if not rel(e1, e2):
                located = [_at(grid, atoms[0], e1), _at(grid, atoms[1], e2)]
                out += _formula(grid, located, lambda p, q: not (p and q), origin)
    return out, coords


def ruled_out(schema: Schema, clue: Clue, solutions: Sequence[Solution]) -> int:
    """How many of ``solutions`` (full assignments) ``clue`` (a well-formed clue) rules out."""
    grid = grid_of(schema)
    return sum(1 for s in solutions if not holds(grid, clue, s))


def holds(grid: Grid, clue: Clue, solution: Solution) -> bool:
    """Whether a well-formed ``clue`` is true of ``solution``: what its constraints say, read
    straight off the entities that hold its atoms (a fast check for ranking repairs)."""
    kind, parts = _parsed(grid, clue)
    n = grid.size

    def where(part: tuple[Any, int]) -> int:
        names, v = part
        if names is None:  # an anchor atom: its value is its entity
            return v
        return next(e for e in range(n) if solution[names[e]] == v)

    if kind in ("is", "is-not", "if-then"):
        truths = [solution[name] == v for name, v in parts]  # type: ignore[index]
        if kind == "if-then":
            return not truths[0] or truths[1]
        return truths[0] == (kind == "is")
    entities = [where(p) for p in parts]
    if kind == "either-or":
        return entities[0] in entities[1:]
    if kind == "same-entity":
        return entities[0] == entities[1]
    return RELATIONS[kind](entities[0], entities[1])


@functools.lru_cache(maxsize=16384)
def _parsed(grid: Grid, clue: Clue) -> tuple[str, tuple[tuple[Any, int], ...]]:
    """A clue as its kind and its parts: facts as (variable, value index); atoms as (the
    category's variable of each entity, value index), None for the variables of anchor atoms."""
    d = clue.data_dict()
    anchor = grid.anchor_cat.values

    def fact(f: Mapping[str, Any]) -> tuple[Any, int]:
        cat = grid.category(f["category"], "fact")
        return grid.var(f["entity"], cat.name), cat.values.index(f["value"])

    def atom(raw: Sequence[str]) -> tuple[Any, int]:
        cat = grid.category(raw[0], "atom")
        v = cat.values.index(raw[1])
        if cat is grid.anchor_cat:
            return None, v
        return tuple(grid.var(e, cat.name) for e in range(len(anchor))), v

    if clue.kind in ("is", "is-not"):
        return clue.kind, (fact(d),)
    if clue.kind == "if-then":
        return clue.kind, (fact(d["if"]), fact(d["then"]))
    keys = ("subject", "either", "or") if clue.kind == "either-or" else ("a", "b")
    return clue.kind, tuple(atom(d[k]) for k in keys)
