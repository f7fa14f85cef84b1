"""Many bitmask verifications in one compiled call: the searches of a chunk of instances of one
schema run back to back in :func:`~puzzlekit.verifiers.bitmask.search.search_many`, and each
report is built as :meth:`BitmaskVerifier.verify
<puzzlekit.verifiers.bitmask.backend.BitmaskVerifier. verify>` builds it.

Each search gets the first chunk of nodes that :meth:`~puzzlekit.verifiers.bitmask.search.
Search.run` gives a search before it first looks at the clock
(:data:`~puzzlekit.verifiers.bitmask.search.CHUNK`, or the node budget when smaller); one that
ends within it has the verdict, solutions and node count it has there. Every other instance
(one that needs more nodes, does not resolve or is not read within the budget, has clues of
its own constraints, a search space over the limit, or asks for extras) goes through
``verify`` itself, so every report is the one ``verify`` gives; ``stats.seconds`` is the
instance's share of its chunk's time.

Private machinery of :mod:`puzzlekit.verifiers.bitmask.backend`; :func:`puzzlekit.verify_many` is
the public call. Not for use from several threads on one verifier.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from functools import partial
from typing import Any

import numpy as np

from puzzlekit.core import deadline
from puzzlekit.core.deadline import BudgetExceeded
from puzzlekit.core.jsondata import FrozenDict
from puzzlekit.core.lazyreport import LazyReport
from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import VerifierReport
from puzzlekit.families.grid import GridLine
from puzzlekit.verifiers.bitmask import search as bitmask_search
from puzzlekit.verifiers.bitmask.compile import ReportView, cartesian_of
from puzzlekit.verifiers.bitmask.kernel import DONE
from puzzlekit.verifiers.bitmask.line import batch_member, lines_start, values_band9
from puzzlekit.verifiers.bitmask.search import CHUNK, restrict, workspace
from puzzlekit.verifiers.reports import found_report
from puzzlekit.verifiers.search import STREAM_ORDER, digest_permutation

#: the budget of a call that names none (frozen: made once)
_BUDGET = SearchBudget()

#: the most search workspace (solution slots times variables) one compiled call fills
MAX_SLOTS = 2_000_000
#: the most instances one compiled call searches
MAX_CHUNK = 256


def verify_batch(
    verifier: Any,
    instances: Sequence[Instance],
    cap: int,
    budget: SearchBudget | None,
    extras: Collection[str],
    *,
    lines: bool = False,
) -> list[VerifierReport]:
    """``verifier.verify(instance, ...)`` for each of ``instances``, in order (see the module
    docstring); ``lines``: grid lines may be started from their values (the verifier prepares
    instances as the bitmask backend does)."""
    if cap < 2:
        raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
    budget = budget or _BUDGET
    out: list[VerifierReport | None] = [None] * len(instances)
    groups: dict[int, tuple[Any, list[tuple[int, Instance, Any]]]] = {}
    grids: dict[int, tuple[Any, list[tuple[int, Instance, Any]]]] = {}

    lines = lines and not extras and not verifier.forced_cells
    same: dict[Any, Any] = {}  # band search plans by family and params object
    for pos, inst in enumerate(instances):
        plan = None
        if lines:
            grid = inst.__dict__.get("_source")
            key = (inst.family, id(grid.params)) if type(grid) is GridLine else None
            plan = same.get(key) if key is not None else None
            if plan is None or "clues" in inst.__dict__:
                plan = batch_member(verifier, inst)
                if plan is not None and plan.band9() and key is not None:
                    same[key] = plan  # the instances hold the params: ids stay
        if plan is not None:  # a grid line: started from its values
            grids.setdefault(id(plan), (plan, []))[1].append((pos, inst, None))
            continue
        prepared = None if extras or verifier.forced_cells else _prepared(verifier, inst, budget)
        if _batchable(verifier, prepared):
            cs, effects = prepared
            groups.setdefault(id(cs), (cs, []))[1].append((pos, inst, effects))
        else:
            out[pos] = verifier.verify(inst, solution_cap=cap, budget=budget, extras=extras)
    for kind, table in ((None, groups), ("lines", grids)):
        for owner, members in table.values():
            cs = owner if kind is None else owner.cs
            step = max(1, min(MAX_CHUNK, MAX_SLOTS // (cap * len(cs.names))))
            for start in range(0, len(members), step):
                chunk = members[start : start + step]
                if kind is None:
                    _run_chunk(verifier, cs, chunk, cap, budget, out)
                else:
                    _run_chunk(verifier, cs, chunk, cap, budget, out, owner)
    return out  # type: ignore[return-value]


def _prepared(verifier: Any, inst: Instance, budget: SearchBudget) -> Any:
    """The instance's compiled schema and clue effects, read within the budget's seconds as
    ``verify`` reads them; None when reading ran out (``verify`` then reports it)."""
    ends = None if budget.seconds is None else time.perf_counter() + budget.seconds
    try:
        with deadline.within(ends, budget.seconds):
            return verifier._prepare(inst)
    except BudgetExceeded:
        return None


def _batchable(verifier: Any, prepared: Any) -> bool:
    """Whether a prepared instance can be searched in a chunk: it resolved, its clues only
    restrict domains, and its search space needs no check against the limit."""
    if prepared is None or isinstance(prepared, list):
        return False
    cs, effects = prepared
    limit = verifier.max_cartesian_log10
    if limit is not None and cs.full_log10 > limit:
        return False
    return all(e.only_unary for e in effects.values())


def _run_chunk(
    verifier: Any,
    cs: Any,
    members: Sequence[tuple[int, Instance, Any]],
    cap: int,
    budget: SearchBudget,
    out: list[VerifierReport | None],
    plan: Any = None,
) -> None:
    """Search ``members`` (position, instance, clue effects) in one call; fill ``out``. With a
    ``plan`` (:class:`~puzzlekit.verifiers.bitmask.line.LinePlan`) the members are grid lines,
    started from their values; on the band search (which reads no order) their orders are
    drawn, and the instances hashed, only for the rows that read them (a second search at the
    cap, several solutions to sort)."""
    started = time.perf_counter()
    lazy = plan is not None and plan.band9(cap)
    lined = None
    if plan is not None:
        grids = [inst.clue_source for _, inst, _ in members]
        digests = None if lazy else [inst.digest for _, inst, _ in members]
        lined = lines_start(plan, grids, digests)
        if lined is None:  # a given that is not a plain restriction: each on its own
            for pos, inst, _ in members:
                out[pos] = verifier.verify(inst, solution_cap=cap, budget=budget)
            return

    def instance_of(row: int) -> Instance:
        return members[row][1]

    started_rows = lined or _starts(cs, members)
    got = _searched(verifier, cs, started_rows, cap, budget, plan, started, instance_of)
    at = [pos for pos, _, _ in members]
    _reports(verifier, cs, instance_of, cap, budget, got, at, out)


def verify_values(
    verifier: Any, plan: Any, values: np.ndarray, instance_of: Any, cap: int, budget: Any
) -> list[VerifierReport]:
    """``verifier.verify`` of each grid line of ``plan``'s schema (on the band search, the
    verifier preparing instances as the bitmask backend does, no extras) whose cell values are
    the rows of ``values``; ``instance_of(row)`` gives the instance of a row, asked only where
    a report needs more than the row (its digest, several solutions, a verification of its
    own)."""
    budget = budget or _BUDGET
    k = values.shape[0]
    out: list[VerifierReport | None] = [None] * k
    step = max(1, min(MAX_CHUNK, MAX_SLOTS // (cap * values.shape[1])))
    cs = plan.cs
    search = workspace(cs, cs.base_structure, cap)
    limit = CHUNK if budget.nodes is None else min(CHUNK, budget.nodes)
    for start in range(0, k, step):
        began = time.perf_counter()
        rows = values[start : start + step]
        of_row = partial(_shifted, instance_of, start) if start else instance_of
        got = _band_rows(search, plan, rows, limit, of_row, began)
        if got is None:  # a given that is not a plain restriction: each on its own
            for row in range(start, start + rows.shape[0]):
                out[row] = verifier.verify(instance_of(row), solution_cap=cap, budget=budget)
            continue
        at = range(start, start + rows.shape[0])
        _reports(verifier, cs, of_row, cap, budget, got, at, out)
    return out  # type: ignore[return-value]


def _band_rows(
    search: Any, plan: Any, rows: np.ndarray, limit: int, instance_of: Any, began: float
) -> tuple[Any, ...] | None:
    """:func:`_searched` of grid lines on the band search, started and searched in one
    compiled call (:func:`~puzzlekit.verifiers.bitmask.line.values_band9`); the orders drawn
    only for the rows searched again at the cap; None when a given is not a plain
    restriction."""
    ran = values_band9(plan, search, rows, limit)
    if ran is None:
        return None
    starts, ints, sols, at_cap = ran
    found, nodes, status = ints[1], ints[2], ints[3]
    if at_cap and search.ordered:  # as ``Search.run_many``: the general search's first ones
        again = np.flatnonzero((found >= search.cap) & (status == DONE))
        nv = starts.shape[1]
        orders = np.empty_like(starts)
        for row in again.tolist():
            orders[row] = digest_permutation(instance_of(row).digest, STREAM_ORDER, nv)
        search.many_ordered(starts, orders, limit, again, sols, nodes, status)
    share = round((time.perf_counter() - began) / starts.shape[0], 6)
    return sols, found, nodes, status, share, plan.cartesians(starts, ints[0].tolist())


def _shifted(instance_of: Any, start: int, row: int) -> Instance:
    return instance_of(start + row)  # type: ignore[no-any-return]


def _searched(
    verifier: Any,
    cs: Any,
    started: tuple[Any, Any, Any],
    cap: int,
    budget: SearchBudget,
    plan: Any,
    began: float,
    instance_of: Any = None,
) -> tuple[Any, ...]:
    """:meth:`Search.run_many` from the start domains, orders and numbers of givens
    ``started``: its arrays, each row's share of the time since ``began`` and the rows'
    cartesian sizes. On the band search the orders are drawn only for the rows searched again
    at the cap."""
    starts, orders, counts = started
    search = workspace(cs, cs.base_structure, cap)
    nv = starts.shape[1]
    draw = None
    if plan is not None and search.band9 is not None:

        def draw(rows: np.ndarray) -> None:  # the orders of ``rows``, from their digests
            for row in rows.tolist():
                orders[row] = digest_permutation(instance_of(row).digest, STREAM_ORDER, nv)

    limit = CHUNK if budget.nodes is None else min(CHUNK, budget.nodes)
    ran = search.run_many(starts, orders, limit, draw)
    share = round((time.perf_counter() - began) / starts.shape[0], 6)
    if plan is not None:
        carts = plan.cartesians(starts, counts)
    else:
        carts = [cartesian_of(cs, start) for start in starts]
    return (*ran, share, carts)


def _reports(
    verifier: Any,
    cs: Any,
    instance_of: Any,
    cap: int,
    budget: SearchBudget,
    got: tuple[Any, ...],
    at: Sequence[int],
    out: list[VerifierReport | None],
) -> None:
    """The report of each row (``out[at[row]]``) from :func:`_searched`'s arrays ``got``: the
    first solutions of all rows copied out of the workspace in one array; a UNIQUE report is a
    :class:`~puzzlekit.core.lazyreport.LazyReport` made from the chunk's fields and its row
    (:data:`_UNIQUE`; the instance asked of ``instance_of(row)`` only when its digest is read),
    the others as :meth:`BitmaskVerifier.verify` builds them."""
    sols, found, nodes, status, share, carts = got
    firsts = sols[: len(at), 0].copy()
    nv = len(cs.names)
    src = verifier._src
    spents = nodes.tolist()
    unique = bitmask_search.unique_shared(src, cap, _UNIQUE).copy()
    unique.update(_cs=cs, _firsts=firsts, _share=share, _make=instance_of, _spent=spents)
    shared, last = unique, None  # the chunk's fields with the last row's Cartesian size
    new, setattr_ = object.__new__, object.__setattr__
    rows = zip(range(len(at)), at, found.tolist(), spents, status.tolist(), carts, strict=False)
    for row, pos, count, spent, done, cart in rows:
        if count == 1 and done == DONE:
            if cart is not last:  # rows with as many givens share one (plan.cartesians)
                shared, last = unique.copy(), cart
                shared["cartesian_size"], shared["cartesian_size_log10"] = cart
            fields = shared.copy()
            fields["_row"] = row
            out[pos] = rep = new(LazyReport)
            setattr_(rep, "__dict__", fields)  # made(fields), inline: once a row
            continue
        inst = instance_of(row)
        if done != DONE:  # needs more nodes than one chunk: the clock is read on
            out[pos] = verifier.verify(inst, solution_cap=cap, budget=budget)
            continue
        stats: dict[str, Any] = {"nodes": spent, "seconds": share}
        if count:  # several: sorted over the instance's order (drawn from its digest)
            bits = sols[row, :count].copy()
            order = np.array(digest_permutation(inst.digest, STREAM_ORDER, nv), np.int64)
            solutions = partial(bitmask_search.solutions_of, cs, bits, order)
            view: Any = ReportView(inst, cs.schema)
            out[pos] = found_report(view, src, cap, count, solutions, cart, stats)
        else:
            out[pos] = verifier.outcome(inst, cs, cap, [], cart, stats, budget)


def _one_solution(rep: Any) -> list[Any]:
    return bitmask_search.solutions_of(rep._cs, rep._firsts[rep._row : rep._row + 1], None)


def _digest(rep: Any) -> str:
    return rep._make(rep._row).digest  # type: ignore[no-any-return]


def _stats(rep: Any) -> Any:
    return FrozenDict(nodes=rep._spent[rep._row], seconds=rep._share)


#: how a UNIQUE report of a chunk builds what it builds when first read, from what it keeps:
#: the compiled schema, the chunk's first solutions, search nodes and row of each report, its
#: share of the chunk's time, the instance
_UNIQUE = {"solutions": _one_solution, "instance_digest": _digest, "stats": _stats}


def _starts(cs: Any, members: Sequence[tuple[int, Instance, Any]]) -> tuple[Any, Any, None]:
    """The start domains and search orders of instances given by their clue effects."""
    nv = len(cs.names)
    starts = np.tile(cs.base_dom, (len(members), 1))
    idx: list[int] = []
    masks: list[int] = []
    for row, (_, _, effects) in enumerate(members):
        for e in effects.values():
            for i, m in e.unary:
                idx.append(row * nv + i)
                masks.append(m)
    if idx:
        restrict(starts.reshape(-1), np.array(idx, np.int64), np.array(masks, np.int64))
    orders = np.array(
        [digest_permutation(inst.digest, STREAM_ORDER, nv) for _, inst, _ in members], np.int64
    ).reshape(len(members), nv)
    return starts, orders, None
