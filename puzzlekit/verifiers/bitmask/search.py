"""One bitmask search and its budget: the compiled workspace, run in chunks between looks at the
clock, and the solutions it found.

Private machinery of :mod:`puzzlekit.verifiers.bitmask.backend`, with the uniqueness session it
hands out (:class:`BitmaskSession`). Not for compiling constraints
(:mod:`~puzzlekit.verifiers.bitmask.compile`) or reports.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

import numpy as np
from numba import njit

from puzzlekit.core.jsondata import FrozenDict, frozen
from puzzlekit.core.lazyreport import made
from puzzlekit.verifiers.bitmask.band9 import (
    WIDTH,
    is_band9,
    search_band9,
    search_many_band9,
    start_band9,
)
from puzzlekit.verifiers.bitmask.compile import (
    MAX_ARITY,
    ClueEffect,
    CompiledSchema,
    ReportView,
    Structure,
)
from puzzlekit.verifiers.bitmask.kernel import DONE, PAUSED, propagate, search
from puzzlekit.verifiers.bitmask.kernel9 import grid9_arrays, load9, search9, search_many9
from puzzlekit.verifiers.reports import found_report as build_found
from puzzlekit.verifiers.reports import frozen_source, unique_fields
from puzzlekit.verifiers.search import BudgetExceeded

#: search nodes between two looks at the clock
CHUNK = 4096
#: whether the 9×9 bitboard search looks ahead with locked candidates
#: (:func:`~puzzlekit.verifiers.bitmask.kernel9.search9`): the same solutions in the same order
#: with fewer nodes (top1465, counting to two: 64 against 164 a puzzle), but no less CPU time at
#: today's cost of a look-ahead (forum-hardest: 1.5× more; ``python -m
#: benchmarks.kernel9_bench``, docs/bench_verify.md), so off
LOOKAHEAD = False


@njit(cache=True)
def restrict(dom, idx, masks) -> None:  # pragma: no cover - compiled
    """``dom[idx[k]] &= masks[k]`` for every k."""
    for k in range(idx.shape[0]):
        dom[idx[k]] &= masks[k]


@njit(cache=True)
def search_many(
    starts, orders, node_limit, doms, dones, branch, state, sols, found, nodes, status, vrank,
    st, tab_vars, tup_masks, lin_vars, lin_coef, values, lin_lohi, scratch,
):  # fmt: skip  # pragma: no cover - compiled
    """:func:`~puzzlekit.verifiers.bitmask.kernel.search` from each row of ``starts`` in turn,
    tie order ``orders[k]``, at most ``node_limit`` nodes each (one chunk of
    :meth:`Search.run`): ``found[k]`` solutions in ``sols[k]``, ``nodes[k]`` nodes, and
    ``status[k]`` DONE, or PAUSED where the chunk ran out before the search ended."""
    for k in range(starts.shape[0]):
        doms[0, :] = starts[k]
        dones[0, :] = 0
        state[:] = 0
        status[k] = search(
            doms, dones, branch, state, sols[k], node_limit, orders[k], vrank, st, tab_vars,
            tup_masks, lin_vars, lin_coef, values, lin_lohi, scratch,
        )  # fmt: skip
        found[k] = state[2]
        nodes[k] = state[3]


def start_domains(cs: CompiledSchema, effects: Mapping[str, ClueEffect]) -> np.ndarray:
    """The schema's domains narrowed by what the clues ``effects`` restrict (a search's start)."""
    dom = cs.base_dom.copy()
    pairs = [p for e in effects.values() for p in e.unary]
    if pairs:
        idx, masks = zip(*pairs, strict=True)
        restrict(dom, np.array(idx, np.int64), np.array(masks, np.int64))
    return dom


class Search:
    """A search over one structure, reusable for several starting domains (one at a time).

    ``nodes`` and ``seconds`` count every run since the object was made, plus those of the
    searches that name it as their ``meter``: one verification's budget covers all its searches.
    """

    def __init__(self, cs: CompiledSchema, structure: Structure, cap: int) -> None:
        nv = len(cs.names)
        self.cs = cs
        self.cap = cap
        self.doms = np.empty((nv + 2, nv), np.int64)
        self.dones = np.zeros((nv + 2, nv), np.uint8)
        self.branch = np.zeros((nv + 2, 2), np.int64)
        self.state = np.zeros(4, np.int64)
        self.sols = np.zeros((cap, nv), np.int64)
        self.support = np.zeros(max(MAX_ARITY, nv + len(structure.st[2])), np.int64)
        self.structure = structure
        self.args = structure.search_args(cs.values, self.support)
        self._order = np.arange(nv, dtype=np.int64)
        self._order_source: Callable[[], np.ndarray] | None = None
        #: value ranks per variable (:meth:`set_value_ranks`); empty: smallest value first
        self.vrank = np.zeros((0, 0), np.float64)
        self.nodes = 0
        self.found = 0
        self.start = time.perf_counter()
        self._many_sols = np.empty((0, cap, nv), np.int64)
        #: the bitboard search's arrays where the structure fits it (81 variables, 9 values)
        self.grid9 = grid9_arrays(structure, cs.values)
        if self.grid9 is not None:
            peers, units, pairs = self.grid9
            self.grid9 = (peers, units, pairs if LOOKAHEAD else pairs[:0])
            self.boards = np.zeros((nv + 2, 9, 3), np.int64)
            self.fixed = np.zeros((nv + 2, 3), np.int64)
        #: the band search's nodes where the structure is the standard 9×9 Sudoku's
        #: (:mod:`~puzzlekit.verifiers.bitmask.band9`), else None
        self.band9: np.ndarray | None = None
        if self.grid9 is not None and is_band9(self.grid9[1]):
            self.band9 = np.zeros((nv + 2, WIDTH), np.int64)
        #: whether the solutions at the cap must be the first ones in the order of the
        #: general search (:meth:`run` then searches again after a band search that reached
        #: it); False for a caller that reads the count alone or takes any solutions
        self.ordered = True

    @property
    def order(self) -> np.ndarray:
        """The tie-breaking order of the variables (:meth:`set_order`; drawn from the source
        :meth:`defer_order` gave when first read); schema order until set."""
        if self._order_source is not None:
            self.set_order(self._order_source())
        return self._order

    def set_order(self, order: np.ndarray) -> None:
        """Break ties between equally constrained variables in ``order`` (variable indices),
        and report solutions sorted lexicographically over it."""
        self._order = np.ascontiguousarray(order, dtype=np.int64)
        self._order_source = None

    def defer_order(self, source: Callable[[], np.ndarray]) -> None:
        """:meth:`set_order` of ``source()``, called when the order is first read: the band
        search never reads it (nor does a report of one solution), so an instance whose digest
        draws the order need not be hashed for such a search."""
        self._order_source = source

    def set_value_ranks(self, ranks: np.ndarray | None) -> None:
        """Try the values of each variable in increasing ``ranks[variable, value bit]`` (a
        sampler's random order); None: smallest value first (counting and verification)."""
        if ranks is None:
            self.vrank = np.zeros((0, 0), np.float64)
        else:
            self.vrank = np.ascontiguousarray(ranks, dtype=np.float64)

    def reset(self) -> None:
        """Start counting nodes and time afresh (a new verification)."""
        self.nodes = 0
        self.found = 0
        self.start = time.perf_counter()
        self._order_source = None

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start

    def run(
        self,
        dom: np.ndarray,
        max_nodes: int | None,
        max_seconds: float | None,
        meter: Search | None = None,
        band: bool = True,
    ) -> None:
        """Search from ``dom`` until the cap or the end of the tree (``found`` solutions).
        On the standard 9×9 Sudoku the band search runs first (unless ``band`` is False: a
        caller that expects the cap); where it reaches the cap and :attr:`ordered` is set, the
        9×9 search runs again for the general search's first solutions (the nodes of both
        count).

        Raises BudgetExceeded (with ``solutions``: the ones found so far) when the meter's nodes
        pass ``max_nodes`` or its clock ``max_seconds``.
        """
        meter = meter or self
        band = band and self.band9 is not None and self.vrank.shape[0] == 0
        if band:
            self._drive(dom, max_nodes, max_seconds, meter, "band9")
            if self.found < self.cap or not self.ordered:
                return
        grid9 = self.grid9 is not None and self.vrank.shape[0] == 0
        self._drive(dom, max_nodes, max_seconds, meter, "grid9" if grid9 else "general")

    def _drive(
        self,
        dom: np.ndarray,
        max_nodes: int | None,
        max_seconds: float | None,
        meter: Search,
        kernel: str,
    ) -> None:
        """:meth:`run` on one kernel (``band9``, ``grid9`` or ``general``)."""
        state = self.state
        state[:] = 0
        if kernel == "grid9":  # the band search loads in its first chunk (one call)
            load9(dom, self.boards[0], self.fixed[0])
        elif kernel == "general":
            self.doms[0] = dom
            self.dones[0] = 0
        while True:
            chunk = CHUNK
            if max_nodes is not None:
                chunk = min(chunk, max_nodes - meter.nodes - int(state[3]))
            status = DONE
            if chunk > 0:
                status = self._chunk(chunk, kernel, dom)
            if status == DONE and chunk > 0:
                break
            spent = meter.nodes + int(state[3])
            if max_nodes is not None and spent >= max_nodes:
                self._stop(meter, "nodes", max_nodes)
            if max_seconds is not None and meter.seconds > max_seconds:
                self._stop(meter, "seconds", max_seconds)
        self.found = int(state[2])
        meter.nodes += int(state[3])

    def _chunk(self, chunk: int, kernel: str, dom: np.ndarray) -> int:
        """At most ``chunk`` more nodes of the search in the workspace: DONE or PAUSED (the
        band search's first chunk starts from ``dom``)."""
        if kernel == "band9":
            if self.state[3] == 0:
                return int(start_band9(dom, self.band9, self.branch, self.state, self.sols, chunk))
            return int(search_band9(self.band9, self.branch, self.state, self.sols, chunk))
        if kernel == "grid9":
            return int(
                search9(
                    self.boards,
                    self.fixed,
                    self.branch,
                    self.state,
                    self.sols,
                    chunk,
                    self.order,
                    *self.grid9,  # type: ignore[misc]
                )  # fmt: skip
            )
        return int(
            search(
                self.doms,
                self.dones,
                self.branch,
                self.state,
                self.sols,
                chunk,
                self.order,
                self.vrank,
                *self.args,
            )  # fmt: skip
        )

    def _stop(self, meter: Search, resource: str, limit: float) -> None:
        self.found = int(self.state[2])
        meter.nodes += int(self.state[3])
        exc = BudgetExceeded(resource, limit)
        exc.solutions = self.solutions()  # type: ignore[attr-defined]
        raise exc

    def bits(self) -> np.ndarray:
        """The solutions found, as value bits per variable (in the order found)."""
        return self.sols[: self.found]

    def solutions(self) -> list[dict[str, int]]:
        """The solutions found, sorted lexicographically over the variables in :attr:`order`
        (read-only dicts: a report holds them as they are)."""
        return solutions_of(self.cs, self.bits(), self.order)

    def run_many(
        self,
        starts: np.ndarray,
        orders: np.ndarray,
        node_limit: int,
        draw: Callable[[np.ndarray], None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One compiled call searching from each row of ``starts`` (tie order ``orders[k]``) for
        at most ``node_limit`` nodes each: (solution bits, solutions found, nodes, status) per
        row; a row whose status is not DONE ran out of its nodes (search it with :meth:`run`).
        On the standard 9×9 Sudoku, rows at the cap are searched again as :meth:`run` does
        (``draw(rows)``, when given, fills those rows of ``orders`` first: the band search
        reads no order)."""
        k = starts.shape[0]
        sols = self.many_sols(k)
        found, nodes = np.zeros(k, np.int64), np.zeros(k, np.int64)
        status = np.zeros(k, np.int64)
        state = np.zeros(4, np.int64)
        if self.band9 is not None:
            search_many_band9(
                starts, node_limit, self.band9, self.branch, state, sols, found, nodes, status
            )
            if self.ordered:  # at the cap: the general search's first solutions
                again = np.flatnonzero((found >= self.cap) & (status == DONE))
                if again.shape[0]:
                    if draw is not None:
                        draw(again)
                    self.many_ordered(starts, orders, node_limit, again, sols, nodes, status)
            return sols, found, nodes, status
        if self.grid9 is not None:
            search_many9(
                starts, orders, node_limit, self.boards, self.fixed, self.branch, state, sols,
                found, nodes, status, *self.grid9,
            )  # fmt: skip
            return sols, found, nodes, status
        no_ranks = np.zeros((0, 0), np.float64)
        search_many(
            starts, orders, node_limit, self.doms, self.dones, self.branch, state, sols, found,
            nodes, status, no_ranks, *self.args,
        )  # fmt: skip
        return sols, found, nodes, status

    def many_sols(self, k: int) -> np.ndarray:
        """Solution rows for ``k`` searches of one call, ``(k, cap, variables)``: kept for the
        next call (only the rows below each search's count are read)."""
        sols = self._many_sols
        if sols.shape[0] < k:
            sols = self._many_sols = np.empty((k, self.cap, len(self.cs.names)), np.int64)
        return sols

    def many_ordered(
        self,
        starts: np.ndarray,
        orders: np.ndarray,
        node_limit: int,
        rows: np.ndarray,
        sols: np.ndarray,
        nodes: np.ndarray,
        status: np.ndarray,
    ) -> None:
        """The rows ``rows`` of :meth:`run_many` searched again by the 9×9 search (their
        solutions the general search's first ones; its nodes added)."""
        k = rows.shape[0]
        sub = np.empty((k, self.cap, starts.shape[1]), np.int64)
        found2, nodes2 = np.zeros(k, np.int64), np.zeros(k, np.int64)
        status2 = np.zeros(k, np.int64)
        search_many9(
            starts[rows], orders[rows], node_limit, self.boards, self.fixed, self.branch,
            np.zeros(4, np.int64), sub, found2, nodes2, status2, *self.grid9,  # type: ignore[misc]
        )  # fmt: skip
        sols[rows] = sub
        nodes[rows] += nodes2
        # both searches within one row's nodes, as :meth:`run` counts them
        within = (status2 == DONE) & (nodes[rows] <= node_limit)
        status[rows] = np.where(within, DONE, PAUSED)

    def narrowed(self, dom: np.ndarray) -> np.ndarray | None:
        """``dom`` narrowed as ``puzzlekit.verifiers.search.narrow_domains`` narrows (the
        all-different rules to a fixpoint), or None when a domain empties."""
        out = dom.copy()
        done = np.zeros(out.shape[0], np.uint8)
        ok = propagate(out, done, *self.structure.units_args(self.cs.values, self.support))
        return out if ok else None


def solutions_of(
    cs: CompiledSchema, bits: np.ndarray, order: np.ndarray | None
) -> list[dict[str, int]]:
    """Solutions given as value bits per variable, as read-only dicts sorted lexicographically
    over the variables taken in ``order`` (None for one solution: nothing to sort)."""
    rows = cs.values[bits].tolist()
    if len(rows) > 1:
        ranks = order.tolist()  # type: ignore[union-attr]
        rows.sort(key=lambda row: [row[i] for i in ranks])
    names = cs.names
    return [FrozenDict(zip(names, row, strict=True)) for row in rows]


def found_report(
    verifier: Any,
    instance: Any,
    cs: CompiledSchema,
    cap: int,
    bits: np.ndarray,
    order: np.ndarray | None,
    cart: tuple[int | float | None, float],
    stats: dict[str, Any],
) -> Any:
    """The UNIQUE or MULTIPLE report of ``verifier`` (a bitmask one) on the solutions ``bits``
    (value bits per variable, at least one row) found in tie order ``order`` (None where only
    one was found), the solution
    mappings and the gap built when first read (``reports.found_report``)."""
    found = bits.shape[0]
    if found == 1:  # UNIQUE: the fields every such report shares, and what this one keeps
        fields = _unique(verifier._src, cap).copy()
        fields["cartesian_size"], fields["cartesian_size_log10"] = cart
        fields["stats"] = frozen(stats)
        fields["_cs"], fields["_bits"], fields["_inst"] = cs, bits, instance
        digest = instance.__dict__.get("_digest")  # else hashed when first read
        if digest is not None:
            fields["instance_digest"] = digest
        return made(fields)
    view: Any = ReportView(instance, cs.schema)
    build = partial(solutions_of, cs, bits, order)
    return build_found(view, verifier._src, cap, found, build, cart, stats)


def _unique(src: Any, cap: int) -> dict[str, Any]:
    """:func:`unique_shared` with :data:`_ONE`'s thunks."""
    return unique_shared(src, cap, _ONE)


def unique_shared(src: Any, cap: int, thunks: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a UNIQUE report of source ``src`` and cap ``cap`` shares with the others,
    with ``thunks`` (a module's constant: what its reports build when first read), kept per
    source object, cap and thunks (copy before adding to them)."""
    key = (id(src), cap, id(thunks))
    found = _UNIQUES.get(key)
    if found is None or found[0] is not src:
        fields = unique_fields(frozen_source(src), cap)
        fields["_thunks"] = thunks
        if len(_UNIQUES) > 64:
            _UNIQUES.clear()
        found = _UNIQUES[key] = (src, fields)  # holds the source: its id is not reused
    return found[1]


def _one_solution(rep: Any) -> list[dict[str, int]]:
    return solutions_of(rep._cs, rep._bits, None)


def _instance_digest(rep: Any) -> str:
    return rep._inst.digest  # type: ignore[no-any-return]


#: how a UNIQUE report of :func:`found_report` builds its solution and digest when first read
_ONE = {"solutions": _one_solution, "instance_digest": _instance_digest}
_UNIQUES: dict[tuple[int, int, int], tuple[Any, dict[str, Any]]] = {}


class BitmaskSession:
    """Is a solution the only one of a subset of an instance's clues, where some clues add
    constraints (cages, inequalities): each question builds the structure of the clues it keeps.
    The fallback of :class:`~puzzlekit.verifiers.bitmask.minimize.CountingSession`, which
    answers clues that only restrict cells itself."""

    def __init__(self, cs: CompiledSchema, clues: Mapping[str, ClueEffect]) -> None:
        self._cs = cs
        self._clues = dict(clues)
        self._unary = {
            cid: (np.array([i for i, _ in e.unary], np.int64), [m for _, m in e.unary])
            for cid, e in clues.items()
        }
        self._closed = False

    def unique_with(self, clue_ids: Iterable[str]) -> bool:
        """True when the solution is the only one of the clues ``clue_ids``."""
        if self._closed:
            raise RuntimeError("the uniqueness session is closed")
        ids = list(clue_ids)
        search = Search(self._cs, self._cs.structure([self._clues[c] for c in ids]), 2)
        search.ordered = False  # the count alone is read
        dom = self._cs.base_dom.copy()
        unary = self._unary
        if ids:
            idx = np.concatenate([unary[c][0] for c in ids])
            masks = np.array([m for c in ids for m in unary[c][1]], np.int64)
            restrict(dom, idx, masks)
        search.run(dom, None, None)
        return search.found == 1

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> BitmaskSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: search workspaces by thread, structure and cap, reused by every verifier (one search runs at
#: a time per thread)
_WORKSPACES: dict[tuple[int, int, int], Any] = {}


def workspace(cs: CompiledSchema, structure: Structure, cap: int) -> Any:
    """The search workspace of this thread for ``structure`` and ``cap`` (kept and reused)."""
    key = (threading.get_ident(), id(structure), cap)
    search = _WORKSPACES.get(key)
    if search is None or search.structure is not structure:
        if len(_WORKSPACES) > 64:
            _WORKSPACES.clear()
        search = _WORKSPACES[key] = Search(cs, structure, cap)
    return search
