"""How much of the quickstart's time is the framework's own (start-up, bookkeeping, report) and
how much the loops' work? It runs the README's main command (``puzzlekit run
experiments/quickstart.toml``) ``--repeats`` times; on each finished run directory, ``puzzlekit
run ... --resume`` (every task already done: the command's start-up, the config and manifest
checks and the report it ends with; start-up and report), the same with ``--no-report`` (the
start-up alone: what no report, however cheap, takes off the share) and ``puzzlekit report``
(the report alone, its own start-up included). Per repeat it prints each one's wall and CPU
seconds (user + sys of the process and every child it waited for, so a loaded machine slows it
little), the loops' busy seconds (the ``seconds`` and ``holdoutSeconds`` of every row of
``puzzles.parquet``, divided by the run's workers: the wall the loops would take with nothing
else), and the share of the run that start-up and report are, by wall and by CPU (goal, issue
31: at most 20%); the medians last.

Run ``python -m benchmarks.quickstart_share`` from a clone. A benchmark, not a test:
nothing asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.startup import child_cpu

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "experiments" / "quickstart.toml"


def _timed(args: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``puzzlekit ARGS`` in a fresh interpreter."""
    cpu, start = child_cpu(), time.perf_counter()
    cmd = [sys.executable, "-m", "puzzlekit", *args]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, child_cpu() - cpu


def busy_seconds(run_dir: Path) -> float:
    """The loops' work in wall seconds: every row's loop and holdout seconds over the workers."""
    import pandas as pd

    puzzles = pd.read_parquet(run_dir / "puzzles.parquet")
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    total = float(puzzles["seconds"].sum()) + float(puzzles["holdoutSeconds"].fillna(0).sum())
    return total / max(1, int(manifest.get("workers") or 1))


def measure(config: Path, repeats: int) -> list[dict[str, Any]]:
    """One row per repeat (see the module docstring)."""
    rows = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="quickstart-share-") as tmp:
            out = Path(tmp) / "run"
            run = _timed(["run", str(config), "--out", str(out), "--quiet"])
            again = _timed(["run", str(config), "--out", str(out), "--quiet", "--resume"])
            bare = _timed(
                ["run", str(config), "--out", str(out), "--quiet", "--resume", "--no-report"]
            )
            report = _timed(["report", str(out)])
            busy = busy_seconds(out)
        rows.append(
            {
                "run_s": run[0],
                "run_cpu": run[1],
                "busy_s": busy,
                "startup_report_s": again[0],
                "startup_report_cpu": again[1],
                "startup_s": bare[0],
                "startup_cpu": bare[1],
                "report_s": report[0],
                "report_cpu": report[1],
                "share_wall": again[0] / run[0],
                "share_cpu": again[1] / run[1],
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=QUICKSTART)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {load:.2f}")
    print(f"config: {args.config}")
    rows = measure(args.config, args.repeats)
    print(
        "run wall (CPU) s | loops' work s | start-up+report wall (CPU) s | start-up alone wall "
        "(CPU) s | report wall (CPU) s"
    )
    for r in rows:
        print(
            f"{r['run_s']:.2f} ({r['run_cpu']:.2f}) | {r['busy_s']:.2f} | "
            f"{r['startup_report_s']:.2f} ({r['startup_report_cpu']:.2f}) | "
            f"{r['startup_s']:.2f} ({r['startup_cpu']:.2f}) | "
            f"{r['report_s']:.2f} ({r['report_cpu']:.2f}) | share {r['share_wall']:.0%} wall, "
            f"{r['share_cpu']:.0%} CPU"
        )
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    after = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"median: run {med['run_s']:.2f} s wall, {med['run_cpu']:.2f} s CPU; loops' work "
        f"{med['busy_s']:.2f} s; start-up and report {med['startup_report_s']:.2f} s wall, "
        f"{med['startup_report_cpu']:.2f} s CPU ({med['share_wall']:.0%} of the run's wall, "
        f"{med['share_cpu']:.0%} of its CPU); the start-up alone {med['startup_s']:.2f} s wall, "
        f"{med['startup_cpu']:.2f} s CPU; the report alone {med['report_s']:.2f} s wall, "
        f"{med['report_cpu']:.2f} s CPU; load {load:.2f} before, {after:.2f} after"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
