"""The adaptive strategy: it reads the filter's coordinate-tagged reject detail and repairs the
puzzle where the detail points, instead of starting over.

- MULTIPLE: apply one of the family's repair moves at the top ``discriminativeGap`` coordinate
  (for givens families: reveal the true digit there); ties among equally discriminative cells
  and among moves are broken by the seeded rng;
- UNSOLVABLE: drop one clue of the ``conflict`` (chosen by the rng);
- DOMAIN_TOO_LARGE / UNDECIDED: a repair move at a culprit coordinate;
- INVALID_SPEC: remove the clues the violations name.

Each step records its action and coordinate. When a detail names nothing it can act on, the
strategy starts over with a fresh puzzle (action ``restart``).
"""

from __future__ import annotations

import numpy as np

from generators.base import FreshStart, Step, in_schema_order
from puzzlekit.families import get_family
from puzzlekit.report import Verdict, VerifierReport


class Adaptive(FreshStart):
    """``Adaptive(k)``: start from ``k`` random clues of a random solution, then repair."""

    name = "adaptive"

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        inst = step.instance
        fam = get_family(inst.family)
        schema = step.schema or fam.schema(inst.params_dict())
        rd = report.reject_detail
        if step.solution is not None and rd is not None:
            coords: list[tuple] = []
            if rd.case is Verdict.MULTIPLE and rd.discriminative_gap:
                top = rd.discriminative_gap[0].discriminative_power
                coords = [
                    tuple(g.coord) for g in rd.discriminative_gap if g.discriminative_power == top
                ]
            elif rd.case in (Verdict.DOMAIN_TOO_LARGE, Verdict.UNDECIDED):
                coords = [tuple(f.coord) for f in rd.culprits]
            options = [
                (c, moves)
                for c in coords
                if (moves := fam.repair_moves(schema, inst, step.solution, c))
            ]
            if not options and rd.case is Verdict.MULTIPLE:
                # the most discriminative cells offer no move: try the rest of the gap
                options = [
                    (tuple(g.coord), moves)
                    for g in rd.discriminative_gap
                    if (moves := fam.repair_moves(schema, inst, step.solution, g.coord))
                ]
            if options:
                coord, moves = options[int(rng.integers(len(options)))]
                move = moves[int(rng.integers(len(moves)))]
                new = in_schema_order(move.apply(inst), schema)
                return step.then(new, move.action, coord)
        if rd is not None and rd.case is Verdict.UNSOLVABLE and rd.conflict and rd.conflict.clues:
            victim = rd.conflict.clues[int(rng.integers(len(rd.conflict.clues)))]
            new = inst.with_clues(c for c in inst.clues if c.id != victim.clue_id)
            return step.then(new, "drop", victim.coord)
        if rd is not None and rd.case is Verdict.INVALID_SPEC:
            bad = {tuple(v.coord) for v in rd.violations if v.coord is not None}
            kept = [c for c in inst.clues if not (set(c.coords) & bad)]
            if bad and len(kept) < len(inst.clues):
                coord = sorted(bad)[0]
                return step.then(inst.with_clues(kept), "repair", coord)
        return self.restart(step, rng)
