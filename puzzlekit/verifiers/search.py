"""What a search needs before and while it runs: the budget (:class:`SearchBudget`), the meter that
enforces it (:class:`~puzzlekit.core.meter.Meter`, raising :class:`BudgetExceeded`, both named
here too), the protocol of a search backend
(:class:`SearchBackend`), and sound domain narrowing with the size of the search space it leaves
(:func:`narrow_domains`, :func:`cartesian`, :func:`cardinalities`, :func:`culprits_over`).

Re-exported by :mod:`puzzlekit.verifiers.base`. Not for solving (the backends) or for building
reports (:mod:`puzzlekit.verifiers.reports`).
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from puzzlekit.core.deadline import BudgetExceeded as BudgetExceeded
from puzzlekit.core.meter import Meter as Meter
from puzzlekit.core.model import (
    AllDifferent,
    Constraint,
    Problem,
)
from puzzlekit.core.protocols import DEFAULT_CAP as DEFAULT_CAP
from puzzlekit.core.report import (
    FieldCardinality,
)

#: log10 of the largest search space (product of narrowed domain sizes) a backend will start on
DEFAULT_MAX_CARTESIAN_LOG10 = 400.0


#: the independent streams drawn from one instance digest
STREAM_TIES, STREAM_ORDER = 0, 1


def digest_rng(digest: str, stream: int = STREAM_TIES) -> np.random.Generator:
    """A generator seeded from an instance digest and a stream number: one instance, one draw,
    in every process (the gap's tie order and the search order draw from separate streams)."""
    entropy = _seed_words(digest, stream)
    if entropy is None:
        return np.random.default_rng([int(digest.rsplit(":", 1)[-1] or "0", 16), stream])
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


def _seed_words(digest: str, stream: int) -> np.ndarray | None:
    """The seed words ``default_rng`` takes from ``[int(hex, 16), stream]`` for a 64-digit hex
    digest (the integer's 32-bit words from the lowest, high zero words dropped, then the
    stream), without the Python loop; None for another digest."""
    hexdigits = digest.rsplit(":", 1)[-1]
    if len(hexdigits) != 64 or not 0 <= stream < 2**32:
        return None
    try:
        words = np.frombuffer(bytes.fromhex(hexdigits)[::-1], "<u4")
    except ValueError:  # not hex: int() below says so
        return None
    nonzero = np.flatnonzero(words)
    used = words[: nonzero[-1] + 1] if nonzero.size else words[:1]
    return np.append(used, np.uint32(stream)).astype(np.uint32)


@functools.lru_cache(maxsize=4096)
def digest_permutation(digest: str, stream: int, n: int) -> tuple[int, ...]:
    """``digest_rng(digest, stream).permutation(n)``, remembered: a verification draws its
    search order (and a MULTIPLE report its tie order) once per instance, and seeding a
    generator from a 256-bit digest costs more than the search of an easy puzzle (where numba
    is loaded, the same draws compiled: :mod:`~puzzlekit.verifiers.digest_draw`)."""
    hexdigits = digest.rsplit(":", 1)[-1]
    if "numba" in sys.modules and len(hexdigits) == 64 and 0 <= stream < 2**32:
        try:  # numba is loaded by the compiled backends
            raw = np.frombuffer(bytes.fromhex(hexdigits), np.uint8)
        except ValueError:  # not hex: digest_rng says so
            raw = None
        if raw is not None:
            from puzzlekit.verifiers import digest_draw

            return tuple(digest_draw.digest_permutation(raw, stream, n).tolist())
    return tuple(digest_rng(digest, stream).permutation(n).tolist())


def search_order(names: Sequence[str], digest: str) -> list[str]:
    """The variables in the order a backend enumerates the first solutions of a capped count:
    a permutation drawn from the instance digest, so that which solutions are reported at the cap
    (and so the cells where they differ) carries no reading-order bias, and one instance still
    gives one set."""
    return [names[i] for i in digest_permutation(digest, STREAM_ORDER, len(names))]


def sort_solutions(
    solutions: Sequence[Mapping[str, int]], order: Sequence[str]
) -> list[dict[str, int]]:
    """``solutions`` sorted lexicographically over the variables taken in ``order`` (a
    :func:`search_order`): a history-free order whose first solution, the target of the
    discriminative gap when no other is known, carries no reading-order bias."""
    if len(solutions) < 2:  # nothing to order: the order is not drawn (see sat's lazy order)
        return [dict(s) for s in solutions]
    return sorted((dict(s) for s in solutions), key=lambda s: [s[n] for n in order])


class LazyOrder(Sequence[str]):
    """:func:`search_order` of ``names`` and ``digest``, drawn when first read: a verification
    that finds one solution (UNIQUE) or none never needs it."""

    def __init__(self, names: Sequence[str], digest: str) -> None:
        self._names, self._digest = names, digest
        self._order: list[str] | None = None

    def _drawn(self) -> list[str]:
        if self._order is None:
            self._order = search_order(self._names, self._digest)
        return self._order

    def __getitem__(self, i: Any) -> Any:
        return self._drawn()[i]

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[str]:
        return iter(self._drawn())


# --- domain narrowing -----------------------------------------------------------------------


def narrow_domains(
    problem: Problem, constraints: Sequence[Constraint]
) -> dict[str, list[int]] | None:
    """Sound domain narrowing before search: unary constraints, then all-different singletons.

    Removes only values that no solution can take (a unary constraint fails; a value is held by a
    fixed peer of an all-different; a value that has one place left in an all-different over as
    many variables as values). Returns None when a domain empties (no solution).
    """
    doms: dict[str, set[int]] = {v.name: set(v.domain) for v in problem.schema.variables}
    alldiff: list[tuple[str, ...]] = []
    for c in constraints:
        vs = c.vars
        if len(vs) == 1:
            name = vs[0]
            doms[name] = {x for x in doms[name] if c.holds({name: x})}
            if not doms[name]:
                return None
        elif isinstance(c, AllDifferent):
            alldiff.append(vs)
    if not alldiff:
        return {k: sorted(v) for k, v in doms.items()}
    units_of: dict[str, list[int]] = {}
    for i, unit in enumerate(alldiff):
        for name in unit:
            units_of.setdefault(name, []).append(i)
    dirty = set(range(len(alldiff)))
    while dirty:
        i = min(dirty)
        dirty.discard(i)
        unit = alldiff[i]
        for name in unit:  # naked singles
            if len(doms[name]) == 1:
                (value,) = doms[name]
                for other in unit:
                    if other != name and value in doms[other]:
                        doms[other].discard(value)
                        if not doms[other]:
                            return None
                        dirty.update(units_of[other])
        union: set[int] = set()
        for name in unit:
            union |= doms[name]
        if len(union) < len(unit):
            return None  # pigeonhole: fewer values than variables
        if len(union) == len(unit):  # a permutation: hidden singles
            for value in sorted(union):
                places = [name for name in unit if value in doms[name]]
                if len(places) == 1 and len(doms[places[0]]) > 1:
                    doms[places[0]] = {value}
                    dirty.update(units_of[places[0]])
    return {k: sorted(v) for k, v in doms.items()}


def cartesian(domains: Mapping[str, Sequence[int]]) -> tuple[int | float | None, float]:
    """Product of domain sizes as a JSON number (exact int below 2**53) and its log10."""
    log10 = sum(math.log10(len(d)) for d in domains.values() if d)
    if log10 < 15.9:
        size = math.prod(len(d) for d in domains.values())
        if size < 2**53:
            return size, round(log10, 6)
    if log10 < 308:
        return float(10**log10), round(log10, 6)
    return None, round(log10, 6)


def cardinalities(problem: Problem, domains: Mapping[str, Sequence[int]]) -> list[FieldCardinality]:
    """Every variable with more than one candidate value, in schema order."""
    return [
        FieldCardinality(v.coord, v.name, len(domains[v.name]))
        for v in problem.schema.variables
        if len(domains[v.name]) > 1
    ]


def culprits_over(
    cards: Sequence[FieldCardinality], limit_log10: float | None
) -> list[FieldCardinality]:
    """The variables that blow the product up: largest domains first, until the rest fits.

    With no limit (UNDECIDED), the ten variables with the most candidates.
    """
    ranked = sorted(cards, key=lambda f: (-f.cardinality, f.coord))
    if limit_log10 is None:
        return ranked[:10]
    total = sum(math.log10(f.cardinality) for f in cards)
    out = []
    for f in ranked:
        if total <= limit_log10:
            break
        out.append(f)
        total -= math.log10(f.cardinality)
    return out


class SearchBackend(Protocol):
    def solve(
        self,
        problem: Problem,
        domains: Mapping[str, Sequence[int]],
        constraints: Sequence[Constraint],
        cap: int,
        meter: Meter,
    ) -> list[dict[str, int]]:
        """Up to ``cap`` solutions (variables in schema order), calling ``meter.tick()``."""
        ...
