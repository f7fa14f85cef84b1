"""What every verifier backend shares: the search meter and the report-building steps.

A backend only has to answer "give me up to k solutions of these constraints over these domains,
within this budget"; everything else (reading the instance, narrowing domains, the cartesian
limit, the discriminative gap, shrinking a conflict to a minimal clue set, assembling the
report) is here, so that every backend reports the same contract in the same words.

The protocol (:class:`~puzzlekit.core.protocols.Verifier`) and :class:`SearchBudget` are declared
in :mod:`puzzlekit.core.protocols` and importable from here.

Not for: solving. Backends live in their own modules (``enumerative``, ``sat``, ...).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from puzzlekit.core.model import (
    AllDifferent,
    Constraint,
    Instance,
    Problem,
    SpecError,
    Violation,
)

# the protocol and the budget are declared in core.protocols; importable from here as before
from puzzlekit.core.protocols import DEFAULT_CAP as DEFAULT_CAP
from puzzlekit.core.protocols import SearchBudget as SearchBudget
from puzzlekit.core.protocols import Verifier as Verifier
from puzzlekit.core.report import (
    HONEST_SCOPE,
    BudgetSpent,
    Conflict,
    ConflictClue,
    ConflictRule,
    FieldCardinality,
    GapItem,
    RejectDetail,
    Verdict,
    VerifierReport,
)
from puzzlekit.families import get_family, resolve

#: log10 of the largest search space (product of narrowed domain sizes) a backend will start on
DEFAULT_MAX_CARTESIAN_LOG10 = 400.0


class BudgetExceeded(Exception):
    """Raised inside a backend's search when a budget runs out."""

    def __init__(self, resource: str, limit: float) -> None:
        super().__init__(resource)
        self.resource = resource
        self.limit = limit


class Meter:
    """Counts search nodes and enforces a :class:`SearchBudget` (checks the clock every 256)."""

    def __init__(self, budget: SearchBudget) -> None:
        self.budget = budget
        self.nodes = 0
        self.start = time.perf_counter()
        self._deadline = self.start + budget.seconds if budget.seconds is not None else None

    def tick(self, n: int = 1) -> None:
        self.nodes += n
        b = self.budget
        if b.nodes is not None and self.nodes > b.nodes:
            raise BudgetExceeded("nodes", b.nodes)
        if self._deadline is not None and (self.nodes & 255) == 0:
            if time.perf_counter() > self._deadline:
                raise BudgetExceeded("seconds", b.seconds)

    def check_clock(self) -> None:
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise BudgetExceeded("seconds", self.budget.seconds)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start


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


# --- report pieces --------------------------------------------------------------------------


def discriminative_gap(problem: Problem, solutions: Sequence[Mapping[str, int]]) -> list[GapItem]:
    """Variables whose values differ among ``solutions``, most discriminative first."""
    out = []
    n = len(solutions)
    for v in problem.schema.variables:
        values = sorted({s[v.name] for s in solutions})
        if len(values) > 1:
            out.append(GapItem(v.coord, v.name, tuple(values), round(len(values) / n, 6)))
    out.sort(key=lambda g: -g.discriminative_power)  # stable: schema order among ties
    return out


def conflict_clue(problem: Problem, clue_id: str) -> ConflictClue:
    clue = next(c for c in problem.clues if c.id == clue_id)
    coord = clue.coords[0] if clue.coords else None
    var = problem.schema.var_at(coord) if coord is not None else None
    return ConflictClue(
        clue.id,
        clue.kind,
        coord,
        var.name if var else f"clue {clue.id}",
        clue.coords,
        clue.data_dict(),
    )


def shrink(
    items: Sequence[str], is_unsat: Callable[[Sequence[str]], bool | None]
) -> tuple[list[str], bool]:
    """Deletion-based shrinking to a minimal unsatisfiable subset.

    ``is_unsat(subset)`` answers True (unsatisfiable), False, or None (budget ran out). An item
    is dropped when the rest stays unsatisfiable; the result is minimal when no answer was None.
    """
    kept = list(items)
    minimal = True
    i = 0
    while i < len(kept):
        trial = kept[:i] + kept[i + 1 :]
        answer = is_unsat(trial)
        if answer is True:
            kept = trial
        else:
            minimal = minimal and answer is False
            i += 1
    return kept, minimal


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
        solutions=tuple(dict(s) for s in solutions),
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


# --- the shared verification procedure --------------------------------------------------------


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
    rule class this way).
    """
    budget = budget or SearchBudget()
    if solution_cap < 2:
        raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
    resolved = try_resolve(instance)
    if not isinstance(resolved, Problem):
        return invalid_report(instance, resolved, src, solution_cap)
    problem = transform(resolved) if transform is not None else resolved
    meter = Meter(budget)
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
        lambda: minimal_conflict(backend, problem, budget),
    )


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


#: node budget of one satisfiability check while shrinking the rules of a conflict
RULE_CHECK_NODES = 20_000


def minimal_conflict(backend: SearchBackend, problem: Problem, budget: SearchBudget) -> Conflict:
    """Shrink the clues, then the rules, of an unsatisfiable problem to a minimal conflict.

    Clues are shrunk under the full budget. Rules are shrunk with a small node budget per check
    (dropping a rule can leave a loose problem that a static-order search explores slowly).
    """
    by_rule = {r.origin.id: r for r in problem.schema.rules}
    clue_cs = dict(problem.clue_constraints)
    small = SearchBudget(
        nodes=min(budget.nodes or RULE_CHECK_NODES, RULE_CHECK_NODES), seconds=budget.seconds
    )

    def unsat(clue_ids: Sequence[str], rids: Sequence[str], b: SearchBudget) -> bool | None:
        cs = [by_rule[r] for r in rids]
        for cid in clue_ids:
            cs.extend(clue_cs[cid])
        doms = narrow_domains(problem, cs)
        if doms is None:
            return True
        try:
            return not backend.solve(problem, doms, cs, 1, Meter(b))
        except BudgetExceeded:
            return None

    return shrink_conflict(
        problem, lambda c, r: unsat(c, r, budget), rule_unsat=lambda c, r: unsat(c, r, small)
    )


def shrink_conflict(
    problem: Problem,
    unsat: Callable[[Sequence[str], Sequence[str]], bool | None],
    *,
    rule_unsat: Callable[[Sequence[str], Sequence[str]], bool | None] | None = None,
) -> Conflict:
    """Shrink the clues (under every rule), then the rules, to a minimal conflict.

    ``unsat(clue_ids, rule_ids)`` answers whether those clues and rules together have no solution
    (None: the budget ran out); ``rule_unsat`` (default ``unsat``) answers while shrinking rules.
    Clues are dropped in instance order and rules in schema order, so every backend with exact
    answers reports the same conflict for the same instance. ``minimal`` speaks of the clues; a
    rule whose check ran out is kept, so the rules reported always suffice for the conflict.
    """
    rule_unsat = rule_unsat or unsat
    rules = list(problem.schema.rules)
    rule_ids = [r.origin.id for r in rules]
    by_rule = dict(zip(rule_ids, rules, strict=True))
    clue_cs = dict(problem.clue_constraints)
    clue_ids, clues_minimal = shrink([c.id for c in problem.clues], lambda s: unsat(s, rule_ids))
    # First try dropping, at once, every rule that shares no variable with the conflict's clues.
    touched = {v for cid in clue_ids for c in clue_cs[cid] for v in c.vars}
    near = [r for r in rule_ids if touched & set(by_rule[r].vars)]
    candidates = near if rule_unsat(clue_ids, near) is True else rule_ids
    kept_rules, _ = shrink(candidates, lambda s: rule_unsat(clue_ids, s))
    return Conflict(
        tuple(conflict_clue(problem, cid) for cid in clue_ids),
        tuple(ConflictRule(r, by_rule[r].origin.coords) for r in kept_rules),
        clues_minimal,
    )


def family_of(instance: Instance) -> Any:
    return get_family(instance.family)
