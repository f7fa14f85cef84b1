"""``random-gap``: the adaptive strategy with the ranking of the gap taken away (an ablation).

On a MULTIPLE report, ``adaptive`` repairs at the *most* discriminative cell of the gap. This
strategy repairs at a cell drawn uniformly from the whole gap (among the cells where the family
offers a move; one of that cell's moves, uniformly, ignoring any ``rules_out`` ranking). Every
other case (UNSOLVABLE, UNDECIDED, DOMAIN_TOO_LARGE, INVALID_SPEC) is handled as ``adaptive``
handles it. Beside ``blind`` (reads only the verdict) and ``adaptive`` (reads the gap and its
ranking), it separates the value of reading *where* the puzzle is ambiguous from the value of
reading *how much* each cell would settle.

It reads only what every report carries, so it works for every family; it is seeded like the
built-ins (one seed, one output).

Not for: producing good puzzles quickly (use ``adaptive``).
"""

from __future__ import annotations

import numpy as np
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import get_family
from puzzlekit.generators import register_strategy
from puzzlekit.generators.adaptive import Adaptive, repair_moves
from puzzlekit.generators.base import Step, in_schema_order


class RandomGap(Adaptive):
    """``RandomGap(k)``: start from ``k`` random clues of a random solution; on MULTIPLE repair
    at a uniformly random cell of the gap."""

    name = "random-gap"

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        rd = report.reject_detail
        if (
            step.solution is None
            or rd is None
            or rd.case is not Verdict.MULTIPLE
            or not rd.discriminative_gap
        ):
            return super().propose(step, report, rng)
        inst = step.instance
        fam = get_family(inst.family)
        schema = step.schema or fam.schema(inst.params_dict())
        gap = rd.discriminative_gap
        # the first cell of a random permutation that offers a move: uniform over those cells,
        # without asking the family for moves at every cell of a large gap
        for i in rng.permutation(len(gap)):
            coord = tuple(gap[int(i)].coord)
            moves = repair_moves(fam, schema, inst, step.solution, coord, report.solutions)
            if moves:
                move = moves[int(rng.integers(len(moves)))]
                return step.then(in_schema_order(move.apply(inst), schema), move.action, coord)
        return self.restart(step, rng)


register_strategy(RandomGap.name, RandomGap)
