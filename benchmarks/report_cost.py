"""What does a run's report cost? On one finished run directory: ``puzzlekit report DIR`` in a
fresh interpreter ``--repeats`` times, drawn by the default number of processes and by one
(``PUZZLEKIT_REPORT_WORKERS=1``), taken in turn, wall and CPU seconds each (CPU: user + sys of
the command and every process it waited for); then, in this process, each figure drawn
``--repeats`` times, its least CPU seconds (what drawing it costs with nothing else in the way),
split into its steps: ``build`` (the pandas work on the rows and the artists made), ``fit`` (the
layout: margins from the text, tick labels formatted), ``draw`` (Agg draws every artist once),
of which ``text`` (the text drawn: laid out, its glyphs rendered), and ``png`` (the pixels
encoded and written); and the steps before any figure: reading the run (``load_run``: Parquet,
the row-schema upgrade, canonical identities) and the Markdown's tables and hypotheses.

Run ``python -m benchmarks.report_cost RUN_DIR`` (a directory of ``puzzlekit run``,
e.g. of ``experiments/quickstart.toml``); it writes into a copy. A benchmark, not a test:
nothing asserts.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


def _timed_save(steps: dict[str, dict[str, list[float]]], started: list[float]) -> Any:
    """A stand-in for :func:`puzzlekit.app.plots.layout.save` that saves the same figure in
    the same draw, its steps timed into ``steps[its file's stem]`` (its build from
    ``started[0]``)."""
    from matplotlib import rc_context
    from matplotlib.backends import backend_agg
    from PIL import Image

    from puzzlekit.app.plots import layout

    text = [0.0]
    draw_text = backend_agg.RendererAgg.draw_text

    def timed_text(self: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return draw_text(self, *args, **kwargs)
        finally:
            text[0] += time.process_time() - start

    def save(fig: Any, path: Path) -> Any:
        mine = steps.setdefault(Path(path).stem, {})
        built = time.process_time()
        mine.setdefault("build", []).append(built - started[0])
        layout.fit(fig)
        fitted = time.process_time()
        canvas, text[0] = backend_agg.FigureCanvasAgg(fig), 0.0
        backend_agg.RendererAgg.draw_text = timed_text
        try:
            with rc_context(layout.SAVE_RC):
                canvas.draw()
        finally:
            backend_agg.RendererAgg.draw_text = draw_text
        drawn = time.process_time()
        size = canvas.get_width_height()
        image = Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        image.save(path, compress_level=layout.PNG_COMPRESS_LEVEL)
        done = time.process_time()
        for step, cpu in (("fit", fitted - built), ("draw", drawn - fitted)):
            mine.setdefault(step, []).append(cpu)
        mine.setdefault("text", []).append(text[0])
        mine.setdefault("png", []).append(done - drawn)
        return fig

    return save


def figure_steps(run: Path, repeats: int) -> dict[str, dict[str, float]]:
    """Per figure, and for reading the run and the Markdown: each step's least CPU seconds
    over ``repeats`` (the module docstring names the steps)."""
    from puzzlekit.app import plots
    from puzzlekit.app.plots import figures, report
    from puzzlekit.app.plots.pool import young_collections

    steps: dict[str, dict[str, list[float]]] = {}
    started = [0.0]
    real = figures.save
    figures.save = _timed_save(steps, started)
    first = "(reading the run, markdown)"
    try:
        for _ in range(repeats):
            start = time.process_time()
            attempts, puzzles, manifest = plots.load_run(run)
            read = time.process_time()
            report.markdown_lines(run, attempts, puzzles, manifest, list(figures.FIGURES))
            mine = steps.setdefault(first, {})
            mine.setdefault("load_run", []).append(read - start)
            mine.setdefault("markdown", []).append(time.process_time() - read)
            scales, shapes = plots.grade_scales(manifest), plots.grid_shapes(manifest)
            jobs, _ = figures.figure_jobs(attempts, puzzles, run / "report", scales, shapes)
            with young_collections():  # as draw_all draws them
                for _, draw in jobs:
                    started[0] = time.process_time()
                    draw()
                    gc.collect(0)
    finally:
        figures.save = real
    return {name: {k: min(v) for k, v in got.items()} for name, got in steps.items()}


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
        steps = figure_steps(run, args.repeats)
    first = steps.pop("(reading the run, markdown)")
    print(
        f"before the figures, least CPU ms: load_run {first['load_run'] * 1000:.0f}, "
        f"markdown {first['markdown'] * 1000:.0f}"
    )
    cols = ("build", "fit", "draw", "text", "png")
    print("figure: least CPU ms per step (text: within draw) | total")
    totals = dict.fromkeys(cols, 0.0)
    for name, got in sorted(
        steps.items(), key=lambda kv: -sum(kv[1][c] for c in cols if c != "text")
    ):
        total = sum(got[c] for c in cols if c != "text")
        print(
            f"  {name}: "
            + ", ".join(f"{c} {got[c] * 1000:.0f}" for c in cols)
            + f" | {total * 1000:.0f}"
        )
        for c in cols:
            totals[c] += got[c]
    every = sum(totals[c] for c in cols if c != "text")
    print(
        "  all figures: "
        + ", ".join(f"{c} {totals[c] * 1000:.0f}" for c in cols)
        + f" | {every * 1000:.0f}"
    )
    after = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"all figures {every:.2f} s CPU; load {load:.2f} before, {after:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
