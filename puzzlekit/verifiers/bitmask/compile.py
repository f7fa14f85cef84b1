"""The bitmask verifier's compiler: schemas and clues into the flat arrays of the compiled search.

A schema is compiled once (:class:`CompiledSchema`, cached per family and params for the life of
the process): variable ``i`` is the schema's ``i``-th variable, bit ``b`` of a mask the ``b``-th
smallest value of any domain. Its rules become all-different units, tables of allowed tuples
(``Compare`` and ``Table``) and linear bounds (``Linear``); a clue's constraints (compiled once
per distinct clue content, :meth:`CompiledSchema.clue_effect`) either restrict one variable's
domain (a mask: givens) or add constraints of those kinds (cages, inequalities). The arrays for a
set of clue constraints are built once per set (:meth:`CompiledSchema.structure`): Sudoku
instances, whose clues only restrict domains, all share the schema's.

Raises :class:`NotCompilable` for what the compiled search cannot take: ``Count``, ``Regular`` and
``Predicate`` constraints, a linear ``!=``, non-integer values, more than
:data:`MAX_VALUES` distinct values.
Not for: searching (:mod:`~puzzlekit.verifiers.bitmask.kernel`) or reports.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlekit.core import deadline, protocols
from puzzlekit.core.model import (
    AllDifferent,
    Clue,
    Compare,
    Constraint,
    Instance,
    Linear,
    Schema,
    SpecError,
    Table,
    compare,
    freeze,
    typed_key,
)
from puzzlekit.families import get_family
from puzzlekit.families.grid import GivensGrid

#: the most distinct values a problem may have (bits of an int64 mask, sign bit spared)
MAX_VALUES = 62
#: the most value sets a sum over different variables may have to be kept as its value sets
MAX_COMBINATIONS = 20_000
#: the widest table (variables per tuple) the compiled search's scratch space holds
MAX_ARITY = 64


class NotCompilable(NotImplementedError):
    """The bitmask verifier cannot take this constraint; ``sat`` or ``enumerative`` can."""


@dataclass(frozen=True)
class ClueEffect:
    """What one clue does: domain restrictions (variable, mask) and the constraints it adds."""

    unary: tuple[tuple[int, int], ...]
    units: tuple[tuple[int, ...], ...] = ()
    tables: tuple[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], ...] = ()
    linears: tuple[tuple[tuple[int, ...], tuple[int, ...], int, int], ...] = ()
    #: whether the clue only restricts domains (no constraint of its own)
    only_unary: bool = True
    #: sums over variables that all differ, as the value sets that make the sum (masks)
    cages: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()


@dataclass
class Structure:
    """The kernel's constraint arrays (see :func:`puzzlekit.verifiers.bitmask.kernel.search`)."""

    st: tuple[np.ndarray, ...]
    tab_vars: np.ndarray
    tup_masks: np.ndarray
    lin_vars: np.ndarray
    lin_coef: np.ndarray
    lin_lohi: np.ndarray
    #: the same with only the all-different units (``narrow_domains``' rules)
    units_only: tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any]

    def search_args(self, values: np.ndarray, support: np.ndarray) -> tuple[Any, ...]:
        return (*self._main(), values, self.lin_lohi, support)

    def _main(self) -> tuple[Any, ...]:
        return (self.st, self.tab_vars, self.tup_masks, self.lin_vars, self.lin_coef)

    def units_args(self, values: np.ndarray, support: np.ndarray) -> tuple[Any, ...]:
        st, tv, tm, lv, lc, lohi = self.units_only
        return (st, tv, tm, lv, lc, values, lohi, support, -1)


def _i64(xs: Sequence[int]) -> np.ndarray:
    return np.asarray(xs, dtype=np.int64)


def _csr(groups: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    start = [0]
    flat: list[int] = []
    for g in groups:
        flat.extend(g)
        start.append(len(flat))
    return _i64(start), _i64(flat)


class CompiledSchema:
    """One schema's variables, values and rules as masks and arrays (see the module docstring)."""

    def __init__(self, family: protocols.Family, schema: Schema) -> None:
        self.family = family
        self.schema = schema
        self.names = schema.names
        self.index = {n: i for i, n in enumerate(self.names)}
        all_values: set[int] = set()
        for v in schema.variables:
            for x in v.domain:
                if not isinstance(x, int) or isinstance(x, bool):
                    raise NotCompilable(f"variable {v.name} has a non-integer value {x!r}")
                all_values.add(x)
        if len(all_values) > MAX_VALUES:
            raise NotCompilable(f"{len(all_values)} distinct values (at most {MAX_VALUES})")
        self.values = _i64(sorted(all_values))
        self.bit = {int(x): i for i, x in enumerate(self.values)}
        self.base_dom = _i64([self.mask(v.domain) for v in schema.variables])
        self.var_domain = [frozenset(v.domain) for v in schema.variables]
        self.full_log10 = sum(math.log10(len(v.domain)) for v in schema.variables if v.domain)
        rules = self._effect(list(schema.rules), "rule")
        if rules.unary:
            dom = self.base_dom.copy()
            for i, m in rules.unary:
                dom[i] &= m
            self.base_dom = dom
        self.rules = rules
        self.peer_pairs = {
            (a, b) for unit in rules.units for a in unit for b in unit if a != b
        }  # variables some rule keeps different (tables of clues are filtered by them)
        self._clue_cache: dict[tuple[Any, ...], ClueEffect] = {}
        #: the effect of the family's given by (variable, value) (:meth:`given_effect`)
        self.given_cache: dict[tuple[int, int], ClueEffect] = {}
        self._structures: dict[tuple[ClueEffect, ...], Structure] = {}
        self.base_structure = self._build([rules])
        self.cart_cache: dict[tuple[int, ...], tuple[int | float | None, float]] = {}

    def mask(self, values: Sequence[int]) -> int:
        bit = self.bit
        return sum(1 << bit[x] for x in set(values) if x in bit)

    # -- constraints --------------------------------------------------------------------------
    def clue_effect(self, clue: Clue) -> ClueEffect:
        """What ``clue`` does (compiled once per clue content). Raises SpecError like
        ``Family.clue_constraints``, NotCompilable for what the compiled search cannot take."""
        key = clue.content_key()
        eff = self._clue_cache.get(key)
        if eff is None:
            eff = self._effect(self.family.clue_constraints(self.schema, clue), f"clue {clue.id}")
            self._clue_cache[key] = eff
        return eff

    def given_effect(self, cell: int, value: int) -> ClueEffect:
        """What the family's given of ``value`` at variable ``cell`` does (a grid family:
        ``family.given``), compiled once per cell and value."""
        eff = self.given_cache.get((cell, value))
        if eff is None:
            clue = self.family.given(self.schema, self.schema.variables[cell].coord, value)
            eff = self.given_cache[(cell, value)] = self.clue_effect(clue)
        return eff

    def _effect(self, constraints: Sequence[Constraint], where: str) -> ClueEffect:
        unary: list[tuple[int, int]] = []
        units: list[tuple[int, ...]] = []
        tables: list[Any] = []
        linears: list[Any] = []
        for c in constraints:
            kind = type(c).__name__
            if kind not in ("AllDifferent", "Linear", "Compare", "Table"):
                raise NotCompilable(
                    f"{where}: a {kind} constraint; the bitmask verifier takes AllDifferent, "
                    "Linear, Compare and Table (use sat or enumerative)"
                )
            names = list(dict.fromkeys(c.vars))
            idx = [self.index[n] for n in names]
            if (
                len(c.vars) == 1
                and isinstance(c, Linear)
                and c.op == "=="
                and c.coeffs == (1,)
                and c.rhs in self.var_domain[idx[0]]
            ):  # a given: the common case, without evaluating the constraint per value
                unary.append((idx[0], 1 << self.bit[c.rhs]))
            elif len(names) == 1:
                dom = self.schema.var(names[0]).domain
                unary.append((idx[0], self.mask([x for x in dom if c.holds({names[0]: x})])))
            elif isinstance(c, AllDifferent):
                if len(names) < len(c.vars):  # a variable twice: never satisfiable
                    unary.append((idx[0], 0))
                units.append(tuple(idx))
            elif isinstance(c, Linear):
                linears.append(self._linear(c, where))
            elif isinstance(c, Compare):
                tables.append(self._table(c.vars, self._pairs(c), idx))
            elif isinstance(c, Table):
                tables.append(self._table(c.vars, c.allowed, idx))
        cages = []
        for lin in list(linears):
            combos = self._combinations(lin, units)
            if combos is not None:
                linears.remove(lin)
                cages.append((lin[0], combos))
        plain = not (units or tables or linears or cages)
        return ClueEffect(
            tuple(unary), tuple(units), tuple(tables), tuple(linears), plain, tuple(cages)
        )

    def _combinations(self, lin: Any, units: Sequence[Sequence[int]]) -> tuple[int, ...] | None:
        """A sum ``lin`` over variables that all differ as the value sets that make it (masks),
        or None when it is not such a sum or has too many candidate sets."""
        idx, coef, lo, hi = lin
        if lo != hi or any(a != 1 for a in coef):
            return None
        pairs = getattr(self, "peer_pairs", set()) | {
            (a, b) for u in units for a in u for b in u if a != b
        }
        if any((a, b) not in pairs for i, a in enumerate(idx) for b in idx[i + 1 :]):
            return None
        vals = sorted(set().union(*(self.var_domain[i] for i in idx)))
        if math.comb(len(vals), len(idx)) > MAX_COMBINATIONS:
            return None
        bit = self.bit
        return tuple(
            sum(1 << bit[x] for x in combo)
            for combo in itertools.combinations(vals, len(idx))
            if sum(combo) == lo
        )

    def _linear(self, c: Linear, where: str) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
        coef: dict[int, int] = {}
        for n, a in zip(c.vars, c.coeffs, strict=True):
            coef[self.index[n]] = coef.get(self.index[n], 0) + int(a)
        big = 1 << 60
        lo, hi = {
            "==": (c.rhs, c.rhs),
            "<=": (-big, c.rhs),
            "<": (-big, c.rhs - 1),
            ">=": (c.rhs, big),
            ">": (c.rhs + 1, big),
        }.get(c.op, (None, None))
        if lo is None:
            raise NotCompilable(f"{where}: a linear {c.op!r} constraint (bounds take ==, <=, ...)")
        return tuple(coef), tuple(coef.values()), lo, hi

    def _pairs(self, c: Compare) -> list[tuple[int, int]]:
        da, db = self.schema.var(c.a).domain, self.schema.var(c.b).domain
        return [(x, y) for x in da for y in db if compare(x, c.op, y)]

    def _table(self, names: Sequence[str], allowed: Any, idx: list[int]) -> Any:
        pos = {n: i for i, n in enumerate(dict.fromkeys(names))}
        out = set()
        for k, tup in enumerate(allowed):
            if not k & 1023:  # a large table spends the budget of the search reading it
                deadline.check()
            seen: dict[str, int] = {}
            if any(seen.setdefault(n, x) != x for n, x in zip(names, tup, strict=True)):
                continue  # a variable twice with two values
            if all(x in self.bit for x in seen.values()):
                row = [0] * len(pos)
                for n, x in seen.items():
                    row[pos[n]] = 1 << self.bit[x]
                out.add(tuple(row))
        if len(idx) > MAX_ARITY:
            raise NotCompilable(f"a table over {len(idx)} variables (at most {MAX_ARITY})")
        pairs = self.peer_pairs if hasattr(self, "peer_pairs") else set()
        peers = [(i, j) for i in range(len(idx)) for j in range(i + 1, len(idx))]
        peers = [(i, j) for i, j in peers if (idx[i], idx[j]) in pairs]
        kept = []  # tuples a rule forbids never hold: fewer tuples to scan
        for k, row in enumerate(sorted(out)):
            if not k & 1023:
                deadline.check()
            if all(row[i] != row[j] for i, j in peers):
                kept.append(row)
        return tuple(idx), tuple(kept)

    # -- arrays -------------------------------------------------------------------------------
    def structure(self, effects: Sequence[ClueEffect]) -> Structure:
        """The search arrays of the rules plus the constraints of ``effects`` (cached)."""
        key = tuple(e for e in effects if not e.only_unary)
        if not key:
            return self.base_structure
        found = self._structures.get(key)
        if found is None:
            if len(self._structures) > 4096:
                self._structures.clear()
            found = self._structures[key] = self._build([self.rules, *key])
        return found

    def _build(self, effects: Sequence[ClueEffect]) -> Structure:
        nv = len(self.names)
        units = [u for e in effects for u in e.units]
        tables = [t for e in effects for t in e.tables]
        linears = [lin for e in effects for lin in e.linears]
        cages = [g for e in effects for g in e.cages]
        peers: list[set[int]] = [set() for _ in range(nv)]
        for u in units:
            for a in u:
                peers[a].update(u)
        for a in range(nv):
            peers[a].discard(a)
        peer_start, peer_vars = _csr([sorted(p) for p in peers])
        unit_start, unit_vars = _csr(units)
        tab_start, tab_vars = _csr([t[0] for t in tables])
        tup_start, tup_masks = _csr([[m for row in t[1] for m in row] for t in tables])
        lin_start, lin_vars = _csr([lin[0] for lin in linears])
        lin_coef = _i64([a for lin in linears for a in lin[1]])
        lin_lohi = np.array([[lin[2] for lin in linears], [lin[3] for lin in linears]], np.int64)
        lin_lohi = lin_lohi.reshape(2, len(linears))
        of_var: list[list[int]] = [[] for _ in range(nv)]
        for i, u in enumerate(units):
            for a in u:
                of_var[a].append(i)
        vu_start, vu_units = _csr(of_var)
        st = (peer_start, peer_vars, unit_start, unit_vars, tab_start, tup_start, lin_start)
        cage_start, cage_vars = _csr([g[0] for g in cages])
        combo_start, combo_masks = _csr([g[1] for g in cages])
        st = (*st, vu_start, vu_units, cage_start, cage_vars, combo_start, combo_masks)
        empty, one = _i64([]), _i64([0])
        st_units = (peer_start, peer_vars, unit_start, unit_vars, one, one, one, vu_start, vu_units)
        st_units = (*st_units, one, empty, one, empty)
        units_only = (st_units, empty, empty, empty, empty, np.zeros((2, 0), np.int64))
        return Structure(st, tab_vars, tup_masks, lin_vars, lin_coef, lin_lohi, units_only)


_COMPILED: dict[tuple[str, Any], CompiledSchema | NotCompilable] = {}
_BY_INSTANCE: dict[tuple[str, Any], tuple[protocols.Family, CompiledSchema]] = {}


def compiled_schema(family: protocols.Family, schema: Schema) -> CompiledSchema:
    """The schema compiled (cached for the process). Raises :class:`NotCompilable`."""
    key = (schema.family, typed_key(freeze(schema.params_dict())))
    found = _COMPILED.get(key)
    if found is None:
        try:
            found = CompiledSchema(family, schema)
        except NotCompilable as exc:
            found = exc
        _COMPILED[key] = found
    if isinstance(found, NotCompilable):
        raise NotCompilable(str(found))
    return found


def compiled_for(instance: Instance) -> tuple[protocols.Family, CompiledSchema]:
    """The family and compiled schema of ``instance`` (cached by family name and params, so
    that a check does not rebuild the schema). Raises SpecError for an unknown family or bad
    params, :class:`NotCompilable` for a schema the compiled search cannot take."""
    key = instance.params_key()
    found = _BY_INSTANCE.get(key)
    if found is None:
        family = get_family(instance.family)
        found = (family, compiled_schema(family, family.schema(instance.params_dict())))
        if len(_BY_INSTANCE) > 1024:
            _BY_INSTANCE.clear()
        _BY_INSTANCE[key] = found
    return found


def family_units(family_name: str) -> bool:
    """Whether the first schema of ``family_name`` (params ``{}``, else its first listed params
    that resolve) compiles with all-different rules: how an instance whose params do not
    resolve is judged (its report is ``INVALID_SPEC`` whichever backend writes it, and the
    backend of the family's valid instances writes it)."""
    try:
        family = get_family(family_name)
    except SpecError:
        return False
    for params in ({}, *family.info.listed_params):
        try:
            _, cs = compiled_for(Instance.make(family.info.name, dict(params), []))
        except NotCompilable:
            return False
        except SpecError:
            continue
        return bool(cs.rules.units)
    return False


def plain_givens(family: Any) -> bool:
    """Whether ``family`` checks and compiles givens as :class:`GivensGrid` does (one per cell,
    each a value of its cell's domain): a grid line of it needs no clue objects."""
    cls = type(family)
    return (
        isinstance(family, GivensGrid)
        and cls.validate_clues is GivensGrid.validate_clues
        and cls.clue_constraints is GivensGrid.clue_constraints
        and cls.place_of is protocols.Family.place_of
    )


def grid_line_schema(
    instance: Instance, size: int
) -> tuple[protocols.Family, CompiledSchema] | None:
    """The family and compiled schema of ``instance``, a grid line of ``size``×``size`` givens,
    when the search may start from its cell values (:func:`plain_givens`, one variable a cell);
    None where the general path verifies it. Loads no compiled search."""
    try:
        family, cs = compiled_for(instance)
    except (SpecError, NotCompilable):
        return None
    if not plain_givens(family) or len(cs.names) != size * size:
        return None
    return family, cs


class ReportView:
    """What the report builders read of a problem (the instance and its schema); the real
    problem is resolved only for a conflict."""

    def __init__(self, instance: Instance, schema: Schema) -> None:
        self.instance = instance
        self.schema = schema


def cartesian_of(cs: CompiledSchema, dom: np.ndarray) -> tuple[int | float | None, float]:
    """``puzzlekit.verifiers.search.cartesian`` of the masks (cached by how many variables have
    each number of values)."""
    sizes = np.bitwise_count(dom.astype(np.uint64))
    key = np.bincount(sizes).tobytes()
    found = cs.cart_cache.get(key)  # type: ignore[call-overload]
    if found is not None:
        return found
    log10 = sum(math.log10(k) for k in sizes.tolist() if k)
    out: tuple[int | float | None, float] = (None, round(log10, 6))
    size = math.prod(sizes.tolist()) if log10 < 15.9 else None
    if size is not None and size < 2**53:
        out = (size, round(log10, 6))
    elif log10 < 308:
        out = (float(10**log10), round(log10, 6))
    if len(cs.cart_cache) > 10_000:
        cs.cart_cache.clear()
    cs.cart_cache[key] = out  # type: ignore[index]
    return out
