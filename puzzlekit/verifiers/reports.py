"""The report-building steps every verifier shares: the discriminative gap of several solutions,
the report of each verdict (:func:`outcome_report`, :func:`too_large_report`,
:func:`undecided_report`, :func:`unread_report`, :func:`invalid_report`) and the instance read
into a problem or its violations (:func:`try_resolve`), so that every backend reports the same
contract in the same words.

Re-exported by :mod:`puzzlekit.verifiers.base`. Not for searching, or for shrinking a conflict
(:mod:`puzzlekit.verifiers.conflicts`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from puzzlekit.core.jsondata import frozen
from puzzlekit.core.lazyreport import lazy_fields
from puzzlekit.core.model import (
    Instance,
    Problem,
    SpecError,
    Violation,
)
from puzzlekit.core.report import (
    HONEST_SCOPE,
    BudgetSpent,
    Conflict,
    Coord,
    GapItem,
    RejectDetail,
    Verdict,
    VerifierReport,
)
from puzzlekit.core.solutions import rule_out_share
from puzzlekit.families import get_family, resolve
from puzzlekit.verifiers.search import (
    DEFAULT_CAP,
    STREAM_TIES,
    BudgetExceeded,
    cardinalities,
    cartesian,
    culprits_over,
    digest_permutation,
    search_order,
    sort_solutions,
)

# --- report pieces --------------------------------------------------------------------------


class NotEncodable(TypeError):
    """A constraint the SAT backend cannot encode (``Predicate``, or a too wide ``Linear``).
    Raised by :mod:`puzzlekit.verifiers.sat.encoding`; defined here, so that catching it (a
    backend declining, :func:`puzzlekit.verifiers.registry.verify_or_decline`) imports no
    SAT solver."""


def rank_gap(
    cells: Iterable[tuple[Coord, str]],
    solutions: Sequence[Mapping[str, Any]],
    digest: str,
    target: Mapping[str, Any] | None = None,
) -> list[GapItem]:
    """The cells (coord, variable name) whose values differ among ``solutions``, ranked.

    ``discriminativePower`` is the share of the found solutions that a clue at the cell, with
    the target solution's value, would rule out; with no target, the first of ``solutions``.
    Most discriminative first; cells of equal power share a ``tieGroup`` (0: tied for the top)
    and are ordered among themselves by a generator seeded from ``digest`` (never by reading
    order), so one instance gives one order and the same bytes.
    """
    if not solutions:
        return []
    target = solutions[0] if target is None else target
    items = []
    for coord, name in cells:
        values = sorted({s[name] for s in solutions})
        if len(values) > 1:
            items.append((coord, name, tuple(values), rule_out_share(solutions, name, target)))
    draw = digest_permutation(digest, STREAM_TIES, len(items))
    order = sorted(range(len(items)), key=lambda i: (-items[i][3], draw[i]))
    powers = sorted({it[3] for it in items}, reverse=True)
    group = {p: g for g, p in enumerate(powers)}
    return [GapItem(*items[i], tie_group=group[items[i][3]]) for i in order]


def discriminative_gap(
    problem: Problem,
    solutions: Sequence[Mapping[str, int]],
    target: Mapping[str, int] | None = None,
) -> list[GapItem]:
    """Variables whose values differ among ``solutions``, most discriminative first
    (:func:`rank_gap`; the target is the first solution unless one is given)."""
    cells = [(v.coord, v.name) for v in problem.schema.variables]
    return rank_gap(cells, solutions, problem.instance.digest, target)


def source(name: str, version: str) -> dict[str, str]:
    return {"verifier": name, "version": version}


def report(
    verdict: Verdict,
    instance: Instance | str,
    src: Mapping[str, str],
    *,
    solutions: Sequence[Mapping[str, int]] = (),
    cap: int = DEFAULT_CAP,
    lower_bound: bool = False,
    completions: int = 0,
    cart: tuple[int | float | None, float | None] = (None, None),
    detail: RejectDetail | None = None,
    diagnostics: Iterable[str] = (),
    stats: Mapping[str, Any] | None = None,
) -> VerifierReport:
    """Assemble a report. ``instance`` may be a digest string (for input that never parsed)."""
    return VerifierReport(
        verdict=verdict,
        solutions=tuple(solutions),  # the report freezes a copy (FrozenDicts as they are)
        solution_count=len(solutions),
        solution_count_is_lower_bound=lower_bound,
        solution_cap=cap,
        total_completions_enumerated=completions,
        cartesian_size=cart[0],
        cartesian_size_log10=cart[1],
        diagnostics=tuple(diagnostics),
        reject_detail=detail,
        source=dict(src),
        honest_scope=HONEST_SCOPE[verdict],
        instance_digest=instance if isinstance(instance, str) else instance.digest,
        stats=dict(stats or {}),
    )


def invalid_report(
    instance: Instance | str, violations: Sequence[Violation], src: Mapping[str, str], cap: int
) -> VerifierReport:
    return report(
        Verdict.INVALID_SPEC,
        instance,
        src,
        cap=cap,
        detail=RejectDetail(Verdict.INVALID_SPEC, violations=tuple(violations)),
        diagnostics=[f"{v.field_name}: {v.detail}" for v in violations],
        stats={"nodes": 0, "seconds": 0.0},
    )


def try_resolve(instance: Instance) -> Problem | list[Violation]:
    """The resolved problem, or the violations that make the instance unusable."""
    try:
        return resolve(instance)
    except SpecError as exc:
        return list(exc.violations)


def unread_report(
    instance: Instance,
    src: Mapping[str, str],
    cap: int,
    exc: BudgetExceeded,
    nodes: int,
    seconds: float,
) -> VerifierReport:
    """The UNDECIDED report of a budget that ran out before the search began, while the clues
    were read into constraints (a family that lists a large cage's tuples stops on the search's
    deadline, :mod:`puzzlekit.core.deadline`): every variable with its whole domain."""
    schema = get_family(instance.family).schema(instance.params_dict())
    domains = {v.name: v.domain for v in schema.variables}
    problem = Problem(instance, schema, ())
    return undecided_report(problem, src, cap, domains, cartesian(domains), exc, nodes, seconds)


def too_large_report(
    problem: Problem,
    src: Mapping[str, str],
    cap: int,
    domains: Mapping[str, Sequence[int]],
    cart: tuple[int | float | None, float | None],
    limit_log10: float,
    seconds: float,
) -> VerifierReport:
    """The DOMAIN_TOO_LARGE report: every variable's cardinality and the culprits over the limit."""
    cards = cardinalities(problem, domains)
    detail = RejectDetail(
        Verdict.DOMAIN_TOO_LARGE,
        field_cardinalities=tuple(cards),
        culprits=tuple(culprits_over(cards, limit_log10)),
    )
    return report(
        Verdict.DOMAIN_TOO_LARGE,
        problem.instance,
        src,
        cap=cap,
        cart=cart,
        detail=detail,
        diagnostics=[f"log10 search space {cart[1]:.1f} > limit {limit_log10}"],
        stats={"nodes": 0, "seconds": round(seconds, 6)},
    )


def undecided_report(
    problem: Problem,
    src: Mapping[str, str],
    cap: int,
    domains: Mapping[str, Sequence[int]],
    cart: tuple[int | float | None, float | None],
    exc: BudgetExceeded,
    nodes: int,
    seconds: float,
) -> VerifierReport:
    """The UNDECIDED report; ``exc.solutions`` (if set) are what was found before it ran out."""
    partial = getattr(exc, "solutions", [])
    cards = cardinalities(problem, domains)
    detail = RejectDetail(
        Verdict.UNDECIDED,
        field_cardinalities=tuple(cards),
        culprits=tuple(culprits_over(cards, None)),
        budget=BudgetSpent(exc.resource, exc.limit, nodes, round(seconds, 6), len(partial)),
    )
    return report(
        Verdict.UNDECIDED,
        problem.instance,
        src,
        solutions=partial,
        cap=cap,
        lower_bound=True,
        completions=len(partial),
        cart=cart,
        detail=detail,
        diagnostics=[f"{exc.resource} budget of {exc.limit} ran out"],
        stats={"nodes": nodes, "seconds": round(seconds, 6)},
    )


def outcome_report(
    problem: Problem,
    src: Mapping[str, str],
    cap: int,
    solutions: Sequence[Mapping[str, int]],
    cart: tuple[int | float | None, float | None],
    stats: dict[str, Any],
    conflict: Callable[[], Conflict],
) -> VerifierReport:
    """UNIQUE, MULTIPLE (with the gap) or UNSOLVABLE (calling ``conflict()``) from the solutions.

    ``stats`` gains ``conflictSeconds`` when a conflict is computed.
    """
    instance = problem.instance
    # every backend lists the solutions in one history-free order (the lexicographic order of a
    # variable order drawn from the digest), so the first one, the gap's target, is the same
    # for every backend that found the same solutions
    if len(solutions) > 1:
        solutions = sort_solutions(solutions, search_order(problem.schema.names, instance.digest))
    if len(solutions) == 1:
        return report(
            Verdict.UNIQUE,
            instance,
            src,
            solutions=solutions,
            cap=cap,
            completions=1,
            cart=cart,
            stats=stats,
        )
    if len(solutions) > 1:
        detail = RejectDetail(
            Verdict.MULTIPLE, discriminative_gap=tuple(discriminative_gap(problem, solutions))
        )
        return report(
            Verdict.MULTIPLE,
            instance,
            src,
            solutions=solutions,
            cap=cap,
            lower_bound=len(solutions) >= cap,
            completions=len(solutions),
            cart=cart,
            detail=detail,
            stats=stats,
        )
    started = time.perf_counter()
    found = conflict()
    stats["conflictSeconds"] = round(time.perf_counter() - started, 6)
    return report(
        Verdict.UNSOLVABLE,
        instance,
        src,
        cap=cap,
        cart=cart,
        detail=RejectDetail(Verdict.UNSOLVABLE, conflict=found),
        stats=stats,
    )


def found_report(
    problem: Problem,
    src: Mapping[str, str],
    cap: int,
    count: int,
    solutions: Callable[[], Sequence[Mapping[str, int]]],
    cart: tuple[int | float | None, float | None],
    stats: dict[str, Any],
) -> VerifierReport:
    """The UNIQUE or MULTIPLE report of a finished search that found ``count`` (at least one)
    solutions, equal to :func:`outcome_report`'s of ``solutions()``, whose solutions and gap are
    built when first read (:class:`~puzzlekit.core.lazyreport.LazyReport`)."""
    instance = problem.instance
    if count == 1:  # the solutions as found: one needs no order

        def ordered(rep: VerifierReport) -> Sequence[Mapping[str, int]]:
            return solutions()

        verdict, gap = Verdict.UNIQUE, None
    else:
        verdict = Verdict.MULTIPLE

        def ordered(rep: VerifierReport) -> Sequence[Mapping[str, int]]:  # outcome_report's
            return sort_solutions(solutions(), search_order(problem.schema.names, instance.digest))

        def gap(rep: VerifierReport) -> RejectDetail:
            ranked = discriminative_gap(problem, rep.solutions)
            return RejectDetail(Verdict.MULTIPLE, discriminative_gap=tuple(ranked))

    fields = {
        "verdict": verdict,
        "solution_count": count,
        "solution_count_is_lower_bound": count >= cap and count > 1,
        "solution_cap": cap,
        "total_completions_enumerated": count,
        "cartesian_size": cart[0],
        "cartesian_size_log10": cart[1],
        "diagnostics": (),
        "source": frozen_source(src),
        "honest_scope": HONEST_SCOPE[verdict],
        "stats": frozen(stats),
        "dispatch_error_count": 0,
    }
    digest = instance.__dict__.get("_digest")  # not hashed yet: hashed when first read
    if digest is not None:
        fields["instance_digest"] = digest
        return lazy_fields(ordered, gap, fields)
    return lazy_fields(ordered, gap, fields, lambda rep: instance.digest)


def unique_fields(source: Any, cap: int) -> dict[str, Any]:
    """The fields every UNIQUE report of a finished search shares (``source`` frozen); the
    rest (cartesian size, stats, solutions, instance digest) are the instance's."""
    return {
        "verdict": Verdict.UNIQUE,
        "solution_count": 1,
        "solution_count_is_lower_bound": False,
        "solution_cap": cap,
        "total_completions_enumerated": 1,
        "diagnostics": (),
        "reject_detail": None,
        "source": source,
        "honest_scope": HONEST_SCOPE[Verdict.UNIQUE],
        "dispatch_error_count": 0,
    }


_SOURCES: dict[tuple[tuple[str, str], ...], Any] = {}


def frozen_source(src: Mapping[str, str]) -> Any:
    """``src`` frozen (a report's ``source``), one object per content (a verifier hands the
    same few sources to every report)."""
    key = tuple(src.items())
    try:
        found = _SOURCES.get(key)
    except TypeError:  # a value that cannot be hashed: frozen afresh
        return frozen(dict(src))
    if found is None:
        if len(_SOURCES) > 256:
            _SOURCES.clear()
        found = _SOURCES[key] = frozen(dict(src))
    return found
