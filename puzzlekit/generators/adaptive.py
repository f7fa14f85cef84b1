"""The adaptive strategy: it reads the filter's coordinate-tagged reject detail and repairs the
puzzle where the detail points, instead of starting over.

- MULTIPLE: where the filter breaks its verdict distribution down by field (the ``fieldVerdicts``
  extra of oracle families, which the strategy asks for), repair at the hidden field whose
  true value leaves the fewest solutions, counted over every completion (:func:`verdict_cells`);
  otherwise apply one of the family's repair moves at the most discriminative
  ``discriminativeGap`` coordinate, ranked against the solution the strategy builds toward
  (:func:`top_cells`: the share of the found solutions that the true value there rules out);
  for givens families: reveal
  the true digit there. Ties among equally discriminative cells and among moves are broken by
  the seeded rng, never by reading order. ``repair_moves`` always gets the report's
  solutions as ``found``, so that a family can rank its moves (logicgrid offers the true clues
  that rule out the most found alternatives);
- UNSOLVABLE: a ``change`` move at a clue of the ``conflict`` (the family's ``repair_moves`` at
  that clue's coordinates: a clue false of the solution replaced by the true one, as toolcall
  offers at a given field whose value differs from the solution's), chosen by the rng; when no
  family move changes a conflict clue, drop one clue of the conflict (chosen by the rng);
- DOMAIN_TOO_LARGE / UNDECIDED: a repair move at a culprit coordinate;
- INVALID_SPEC: remove the clues the violations name.

Each step records its action and coordinate. When a detail names nothing it can act on, the
strategy starts over with a fresh puzzle (action ``restart``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance, Schema, Solution
from puzzlekit.core.protocols import FIELD_VERDICTS, Repair, Step
from puzzlekit.core.report import GapItem, Verdict, VerifierReport
from puzzlekit.core.solutions import rule_out_share
from puzzlekit.families import get_family
from puzzlekit.generators.base import FreshStart, in_schema_order


class Adaptive(FreshStart):
    """``Adaptive(k)``: start from ``k`` random clues of a random solution, then repair."""

    name = "adaptive"
    #: the per-field verdict distribution of oracle families (other verifiers ignore the name)
    extras: tuple[str, ...] = (FIELD_VERDICTS,)

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        inst = step.instance
        fam = get_family(inst.family)
        schema = step.schema or fam.schema(inst.params_dict())
        rd = report.reject_detail
        if step.solution is not None and rd is not None:
            coords: list[tuple] = []
            if rd.case is Verdict.MULTIPLE and rd.discriminative_gap:
                coords = verdict_cells(
                    report.stats.get(FIELD_VERDICTS), step.solution
                ) or top_cells(rd.discriminative_gap, report.solutions, step.solution)
            elif rd.case in (Verdict.DOMAIN_TOO_LARGE, Verdict.UNDECIDED):
                coords = [tuple(f.coord) for f in rd.culprits]
            found = report.solutions
            options = [
                (c, moves)
                for c in coords
                if (moves := fam.repair_moves(schema, inst, step.solution, c, found=found))
            ]
            if not options and rd.case is Verdict.MULTIPLE:
                # the most discriminative cells offer no move: try the rest of the gap
                options = [
                    (tuple(g.coord), moves)
                    for g in rd.discriminative_gap
                    if (
                        moves := fam.repair_moves(schema, inst, step.solution, g.coord, found=found)
                    )
                ]
            options = _best_ranked(options)
            if options:
                coord, moves = self.pick(options, rng)
                move = moves[int(rng.integers(len(moves)))]
                new = in_schema_order(move.apply(inst), schema)
                return step.then(new, move.action, coord)
        if rd is not None and rd.case is Verdict.UNSOLVABLE and rd.conflict and rd.conflict.clues:
            if step.solution is not None:
                changes = conflict_changes(fam, schema, inst, step.solution, report)
                if changes:
                    move = changes[int(rng.integers(len(changes)))]
                    new = in_schema_order(move.apply(inst), schema)
                    return step.then(new, move.action, move.coord)
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

    def pick(
        self, options: list[tuple[tuple, list[Repair]]], rng: np.random.Generator
    ) -> tuple[tuple, list[Repair]]:
        """The coordinate to repair at, and its moves, among the equally ranked ``options``:
        one chosen by the rng (``pattern`` prefers the coordinates it learned)."""
        return options[int(rng.integers(len(options)))]


def top_cells(
    gap: Sequence[GapItem], found: Sequence[Solution], target: Solution | None
) -> list[tuple]:
    """The gap cells where a clue with the target's value rules out the largest share of the
    found solutions (every such cell: the rng chooses among them). The verifier ranked the gap
    against the first reported solution; the strategy knows the solution it builds toward and
    ranks against that one when the found solutions carry every gap cell."""
    names = [g.field_name for g in gap]
    if target is None or not found or any(n not in target for n in names):
        return [tuple(g.coord) for g in gap if g.tie_group == 0]
    shares = [rule_out_share(found, n, target) for n in names]
    best = max(shares)
    return [tuple(g.coord) for g, s in zip(gap, shares, strict=True) if s == best]


def verdict_cells(field_verdicts: Mapping[str, Any] | None, target: Solution) -> list[tuple]:
    """The hidden fields whose value in ``target`` leaves the fewest solutions (completions with
    the expected verdict), read from a ``fieldVerdicts`` extra (every such field: the rng
    chooses among them); [] without the extra, or when it names none of ``target``'s values.
    Unlike the discriminative gap, which sees only the solutions under the cap, the counts cover
    every completion the filter enumerated."""
    if not field_verdicts:
        return []
    expected = field_verdicts.get("expectedVerdict")
    left: dict[tuple, int] = {}
    for entry in field_verdicts.get("fields", ()):
        name = entry.get("field")
        if name in target and target[name] == entry.get("domainValue"):
            left[tuple(entry["coord"])] = int(entry["verdicts"].get(expected, 0))
    if not left:
        return []
    fewest = min(left.values())
    return [c for c, n in left.items() if n == fewest]


def _best_ranked(options: list[tuple[tuple, list[Repair]]]) -> list[tuple[tuple, list[Repair]]]:
    """When the family ranked its moves (``rules_out``), only the moves that rule out the most
    found alternatives, across every coordinate offered; otherwise ``options`` unchanged."""
    scores = [m.rules_out for _, moves in options for m in moves if m.rules_out is not None]
    if not scores:
        return options
    best = max(scores)
    kept = [(c, [m for m in moves if m.rules_out == best]) for c, moves in options]
    return [(c, moves) for c, moves in kept if moves]


def conflict_changes(
    fam: protocols.Family,
    schema: Schema,
    instance: Instance,
    solution: Solution,
    report: VerifierReport,
) -> list[Repair]:
    """The ``change`` moves the family offers at the coordinates of an UNSOLVABLE report's
    conflict clues (each coordinate asked once, in conflict order), that remove a conflict
    clue."""
    rd = report.reject_detail
    if rd is None or rd.conflict is None:
        return []
    ids = {c.clue_id for c in rd.conflict.clues}
    found: Sequence[Solution] = report.solutions
    seen: set[tuple] = set()
    out: list[Repair] = []
    for item in rd.conflict.clues:
        for coord in item.coords or ((item.coord,) if item.coord is not None else ()):
            coord = tuple(coord)
            if coord in seen:
                continue
            seen.add(coord)
            for move in fam.repair_moves(schema, instance, solution, coord, found=found):
                if move.action == "change" and ids & set(move.remove):
                    out.append(move)
    return out
