"""Does the adaptive strategy gain from the verdict distribution? ``adaptive`` (which asks an
oracle filter for the ``fieldVerdicts`` extra and reveals the hidden field whose true value
leaves the fewest solutions, counted over every completion) against ``adaptive-gap-only`` (the
same strategy reading only the discriminative gap of the capped solutions), on toolcall schemas.

Run ``python -m benchmarks.verdict_signal`` (``--count``, ``--seeds``). Each run is
the user's command, ``puzzlekit generate toolcall --params P --strategy S --count N --seed K``
with the family's default filter (``oracle``) and holdout (``oracle-plain``), in a process of its
own, with ``--plugin benchmarks.verdict_signal`` (this module registers
``adaptive-gap-only``). It prints one Markdown row per schema and strategy: puzzles accepted,
holdout rejects, filter calls per accepted puzzle, mean clues of the accepted puzzles, wall
seconds summed over the runs (process start included). A benchmark, not a test: it prints what
it measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from puzzlekit.generators import STRATEGIES
from puzzlekit.generators.adaptive import Adaptive


class GapOnlyAdaptive(Adaptive):
    """``adaptive`` without the verdict distribution: asks for no extra, so it ranks the
    discriminative gap of the capped solutions (the ablation of this study)."""

    name = "adaptive-gap-only"
    extras: tuple[str, ...] = ()


if "adaptive-gap-only" not in STRATEGIES.names():
    STRATEGIES.register("adaptive-gap-only", GapOnlyAdaptive)

#: toolcall schemas of the study: the registered ones, and the review kernel's rare verdict
SCHEMAS: list[dict[str, Any]] = [
    {"tool": "shipping-rate", "expectedVerdict": "mid", "fixedInput": {"note": ""}},
    {"tool": "shipping-rate", "expectedVerdict": "high", "fixedInput": {"note": "gift"}},
    {"tool": "shipping-rate", "expectedVerdict": "low", "fixedInput": {"note": ""}},
    {"tool": "review-kernel", "expectedVerdict": "human_required"},
    {"tool": "review-kernel", "expectedVerdict": "incomplete"},
]
STRATEGY_NAMES = ("adaptive", "adaptive-gap-only")


def run_one(params: dict[str, Any], strategy: str, count: int, seed: int) -> dict[str, Any]:
    """One ``generate`` run, as a user runs it (its own process): its rows summed."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.jsonl"
        argv = [
            sys.executable, "-m", "puzzlekit", "generate", "toolcall",
            "--params", json.dumps(params), "--strategy", strategy, "--count", str(count),
            "--seed", str(seed), "--out", str(out), "--quiet",
            "--plugin", "benchmarks.verdict_signal",
        ]  # fmt: skip
        start = time.perf_counter()
        code = subprocess.run(argv, check=False).returncode
        seconds = time.perf_counter() - start
        rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    accepted = [r for r in rows if r["status"] == "accepted"]
    return {
        "code": code,
        "loops": len(rows),
        "accepted": len(accepted),
        "holdoutRejects": sum(1 for r in accepted if r.get("holdoutVerdict") != "UNIQUE"),
        "filterCalls": sum(r["filterCalls"] for r in rows),
        "clues": sum(len(r["instance"]["clues"]) for r in accepted),
        "seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=200, help="accepted puzzles per run (200)")
    p.add_argument("--seeds", type=int, default=3, help="runs per schema and strategy (3)")
    args = p.parse_args(argv)
    print(
        "| schema | strategy | accepted | holdout rejects | filter calls per accepted | "
        "clues | seconds |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for params in SCHEMAS:
        label = f"{params['tool']} `{params['expectedVerdict']}`"
        for strategy in STRATEGY_NAMES:
            total: dict[str, float] = {}
            for seed in range(args.seeds):
                one = run_one(params, strategy, args.count, seed)
                for k, v in one.items():
                    total[k] = total.get(k, 0) + v
            acc = max(1, int(total["accepted"]))
            print(
                f"| {label} | {strategy} | {int(total['accepted'])} | "
                f"{int(total['holdoutRejects'])} | {total['filterCalls'] / acc:.2f} | "
                f"{total['clues'] / acc:.2f} | {total['seconds']:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
