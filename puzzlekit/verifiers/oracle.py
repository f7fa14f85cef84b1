"""Oracle verifiers for the ``toolcall`` family: enumerate the hidden fields, ask the oracle.

``oracle`` (:class:`OracleVerifier`, the family's default) narrows each field to its given value,
refuses with DOMAIN_TOO_LARGE (``fieldCardinalities``, ``culprits``) before any oracle call when
the cartesian product of the hidden fields exceeds ``max_completions``, then calls the tool's
oracle on every completion, in schema order. It reports UNIQUE when exactly one completion gives
``expectedVerdict``; MULTIPLE with ``verdictDistribution`` and ``discriminativeGap`` (computed on
the capped solutions, which the diagnostics call a sample when the cap cut them); UNSOLVABLE with
``verdictDistribution`` (the expected verdict absent from it) and a minimal conflict among the
given fields. An oracle call that raises is counted in ``dispatchErrorCount`` and the enumeration
goes on. Asked for the ``fieldVerdicts`` extra, it also breaks the verdict distribution down by
hidden field and value (``stats["fieldVerdicts"]``): how many solutions each value of each field
leaves, over every completion rather than the capped sample; the adaptive strategy reads it.

``oracle-plain`` (:class:`~puzzlekit.verifiers.oracle_plain.PlainOracleVerifier`, its own module)
is the holdout: an independent plain-Python
enumeration that reads the instance's JSON itself (tool, fixed input, givens, domains from the
tool's JSON Schema) with ``itertools.product`` and shares nothing with the family module but the
tool registry. Both decline (``NotImplementedError``) instances of other families.

Not for: tools with large or unbounded inputs (give those fields in ``fixedInput``).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance, Problem
from puzzlekit.core.protocols import FIELD_VERDICTS, SearchBudget
from puzzlekit.core.report import FieldCardinality, RejectDetail, Verdict, VerifierReport
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    BudgetExceeded,
    Meter,
    cartesian,
    culprits_over,
    discriminative_gap,
    invalid_report,
    report,
    shrink_conflict,
    source,
    try_resolve,
    undecided_report,
)

VERSION = "1.0"
FAMILY = "toolcall"
#: completions (oracle calls) an instance may need before it is DOMAIN_TOO_LARGE
DEFAULT_MAX_COMPLETIONS = 200_000


def _decline(instance: Instance, name: str) -> None:
    if instance.family != FAMILY:
        raise NotImplementedError(f"{name} verifies only {FAMILY} instances")


class OracleVerifier(protocols.Verifier):
    """Exact verifier of oracle families: full enumeration with a verdict distribution."""

    name = "oracle"
    version = VERSION
    exact = True
    holdout_name = "oracle-plain"

    def accepts(self, instance: Instance) -> bool:
        """Tool-call instances only."""
        return instance.family == FAMILY

    def __init__(self, *, max_completions: int = DEFAULT_MAX_COMPLETIONS) -> None:
        self.max_completions = max_completions

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        from puzzlekit.families.toolcall import TOOLCALL

        _decline(instance, self.name)
        if solution_cap < 2:
            raise ValueError("solution_cap must be at least 2: uniqueness needs a second solution")
        src = source(self.name, self.version)
        resolved = try_resolve(instance)
        if not isinstance(resolved, Problem):
            return invalid_report(instance, resolved, src, solution_cap)
        problem = resolved
        spec = TOOLCALL.spec(problem.schema)
        meter = Meter(budget or SearchBudget())
        domains = _narrowed(problem)
        cart = cartesian(domains)
        names = list(problem.schema.names)
        size = math.prod(len(domains[n]) for n in names)
        if size > self.max_completions:
            return self._too_large(instance, problem, src, solution_cap, domains, cart, size, meter)
        tally = _Tally(outcomes=[] if FIELD_VERDICTS in extras else None)
        try:
            _enumerate(spec, domains, names, solution_cap, meter, tally)
        except BudgetExceeded as exc:
            exc.solutions = tally.solutions  # type: ignore[attr-defined]
            rep = undecided_report(
                problem, src, solution_cap, domains, cart, exc, meter.nodes, meter.seconds
            )
            return replace(rep, dispatch_error_count=tally.errors)
        rep = _outcome(instance, problem, spec, src, solution_cap, cart, meter, tally)
        if tally.outcomes is not None:
            rep = rep.with_stats(fieldVerdicts=_field_verdicts(problem, spec, domains, tally))
        return replace(rep, dispatch_error_count=tally.errors)

    def _too_large(
        self,
        instance: Instance,
        problem: Problem,
        src: Mapping[str, str],
        solution_cap: int,
        domains: Mapping[str, Sequence[int]],
        cart: tuple[int | float | None, float],
        size: int,
        meter: Meter,
    ) -> VerifierReport:
        """DOMAIN_TOO_LARGE before any oracle call: the fields' cardinalities and culprits."""
        cards = [
            FieldCardinality(v.coord, v.name, len(domains[v.name]))
            for v in problem.schema.variables
            if len(domains[v.name]) > 1
        ]
        detail = RejectDetail(
            Verdict.DOMAIN_TOO_LARGE,
            field_cardinalities=tuple(cards),
            culprits=tuple(culprits_over(cards, math.log10(self.max_completions))),
        )
        return report(
            Verdict.DOMAIN_TOO_LARGE,
            instance,
            src,
            cap=solution_cap,
            cart=cart,
            detail=detail,
            diagnostics=[f"{size} completions > limit {self.max_completions}; no oracle call"],
            stats={"nodes": 0, "seconds": round(meter.seconds, 6)},
        )


@dataclass
class _Tally:
    """What an enumeration of completions found so far (kept when the budget runs out)."""

    dist: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    matching: int = 0
    enumerated: int = 0
    solutions: list[dict[str, int]] = field(default_factory=list)
    #: for the ``fieldVerdicts`` extra, when asked: each completion's values and verdict
    outcomes: list[tuple[tuple[int, ...], str]] | None = None


def _enumerate(
    spec: Any,
    domains: Mapping[str, Sequence[int]],
    names: Sequence[str],
    solution_cap: int,
    meter: Meter,
    tally: _Tally,
) -> None:
    """Call the oracle on every completion in schema order, counting into ``tally``; raises
    BudgetExceeded when the meter's budget runs out."""
    for xs in itertools.product(*(domains[n] for n in names)):
        meter.tick()
        tally.enumerated += 1
        values = dict(zip(names, xs, strict=True))
        try:
            verdict = spec.tool.oracle(spec.decode(values))
        except Exception:
            tally.errors += 1
            continue
        tally.dist[str(verdict)] += 1
        if tally.outcomes is not None:
            tally.outcomes.append((xs, str(verdict)))
        if verdict == spec.expected:
            tally.matching += 1
            if len(tally.solutions) < solution_cap:
                tally.solutions.append(values)


def _field_verdicts(
    problem: Problem, spec: Any, domains: Mapping[str, Sequence[int]], tally: _Tally
) -> dict[str, Any]:
    """The ``fieldVerdicts`` extra: for each hidden field (more than one value left) and each of
    its values, the verdicts of the completions enumerated with that value (every value listed,
    an empty distribution where every call raised)."""
    outcomes = tally.outcomes or []
    fields = []
    for i, v in enumerate(problem.schema.variables):  # the order of the enumerated tuples
        if len(domains[v.name]) < 2:
            continue
        fspec = spec.field(v.name)
        pairs = Counter((xs[i], verdict) for xs, verdict in outcomes)
        for x in domains[v.name]:
            counts = Counter({verdict: n for (y, verdict), n in pairs.items() if y == x})
            fields.append(
                {
                    "field": v.name,
                    "coord": list(v.coord),
                    "value": fspec.decode(x) if fspec is not None else x,
                    "domainValue": x,
                    "verdicts": dict(sorted(counts.items())),
                }
            )
    return {"expectedVerdict": spec.expected, "fields": fields}


def _outcome(
    instance: Instance,
    problem: Problem,
    spec: Any,
    src: Mapping[str, str],
    solution_cap: int,
    cart: tuple[int | float | None, float],
    meter: Meter,
    tally: _Tally,
) -> VerifierReport:
    """The UNIQUE, MULTIPLE or UNSOLVABLE report of a finished enumeration."""
    solutions, matching, enumerated = tally.solutions, tally.matching, tally.enumerated
    stats = {
        "nodes": meter.nodes,
        "seconds": round(meter.seconds, 6),
        "matchingCompletions": matching,
    }
    distribution = dict(sorted(tally.dist.items()))
    notes = [f"{enumerated} completions enumerated, {matching} give {spec.expected!r}"]
    if tally.errors:
        notes.append(f"{tally.errors} oracle call(s) raised; counted as errors, not verdicts")
    if len(solutions) == 1:
        rep = report(
            Verdict.UNIQUE,
            instance,
            src,
            solutions=solutions,
            cap=solution_cap,
            completions=enumerated,
            cart=cart,
            diagnostics=notes,
            stats=stats,
        )
    elif solutions:
        if matching > len(solutions):
            notes.append(
                f"discriminativeGap computed on a sample: the first {len(solutions)} of "
                f"{matching} solutions"
            )
        detail = RejectDetail(
            Verdict.MULTIPLE,
            discriminative_gap=tuple(discriminative_gap(problem, solutions)),
            verdict_distribution=distribution,
        )
        rep = report(
            Verdict.MULTIPLE,
            instance,
            src,
            solutions=solutions,
            cap=solution_cap,
            lower_bound=len(solutions) >= solution_cap,
            completions=enumerated,
            cart=cart,
            detail=detail,
            diagnostics=notes,
            stats=stats,
        )
    else:
        conflict = _conflict(problem, spec, meter)
        detail = RejectDetail(
            Verdict.UNSOLVABLE, conflict=conflict, verdict_distribution=distribution
        )
        rep = report(
            Verdict.UNSOLVABLE,
            instance,
            src,
            cap=solution_cap,
            completions=enumerated,
            cart=cart,
            detail=detail,
            diagnostics=notes,
            stats=stats,
        )
    return rep


def _narrowed(problem: Problem, clue_ids: Sequence[str] | None = None) -> dict[str, list[int]]:
    """Each variable's domain under its given clues (all clues, or only ``clue_ids``)."""
    doms = {v.name: list(v.domain) for v in problem.schema.variables}
    for cid, cs in problem.clue_constraints:
        if clue_ids is not None and cid not in clue_ids:
            continue
        for c in cs:
            (name,) = c.vars
            doms[name] = [x for x in doms[name] if c.holds({name: x})]
    return doms


def _conflict(problem: Problem, spec: Any, meter: Meter) -> Any:
    """A minimal set of givens under which no completion gives the expected verdict."""
    names = list(problem.schema.names)
    cache: dict[tuple[int, ...], bool] = {}

    def good(xs: tuple[int, ...]) -> bool:
        if xs not in cache:
            try:
                cache[xs] = spec.tool.oracle(spec.decode(dict(zip(names, xs, strict=True)))) == (
                    spec.expected
                )
            except Exception:
                cache[xs] = False
        return cache[xs]

    def unsat(clue_ids: Sequence[str], rule_ids: Sequence[str]) -> bool | None:
        doms = _narrowed(problem, clue_ids)
        if any(not d for d in doms.values()):
            return True
        if "oracle" not in rule_ids:
            return False
        try:
            for xs in itertools.product(*(doms[n] for n in names)):
                meter.tick()
                if good(xs):
                    return False
        except BudgetExceeded:
            return None
        return True

    return shrink_conflict(problem, unsat)
