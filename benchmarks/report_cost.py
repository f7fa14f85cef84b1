"""What does a run's report cost? On one finished run directory: ``puzzlekit report DIR`` in a
fresh interpreter ``--repeats`` times, drawn by the default number of processes and by one
(``PUZZLEKIT_REPORT_WORKERS=1``), taken in turn, wall and CPU seconds each (CPU: user + sys of
the command and every process it waited for); then, in this process, each figure drawn
``--repeats`` times, its least CPU seconds (what drawing it costs with nothing else in the way).

Run ``python -m benchmarks.report_cost RUN_DIR`` (a directory of ``puzzlekit run``,
e.g. of ``experiments/quickstart.toml``); it writes into a copy. A benchmark, not a test:
nothing asserts.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.startup import child_cpu


def _report(run: Path, workers: str | None) -> tuple[float, float]:
    """(wall, CPU) seconds of ``puzzlekit report RUN`` in a fresh interpreter."""
    env = dict(os.environ)
    env.pop("PUZZLEKIT_REPORT_WORKERS", None)
    if workers is not None:
        env["PUZZLEKIT_REPORT_WORKERS"] = workers
    cmd = [sys.executable, "-m", "puzzlekit", "report", str(run)]
    cpu, start = child_cpu(), time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start, child_cpu() - cpu


def figure_cpu(run: Path, repeats: int) -> dict[str, float]:
    """Each figure's least CPU seconds over ``repeats`` draws in this process, one at a time."""
    from puzzlekit.app import plots

    attempts, puzzles, manifest = plots.load_run(run)
    scales, shapes = plots.grade_scales(manifest), plots.grid_shapes(manifest)
    out = run / "report"
    out.mkdir(exist_ok=True)
    draws = {
        "reject_cases": lambda: plots.plot_reject_cases(attempts, out / "a.png"),
        "calls_cdf": lambda: plots.plot_calls_cdf(puzzles, out / "b.png"),
        "calls_vs_clues": lambda: plots.plot_calls_vs_clues(puzzles, out / "c.png"),
        "reject_coords": lambda: plots.plot_coord_heatmap(attempts, puzzles, out / "d.png", shapes),
        "verdict_matrix": lambda: plots.plot_verdict_matrix(puzzles, out / "e.png"),
        "holdout_reject_rate": lambda: plots.plot_holdout_reject_rate(puzzles, out / "f.png"),
        "expressive_range": lambda: plots.plot_expressive_range(puzzles, out / "g.png"),
        "settlement": lambda: plots.plot_settlement(puzzles, out / "h.png"),
        "grade_range": lambda: plots.plot_grade_range(puzzles, out / "i.png", scales),
    }
    best = dict.fromkeys(draws, float("inf"))
    for _ in range(repeats):
        for name, draw in draws.items():
            start = time.process_time()
            draw()
            best[name] = min(best[name], time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {load:.2f}")
    with tempfile.TemporaryDirectory(prefix="report-cost-") as tmp:
        run = Path(tmp) / "run"
        shutil.copytree(args.run_dir, run)
        shutil.rmtree(run / "report", ignore_errors=True)
        rows: dict[str, list[tuple[float, float]]] = {"default": [], "one process": []}
        for _ in range(args.repeats):
            rows["default"].append(_report(run, None))
            rows["one process"].append(_report(run, "1"))
        for what, times in rows.items():
            wall = statistics.median(w for w, _ in times)
            cpu = statistics.median(c for _, c in times)
            each = ", ".join(f"{w:.2f} ({c:.2f})" for w, c in times)
            print(f"puzzlekit report, {what}: median {wall:.2f} s wall, {cpu:.2f} s CPU [{each}]")
        best = figure_cpu(run, args.repeats)
    print("figures, least CPU ms: " + ", ".join(f"{k} {v * 1000:.0f}" for k, v in best.items()))
    after = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"all figures {sum(best.values()):.2f} s CPU; load {load:.2f} before, {after:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
