"""Two strategies that differ from ``adaptive`` only in where they repair a MULTIPLE puzzle.

``adaptive`` repairs at the cells of the gap with the highest ``discriminativePower``, which the
report computes as (distinct values at the cell) / (solutions found). That figure ties across the
whole gap whenever two solutions are found (the default cap of ``generate`` and of experiment
configs: every gap cell scores 1.0), and for 0/1 families at any cap (every gap cell holds both
values); there ``adaptive`` draws from the whole gap. The two strategies here make the
comparison a researcher wants:

- ``random-gap``: repair at a cell drawn uniformly from the whole gap (among the cells where the
  family offers a move; one of that cell's moves, uniformly, ignoring any ``rules_out``
  ranking). The ablation: it reads *where* the puzzle is ambiguous but not *how much* a cell
  would settle.
- ``rule-out``: repair at a cell whose true value (the strategy knows the solution it builds the
  puzzle from) rules out the most solutions of the report, the share the design calls the
  discriminative power; any cell where some found solution differs from the true one is a
  candidate, not only the gap's. Ties are broken uniformly; among the cell's moves, those the
  family ranks best (``rules_out``, see ``puzzlekit.core.protocols.Repair``) are preferred.

Every other case (UNSOLVABLE, UNDECIDED, DOMAIN_TOO_LARGE, INVALID_SPEC) is handled as
``adaptive`` handles it. Both read only what every report carries, so they work for every family;
both are seeded like the built-ins (one seed, one output).

Not for: choosing among a family's kinds of moves (both take the family's moves as offered).
"""

from __future__ import annotations

import numpy as np
from puzzlekit.core.protocols import Repair, Step
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import get_family
from puzzlekit.generators import register_strategy
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.generators.base import in_schema_order


class _GapRepair(Adaptive):
    """``adaptive`` with another choice of the cell to repair at on a MULTIPLE report."""

    def cells(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> list[tuple]:
        """The candidate cells, best first (groups of equals already shuffled by ``rng``)."""
        raise NotImplementedError

    def pick(self, moves: list[Repair], rng: np.random.Generator) -> Repair:
        """One of a cell's moves: uniformly."""
        return moves[int(rng.integers(len(moves)))]

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        rd = report.reject_detail
        if step.solution is None or rd is None or rd.case is not Verdict.MULTIPLE:
            return super().propose(step, report, rng)
        inst = step.instance
        fam = get_family(inst.family)
        schema = step.schema or fam.schema(inst.params_dict())
        # the first cell that offers a move, in the order of cells(): asks the family for moves
        # at as few cells as possible on a large gap
        for coord in self.cells(step, report, rng):
            moves = fam.repair_moves(schema, inst, step.solution, coord, found=report.solutions)
            if moves:
                move = self.pick(moves, rng)
                return step.then(in_schema_order(move.apply(inst), schema), move.action, coord)
        return self.restart(step, rng)


class RandomGap(_GapRepair):
    """``RandomGap(k)``: start from ``k`` random clues of a random solution; on MULTIPLE repair
    at a uniformly random cell of the gap (the first of a random order that offers a move)."""

    name = "random-gap"

    def cells(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> list[tuple]:
        gap = report.reject_detail.discriminative_gap if report.reject_detail else ()
        return [tuple(gap[int(i)].coord) for i in rng.permutation(len(gap))]


class RuleOut(_GapRepair):
    """``RuleOut(k)``: start from ``k`` random clues of a random solution; on MULTIPLE repair at
    a cell whose true value rules out the most solutions of the report."""

    name = "rule-out"

    def cells(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> list[tuple]:
        truth = step.solution or {}
        schema = step.schema or get_family(step.instance.family).schema(step.instance.params_dict())
        scored: dict[int, list[tuple]] = {}
        for v in schema.variables:
            score = sum(1 for s in report.solutions if s.get(v.name) != truth.get(v.name))
            if score:
                scored.setdefault(score, []).append(v.coord)
        out: list[tuple] = []
        for score in sorted(scored, reverse=True):
            group = scored[score]
            out += [tuple(group[int(i)]) for i in rng.permutation(len(group))]
        return out

    def pick(self, moves: list[Repair], rng: np.random.Generator) -> Repair:
        """One of the moves the family ranks best (``rules_out``), else one of all: uniformly."""
        ranked = [m.rules_out for m in moves if m.rules_out is not None]
        if ranked:
            moves = [m for m in moves if m.rules_out == max(ranked)]
        return moves[int(rng.integers(len(moves)))]


register_strategy(RandomGap.name, RandomGap)
register_strategy(RuleOut.name, RuleOut)
