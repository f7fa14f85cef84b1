"""What follows the filter's UNIQUE in a loop: the minimize hook (or a shaping one), the filter
report of the puzzle that comes out of it, then the holdout's check of that puzzle.

Private machinery of :mod:`puzzlekit.loop.driver` (:func:`accept`). Not for: the loop itself.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import report_extras
from puzzlekit.core.report import VerifierReport
from puzzlekit.loop.holdout import CONTAMINATED_HOLDOUT
from puzzlekit.loop.holdout import judge as _judge


@dataclass(frozen=True)
class Accepted:
    status: str  # "accepted" or "dropped"
    instance: Instance
    report: VerifierReport
    minimize_calls: int
    holdout_report: VerifierReport | None
    holdout_seconds: float | None
    shaping: Mapping[str, Any] | None


def accept(
    instance: Instance,
    report: VerifierReport | None,
    filter: Any,
    holdout: protocols.Holdout | None,
    rng: np.random.Generator,
    minimize: Callable[..., Any] | None,
    cap: int,
    extras: Collection[str],
    unread: tuple[Mapping[str, Any], Callable[[], VerifierReport]] | None = None,
) -> Accepted:
    """What follows the filter's UNIQUE: the minimize hook, then the holdout's check (skipped
    when the hook dropped the puzzle). Only bytes and a digest go to the holdout. ``report``
    None: the UNIQUE came from the array steps, and ``unread`` holds the solution (the one the
    strategy built towards, the only one) and the filter call that gives the report, made only
    where the report is the loop's own (no minimization, or one that kept every clue)."""
    instance, report, calls, shaped = _minimized(
        instance, report, filter, rng, minimize, cap, extras, unread
    )
    shaping = shaped.shaping if shaped is not None else None
    if shaped is not None and shaped.dropped:
        return Accepted("dropped", instance, report, calls, None, None, shaping)
    hold = hold_seconds = None
    status = "accepted"
    if holdout is not None:
        hold, hold_seconds = _judge(holdout, instance, cap)
        status = "accepted" if hold is not None else CONTAMINATED_HOLDOUT
    return Accepted(status, instance, report, calls, hold, hold_seconds, shaping)


def _minimized(
    instance: Instance,
    report: VerifierReport | None,
    filter: Any,
    rng: np.random.Generator,
    minimize: Callable[..., Any] | None,
    cap: int,
    extras: Collection[str],
    unread: tuple[Mapping[str, Any], Callable[[], VerifierReport]] | None = None,
) -> tuple[Instance, VerifierReport, int, Any]:
    """The accepted instance after minimization (when asked), its filter report, the calls and
    the hook's own result. A changed instance is verified again by the filter. ``report`` None:
    see :func:`accept`."""
    if report is None and unread is None:
        raise ValueError("a UNIQUE without its report needs its solution and filter call")
    if minimize is None:
        return instance, report if report is not None else unread[1](), 0, None  # type: ignore[index]
    solution = report.solutions[0] if report is not None else unread[0]  # type: ignore[index]
    result = minimize(instance, filter, rng, solution=solution)
    if result.instance.digest != instance.digest and not result.dropped:
        report = filter.verify(result.instance, solution_cap=cap, extras=report_extras(extras))
    elif report is None:
        report = unread[1]()  # type: ignore[index]
    return result.instance, report, result.calls, result
