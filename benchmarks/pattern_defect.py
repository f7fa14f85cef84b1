"""Does ``pattern`` find a defect planted in the base generator, and what does it save?

Run ``python -m benchmarks.pattern_defect --loops 500`` (``--out FILE.md`` also
writes the table, ``--json`` prints the measures). Four arms of one 6×6 Sudoku run each
(``k = 10`` start clues, filter ``sat``, holdout ``enumerative`` in its own process), every arm
one driver, so ``pattern`` learns across all its loops: ``adaptive`` and ``pattern`` with the
``planted-deadly`` sampler (every solution keeps a unique rectangle at r1c1, r1c4, r2c1, r2c4,
an unavoidable set: a puzzle with no clue there is never unique) and with the family's own
sampler (no defect). Loop ``i`` of every arm has the seed ``loop_seed(seed, i)``.

Measures over the last half of the loops: filter calls per accepted puzzle (the goal of issue
28: ``pattern`` at least 2× fewer than ``adaptive`` on the planted defect), the ratio with a
95% bootstrap interval (loops resampled, 2,000 draws, seeded), the holdout reject rate, the share
of loops whose repairs touched the planted region (what the defect costs: ``adaptive`` pays it
whenever its random start misses the region, in the share of starts printed, which bounds what
any learner can save on this defect: ``defectBound``, adaptive's calls over those calls less
the share, the largest ratio a learner of the defect alone could reach) and the mean clue
count of the accepted puzzles.

A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed

PARAMS = {"size": 6}
K = 10
ARMS = (
    ("adaptive", "planted-deadly"),
    ("pattern", "planted-deadly"),
    ("adaptive", None),
    ("pattern", None),
)
REGION = {(0, 0), (0, 3), (1, 0), (1, 3)}


def run_arm(strategy: str, sampler: str | None, loops: int, seed: int) -> list[dict[str, Any]]:
    """One row per loop: calls, accepted, holdout-rejected, region repaired, clues."""
    settings = {"sampler": sampler} if sampler else {}
    spec = LoopSpec(
        "sudoku", PARAMS, strategy=strategy, k=K, strategy_settings=settings, holdout="enumerative"
    )
    driver = LoopDriver(spec)
    out = []
    try:
        for i in range(loops):
            r = driver.run(loop_seed(seed, i))
            repairs = {tuple(a.action_coord) for a in r.trace[1:] if a.action_coord is not None}
            out.append(
                {
                    "calls": r.filter_calls,
                    "accepted": r.accepted,
                    "holdoutRejected": r.holdout_rejected,
                    "region": bool(repairs & REGION),
                    "clues": len(r.instance.clues) if r.instance is not None else None,
                }
            )
    finally:
        driver.reset()
    return out


def per_accepted(rows: list[dict[str, Any]]) -> float:
    return sum(r["calls"] for r in rows) / max(1, sum(r["accepted"] for r in rows))


def ratio_interval(a: list[dict], b: list[dict], seed: int, draws: int = 2000) -> list[float]:
    """95% bootstrap interval of ``per_accepted(a) / per_accepted(b)``, loops resampled."""
    rng = np.random.default_rng(seed)
    ca, aa = np.array([r["calls"] for r in a]), np.array([r["accepted"] for r in a])
    cb, ab = np.array([r["calls"] for r in b]), np.array([r["accepted"] for r in b])
    out = []
    for _ in range(draws):
        i, j = rng.integers(len(a), size=len(a)), rng.integers(len(b), size=len(b))
        out.append((ca[i].sum() / max(1, aa[i].sum())) / (cb[j].sum() / max(1, ab[j].sum())))
    return [float(x) for x in np.percentile(out, [2.5, 97.5])]


def measure(loops: int, seed: int) -> dict[str, Any]:
    arms = {}
    halves = {}
    for strategy, sampler in ARMS:
        name = f"{strategy} / {sampler or 'family sampler'}"
        rows = run_arm(strategy, sampler, loops, seed)[loops // 2 :]
        halves[name] = rows
        acc = [r for r in rows if r["accepted"]]
        arms[name] = {
            "callsPerAccepted": per_accepted(rows),
            "accepted": len(acc),
            "holdoutRejectRate": sum(r["holdoutRejected"] for r in acc) / max(1, len(acc)),
            "regionRepairShare": float(np.mean([r["region"] for r in rows])),
            "meanClues": float(np.mean([r["clues"] for r in acc])) if acc else None,
        }
    n = PARAMS["size"] ** 2
    miss = math.comb(n - len(REGION), K) / math.comb(n, K)
    out: dict[str, Any] = {"loops": loops, "seed": seed, "k": K, "arms": arms, "startMisses": miss}
    out["defectBound"] = defect_bound(arms["adaptive / planted-deadly"]["callsPerAccepted"], miss)
    for sampler in ("planted-deadly", "family sampler"):
        a, p = halves[f"adaptive / {sampler}"], halves[f"pattern / {sampler}"]
        out[f"ratio ({sampler})"] = {
            "adaptiveOverPattern": per_accepted(a) / per_accepted(p),
            "interval95": ratio_interval(a, p, seed),
        }
    return out


def defect_bound(calls: float, miss: float) -> float:
    """The most that learning the planted defect alone can divide ``adaptive``'s filter calls per
    accepted puzzle by: a start that misses the region costs it one repair, one call, so a
    learner that never misses it saves ``miss`` calls of ``calls`` (``calls / (calls - miss)``;
    a repair the loop would have made there anyway makes the true saving smaller still)."""
    return calls / (calls - miss) if calls > miss else math.inf


def table(m: dict[str, Any]) -> str:
    lines = [
        f"6×6 Sudoku, k = {m['k']}, {m['loops']} loops an arm, seed {m['seed']}; the last "
        f"{m['loops'] - m['loops'] // 2} loops of each arm:",
        "",
        "| arm | filter calls / accepted | accepted | holdout reject rate | loops repairing "
        "the planted region | mean clues |",
        "|---|---|---|---|---|---|",
    ]
    for name, a in m["arms"].items():
        lines.append(
            f"| {name} | {a['callsPerAccepted']:.2f} | {a['accepted']} | "
            f"{a['holdoutRejectRate']:.3f} | {a['regionRepairShare']:.2f} | {a['meanClues']:.2f} |"
        )
    lines.append("")
    for sampler in ("planted-deadly", "family sampler"):
        r = m[f"ratio ({sampler})"]
        lo, hi = r["interval95"]
        lines.append(
            f"- adaptive / pattern calls per accepted puzzle, {sampler}: "
            f"{r['adaptiveOverPattern']:.2f} (95% bootstrap interval {lo:.2f} to {hi:.2f})"
        )
    n, r, k = PARAMS["size"] ** 2, len(REGION), m["k"]
    lines.append(
        f"- share of random {k}-clue starts with no clue in the planted region "
        f"(C({n - r}, {k}) / C({n}, {k})): {m['startMisses']:.3f}"
    )
    lines.append(
        f"- the most that learning the defect alone can save (a missed start costs one repair "
        f"call): adaptive / learner at most {m['defectBound']:.2f}, against the goal's 2"
    )
    lines.append(
        f"- machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", type=int, default=500)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.loops < 2:
        ap.error("--loops must be at least 2")
    m = measure(args.loops, args.seed)
    text = json.dumps(m, indent=2) if args.json else table(m)
    print(text, end="" if text.endswith("\n") else "\n")
    if args.out is not None:
        args.out.write_text(table(m), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
