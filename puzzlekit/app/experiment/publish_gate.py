"""The publish gate's prospective test (``experiments/publish_gate.toml``, docs/publish_gate.md).

For each arm (a filter/holdout pair) and schema, :func:`run_arm` drives ``count`` loops through
:class:`puzzlekit.loop.driver.LoopDriver`, settles each one with
:func:`puzzlekit.loop.settle.settle` and counts the gate's outcomes; the kernel is also run on
every accepted puzzle whatever its stop ("kernel alone"), so that a gate that relied only on the
stopping condition would show. :func:`check_hypotheses` judges the pre-registered claims.

Run ``puzzlekit publish-gate CONFIG`` or ``python -m puzzlekit.app.experiment.publish_gate CONFIG``.
Not for: settling itself (:mod:`puzzlekit.loop.settle`).
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core.clock import FROZEN_AT
from puzzlekit.loop.driver import LoopDriver, LoopResult, LoopSpec
from puzzlekit.loop.settle import Settlement, derive_and_decide, hand_filled_fields, settle

#: When the experiment's evidence is dated: fixed, so that the figures are reproducible.
EXPERIMENT_AT = FROZEN_AT


def load_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``[publish_gate]`` table of a TOML experiment config, with its arms and schemas."""
    with open(path, "rb") as fh:
        doc = tomllib.load(fh)
    cfg = doc.get("publish_gate")
    if not isinstance(cfg, dict) or not cfg.get("arms") or not cfg.get("schemas"):
        raise ValueError(f"{path}: needs [publish_gate] with [[publish_gate.arms]] and schemas")
    return cfg


def _bump(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


def _tally(counts: dict[str, Any], result: LoopResult, s: Settlement, at: str) -> None:
    """Count one settled loop into ``counts``."""
    counts["loops"] += 1
    _bump(counts["stop"], str(s.stop_kind))
    _bump(counts["gate"], s.kernel_outcome or f"escalated:{s.escalation_target}")
    if not result.accepted:
        return
    counts["accepted"] += 1
    counts["holdout_rejected"] += int(result.holdout_rejected)
    inst, fr, hr = result.instance, result.filter_report, result.holdout_report
    assert inst is not None and fr is not None and hr is not None
    # the verifiers the loop called, from the loop's own record, not from the reports' source
    called = (result.filter_name or "?", result.holdout_name or "?")
    derived, decision = derive_and_decide(
        inst.fresh_digest(), fr, hr, observed_at=at, computed_at=at, verifiers=called
    )
    alone = str(decision["outcome"])
    _bump(counts["kernel_alone"], alone)
    if result.holdout_rejected and "auto_apply" in (alone, s.kernel_outcome):
        counts["auto_apply_of_holdout_rejected"] += 1
    counts["provenance_records"] += len(derived.provenance)
    counts["hand_filled_fields"] += len(hand_filled_fields(derived, inst.digest, fr, hr))


def run_arm(
    family_name: str,
    params: Mapping[str, Any],
    count: int,
    *,
    filter_name: str,
    holdout_name: str,
    strategy: str = "adaptive",
    seed: int = 0,
    max_calls: int = 200,
    at: str = EXPERIMENT_AT,
) -> dict[str, Any]:
    """Run ``count`` loops with one filter/holdout pair and count the gate's outcomes."""
    spec = LoopSpec(
        family_name,
        dict(params),
        strategy=strategy,
        filter=filter_name,
        holdout=holdout_name,
        max_calls=max_calls,
    )
    driver = LoopDriver(spec)
    counts: dict[str, Any] = {
        "loops": 0,
        "accepted": 0,
        "holdout_rejected": 0,
        "stop": {},
        "gate": {},
        "kernel_alone": {},
        "auto_apply_of_holdout_rejected": 0,
        "hand_filled_fields": 0,
        "provenance_records": 0,
    }
    for _, result in driver.batch(seed, range(count)):
        s = settle(result, filter=driver.filter, holdout_name=holdout_name, computed_at=at)
        _tally(counts, result, s, at)
    return counts


def run_publish_gate(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per (arm, schema) of a ``[publish_gate]`` config, with its counts."""
    rows = []
    seed = int(config.get("seed", 0))
    for arm in config["arms"]:
        for sch in config["schemas"]:
            counts = run_arm(
                sch["family"],
                sch.get("params", {}),
                int(sch.get("count", 12)),
                filter_name=arm["filter"],
                holdout_name=arm["holdout"],
                strategy=arm.get("strategy", config.get("strategy", "adaptive")),
                seed=seed,
                max_calls=int(config.get("max_calls", 200)),
            )
            rows.append(
                {
                    "arm": arm["name"],
                    "filter": arm["filter"],
                    "holdout": arm["holdout"],
                    "family": sch["family"],
                    "params": dict(sch.get("params", {})),
                    **counts,
                }
            )
    return rows


def check_hypotheses(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The pre-registered claims that fail, in words; empty when all hold.

    H1: with an exact filter and an exact, independent holdout every accepted puzzle is
    auto_apply. H2: no puzzle the holdout rejected is ever auto_apply, and an inexact filter's
    puzzles are never auto_apply. H3: no request field is filled by hand.
    """
    failed = []
    exact = {"sat", "enumerative"}
    for r in rows:
        where = f"{r['arm']} {r['family']} {r['params']}"
        both_exact = r["filter"] in exact and r["holdout"] in exact
        if both_exact and r["filter"] != r["holdout"]:
            if r["gate"].get("auto_apply", 0) != r["accepted"]:
                failed.append(f"H1 {where}: {r['gate']} for {r['accepted']} accepted")
        if r["auto_apply_of_holdout_rejected"]:
            failed.append(f"H2 {where}: {r['auto_apply_of_holdout_rejected']} rejected, auto")
        if r["filter"] not in exact and (
            r["gate"].get("auto_apply") or r["kernel_alone"].get("auto_apply")
        ):
            failed.append(f"H2 {where}: an inexact filter's puzzle was auto_apply")
        if r["hand_filled_fields"]:
            failed.append(f"H3 {where}: {r['hand_filled_fields']} hand-filled fields")
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m puzzlekit.app.experiment.publish_gate CONFIG``: run the test, print JSON rows."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m puzzlekit.app.experiment.publish_gate CONFIG.toml", file=sys.stderr)
        return 2
    rows = run_publish_gate(load_config(args[0]))
    failed = check_hypotheses(rows)
    for row in rows:
        print(json.dumps(row, sort_keys=True))
    print(json.dumps({"hypotheses_failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
