"""Deliberately imperfect filters, so that the filter/holdout split can be tested and studied.

- ``sampling``: k randomized searches; claims UNIQUE when all found the same solution.
- ``budgeted``: the reference search under a small node budget; treats UNDECIDED as accept.
- ``faulty``: ignores one rule class (by default the Sudoku boxes). Its wrong model of the rules
  is shared by the generator side that trusts it (``believed_schema``): the loop samples
  solutions under the believed rules, so a faulty filter accepts puzzles that break the real
  ones, and only the holdout can tell.

None of these is exact (``exact = False``); never use one as a holdout.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection

import numpy as np

from puzzlekit.core import dispatch, protocols
from puzzlekit.core.model import Instance, Problem, Schema
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import HONEST_SCOPE, RejectDetail, Verdict, VerifierReport
from puzzlekit.core.solutions import random_solution
from puzzlekit.verifiers.base import (
    DEFAULT_CAP,
    BudgetExceeded,
    Meter,
    cartesian,
    discriminative_gap,
    invalid_report,
    report,
    source,
    try_resolve,
    undecided_report,
    unread_report,
    verify_with,
)
from puzzlekit.verifiers.enumerative import EnumerativeVerifier, _Backend

VERSION = "1.0"


class SamplingVerifier(protocols.Verifier):
    """``k`` randomized complete searches, seeded by the instance digest (deterministic)."""

    name = "sampling"
    version = VERSION
    exact = False

    def __init__(self, k: int = 3, seed: int = 0) -> None:
        self.k = k
        self.seed = seed

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        """The samples' claim; ``dispatchErrorCount`` counts the opaque rules that raised on the
        inputs the samples reached (:mod:`puzzlekit.core.dispatch`)."""
        with dispatch.counting() as tally:
            rep = self._sample(instance, solution_cap, budget)
        return dataclasses.replace(rep, dispatch_error_count=len(tally)) if tally else rep

    def _sample(
        self, instance: Instance, solution_cap: int, budget: SearchBudget | None
    ) -> VerifierReport:
        src = source(self.name, self.version)
        meter = Meter(budget or SearchBudget())  # reading the clues spends the budget too
        try:
            with meter.within():
                resolved = try_resolve(instance)
        except BudgetExceeded as exc:
            rep = unread_report(instance, src, solution_cap, exc, 0, meter.seconds)
            return rep.with_stats(samples=self.k)
        if not isinstance(resolved, Problem):
            return invalid_report(instance, resolved, src, solution_cap)
        problem = resolved
        entropy = [self.seed, *bytes.fromhex(instance.digest.split(":", 1)[1])[:8]]
        rng = np.random.default_rng(entropy)
        found: list[dict[str, int]] = []
        clue_cs = [c for _, cs in problem.clue_constraints for c in cs]
        with meter.within():  # the random searches stop on the budget's clock
            try:
                for _ in range(self.k):
                    try:
                        sol = random_solution(problem.schema, rng, extra=clue_cs, max_restarts=3)
                    except RuntimeError:
                        continue
                    if sol not in found:
                        found.append(sol)
            except BudgetExceeded as exc:
                if len(found) < 2:  # two distinct solutions prove MULTIPLE; less decides nothing
                    doms = {v.name: list(v.domain) for v in problem.schema.variables}
                    rep = undecided_report(
                        problem, src, solution_cap, doms, cartesian(doms), exc, 0, meter.seconds
                    )
                    return rep.with_stats(samples=self.k)
        found = found[:solution_cap]
        stats = {"samples": self.k}
        if not found:
            detail = RejectDetail(Verdict.UNDECIDED, budget=None)
            return dataclasses.replace(
                report(
                    Verdict.UNDECIDED,
                    instance,
                    src,
                    cap=solution_cap,
                    lower_bound=True,
                    detail=detail,
                    stats=stats,
                    diagnostics=[f"no sample found a solution in {self.k} searches"],
                ),
            )
        if len(found) == 1:
            rep = report(
                Verdict.UNIQUE,
                instance,
                src,
                solutions=found,
                cap=solution_cap,
                completions=1,
                stats=stats,
                diagnostics=[f"all {self.k} samples found the same solution"],
            )
            return dataclasses.replace(
                rep,
                honest_scope="Sampling claim: every sample found the same solution; other "
                "solutions may exist.",
            )
        detail = RejectDetail(
            Verdict.MULTIPLE, discriminative_gap=tuple(discriminative_gap(problem, found))
        )
        return report(
            Verdict.MULTIPLE,
            instance,
            src,
            solutions=found,
            cap=solution_cap,
            lower_bound=True,
            completions=len(found),
            detail=detail,
            stats=stats,
        )


class BudgetedVerifier(protocols.Verifier):
    """The reference search with a small node budget; an UNDECIDED result is accepted."""

    name = "budgeted"
    version = VERSION
    exact = False

    def __init__(self, nodes: int = 500) -> None:
        self.nodes = nodes
        self._inner = EnumerativeVerifier()

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        asked = budget or SearchBudget()
        nodes = self.nodes if asked.nodes is None else min(self.nodes, asked.nodes)
        rep = self._inner.verify(
            instance,
            solution_cap=solution_cap,
            budget=SearchBudget(nodes=nodes, seconds=asked.seconds),  # the caller's clock
        )
        src = source(self.name, self.version)
        if rep.verdict is Verdict.UNDECIDED:
            return dataclasses.replace(
                rep,
                verdict=Verdict.UNIQUE,
                reject_detail=None,
                source=src,
                diagnostics=(*rep.diagnostics, "accepted: the budget ran out before a verdict"),
                honest_scope="Budgeted claim: the search ran out of budget and the instance was "
                "accepted unproven.",
            )
        return dataclasses.replace(rep, source=src)


class FaultyVerifier(protocols.Verifier):
    """Exact search over the rules minus one rule class (rule ids starting with ``ignore``)."""

    name = "faulty"
    version = VERSION
    exact = False

    def __init__(self, ignore: str = "box") -> None:
        self.ignore = ignore
        self._backend = _Backend()

    def _keep(self, rule_id: str) -> bool:
        return not rule_id.startswith(self.ignore)

    def believed_schema(self, schema: Schema) -> Schema:
        """The schema as this filter believes it: without the ignored rule class."""
        rules = tuple(r for r in schema.rules if self._keep(r.origin.id))
        return Schema(schema.family, schema.params, schema.variables, rules, schema.clue_kinds)

    def _transform(self, problem: Problem) -> Problem:
        return Problem(
            problem.instance, self.believed_schema(problem.schema), problem.clue_constraints
        )

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        rep = verify_with(
            self._backend,
            instance,
            source(self.name, self.version),
            solution_cap=solution_cap,
            budget=budget,
            max_cartesian_log10=None,
            transform=self._transform,
        )
        if rep.verdict is Verdict.UNIQUE:
            return dataclasses.replace(
                rep,
                honest_scope=HONEST_SCOPE[Verdict.UNIQUE]
                + f" Rules starting with {self.ignore!r} were ignored.",
            )
        return rep


FACTORIES: dict[str, Callable[..., object]] = {
    "sampling": SamplingVerifier,
    "budgeted": BudgetedVerifier,
    "faulty": FaultyVerifier,
}
