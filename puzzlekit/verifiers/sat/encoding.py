"""The sat verifier's encodings: how a schema's variables and rules become CNF clauses.

Every variable gets one Boolean per domain value (the direct encoding, exactly one true);
``AllDifferent`` becomes at-most-one per value (at-least-one when the values are a permutation),
``Linear`` and ``Regular`` an automaton unrolled layer by layer (for ``Linear`` the states are
partial sums), ``Compare`` forbidden pairs plus supports, ``Table`` one clause per forbidden tuple
or one Boolean per allowed tuple, ``Count`` a ``pysat.card`` encoding; a guard literal, when given,
makes every clause of a constraint conditional on it. :func:`encodable` tells whether an instance
can be encoded at all.

Part of :mod:`puzzlekit.verifiers.sat.backend`, which re-exports :class:`NotEncodable` and
:func:`encodable`. Not for solving: the solver, its budget and the enumeration of solutions are
in :mod:`puzzlekit.verifiers.sat.session`.
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from pysat.card import CardEnc, EncType

from puzzlekit.core import deadline
from puzzlekit.core.model import (
    AllDifferent,
    Clue,
    Compare,
    Constraint,
    Count,
    Instance,
    Linear,
    Predicate,
    Regular,
    Schema,
    SpecError,
    Table,
    compare,
    thaw,
)
from puzzlekit.families import get_family
from puzzlekit.verifiers.reports import NotEncodable as NotEncodable

#: the most automaton states (partial sums of a ``Linear``) one constraint may unroll to
MAX_STATES = 200_000


#: a ``Table`` with at most this many forbidden tuples (and no more than it allows) is encoded
#: as one clause per forbidden tuple
MAX_FORBIDDEN_TUPLES = 4_096


def encodable(instance: Instance) -> bool:
    """Whether the sat backend can verify ``instance``: no ``Predicate`` in its rules or clues.

    An instance that does not resolve counts as encodable: the sat backend reports it as
    ``INVALID_SPEC`` just as the enumerative one does. The answer for the rules of each schema
    and for each distinct clue is remembered (the default backend is chosen on every
    ``pk.verify``).
    """
    key = (instance.family, instance.params)
    if not _rules_encodable(*key, instance.params_key()):
        return False
    typed = instance.params_key()
    return all(
        _clue_encodable(*key, c.kind, c.data, c.coords, (typed, c.content_key()))
        for c in instance.clues
    )


@functools.lru_cache(maxsize=256)
def _rules_encodable(family_name: str, params: Any, typed: Any) -> bool:
    """(``typed``: the instance's params key, so that ``true`` and ``1`` are cached apart)"""
    try:
        schema = get_family(family_name).schema({k: thaw(v) for k, v in params})
    except SpecError:
        return True
    return _all_encodable(schema.rules, schema)


@functools.lru_cache(maxsize=65_536)
def _clue_encodable(
    family_name: str, params: Any, kind: str, data: Any, coords: Any, typed: Any
) -> bool:
    try:
        family = get_family(family_name)
        schema = family.schema({k: thaw(v) for k, v in params})
        constraints = family.clue_constraints(schema, Clue("c", kind, data, coords))
    except SpecError:
        return True
    return _all_encodable(constraints, schema)


def _all_encodable(constraints: Iterable[Constraint], schema: Schema) -> bool:
    try:
        for c in constraints:
            _check_encodable(c, schema)
    except NotEncodable:
        return False
    return True


def _check_encodable(c: Constraint, schema: Schema) -> None:
    if isinstance(c, Predicate):
        raise NotEncodable(
            f"{c.origin.kind} {c.origin.id!r} is an opaque Predicate, which the sat backend "
            "cannot encode; use the enumerative verifier (get_verifier('enumerative'))"
        )
    if isinstance(c, Linear) and len(set(c.vars)) > 1:
        spread = sum(
            abs(k) * (max(schema.var(v).domain) - min(schema.var(v).domain))
            for v, k in zip(c.vars, c.coeffs, strict=True)
        )
        if (spread + 1) * len(c.vars) > MAX_STATES:
            raise NotEncodable(
                f"{c.origin.kind} {c.origin.id!r}: a linear constraint whose partial sums span "
                f"{spread + 1} values is too wide for the sat backend; use the enumerative verifier"
            )


# --- encoding ------------------------------------------------------------------------------


#: at-most-one encodings (``SatVerifier(amo=...)``): ``pairwise`` (one binary clause per pair, no
#: new variable), ``seqcounter`` (the sequential counter, linear size with new variables),
#: ``bitwise`` and ``ladder`` (pysat.card); ``auto`` is pairwise up to ``PAIRWISE_MAX`` literals
#: and the sequential counter beyond
AMO_ENCODINGS = ("auto", "pairwise", "seqcounter", "bitwise", "ladder")
#: the longest at-most-one ``auto`` encodes pairwise
PAIRWISE_MAX = 25


class _Cnf:
    """Clauses under construction: fresh variable numbers and the direct-encoding literals."""

    def __init__(self, schema: Schema, amo: str = "auto") -> None:
        if amo not in AMO_ENCODINGS:
            raise ValueError(f"amo must be one of {', '.join(AMO_ENCODINGS)}, not {amo!r}")
        self.amo = amo
        self.lit: dict[str, dict[int, int]] = {}
        self.value_of: list[tuple[int, int]] = [(-1, 0)]  # lit -> (variable index, value)
        top = 0
        for i, v in enumerate(schema.variables):
            row = {}
            for a in v.domain:
                top += 1
                row[a] = top
                self.value_of.append((i, a))
            self.lit[v.name] = row
        self.nx = top
        self.top = top
        self.clauses: list[list[int]] = []
        self.schema = schema

    def new_var(self) -> int:
        self.top += 1
        return self.top

    def add(self, clause: Iterable[int], guard: int | None) -> None:
        """Add ``clause``; with a guard ``g`` it holds only when ``g`` is true."""
        out = list(clause)
        if guard is not None:
            out.append(-guard)
        if not out:  # an empty clause: the formula is unsatisfiable
            f = self.new_var()
            self.clauses += [[f], [-f]]
            return
        self.clauses.append(out)

    def at_most_one(self, lits: Sequence[int], guard: int | None) -> None:
        amo = self.amo
        if amo == "pairwise" or (amo == "auto" and len(lits) <= PAIRWISE_MAX) or len(lits) < 3:
            neg = [-lit for lit in lits]
            tail = [] if guard is None else [-guard]
            self.clauses.extend([a, b, *tail] for a, b in itertools.combinations(neg, 2))
            return
        enc = EncType.seqcounter if amo == "auto" else getattr(EncType, amo)
        self._card(CardEnc.atmost(list(lits), 1, top_id=self.top, encoding=enc), guard)

    def _card(self, enc: Any, guard: int | None) -> None:
        self.top = max(self.top, enc.nv)
        for clause in enc.clauses:
            self.add(clause, guard)

    def exactly_one_per_variable(self) -> None:
        for row in self.lit.values():
            lits = list(row.values())
            self.add(lits, None)
            self.at_most_one(lits, None)

    # -- the vocabulary ----------------------------------------------------------------------
    def encode(self, c: Constraint, guard: int | None) -> None:
        deadline.check()  # encoding a verification's clues spends its budget (core.deadline)
        _check_encodable(c, self.schema)
        if len(set(c.vars)) == 1 and not isinstance(c, AllDifferent | Count):
            (name,) = set(c.vars)
            self.add((self.lit[name][a] for a in self.allowed_values(c)), guard)
        else:
            encoders: dict[type, Callable[[Any, int | None], None]] = {
                AllDifferent: self.all_different,
                Linear: self.linear,
                Compare: self.compare,
                Table: self.table,
                Count: self.count,
                Regular: self.regular,
            }
            if type(c) not in encoders:
                raise NotEncodable(f"not a constraint of the vocabulary: {c!r}")
            encoders[type(c)](c, guard)

    def allowed_values(self, c: Constraint) -> list[int]:
        """The values of a one-variable constraint's variable that satisfy it."""
        (name,) = set(c.vars)
        return [a for a in self.schema.var(name).domain if c.holds({name: a})]

    def all_different(self, c: AllDifferent, guard: int | None) -> None:
        by_value: dict[int, list[int]] = {}
        for name in c.vars:
            for a, lit in self.lit[name].items():
                by_value.setdefault(a, []).append(lit)
        if len(by_value) < len(c.vars):
            self.add((), guard)
            return
        for a in sorted(by_value):
            self.at_most_one(by_value[a], guard)
            if len(by_value) == len(c.vars):  # a permutation: every value is somewhere
                self.add(by_value[a], guard)

    def compare(self, c: Compare, guard: int | None) -> None:
        la, lb = self.lit[c.a], self.lit[c.b]
        for a, x in la.items():
            support = [y for b, y in lb.items() if compare(a, c.op, b)]
            self.add([-x, *support], guard)
        for b, y in lb.items():
            self.add([-y, *(x for a, x in la.items() if compare(a, c.op, b))], guard)

    def table(self, c: Table, guard: int | None) -> None:
        """Few forbidden tuples (at most as many as allowed ones, and at most
        ``MAX_FORBIDDEN_TUPLES``): one clause per forbidden tuple, no new variable. Otherwise one
        selector per allowed tuple with its supports."""
        rows = [self.lit[name] for name in c.vars]
        tuples = sorted(
            t
            for t in c.allowed
            if len(t) == len(rows) and all(a in row for a, row in zip(t, rows, strict=True))
        )
        if len(set(c.vars)) == len(c.vars):
            space = math.prod(len(row) for row in rows)
            forbidden = space - len(tuples)
            if forbidden <= min(len(tuples), MAX_FORBIDDEN_TUPLES):
                allowed = set(tuples)
                for t in itertools.product(*(sorted(row) for row in rows)):
                    if t not in allowed:
                        self.add([-row[a] for a, row in zip(t, rows, strict=True)], guard)
                return
        selectors = [self.new_var() for _ in tuples]
        self.add(selectors, guard)
        for t, s in zip(tuples, selectors, strict=True):
            for a, row in zip(t, rows, strict=True):
                self.add((-s, row[a]), None)
        for i, row in enumerate(rows):
            for a, lit in row.items():
                self.add(
                    [-lit, *(s for t, s in zip(tuples, selectors, strict=True) if t[i] == a)], guard
                )

    def count(self, c: Count, guard: int | None) -> None:
        lits = [self.lit[name][c.value] for name in c.vars if c.value in self.lit[name]]
        n, k = len(lits), c.k
        if c.op == "!=" or len(set(c.vars)) < len(c.vars):
            self.layered(
                self.layers(c.vars),
                0,
                lambda i, s, a: min(s + (a == c.value), k + 1),
                lambda s: compare(s, c.op, k),
                guard,
            )
            return
        lo, hi = {"==": (k, k), "<=": (0, k), "<": (0, k - 1), ">=": (k, n), ">": (k + 1, n)}[c.op]
        lo, hi = max(lo, 0), min(hi, n)
        if lo > hi:
            self.add((), guard)
            return
        if lo > 0:
            self._card(
                CardEnc.atleast(lits, lo, top_id=self.top, encoding=EncType.seqcounter), guard
            )
        if hi < n:
            self._card(
                CardEnc.atmost(lits, hi, top_id=self.top, encoding=EncType.seqcounter), guard
            )

    def layers(self, names: Sequence[str]) -> list[list[tuple[int, int]]]:
        return [list(self.lit[name].items()) for name in names]

    def linear(self, c: Linear, guard: int | None) -> None:
        self.templated(
            ("linear", c.coeffs, c.op, c.rhs),
            self.layers(c.vars),
            0,
            lambda i, s, a: s + c.coeffs[i] * a,
            lambda s: compare(s, c.op, c.rhs),
            guard,
        )

    def regular(self, c: Regular, guard: int | None) -> None:
        delta = {(s, a): t for s, a, t in c.automaton.transitions}
        self.templated(
            ("regular", c.automaton),
            self.layers(c.vars),
            c.automaton.start,
            lambda i, s, a: delta.get((s, a)),
            lambda s: s in c.automaton.accepting,
            guard,
        )

    def templated(
        self,
        what: tuple[Any, ...],
        layers: Sequence[Sequence[tuple[int, int]]],
        start: Any,
        step: Callable[[int, Any, int], Any],
        accept: Callable[[Any], bool],
        guard: int | None,
    ) -> None:
        """:meth:`layered`, built once per automaton and layer values (``what`` names the
        automaton) as a template over local numbers, then renumbered onto ``layers``' literals
        and fresh state variables: a nonogram line, a cage sum, ... seen before costs a lookup
        and a renumbering instead of the automaton's unrolling."""
        key = (what, tuple(tuple(a for a, _ in layer) for layer in layers))
        tpl = _TEMPLATES.get(key)
        if tpl is None:
            tpl = _template(self.schema, key[1], start, step, accept)
            with _TEMPLATES_LOCK:  # shared by every verifier of the process, in any thread
                _TEMPLATES[key] = tpl
                while len(_TEMPLATES) > MAX_TEMPLATES:
                    del _TEMPLATES[next(iter(_TEMPLATES))]
        n_local, n_aux, flat, ends = tpl
        table = np.empty(n_local + n_aux + 2, dtype=np.int64)
        table[0] = 0
        table[1 : n_local + 1] = [x for layer in layers for _, x in layer]
        table[n_local + 1 : -1] = np.arange(self.top + 1, self.top + n_aux + 1)
        self.top += n_aux
        if guard is None or 0 in np.diff(ends, prepend=0):  # no guard, or an empty clause
            mapped = (np.sign(flat) * table[np.abs(flat)]).tolist()
            begin = 0
            for end in ends:
                self.add(mapped[begin:end], guard)
                begin = end
            return
        # every clause carries the guard: give it a slot after each clause, renumber at once
        table[-1] = guard
        slots = np.insert(flat, ends, -(n_local + n_aux + 1))
        mapped = (np.sign(slots) * table[np.abs(slots)]).tolist()
        begin = 0
        for k, end in enumerate(ends, 1):
            self.clauses.append(mapped[begin : end + k])
            begin = end + k

    def layered(
        self,
        layers: Sequence[Sequence[tuple[int, int]]],
        start: Any,
        step: Callable[[int, Any, int], Any],
        accept: Callable[[Any], bool],
        guard: int | None,
    ) -> None:
        """A deterministic automaton read over ``layers`` (one (value, literal) list per position).

        One Boolean per live state and layer (reachable from the start and able to reach an
        accepting state); a transition into a dead state forbids the value in that state.
        """
        reach: list[set[Any]] = [{start}]
        total = 1
        for i, layer in enumerate(layers):
            deadline.check()
            nxt = {t for s in reach[i] for a, _ in layer if (t := step(i, s, a)) is not None}
            total += len(nxt)
            if total > MAX_STATES:
                raise NotEncodable(f"more than {MAX_STATES} automaton states; use enumerative")
            reach.append(nxt)
        live: list[set[Any]] = [set() for _ in reach]
        live[-1] = {s for s in reach[-1] if accept(s)}
        for i in range(len(layers) - 1, -1, -1):
            live[i] = {
                s for s in reach[i] if any(step(i, s, a) in live[i + 1] for a, _ in layers[i])
            }
        if start not in live[0]:
            self.add((), guard)
            return
        q = [{s: self.new_var() for s in sorted(states, key=repr)} for states in live]
        self.add((q[0][start],), guard)
        for i, layer in enumerate(layers):
            deadline.check()
            into: dict[Any, list[int]] = {t: [] for t in q[i + 1]}
            for a, x in layer:
                sources = []
                for s, qs in q[i].items():
                    t = step(i, s, a)
                    if t in q[i + 1]:
                        self.add((-qs, -x, q[i + 1][t]), guard)
                        sources.append(qs)
                        into[t].append(qs)
                    else:
                        self.add((-qs, -x), guard)
                self.add([-x, *sources], guard)
            self.add(q[i + 1].values(), guard)
            for t, qt in q[i + 1].items():
                self.add([-qt, *sorted(set(into[t]))], guard)
            for s, qs in q[i].items():
                self.add([-qs, *(x for a, x in layer if step(i, s, a) in q[i + 1])], guard)


#: unrolled automata kept as templates (:meth:`_Cnf.templated`), the oldest dropped beyond it
MAX_TEMPLATES = 4_096
_TEMPLATES: dict[Any, tuple[int, int, np.ndarray, list[int]]] = {}
_TEMPLATES_LOCK = threading.Lock()
#: the guard's place in a template's clauses (every clause of :meth:`_Cnf.layered` has it)
_GUARD = 1 << 40


def _template(
    schema: Schema,
    values: Sequence[Sequence[int]],
    start: Any,
    step: Callable[[int, Any, int], Any],
    accept: Callable[[Any], bool],
) -> tuple[int, int, np.ndarray, list[int]]:
    """:meth:`_Cnf.layered` over local literals ``1..n`` (the layers' values in order) and
    state variables after them: ``(n, states, clause literals flat, clause ends)``, the guard
    left out (every clause carries it)."""
    scratch = _Cnf.__new__(_Cnf)
    scratch.schema, scratch.clauses = schema, []
    local: list[list[tuple[int, int]]] = []
    n = 0
    for vals in values:
        local.append([(a, n + j + 1) for j, a in enumerate(vals)])
        n += len(vals)
    scratch.top = n
    scratch.layered(local, start, step, accept, _GUARD)
    flat: list[int] = []
    ends: list[int] = []
    for clause in scratch.clauses:
        flat.extend(lit for lit in clause if lit != -_GUARD)
        ends.append(len(flat))
    return n, scratch.top - n, np.asarray(flat, dtype=np.int64), ends


def _rule_groups(schema: Schema) -> dict[str, list[Constraint]]:
    groups: dict[str, list[Constraint]] = {}
    for r in schema.rules:
        groups.setdefault(r.origin.id, []).append(r)
    return groups
