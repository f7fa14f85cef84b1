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
clue as an English sentence; the text format is the instance's JSON on one line followed by the
sentences as ``#`` comments (the JSON form is what is parsed back).

Not for: puzzles whose categories have different sizes, or clues about counts ("two people ...").
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from puzzlekit.core.model import (
    AllDifferent,
    Clue,
    Constraint,
    Instance,
    Origin,
    Schema,
    Solution,
    SpecError,
    Table,
    Variable,
    Violation,
    freeze,
)
from puzzlekit.families import Family, Repair, pick_in_order, register_family

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
    from puzzlekit.core.jsondata import thaw

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


# --- English ----------------------------------------------------------------------------------


def _noun(cat: Category, value: str) -> str:
    return cat.noun.format(value)


def _phrase(cat: Category, value: str) -> str:
    return cat.phrase.format(value)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def clue_text(schema: Schema, clue: Clue) -> str:
    """``clue`` as an English sentence (the clue must resolve in ``schema``)."""
    grid = grid_of(schema)
    d = clue.data_dict()
    anchor = grid.anchor_cat

    def fact(f: Mapping[str, Any]) -> str:
        cat = grid.category(f["category"], "fact")
        return f"{_noun(anchor, anchor.values[f['entity']])} {_phrase(cat, f['value'])}"

    def noun(atom: Sequence[str]) -> str:
        return _noun(grid.category(atom[0], "atom"), atom[1])

    def phrase(atom: Sequence[str]) -> str:
        return _phrase(grid.category(atom[0], "atom"), atom[1])

    kind = clue.kind
    if kind == "is":
        return _cap(fact(d)) + "."
    if kind == "is-not":
        return f"It is not true that {fact(d)}."
    if kind == "if-then":
        return f"If {fact(d['if'])}, then {fact(d['then'])}."
    if kind == "either-or":
        o1, o2 = d["either"], d["or"]
        return _cap(f"{noun(d['subject'])} either {phrase(o1)} or {phrase(o2)}.")
    if kind == "same-entity":
        return _cap(f"{noun(d['a'])} {phrase(d['b'])}.")
    where = {
        "left-of": "somewhere to the left of",
        "right-of": "somewhere to the right of",
        "next-to": "next to",
        "immediately-left": "directly to the left of",
    }[kind]
    return _cap(f"{noun(d['a'])} lives {where} {noun(d['b'])}.")


# --- the family -------------------------------------------------------------------------------


def _is(grid: Grid, cid: str, kind: str, e: int, cat: Category, v: int) -> Clue:
    data = {"entity": e, "category": cat.name, "value": cat.values[v]}
    return Clue.make(cid, kind, data, [(e, grid.index(cat.name))])


def _coords_of(grid: Grid, atoms: Sequence[Sequence[str]]) -> list[tuple[int, int]]:
    cats = sorted({grid.index(a[0]) for a in atoms if a[0] != grid.anchor_cat.name})
    return [(e, c) for c in cats for e in range(grid.size)]


def _pair(grid: Grid, cid: str, kind: str, a: list[str], b: list[str]) -> Clue:
    return Clue.make(cid, kind, {"a": a, "b": b}, _coords_of(grid, [a, b]))


@functools.lru_cache(maxsize=4096)
def _true_clues(params: Any, values: tuple[int, ...]) -> tuple[Clue, ...]:
    """The true clues of the solution whose variable values (in schema order) are ``values``."""
    from puzzlekit.core.jsondata import thaw

    grid = _grid(freeze(_categories_of({k: thaw(v) for k, v in params})))
    n, others = grid.size, grid.others
    names = [grid.var(e, c.name) for e in range(n) for c in others]
    solution = dict(zip(names, values, strict=True))

    def val(e: int, c: Category) -> int:
        return int(solution[grid.var(e, c.name)])

    def atom(e: int, c: Category) -> list[str]:
        return [c.name, c.values[val(e, c)]]

    out: list[Clue] = []
    for i, c in enumerate(others):
        nxt = others[(i + 1) % len(others)]
        for e in range(n):
            out.append(_is(grid, f"is:e{e}:{c.name}", "is", e, c, val(e, c)))
            out.append(_is(grid, f"isnot:e{e}:{c.name}", "is-not", e, c, val((e + 1) % n, c)))
            if nxt is not c:
                out.append(
                    _pair(grid, f"same:e{e}:{c.name}", "same-entity", atom(e, c), atom(e, nxt))
                )
            if e + 1 < n:
                a, b = atom(e, c), atom(e + 1, nxt)
                out.append(_pair(grid, f"imm:e{e}:{c.name}", "immediately-left", a, b))
                out.append(_pair(grid, f"next:e{e}:{c.name}", "next-to", b, a))
            if e + 2 < n:
                a, b = atom(e, c), atom(e + 2, nxt)
                out.append(_pair(grid, f"left:e{e}:{c.name}", "left-of", a, b))
                out.append(_pair(grid, f"right:e{e}:{c.name}", "right-of", b, a))
            opts = [atom(e, nxt), atom((e + 1) % n, nxt)]
            if e % 2:
                opts.reverse()
            subject = atom(e, c)
            out.append(
                Clue.make(
                    f"either:e{e}:{c.name}",
                    "either-or",
                    {"subject": subject, "either": opts[0], "or": opts[1]},
                    _coords_of(grid, [subject, *opts]),
                )
            )
            f1 = {"entity": e, "category": c.name, "value": c.values[val(e, c)]}
            e2 = (e + 1) % n
            f2 = {"entity": e2, "category": nxt.name, "value": nxt.values[val(e2, nxt)]}
            coords = sorted({(e, grid.index(c.name)), (e2, grid.index(nxt.name))})
            out.append(Clue.make(f"if:e{e}:{c.name}", "if-then", {"if": f1, "then": f2}, coords))
    if not grid.ordered:
        out = [c for c in out if c.kind not in RELATIONS]
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _candidates(
    params: Any, values: tuple[int, ...]
) -> dict[tuple[int, int], tuple[tuple[Clue, str], ...]]:
    """The repair candidates of a solution by coordinate, as (clue, action): the ``is`` clue of
    the coordinate (``reveal``), then the relational clues about the value the solution puts
    there (``relate``: an atom of a same-entity or position clue, the subject of an either-or),
    in :func:`_true_clues` order."""
    from puzzlekit.core.jsondata import thaw

    grid = _grid(freeze(_categories_of({k: thaw(v) for k, v in params})))
    at: dict[tuple[str, str], tuple[int, int]] = {}
    i = 0
    for e in range(grid.size):
        for c in grid.others:
            at[(c.name, c.values[values[i]])] = (e, grid.index(c.name))
            i += 1
    out: dict[tuple[int, int], list[tuple[Clue, str]]] = {}
    for clue in _true_clues(params, values):
        d = clue.data_dict()
        if clue.kind == "is":
            coord = (d["entity"], grid.index(d["category"]))
            out.setdefault(coord, []).insert(0, (clue, "reveal"))
            continue
        if clue.kind in ATOM_PAIR_KINDS:
            atoms = [d["a"], d["b"]]
        elif clue.kind == "either-or":
            atoms = [d["subject"]]
        else:
            continue
        for coord in dict.fromkeys(at[tuple(a)] for a in atoms if tuple(a) in at):
            out.setdefault(coord, []).append((clue, "relate"))
    return {k: tuple(v) for k, v in out.items()}


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


class LogicGrid(Family):
    """Logic-grid puzzles: categories, one bijection per category, statement clues."""

    name = "logicgrid"
    description = "zebra / whodunit puzzles: categories matched by statement clues"
    clue_kinds = CLUE_KINDS
    listed_params = ({"size": 4, "categories": 3}, {"preset": "einstein"})
    default_verifier = "sat"

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
        return Schema(self.name, freeze(dict(params)), variables, rules, CLUE_KINDS)

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
        schema = self.schema(instance.params_dict())
        lines = [instance.to_json()]
        lines += [f"# {clue_text(schema, c)}" for c in instance.clues]
        return "\n".join(lines) + "\n"

    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        body = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if len(body) != 1:
            raise _bad("text", "expected one line of instance JSON (sentences as # comments)")
        inst = Instance.from_json(body[0])
        if inst.family != self.name:
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


def solution_json(schema: Schema, solution: Solution) -> list[dict[str, str]]:
    """A solution as one object per entity mapping category names to value names."""
    grid = grid_of(schema)
    return [
        {
            grid.anchor_cat.name: grid.anchor_cat.values[e],
            **{c.name: c.values[int(solution[grid.var(e, c.name)])] for c in grid.others},
        }
        for e in range(grid.size)
    ]


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
