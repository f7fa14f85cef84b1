"""What every verifier backend shares: the protocol, the budget, and the report-building steps.

A backend only has to answer "give me up to k solutions of these constraints over these domains,
within this budget"; everything else (reading the instance, narrowing domains, the cartesian
limit, the discriminative gap, shrinking a conflict to a minimal clue set, assembling the
report) is here, so that every backend reports the same contract in the same words.

Layout: the budget, the meter, the search-backend protocol and domain narrowing are in
:mod:`~puzzlekit.verifiers.search`, the report-building steps in
:mod:`~puzzlekit.verifiers.reports`, conflict shrinking in :mod:`~puzzlekit.verifiers.conflicts`;
this module holds the :class:`Verifier` protocol and the shared procedure :func:`verify_with`, and
re-exports every public name of the other three.

Not for: solving. Backends live in their own modules (``enumerative``, ``sat``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from puzzlekit.core import dispatch
from puzzlekit.core.model import (
    Instance,
    Problem,
)
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import (
    VerifierReport,
)
from puzzlekit.families import get_family
from puzzlekit.verifiers.conflicts import (
    RULE_CHECK_NODES,
    conflict_clue,
    minimal_conflict,
    shrink,
    shrink_conflict,
)
from puzzlekit.verifiers.reports import (
    discriminative_gap,
    invalid_report,
    outcome_report,
    rank_gap,
    report,
    source,
    too_large_report,
    try_resolve,
    undecided_report,
    unread_report,
)
from puzzlekit.verifiers.search import (
    DEFAULT_CAP,
    DEFAULT_MAX_CARTESIAN_LOG10,
    BudgetExceeded,
    Meter,
    SearchBackend,
    cardinalities,
    cartesian,
    culprits_over,
    digest_rng,
    narrow_domains,
    search_order,
    sort_solutions,
)

__all__ = [
    "DEFAULT_CAP",
    "DEFAULT_MAX_CARTESIAN_LOG10",
    "RULE_CHECK_NODES",
    "BudgetExceeded",
    "Meter",
    "SearchBackend",
    "cardinalities",
    "cartesian",
    "conflict_clue",
    "culprits_over",
    "digest_rng",
    "discriminative_gap",
    "family_of",
    "invalid_report",
    "minimal_conflict",
    "narrow_domains",
    "outcome_report",
    "rank_gap",
    "report",
    "search_order",
    "sort_solutions",
    "shrink",
    "shrink_conflict",
    "source",
    "too_large_report",
    "try_resolve",
    "undecided_report",
    "unread_report",
    "verify_with",
]


# --- the shared verification procedure --------------------------------------------------------


def verify_with(
    backend: SearchBackend,
    instance: Instance,
    src: Mapping[str, str],
    *,
    solution_cap: int,
    budget: SearchBudget | None,
    max_cartesian_log10: float | None,
    transform: Callable[[Problem], Problem] | None = None,
) -> VerifierReport:
    """The verification procedure every search backend shares (see the module docstring).

    ``transform`` rewrites the resolved problem before search (the ``faulty`` filter drops a
    rule class this way). ``dispatchErrorCount`` is the tally (:mod:`puzzlekit.core.dispatch`)
    of the opaque rules that raised on every path to the verdict (narrowing and search; not
    the shrinking of a conflict after it), whatever the verdict.
    """
    with dispatch.counting() as tally:
        rep = _verify_with(
            backend,
            instance,
            src,
            solution_cap=solution_cap,
            budget=budget,
            max_cartesian_log10=max_cartesian_log10,
            transform=transform,
        )
    return replace(rep, dispatch_error_count=len(tally)) if tally else rep


def _verify_with(
    backend: SearchBackend,
    instance: Instance,
    src: Mapping[str, str],
    *,
    solution_cap: int,
    budget: SearchBudget | None,
    max_cartesian_log10: float | None,
    transform: Callable[[Problem], Problem] | None,
) -> VerifierReport:
    budget = budget or SearchBudget()
    if solution_cap < 2:
        raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
    meter = Meter(budget)  # the clock runs from here: reading the clues spends the budget too
    try:
        with meter.within():
            resolved = try_resolve(instance)
    except BudgetExceeded as exc:
        return unread_report(instance, src, solution_cap, exc, meter.nodes, meter.seconds)
    if not isinstance(resolved, Problem):
        return invalid_report(instance, resolved, src, solution_cap)
    problem = transform(resolved) if transform is not None else resolved
    all_constraints = problem.all_constraints()
    domains = narrow_domains(problem, all_constraints)
    if domains is None:
        cart: tuple[int | float | None, float | None] = (0, None)
    else:
        cart = cartesian(domains)
    if domains is not None and max_cartesian_log10 is not None and cart[1] > max_cartesian_log10:
        return too_large_report(
            problem, src, solution_cap, domains, cart, max_cartesian_log10, meter.seconds
        )
    solutions: list[dict[str, int]] = []
    with meter.within():
        try:
            if domains is not None:
                solutions = backend.solve(problem, domains, all_constraints, solution_cap, meter)
        except BudgetExceeded as exc:
            return undecided_report(
                problem, src, solution_cap, domains, cart, exc, meter.nodes, meter.seconds
            )
        stats = {"nodes": meter.nodes, "seconds": round(meter.seconds, 6)}
        return outcome_report(
            problem,
            src,
            solution_cap,
            solutions,
            cart,
            stats,
            lambda: _uncounted(minimal_conflict, backend, problem, budget, meter),
        )


def _uncounted(fn: Callable[..., Any], *args: Any) -> Any:
    with dispatch.uncounted():
        return fn(*args)


def family_of(instance: Instance) -> Any:
    return get_family(instance.family)
