"""A grid line searched from its cell values: what the bitmask verifier does before its search
for an instance read from one text line of a givens grid (Sudoku, Latin squares), without clue
objects, clue effects by id or a Python loop over the cells.

:func:`line_start` gives what :meth:`BitmaskVerifier._searched
<puzzlekit.verifiers.bitmask.backend.BitmaskVerifier._searched>` gives for such an instance (the
compiled schema, the start domains, the structure, the workspace set to the instance's search
order, the Cartesian size), from a :class:`LinePlan` kept per schema: a table of each (cell,
value)'s domain mask, filled from the family's own given clues as they are first met (so the
masks are the ones the clue objects give, by construction), and one compiled call that narrows
the domains and draws the search order from the digest's bytes
(:func:`~puzzlekit.verifiers.digest_draw.digest_permutation`, the draw ``search_order`` makes).
:func:`lines_start` does the same for a chunk of lines (``verify_many``).

Anything else (clues already built, a family that checks or compiles its givens its own way, a
schema that does not resolve or compile, a search space over the limit) is left to the general
path: :func:`line_plan` answers None. Private machinery of
:mod:`puzzlekit.verifiers.bitmask.backend`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
from numba import njit

from puzzlekit.core.model import Instance, SpecError
from puzzlekit.families.grid import GridLine
from puzzlekit.verifiers.bitmask.band9 import search_many_band9
from puzzlekit.verifiers.bitmask.compile import (
    CompiledSchema,
    NotCompilable,
    cartesian_of,
    grid_line_schema,
)
from puzzlekit.verifiers.bitmask.kernel import DONE
from puzzlekit.verifiers.bitmask.search import found_report as found_report  # for verify
from puzzlekit.verifiers.bitmask.search import workspace
from puzzlekit.verifiers.digest_draw import digest_permutation
from puzzlekit.verifiers.search import STREAM_ORDER
from puzzlekit.verifiers.search import digest_permutation as digest_perm

#: a (cell, value) whose mask the plan has not read from the family's given yet
UNKNOWN = -1
#: the most (cell, value) pairs a plan reads when it is made (larger schemas read theirs as
#: lines bring them)
EAGER_PAIRS = 1024


@njit(cache=True, inline="always")
def _narrow(values, base, masks, dom):  # pragma: no cover - compiled
    """``dom`` = ``base`` narrowed by ``masks[cell, value]`` at every cell with a value: the
    number of cells with a value, or (``dom`` half done) -1 when a mask is :data:`UNKNOWN`, -2
    when a value is outside the table."""
    count = 0
    for i in range(values.shape[0]):
        v = values[i]
        dom[i] = base[i]
        if v:
            if v >= masks.shape[1]:  # not a value of the grid: the general path says so
                return -2
            m = masks[i, v]
            if m == UNKNOWN:
                return -1
            dom[i] &= m
            count += 1
    return count


@njit(cache=True)
def _start(values, base, masks, raw, stream, dom):  # pragma: no cover - compiled
    """:func:`_narrow`, and the search order drawn from the digest bytes ``raw`` (none when
    ``raw`` is empty): the order (empty when none is drawn or the number is negative) and the
    number of cells with a value."""
    count = _narrow(values, base, masks, dom)
    if count < 0 or raw.shape[0] == 0:
        return np.zeros(0, np.int64), count
    return digest_permutation(raw, stream, values.shape[0]).astype(np.int64), count


@njit(cache=True)
def _start_many(values, base, masks, raws, stream, starts, orders):  # pragma: no cover
    """:func:`_start` of each row of ``values`` (digest bytes ``raws``, same row) into the rows
    of ``starts`` and ``orders``: the numbers of givens, or in the first place -1 where a mask
    is unknown, -2 where a value is out of the table."""
    counts = np.zeros(values.shape[0], np.int64)
    for k in range(values.shape[0]):
        order, count = _start(values[k], base, masks, raws[k], stream, starts[k])
        if count < 0:
            counts[0] = count
            return counts
        if order.shape[0]:
            orders[k] = order
        counts[k] = count
    return counts


@njit(cache=True)
def _band9_many(
    values, base, masks, node_limit, starts, out, nodes_, branch, state, sols
):  # pragma: no cover - compiled
    """:func:`_narrow` of each row of ``values`` into the rows of ``starts`` (``out[0]``: the
    numbers of givens), then the band search of each
    (:func:`~puzzlekit.verifiers.bitmask.band9.search_many_band9`; ``out[1]``, ``out[2]``,
    ``out[3]``: solutions found, nodes, status) in the same call. Returns the number of rows
    whose search reached the cap (``sols.shape[1]``), or -1 (a mask unknown) or -2 (a value
    outside the table) before any search."""
    for k in range(values.shape[0]):
        count = _narrow(values[k], base, masks, starts[k])
        if count < 0:
            return count
        out[0, k] = count
    search_many_band9(starts, node_limit, nodes_, branch, state, sols, out[1], out[2], out[3])
    at_cap = 0
    for k in range(values.shape[0]):
        if out[1, k] >= sols.shape[1] and out[3, k] == DONE:
            at_cap += 1
    return at_cap


class LinePlan:
    """What the grid lines of one schema share (see the module docstring)."""

    def __init__(self, family: Any, cs: CompiledSchema, size: int) -> None:
        self.family = family
        self.cs = cs
        nv = len(cs.names)
        self.masks = np.full((nv, size + 1), UNKNOWN, np.int64)
        #: every variable has the same domain and every given mask read so far is one value of
        #: it: the Cartesian size then depends on the number of givens alone
        self.uniform = bool((cs.base_dom == cs.base_dom[0]).all()) and nv > 0
        self.carts: dict[int, tuple[int | float | None, float]] = {}
        self._band9: bool | None = None
        self.lock = threading.Lock()
        if nv * size <= EAGER_PAIRS:  # a small schema (9×9: 729 pairs): every mask read now
            pairs = [(i, v) for i in range(nv) for v in range(1, size + 1)]
            self.fill_pairs(pairs, strict=False)

    def fill(self, values: np.ndarray) -> bool:
        """Read the masks of ``values``' (cell, value) pairs not known yet from the family's
        givens (:meth:`CompiledSchema.given_effect`); False when one is not a plain domain
        restriction of its own cell (the general path then verifies the line)."""
        return self.fill_pairs([(i, int(values[i])) for i in np.flatnonzero(values).tolist()])

    def fill_pairs(self, pairs: Sequence[tuple[int, int]], strict: bool = True) -> bool:
        """:meth:`fill` of (cell, value) pairs; ``strict=False`` leaves a pair that is not a
        plain restriction unknown and goes on."""
        cs, masks = self.cs, self.masks
        with self.lock:
            for i, v in pairs:
                if masks[i, v] != UNKNOWN:
                    continue
                try:
                    effect = cs.given_cache.get((i, v)) or cs.given_effect(i, v)
                except (SpecError, NotCompilable):
                    effect = None
                if effect is None or not _plain(effect, i):
                    if strict:
                        return False
                    continue
                mask = effect.unary[0][1]
                base = int(cs.base_dom[i])
                if mask & base != mask or mask & (mask - 1) or not mask:
                    self.uniform = False
                masks[i, v] = mask
        return True

    def band9(self, cap: int = 2) -> bool:
        """Whether the schema's searches run on the band search (the standard 9×9 Sudoku),
        which reads no search order (:meth:`Search.run
        <puzzlekit.verifiers.bitmask.search.Search.run>`)."""
        found = self._band9
        if found is None:
            cs = self.cs
            found = self._band9 = workspace(cs, cs.base_structure, cap).band9 is not None
        return found

    def cartesians(self, doms: np.ndarray, counts: Sequence[int]) -> list[Any]:
        """:meth:`cartesian` of each row of ``doms`` (its number of givens in ``counts``)."""
        carts = self.carts
        if not self.uniform:
            return [cartesian_of(self.cs, dom) for dom in doms]
        out = [carts.get(c) for c in counts]
        if None in out:
            out = [self.cartesian(doms[r], c) for r, c in enumerate(counts)]
        return out

    def cartesian(self, dom: np.ndarray, count: int) -> tuple[int | float | None, float]:
        """``compile.cartesian_of`` of ``dom`` (remembered by the number of givens where the plan
        is uniform)."""
        if not self.uniform:
            return cartesian_of(self.cs, dom)
        found = self.carts.get(count)
        if found is None:
            found = self.carts[count] = cartesian_of(self.cs, dom)
        return found


def _plain(effect: Any, cell: int) -> bool:
    """Whether a given's effect only restricts the domain of its own cell."""
    return bool(effect.only_unary and len(effect.unary) == 1 and effect.unary[0][0] == cell)


_PLANS: dict[int, tuple[Any, LinePlan | None]] = {}


def line_plan(instance: Instance) -> tuple[GridLine, LinePlan] | None:
    """The grid line of ``instance`` and its schema's plan, or None where the general path
    verifies it (see the module docstring)."""
    grid = instance.__dict__.get("_source")
    if not isinstance(grid, GridLine) or "clues" in instance.__dict__:
        return None
    found = _PLANS.get(id(grid.params))
    if found is None or found[0] is not grid.params:
        found = (grid.params, _new_plan(instance, grid))
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[id(grid.params)] = found  # holds the params object: its id is not reused
    plan = found[1]
    if plan is None or len(plan.cs.names) != grid.size * grid.size:
        return None
    return grid, plan


def _new_plan(instance: Instance, grid: GridLine) -> LinePlan | None:
    got = grid_line_schema(instance, grid.size)
    return LinePlan(*got, grid.size) if got is not None else None


#: the digest bytes :func:`_start` takes for "no order" (read-only, as the digest bytes read
#: from a string are: one compiled signature for both)
_NO_RAW = np.zeros(0, np.uint8)
_NO_RAW.flags.writeable = False


def line_start(
    plan: LinePlan, grid: GridLine, digest: str | None, dom: np.ndarray
) -> tuple[np.ndarray, int] | None:
    """Fill ``dom`` with the line's start domains; the search order (empty without a
    ``digest``) and the number of givens, or None when a given is not a plain domain
    restriction."""
    values = np.frombuffer(grid.values, np.uint8)
    raw = _NO_RAW if digest is None else np.frombuffer(bytes.fromhex(digest[7:]), np.uint8)
    cs = plan.cs
    order, count = _start(values, cs.base_dom, plan.masks, raw, STREAM_ORDER, dom)
    if count == -1:
        if not plan.fill(values):
            return None
        order, count = _start(values, cs.base_dom, plan.masks, raw, STREAM_ORDER, dom)
    return None if count < 0 else (order, count)


def lines_start(
    plan: LinePlan, grids: Sequence[GridLine], digests: Sequence[str] | None
) -> tuple[np.ndarray, np.ndarray, list[int]] | None:
    """:func:`line_start` of each line in one compiled call: start domains and orders, one row
    per line (no orders drawn without ``digests``: the rows are left as they are), and the
    numbers of givens; None when a line's given is not a plain domain restriction."""
    nv = len(plan.cs.names)
    values = np.frombuffer(b"".join([g.values for g in grids]), np.uint8).reshape(-1, nv)
    return values_start(plan, values, digests)


def values_start(
    plan: LinePlan, values: np.ndarray, digests: Sequence[str] | None
) -> tuple[np.ndarray, np.ndarray, list[int]] | None:
    """:func:`lines_start` of the grid lines whose cell values are the rows of ``values``."""
    k, nv = values.shape
    if digests is None:
        raws = np.zeros((k, 0), np.uint8)
        raws.flags.writeable = False  # as the digest bytes are: one compiled signature
    else:
        raws = np.frombuffer(bytes.fromhex("".join([d[7:] for d in digests])), np.uint8)
        raws = raws.reshape(k, -1)
    starts = np.empty((k, nv), np.int64)
    orders = np.empty((k, nv), np.int64)
    base, masks = plan.cs.base_dom, plan.masks
    counts = _start_many(values, base, masks, raws, STREAM_ORDER, starts, orders)
    if k and counts[0] == -1:
        if not all(plan.fill(row) for row in values):
            return None
        counts = _start_many(values, base, masks, raws, STREAM_ORDER, starts, orders)
    if k and counts[0] < 0:
        return None
    return starts, orders, counts.tolist()


def values_band9(
    plan: LinePlan, search: Any, values: np.ndarray, node_limit: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """:func:`values_start` and :meth:`Search.run_many
    <puzzlekit.verifiers.bitmask.search.Search.run_many>`'s band search of each row in one
    compiled call, for a plan on the band search (which reads no order): the start domains,
    an array of four rows (numbers of givens, solutions found, nodes, status), the solutions
    (``search.many_sols``) and the number of rows whose search reached the cap (the caller
    searches those again in order, as ``run_many`` does); None when a given is not a plain
    domain restriction."""
    k, nv = values.shape
    starts = np.empty((k, nv), np.int64)
    out = np.empty((4, k), np.int64)
    base, masks = plan.cs.base_dom, plan.masks
    sols, nodes_, branch = search.many_sols(k), search.band9, search.branch
    state = search.state
    at_cap = _band9_many(values, base, masks, node_limit, starts, out, nodes_, branch, state, sols)
    if at_cap == -1:
        if not all(plan.fill(row) for row in values):
            return None
        args = (values, base, masks, node_limit, starts, out, nodes_, branch, state, sols)
        at_cap = _band9_many(*args)
    if at_cap < 0:
        return None
    return starts, out, sols, at_cap


def batch_member(verifier: Any, instance: Instance) -> LinePlan | None:
    """The plan of ``instance`` where :func:`searched` would take it (a chunk of them is
    started by :func:`lines_start`), else None. The caller checks that ``verifier`` prepares
    instances as the bitmask backend does."""
    got = line_plan(instance)
    if got is None:
        return None
    plan = got[1]
    limit = verifier.max_cartesian_log10
    if limit is not None and plan.cs.full_log10 > limit:
        return None
    if not plan.band9() and not _sha256(instance.digest):
        return None  # the band search draws no order: the digest is not read
    return plan


def _sha256(digest: str) -> bool:
    return len(digest) == 71 and digest.startswith("sha256:")


def searched(verifier: Any, instance: Instance, cap: int) -> tuple[Any, ...] | None:
    """``verifier._searched(instance, cap, budget)`` for a grid line whose schema has a plan:
    ``(cs, dom, structure, search, cart)``; None where the general path verifies it."""
    got = line_plan(instance)
    if got is None:
        return None
    grid, plan = got
    cs = plan.cs
    limit = verifier.max_cartesian_log10
    if limit is not None and cs.full_log10 > limit:
        return None
    structure = cs.base_structure
    search = workspace(cs, structure, cap)
    # the band search (standard 9×9) reads no order: it is drawn, and the instance hashed,
    # only if read (a second search at the cap, the sorting of several solutions)
    digest = None if search.band9 is not None else instance.digest
    if digest is not None and not _sha256(digest):
        return None
    dom = np.empty(len(cs.names), np.int64)
    started = line_start(plan, grid, digest, dom)
    if started is None:
        return None
    order, count = started
    search.reset()
    if digest is None:
        search.defer_order(partial(_drawn_order, instance, len(cs.names)))
    else:
        search.set_order(order)
    return cs, dom, structure, search, plan.cartesian(dom, count)


def _drawn_order(instance: Instance, n: int) -> np.ndarray:
    """The search order :func:`line_start` draws from ``instance``'s digest."""
    return np.array(digest_perm(instance.digest, STREAM_ORDER, n), np.int64)
