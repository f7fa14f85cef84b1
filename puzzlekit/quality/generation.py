"""check_family's generation step: a short closed loop on the family's own generation hooks.

A few puzzles from the adaptive strategy through :func:`puzzlekit.loop.driver.run_loop` (fixed
seeds, a small budget, the family's default filter, no holdout), watched step by step:

- ``initial-clues``: every clue of a fresh puzzle (``sample_solution``, ``initial_clues``) holds
  in the solution it was drawn for;
- ``repair-true``: every clue a ``repair_moves`` edit adds holds in the loop's solution;
- ``generate-raised``: no generation hook raises on a valid schema;
- ``round-trip-generated``: the text format round-trips on the generated instances (whose
  clues repairs made: kinds or shapes the sampled instances may never show);
- ``identity-generated``: their text line and their JSON with the clues shuffled read back to
  their digests (:mod:`puzzlekit.quality.identity_check`);
- ``render-ascii``: ``render_ascii`` returns text, with and without a solution and marks;
- ``render``: ``render`` draws the instance with a solution and a mark on an Agg figure and
  returns the axes it was given.

Not for: measuring generation (a loop that runs out of its small budget is a note, not a
failure) or checking strategies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Clue, Instance, Schema, Solution, SpecError
from puzzlekit.core.protocols import Step
from puzzlekit.core.report import VerifierReport
from puzzlekit.quality.contract import Checker, where
from puzzlekit.quality.family_steps import check_round_trip
from puzzlekit.quality.identity_check import check_identity
from puzzlekit.quality.sampling import Sample

#: puzzles generated per check
GEN_PUZZLES = 2
#: filter calls allowed per generated puzzle
GEN_MAX_CALLS = 30
#: the loop's solution cap (the loop's default)
GEN_CAP = 2
#: false clues reported per loop and code (the first ones say enough)
SHOWN = 3


class WatchedStrategy(protocols.Strategy):
    """A strategy whose every step is checked: the clues a step adds must hold in its solution
    (a fresh start's under ``initial-clues``, a repair's under ``repair-true``)."""

    def __init__(
        self, inner: protocols.Strategy, ck: Checker, fam: protocols.Family, label: str
    ) -> None:
        self.inner, self.ck, self.fam, self.label = inner, ck, fam, label
        self.name = inner.name
        self.extras = frozenset(inner.extras)
        self.last: Step | None = None
        self._shown: dict[str, int] = {}

    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        step = self.inner.start(schema, rng)
        self._watch(step, None)
        return step

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        nxt = self.inner.propose(step, report, rng)
        self._watch(nxt, step)
        return nxt

    def _watch(self, step: Step, before: Step | None) -> None:
        self.last = step
        fresh = before is None or step.action in ("start", "restart")
        old = [] if before is None or fresh else list(before.instance.clues)
        added = [c for c in step.instance.clues if c not in old]
        code = "initial-clues" if fresh else "repair-true"
        for clue, why in false_clues(self.fam, step, added):
            self._shown[code] = self._shown.get(code, 0) + 1
            if self._shown[code] <= SHOWN:
                self.ck.fail(code, self._message(code, step, clue, why))

    def _message(self, code: str, step: Step, clue: Clue, why: str) -> str:
        shown = f"clue {clue.id} ({clue.kind} {clue.data_dict()}, coords "
        shown += f"{[list(c) for c in clue.coords]})"
        if code == "initial-clues":
            return (
                f"{self.label}: a fresh puzzle has {shown}, but {why}. sample_solution() must "
                "return a solution of the rules and initial_clues() only clues true of it."
            )
        return (
            f"{self.label}: repair_moves() (action {step.action!r} at {step.coord}) added "
            f"{shown}, but {why}. A repair must add only clues true of the solution it is given "
            "(reveal solution[...], never a guess)."
        )


def false_clues(fam: protocols.Family, step: Step, clues: Sequence[Clue]) -> list[tuple[Clue, str]]:
    """The clues of ``clues`` that are not true of ``step.solution``, each with why."""
    if step.solution is None or not clues:
        return []
    schema = step.schema or fam.schema(step.instance.params_dict())
    out = []
    for clue in clues:
        try:
            constraints = fam.clue_constraints(schema, clue)
        except SpecError as exc:
            out.append((clue, f"the family rejects it ({exc})"))
            continue
        except Exception as exc:
            out.append((clue, f"clue_constraints() raised {type(exc).__name__}: {exc}"))
            continue
        for c in constraints:
            if not c.holds(step.solution):
                values = {v: step.solution.get(v) for v in c.vars[:6]}
                out.append((clue, f"its {type(c).__name__} does not hold (values {values})"))
                break
    return out


def generate_watched(ck: Checker, fam: protocols.Family, schema: Schema, seed: int) -> list[Sample]:
    """:data:`GEN_PUZZLES` loops of the adaptive strategy, watched; each loop's last instance
    (accepted or not) with its solution."""
    from puzzlekit.generators.adaptive import Adaptive
    from puzzlekit.loop.batch import default_clues
    from puzzlekit.loop.driver import LoopBudget, run_loop
    from puzzlekit.verifiers.registry import default_verifier_name, get_verifier

    name = default_verifier_name(Instance.make(fam.info.name, schema.params_dict(), []))
    filt = get_verifier(name)
    budget = LoopBudget(max_calls=GEN_MAX_CALLS, solution_cap=GEN_CAP)
    k = default_clues(len(schema.variables))
    made = []
    for i in range(GEN_PUZZLES):
        label = f"generated{i} (seed {seed}, filter {name})"
        watch = WatchedStrategy(Adaptive(k), ck, fam, label)
        loop_seed = int(np.random.SeedSequence([seed, 9, i]).generate_state(1)[0])
        try:
            result = run_loop(schema, watch, filt, None, budget, loop_seed)
        except Exception as exc:
            ck.fail(
                "generate-raised",
                f"{label}: the adaptive loop raised {type(exc).__name__}: {exc}{where(exc)}; "
                "sample_solution(), initial_clues() and repair_moves() must not raise on a "
                "valid schema (return None, or no moves, when there is nothing to offer).",
            )
            continue
        if not result.accepted:
            ck.note(f"{label}: no puzzle accepted in {GEN_MAX_CALLS} filter calls")
        solution = result.solution or (watch.last.solution if watch.last else None)
        made.append(Sample(f"generated{i}", result.instance, solution))
    return made


def check_renderers(ck: Checker, fam: protocols.Family, schema: Schema, sample: Sample) -> None:
    """``render_ascii`` returns text and ``render`` draws on an Agg figure (codes
    ``render-ascii``, ``render``); a family without ``render_mpl`` is noted, not failed."""
    inst, sol = sample.instance, sample.solution
    marks = {tuple(schema.variables[0].coord): "?"} if schema.variables else {}
    for args in ((inst,), (inst, sol, marks)):
        try:
            text = fam.render_ascii(*args)
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}{where(exc)}"
            ck.fail("render-ascii", f"render_ascii() raised {text} on {sample.label}.")
            break
        if not isinstance(text, str) or not text.strip():
            ck.fail(
                "render-ascii",
                f"render_ascii() returned {type(text).__name__} {text!r:.40} on {sample.label}; "
                "it must return the drawing as non-empty text (str).",
            )
            break
    _check_render_mpl(ck, fam, inst, sol, marks, sample.label)


def _check_render_mpl(
    ck: Checker,
    fam: protocols.Family,
    inst: Instance,
    sol: Solution | None,
    marks: dict[tuple, str],
    label: str,
) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 4))
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    try:
        drawn: Any = fam.render(inst, solution=sol, marks=marks, ax=ax)
        canvas.draw()
    except NotImplementedError:
        ck.note(f"family {fam.info.name} has no matplotlib rendering: render check skipped")
        return
    except Exception as exc:
        ck.fail(
            "render",
            f"render() raised {type(exc).__name__}: {exc}{where(exc)} on {label} (with a "
            "solution and a mark); render_mpl(instance, ax=ax, solution=...) must draw on the "
            "axes it is given, and mark_center() give a point or None.",
        )
        return
    if drawn is not ax:
        ck.fail(
            "render",
            f"render(ax=ax) returned {type(drawn).__name__} on {label}; render_mpl() must draw "
            "on the axes it is given and return them.",
        )


def check_generation(ck: Checker, fam: protocols.Family, schema: Schema, seed: int) -> None:
    """The generation step (see the module docstring)."""
    made = generate_watched(ck, fam, schema, seed)
    if not made:
        return
    check_round_trip(ck, fam, made, code="round-trip-generated")
    check_identity(ck, fam, made, seed, code="identity-generated")
    check_renderers(ck, fam, schema, made[0])
