"""Seeded instances for the contract checks: samples of a schema and malformed inputs.

:func:`sample_instances` gives, for each of ``n`` random solutions, the full reveal, random
subsets of its clues and a perturbed (mostly UNSOLVABLE) variant; :func:`malformed_instances`
gives instances that are wrong on purpose, each with the verdicts it may get. One seed gives one
list in any process, so a failure is reproducible from the seed in the message. The golden-corpus
builder uses the same helpers to make its invalid cases.

Not for: generating puzzles (the generators do that) or checking anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Clue, Instance, Schema
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family

#: fractions of a solution's clues kept in the sampled partial instances
KEEP_FRACTIONS = (0.8, 0.55, 0.3)


@dataclass(frozen=True)
class Sample:
    """A seeded instance: how it was made (``label``) and the solution its clues came from."""

    label: str
    instance: Instance
    solution: Mapping[str, int] | None


def as_family(family: protocols.Family | str) -> protocols.Family:
    """A family object from a family or a registered family name."""
    return get_family(family) if isinstance(family, str) else family


def default_params(family: protocols.Family) -> dict[str, Any]:
    """The params a check uses when none are given: the family's first listed params, else {}
    (also for an object without a ``FamilyInfo``, which the protocol step names)."""
    listed = getattr(getattr(family, "info", None), "listed_params", ())
    return dict(listed[0]) if listed else {}


def seeded_rng(seed: int, *stream: int) -> np.random.Generator:
    """The numpy Generator of stream ``stream`` of ``seed`` (independent streams, one seed)."""
    return np.random.default_rng([seed, *stream])


def subset(clues: Sequence[Clue], keep: float, rng: np.random.Generator) -> list[Clue]:
    """A random ``keep`` fraction of ``clues`` (at least one), kept in their order."""
    k = max(1, round(keep * len(clues)))
    chosen = sorted(int(i) for i in rng.permutation(len(clues))[:k])
    return [clues[i] for i in chosen]


def sample_instances(
    family: protocols.Family | str,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    n: int = 2,
) -> list[Sample]:
    """Seeded instances of a schema: for each of ``n`` random solutions, every clue revealed
    (``full``), random subsets of the clues (``keep80``, ``keep55``, ``keep30``), and every clue
    with one replaced by the clue of the same id from another solution (``perturbed``; mostly
    UNSOLVABLE, and with a small conflict, so that the reference shrinks it quickly).

    One seed gives one list, in any process.
    """
    from puzzlekit.core.solutions import random_solution

    fam = as_family(family)
    schema = fam.schema(dict(params if params is not None else default_params(fam)))
    pdict = schema.params_dict()
    out: list[Sample] = []
    for i in range(n):
        rng = seeded_rng(seed, i)
        sol = random_solution(schema, rng)
        clues = list(fam.clues_from_solution(schema, sol))
        out.append(Sample(f"seed{seed}.{i}.full", Instance.make(fam.info.name, pdict, clues), sol))
        subsets = []
        for keep in KEEP_FRACTIONS:
            sub = subset(clues, keep, rng)
            subsets.append(sub)
            label = f"seed{seed}.{i}.keep{round(keep * 100)}"
            out.append(Sample(label, Instance.make(fam.info.name, pdict, sub), sol))
        other = fam.clues_from_solution(schema, random_solution(schema, rng))
        base = clues
        ids = {c.id for c in base}
        swapped = perturb(base, other, ids, rng)
        if swapped is not None:
            label = f"seed{seed}.{i}.perturbed"
            out.append(Sample(label, Instance.make(fam.info.name, pdict, swapped), None))
    return out


def perturb(
    base: Sequence[Clue], other: Sequence[Clue], ids: set[str], rng: np.random.Generator
) -> list[Clue] | None:
    """``base`` with one clue replaced by the clue of the same id (and another content) from
    ``other``; None when no clue differs."""
    mine = {c.id: c for c in base}
    candidates = [c for c in other if c.id in ids and c != mine[c.id]]
    if not candidates:
        return None
    pick = candidates[int(rng.integers(len(candidates)))]
    return [pick if c.id == pick.id else c for c in base]


# --- malformed inputs -------------------------------------------------------------------------


def outside_coord(schema: Schema, like: Sequence[Any]) -> tuple[Any, ...] | None:
    """A coordinate shaped like ``like`` that is not a coordinate of the schema."""
    if not like or not all(isinstance(x, int) for x in like):
        return None
    top = max(
        (v.coord[0] for v in schema.variables if v.coord and isinstance(v.coord[0], int)), default=0
    )
    for bump in (1, 2, 1000):
        coord = (top + bump, *like[1:])
        if not schema.has_coord(coord):
            return coord
    return None


def replace_ints(value: Any, new: Callable[[int], Any]) -> Any:
    """``value`` with every integer (booleans aside) replaced by ``new(integer)``, at any
    depth; mappings and sequences are rebuilt as dicts and lists."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return new(value)
    if isinstance(value, Mapping):
        return {k: replace_ints(v, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [replace_ints(v, new) for v in value]
    return value


def has_int(value: Any) -> bool:
    """Whether ``value`` holds an integer (booleans aside), at any depth."""
    return replace_ints(value, lambda v: "X") != value


def malformed_instances(
    family: protocols.Family | str, params: Mapping[str, Any] | None = None, *, seed: int = 0
) -> list[tuple[str, Instance, frozenset[str]]]:
    """Instances that are wrong on purpose, each with the verdicts it may get.

    A clue outside the grid, a clue whose integers are out of every domain (INVALID_SPEC for a
    clue whose data has a ``value``; UNSOLVABLE is also accepted for other clue kinds, whose
    integers may be sums), the same clue with strings for integers, an unknown clue kind, a clue id
    used twice, and an unknown param.
    """
    from puzzlekit.core.solutions import random_solution

    fam = as_family(family)
    schema = fam.schema(dict(params if params is not None else default_params(fam)))
    pdict = schema.params_dict()
    rng = seeded_rng(seed, 1000)
    sol = random_solution(schema, rng)
    clues = list(fam.clues_from_solution(schema, sol))
    base = subset(clues, 0.5, rng) if len(clues) > 2 else clues
    first = base[0]
    invalid = frozenset({Verdict.INVALID_SPEC.value})
    out: list[tuple[str, Instance, frozenset[str]]] = []

    def with_first(clue: Clue) -> Instance:
        return Instance.make(fam.info.name, pdict, [clue, *base[1:]])

    if first.coords:
        outside = outside_coord(schema, first.coords[0])
        if outside is not None:
            coords = [outside, *first.coords[1:]]
            moved = Clue.make(first.id, first.kind, first.data_dict(), coords)
            out.append(("clue outside the grid", with_first(moved), invalid))
    data = first.data_dict()
    if has_int(data):
        top = max(max(v.domain) for v in schema.variables)
        huge = replace_ints(data, lambda v: top + 1000)
        accepted = invalid if "value" in data else invalid | {Verdict.UNSOLVABLE.value}
        bad = Clue.make(first.id, first.kind, huge, first.coords)
        out.append(("value out of domain", with_first(bad), accepted))
        texty = replace_ints(data, lambda v: f"v{v}")
        bad = Clue.make(first.id, first.kind, texty, first.coords)
        out.append(("string where an integer belongs", with_first(bad), invalid))
    unknown = Clue.make(first.id, "no-such-clue-kind", data, first.coords)
    out.append(("unknown clue kind", with_first(unknown), invalid))
    if len(base) > 1:
        twin = Clue(first.id, base[1].kind, base[1].data, base[1].coords)
        out.append(
            ("clue id used twice", Instance.make(fam.info.name, pdict, [first, twin]), invalid)
        )
    out.append(
        (
            "unknown param",
            Instance.make(fam.info.name, {**pdict, "no_such_param": 1}, base[:2]),
            invalid,
        )
    )
    return out


GARBAGE_TEXTS = ("", "\x00 not a puzzle \u2603 {", "?" * 7)
