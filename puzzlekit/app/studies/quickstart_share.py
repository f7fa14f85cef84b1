"""How much of the quickstart's wall time is the framework's own (start-up, bookkeeping, report)
and how much the loops' work? It runs the README's main command (``puzzlekit run
experiments/quickstart.toml``) ``--repeats`` times, then ``puzzlekit report`` on its run
directory, and prints per repeat: the run's wall seconds, the loops' busy seconds (the
``seconds`` and ``holdoutSeconds`` of every row of ``puzzles.parquet``, divided by the run's
workers: the wall the loops would take with nothing else), the report's wall seconds (its own
start-up included), and the shares of the run's wall that are not loop work and that are the
report; the medians last.

Run ``python -m puzzlekit.app.studies.quickstart_share`` from a clone. A benchmark, not a test:
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

ROOT = Path(__file__).resolve().parents[3]
QUICKSTART = ROOT / "experiments" / "quickstart.toml"


def _timed(args: list[str]) -> float:
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "puzzlekit", *args]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


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
            report = _timed(["report", str(out)])
            busy = busy_seconds(out)
        rows.append(
            {
                "run_s": run,
                "busy_s": busy,
                "report_s": report,
                "not_loops": 1 - busy / run,
                "report_share": report / run,
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
    print("run_s  busy_s  report_s  not_loops  report_share")
    for r in rows:
        print(
            f"{r['run_s']:5.2f}  {r['busy_s']:6.2f}  {r['report_s']:8.2f}"
            f"  {r['not_loops']:9.0%}  {r['report_share']:12.0%}"
        )
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(
        f"median: run {med['run_s']:.2f} s, loops' work {med['busy_s']:.2f} s, report "
        f"{med['report_s']:.2f} s; not loop work {med['not_loops']:.0%} of the run's wall, "
        f"the report {med['report_share']:.0%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
