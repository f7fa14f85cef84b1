"""The rows of a loop, built in one place: attempt rows (one per verifier call), puzzle rows (one
per loop) and the JSON records of ``puzzlekit generate`` (a puzzle row in JSON).

Every producer calls these builders: the experiment runner (``attempts.parquet``,
``puzzles.parquet``), ``puzzlekit generate``, and the studies. Column names are the project's
camelCase wire names, the same in JSON and Parquet (``filterCalls``, ``stopKind``); Python
attributes are snake_case of the same words (``LoopResult.filter_calls``,
``Settlement.stop_kind``). Reject details keep the report's wire form
(:meth:`puzzlekit.core.report.RejectDetail.to_json_obj`) as nested lists and structs, with one
exception: a conflict clue's free-form ``data`` is canonical JSON text, since its shape differs
by clue kind. :func:`reject_detail_from_value` reads such a value back into a
:class:`~puzzlekit.core.report.RejectDetail`.

The column types and descriptions (Parquet field metadata) are in
:mod:`puzzlekit.loop.row_schema`; ``docs/data.md`` lists them. This module imports no pyarrow,
so ``puzzlekit generate`` starts fast.

Not for: running loops (:mod:`puzzlekit.loop.driver`) or writing files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from puzzlekit.core.model import canonical_json
from puzzlekit.core.report import RejectDetail, VerifierReport
from puzzlekit.loop.driver import LoopResult, top_coord

#: Version of the row schema; recorded as ``rowSchemaVersion`` in a run's manifest.json.
#: 1: snake_case columns, coordinates as JSON text (before this module); 2: this module;
#: 3: an attempt's verdict is ``uniquenessVerdict`` (was ``verdict``), the name ``verify`` uses.
ROW_SCHEMA_VERSION = 3

#: The identity of a loop in a run: its arm (schema × strategy × k × filter), trial and seed.
KEY_COLUMNS = ("schema", "strategy", "k", "filter", "trial", "seed")
#: Reject-detail columns of an attempt row (null where the case has no such part).
DETAIL_COLUMNS = ("discriminativeGap", "conflict", "culprits", "violations")
ATTEMPT_COLUMNS = (
    *KEY_COLUMNS,
    "side",
    "attempt",
    "instanceDigest",
    "clueCount",
    "action",
    "actionCoord",
    "uniquenessVerdict",
    "rejectCase",
    "topCoord",
    "solutionCount",
    "forcedCells",
    *DETAIL_COLUMNS,
    "seconds",
)
SETTLE_COLUMNS = ("stopKind", "escalationTarget", "kernelOutcome", "settleAction")
PUZZLE_COLUMNS = (
    *KEY_COLUMNS,
    "status",
    "instanceDigest",
    "instance",
    "text",
    "startClues",
    "clueCount",
    "filterCalls",
    "minimizeCalls",
    "filterVerdict",
    "filterRejectDetail",
    "holdout",
    "holdoutVerdict",
    "holdoutRejected",
    "holdoutRejectCase",
    "holdoutTopCoord",
    "holdoutCoords",
    "holdoutRejectDetail",
    *SETTLE_COLUMNS,
    "probeVerdict",
    "probeForcedCells",
    "level",
    "technique",
    "strategyFailure",
    "strategyState",
    "holdoutSeconds",
    "seconds",
)
#: Sort order of the Parquet files (filter rows before the holdout row of the same trial).
ATTEMPT_ORDER = ("schema", "strategy", "k", "filter", "trial", "side", "attempt")
PUZZLE_ORDER = ("schema", "strategy", "k", "filter", "trial")


def row_keys(
    schema: str, strategy: str, k: int, filter: str, trial: int, seed: int
) -> dict[str, Any]:
    """The key columns of one loop (``seed`` as decimal text: loop seeds exceed int64)."""
    return {
        "schema": schema,
        "strategy": strategy,
        "k": int(k),
        "filter": filter,
        "trial": int(trial),
        "seed": str(seed),
    }


# --- values ---------------------------------------------------------------------------------


def _coord(coord: Any) -> list[Any] | None:
    return list(coord) if coord is not None else None


def reject_detail_value(rd: RejectDetail | None) -> dict[str, Any] | None:
    """A reject detail as a row value: its wire form, a conflict clue's ``data`` as JSON text."""
    if rd is None:
        return None
    obj = rd.to_json_obj()
    conflict = obj.get("conflict")
    if conflict is not None:
        conflict["clues"] = [
            {**c, "data": canonical_json(c["data"]).decode("utf-8")} for c in conflict["clues"]
        ]
    return obj


def reject_detail_from_value(value: Mapping[str, Any] | None) -> RejectDetail | None:
    """The :class:`RejectDetail` of a row value (as pandas or pyarrow read it back)."""
    if value is None:
        return None
    obj = _plain(value)
    conflict = obj.get("conflict")
    if conflict is not None:
        conflict["clues"] = [{**c, "data": json.loads(c["data"])} for c in conflict["clues"]]
    dist = obj.get("verdictDistribution")
    if dist is not None and not isinstance(dist, Mapping):
        obj["verdictDistribution"] = dict(dist)  # a Parquet map reads back as (key, value) pairs
    return RejectDetail.from_json_obj({k: v for k, v in obj.items() if v is not None})


def _plain(value: Any) -> Any:
    """Lists and dicts of plain Python values from what pandas or pyarrow read (numpy arrays)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, str | bytes):
        return value
    if hasattr(value, "tolist") and not isinstance(value, int | float | bool):
        return _plain(value.tolist())
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def detail_columns(rd: RejectDetail | None) -> dict[str, Any]:
    """The reject-detail columns of an attempt row: the whole gap (MULTIPLE), the conflict
    (UNSOLVABLE), the culprits (DOMAIN_TOO_LARGE, UNDECIDED) and the violations (INVALID_SPEC)."""
    value = reject_detail_value(rd) or {}
    return {name: value.get(name) for name in DETAIL_COLUMNS}


def report_coords(report: VerifierReport | None) -> list[list[Any]] | None:
    """Every coordinate a report's reject detail names, in the detail's order (gap, conflict
    clues, culprits, violations); ``None`` without a report."""
    if report is None:
        return None
    rd = report.reject_detail
    if rd is None:
        return []
    coords: list[Any] = [g.coord for g in rd.discriminative_gap]
    if rd.conflict is not None:
        coords += [c.coord for c in rd.conflict.clues if c.coord is not None]
    coords += [f.coord for f in rd.culprits]
    coords += [v.coord for v in rd.violations if v.coord is not None]
    return [list(c) for c in coords]


def forced_count(report: VerifierReport | None) -> int | None:
    """How many cells the report's ``forcedCells`` stat names (``None`` if it has none)."""
    forced = report.stats.get("forcedCells") if report is not None else None
    return len(forced) if isinstance(forced, list | tuple) else None


def instance_text(family: Any, result: LoopResult) -> str | None:
    """The accepted instance in its family's one-line text format; ``None`` if it has none."""
    if not result.accepted or result.instance is None or family is None:
        return None
    try:
        return family.format_text(result.instance)
    except NotImplementedError:
        return None


# --- rows -----------------------------------------------------------------------------------


def attempt_rows(result: LoopResult, keys: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per filter call of ``result``'s trace, then one for the holdout's check."""
    rows = []
    for a in result.trace:
        rd = a.report.reject_detail if a.report is not None else None
        rows.append(
            {
                **keys,
                "side": "filter",
                "attempt": a.index,
                "instanceDigest": a.instance_digest,
                "clueCount": a.clue_count,
                "action": a.action,
                "actionCoord": _coord(a.action_coord),
                "uniquenessVerdict": a.verdict,
                "rejectCase": a.reject_case,
                "topCoord": _coord(a.top_coord),
                "solutionCount": a.solution_count,
                "forcedCells": forced_count(a.report),
                **detail_columns(rd),
                "seconds": a.seconds,
            }
        )
    hold = result.holdout_report
    if hold is not None:
        assert result.instance is not None
        rd = hold.reject_detail
        rows.append(
            {
                **keys,
                "side": "holdout",
                "attempt": result.filter_calls,
                "instanceDigest": hold.instance_digest,
                "clueCount": len(result.instance.clues),
                "action": "holdout",
                "actionCoord": None,
                "uniquenessVerdict": hold.verdict.value,
                "rejectCase": rd.case.value if rd else None,
                "topCoord": _coord(top_coord(hold)),
                "solutionCount": hold.solution_count,
                "forcedCells": forced_count(hold),
                **detail_columns(rd),
                "seconds": result.holdout_seconds,
            }
        )
    return rows


def _loop_values(result: LoopResult, family: Any) -> dict[str, Any]:
    """The columns a puzzle row and a generate record share, by wire name."""
    inst = result.instance if result.accepted else None
    fr, hr = result.filter_report, result.holdout_report
    return {
        "status": result.status,
        "instanceDigest": inst.digest if inst is not None else None,
        "instance": inst,
        "text": instance_text(family, result),
        "startClues": result.start_clues,
        "clueCount": len(inst.clues) if inst is not None else None,
        "filterCalls": result.filter_calls,
        "minimizeCalls": result.minimize_calls,
        "filterVerdict": fr.verdict.value if fr is not None else None,
        "holdoutVerdict": hr.verdict.value if hr is not None else None,
    }


def settle_columns(settlement: Any | None) -> dict[str, Any]:
    """Stop kind, escalation target, kernel outcome and settle action of a
    :class:`puzzlekit.loop.settle.Settlement` (nulls without one). Deterministic for one seed."""
    if settlement is None:
        return dict.fromkeys(SETTLE_COLUMNS)
    return {
        "stopKind": settlement.stop_kind,
        "escalationTarget": settlement.escalation_target,
        "kernelOutcome": settlement.kernel_outcome,
        "settleAction": settlement.settle_action,
    }


def puzzle_row(
    result: LoopResult,
    keys: Mapping[str, Any],
    *,
    family: Any,
    holdout: str | None,
    settlement: Any | None = None,
    probe_verdict: str | None = None,
    probe_forced_cells: int | None = None,
    level: int | None = None,
    technique: str | None = None,
) -> dict[str, Any]:
    """The row of one loop: outcome, the accepted instance and its text, both sides' verdicts
    and reject details, the settlement and the measurements taken after the loop."""
    values = _loop_values(result, family)
    inst = values.pop("instance")
    hold = result.holdout_report
    hrd = hold.reject_detail if hold is not None else None
    frd = result.filter_report.reject_detail if result.filter_report is not None else None
    row = {
        **keys,
        **values,
        "instance": inst.canonical_json().decode("utf-8") if inst is not None else None,
        "filterRejectDetail": reject_detail_value(frd),
        "holdout": holdout,
        "holdoutRejected": result.holdout_rejected,
        "holdoutRejectCase": hrd.case.value if hrd is not None else None,
        "holdoutTopCoord": _coord(top_coord(hold)) if hold is not None else None,
        "holdoutCoords": report_coords(hold),
        "holdoutRejectDetail": reject_detail_value(hrd),
        **settle_columns(settlement),
        "probeVerdict": probe_verdict,
        "probeForcedCells": probe_forced_cells,
        "level": level,
        "technique": technique,
        "strategyFailure": result.strategy_failure,
        "strategyState": _state_text(result.strategy_state),
        "holdoutSeconds": result.holdout_seconds,
        "seconds": result.seconds,
    }
    return {name: row[name] for name in PUZZLE_COLUMNS}


def _state_text(state: Mapping[str, Any] | None) -> str | None:
    """A strategy's state as compact JSON with sorted keys (null when it keeps none)."""
    if state is None:
        return None
    return json.dumps(state, sort_keys=True, separators=(",", ":"))


def generate_record(
    result: LoopResult,
    family: Any,
    *,
    settlement: Any | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One ``puzzlekit generate`` line: a puzzle row in JSON (the instance as an object, the
    solution of an accepted puzzle, the holdout's reject detail when it rejected), plus what a
    shaping hook reported, when settled :func:`settle_columns`, and last the ``provenance``
    given (:func:`puzzlekit.loop.batch.provenance`). No timings, so equal seeds give equal
    bytes."""
    values = _loop_values(result, family)
    inst = values["instance"]
    out: dict[str, Any] = {
        "status": values["status"],
        "seed": result.seed,
        "strategy": result.strategy,
        "instanceDigest": values["instanceDigest"],
        "instance": inst.to_json_obj() if inst is not None else None,
        "clueCount": values["clueCount"],
        "startClues": values["startClues"],
        "filterVerdict": values["filterVerdict"],
        "holdoutVerdict": values["holdoutVerdict"],
        "filterCalls": values["filterCalls"],
        "minimizeCalls": values["minimizeCalls"],
    }
    if result.accepted:
        if values["text"] is not None:
            out["text"] = values["text"]
        out["solution"] = result.solution
    if result.holdout_rejected:
        out["holdoutRejectDetail"] = result.holdout_report.reject_detail.to_json_obj()
    if result.strategy_failure is not None:
        out["strategyFailure"] = result.strategy_failure
    if result.strategy_state is not None:
        out["strategyState"] = dict(result.strategy_state)
    if result.shaping is not None:
        out.update(result.shaping)
    if settlement is not None:
        out.update(settle_columns(settlement))
    if provenance is not None:
        out["provenance"] = dict(provenance)
    return out
