"""The constraint vocabulary of the model: what a schema's rules and an instance's clues become.

Each constraint names the variables it reads (``vars``, see :func:`scope`), says whether a full
assignment satisfies it (``holds``) and keeps its :class:`Origin`: the rule of the schema or the
clue of the instance it comes from, so a backend can name the clues of a conflict. The kinds are
all-different, linear, comparison, table, count, regular (a finite automaton over a line) and
opaque predicates. Backends translate them (``verifiers/``); families build them
(``puzzlekit/families/``). Every name here is re-exported by :mod:`puzzlekit.core.model`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from puzzlekit.core import dispatch
from puzzlekit.core.deadline import BudgetExceeded

Coord: TypeAlias = tuple[Any, ...]
Value: TypeAlias = int
Solution: TypeAlias = Mapping[str, Value]

OPS = ("==", "!=", "<", "<=", ">", ">=")


def compare(lhs: int, op: str, rhs: int) -> bool:
    """Evaluate ``lhs op rhs`` for one of the six comparison operators in :data:`OPS`."""
    if op == "==":
        return lhs == rhs
    if op == "!=":
        return lhs != rhs
    if op == "<":
        return lhs < rhs
    if op == "<=":
        return lhs <= rhs
    if op == ">":
        return lhs > rhs
    if op == ">=":
        return lhs >= rhs
    raise ValueError(f"unknown comparison operator {op!r}; expected one of {OPS}")


@dataclass(frozen=True)
class Origin:
    """Where a constraint comes from: a rule of the schema or a clue of the instance."""

    kind: str  # "rule" or "clue"
    id: str
    coords: tuple[Coord, ...] = ()


@dataclass(frozen=True)
class AllDifferent:
    vars: tuple[str, ...]
    origin: Origin

    def holds(self, sol: Solution) -> bool:
        vals = [sol[v] for v in self.vars]
        return len(set(vals)) == len(vals)


@dataclass(frozen=True)
class Linear:
    """``sum(coeffs[i] * vars[i]) op rhs``."""

    vars: tuple[str, ...]
    coeffs: tuple[int, ...]
    op: str
    rhs: int
    origin: Origin

    def holds(self, sol: Solution) -> bool:
        total = sum(c * sol[v] for v, c in zip(self.vars, self.coeffs, strict=True))
        return compare(total, self.op, self.rhs)


@dataclass(frozen=True)
class Compare:
    """``a op b`` between two variables."""

    a: str
    op: str
    b: str
    origin: Origin

    @property
    def vars(self) -> tuple[str, ...]:
        return (self.a, self.b)

    def holds(self, sol: Solution) -> bool:
        return compare(sol[self.a], self.op, sol[self.b])


@dataclass(frozen=True)
class Table:
    """The tuple of values of ``vars`` is one of ``allowed``."""

    vars: tuple[str, ...]
    allowed: frozenset[tuple[Value, ...]]
    origin: Origin

    def holds(self, sol: Solution) -> bool:
        return tuple(sol[v] for v in self.vars) in self.allowed


@dataclass(frozen=True)
class Count:
    """``#{i : vars[i] == value} op k``."""

    vars: tuple[str, ...]
    value: Value
    op: str
    k: int
    origin: Origin

    def holds(self, sol: Solution) -> bool:
        return compare(sum(1 for v in self.vars if sol[v] == self.value), self.op, self.k)


@dataclass(frozen=True)
class Automaton:
    """A deterministic finite automaton over variable values; missing transitions reject."""

    start: int
    accepting: frozenset[int]
    transitions: tuple[tuple[int, Value, int], ...]  # (state, symbol, next state)

    def accepts(self, word: Iterable[Value]) -> bool:
        delta = {(s, a): t for s, a, t in self.transitions}
        state = self.start
        for symbol in word:
            nxt = delta.get((state, symbol))
            if nxt is None:
                return False
            state = nxt
        return state in self.accepting


@dataclass(frozen=True)
class Regular:
    """The word ``vars`` (in order) is accepted by ``automaton`` (line clues)."""

    vars: tuple[str, ...]
    automaton: Automaton
    origin: Origin

    def holds(self, sol: Solution) -> bool:
        return self.automaton.accepts(sol[v] for v in self.vars)


@dataclass(frozen=True)
class Predicate:
    """Opaque Python over ``vars`` (oracle families); only the enumerative backend can use it.

    ``fn`` may raise (an oracle's dispatch error): the assignment then does not hold, and the
    raise is recorded in the verification's tally (:mod:`puzzlekit.core.dispatch`), which its
    report gives as ``dispatchErrorCount``; a backend that calls ``fn`` itself records it
    there too. Except
    :class:`~puzzlekit.core.deadline.BudgetExceeded`: a rule that ran out of the search's time
    has not answered, and the search reports UNDECIDED."""

    vars: tuple[str, ...]
    fn: Callable[..., bool] = field(compare=False)
    origin: Origin = field(default=Origin("rule", "predicate"))

    def holds(self, sol: Solution) -> bool:
        xs = tuple(sol[v] for v in self.vars)
        try:
            return bool(self.fn(*xs))
        except BudgetExceeded:  # the search's deadline passed inside the rule: not an answer
            raise
        except Exception:  # a dispatch error is not a satisfied constraint; counted
            dispatch.record(self.origin.id, xs)
            return False


Constraint: TypeAlias = AllDifferent | Linear | Compare | Table | Count | Regular | Predicate


def scope(c: Constraint) -> tuple[str, ...]:
    """The variable names a constraint reads."""
    return c.vars
