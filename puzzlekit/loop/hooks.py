"""Post-filter hooks: what happens to a puzzle the filter accepted, before the holdout sees it:
nothing, minimization, or shaping to an exact grade level (``puzzlekit generate --difficulty``).

A hook is called as ``hook(instance, filter, rng, solution=...)`` and returns a
:class:`puzzlekit.generators.minimize.Minimized`; ``dropped=True`` declines the puzzle (the loop
then ends ``dropped`` and the holdout is skipped), ``shaping`` is what the hook reports (level,
grader calls, ...). :func:`minimize_hook` picks the hook of a
:class:`~puzzlekit.loop.driver.LoopSpec`.

Not for: the minimization or grading themselves (:mod:`puzzlekit.generators`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from puzzlekit.generators.minimize import Minimized, minimize


def minimize_hook(spec: Any) -> Callable[..., Minimized] | None:
    """The hook for ``spec``: shaping with ``difficulty``, minimization with ``minimize``."""
    if spec.difficulty is not None:
        hook = graded_adaptive if spec.strategy == "adaptive" else graded_blind
        return functools.partial(hook, target=spec.difficulty, symmetric=spec.symmetric)
    if spec.minimize:
        return functools.partial(minimize, symmetric=spec.symmetric)
    return None


def graded_adaptive(
    instance: Any, verifier: Any, rng: Any, *, solution: Any, target: int, symmetric: bool
) -> Minimized:
    """Level 0: dig the accepted puzzle; above: minimize it, then reveal where the grader is
    stuck and dig what a single brings back (:func:`puzzlekit.generators.graded.shape_to_level`)."""
    from puzzlekit.generators.graded import shape_to_level, shaping_fields

    base, calls, minimal = instance, 0, False
    if target > 0:
        done = minimize(instance, verifier, rng, symmetric=symmetric, solution=solution)
        base, calls, minimal = done.instance, done.calls, True
    shaped = shape_to_level(base, solution, target, rng, minimal=minimal)
    return Minimized(
        shaped.shaped,
        calls,
        len(instance.clues) - len(shaped.shaped.clues),
        dropped=shaped.instance is None,
        shaping=shaping_fields(shaped.grade, shaped),
    )


def graded_blind(
    instance: Any, verifier: Any, rng: Any, *, solution: Any, target: int, symmetric: bool
) -> Minimized:
    """The baseline: minimize the accepted puzzle, grade it once, keep it only at ``target``."""
    from puzzlekit.generators.graded import grade_fast, shaping_fields

    done = minimize(instance, verifier, rng, symmetric=symmetric, solution=solution)
    g = grade_fast(done.instance)
    return Minimized(
        done.instance,
        done.calls,
        done.removed,
        dropped=g.level != target,
        shaping=shaping_fields(g),
    )
