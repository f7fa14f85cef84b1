"""Generation speed on the user's path: ``puzzlekit generate`` commands end to end, timed.

Run ``puzzlekit bench experiments/bench_generate.toml --out runs/bench_generate`` (or
``python -m benchmarks.genbench CONFIG --out DIR``). Each ``[[runs]]`` entry of the
config is one ``puzzlekit generate`` command (its ``args``, with ``--seed`` and ``--out`` added),
run ``repeat`` times in a fresh process; the table gives the accepted puzzles, wall seconds, CPU
seconds (the command's process and the processes it waited for: the loop process, a holdout
process) and puzzles per second of wall time beside the run's goal, with the load average
before and after each run (the machine is shared: CPU time is the steadier figure). Writes
``results.md`` and ``results.json``. A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.startup import child_cpu


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def time_command(args: Sequence[str], seed: int) -> dict[str, Any]:
    """One ``puzzlekit generate ARGS --seed SEED`` in a fresh process: accepted puzzles, wall and
    CPU seconds, the load average before and after."""
    exe = Path(sys.executable).with_name("puzzlekit")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        cmd = [str(exe), "generate", *args, "--seed", str(seed), "--out", str(out), "--quiet"]
        load0, cpu0, t0 = _load(), child_cpu(), time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall, cpu = time.perf_counter() - t0, child_cpu() - cpu0
        text = out.read_text("utf-8") if out.exists() else ""
    accepted = sum(1 for line in text.splitlines() if line.startswith('{"status":"accepted"'))
    return {
        "command": "puzzlekit generate " + shlex.join([*args, "--seed", str(seed)]),
        "exit": done.returncode,
        "puzzles": accepted,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "per_second": round(accepted / wall, 2) if wall > 0 else None,
        "per_cpu_second": round(accepted / cpu, 2) if cpu > 0 else None,
        "load_before": round(load0, 2),
        "load_after": round(_load(), 2),
        "stderr_tail": done.stderr.strip().splitlines()[-3:],
    }


def run(config_path: Path, out_dir: Path, progress: Callable[[str], None] = print) -> dict:
    """Run every ``[[runs]]`` entry of the config; write ``results.md`` and ``results.json``."""
    from benchmarks.bench_fast import machine
    from puzzlekit.core.reading import load_toml_file

    config = load_toml_file(config_path)
    seed = int(config.get("seed", 1))
    rows = []
    for spec in config["runs"]:
        for i in range(int(spec.get("repeat", 1))):
            row = {"name": spec["name"], "goal_per_second": spec.get("goal_per_second")}
            row |= time_command([str(a) for a in spec["args"]], seed + i)
            progress(json.dumps(row))
            rows.append(row)
    results = {"config": str(config_path), "machine": machine(), "rows": rows}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(results, indent=1) + "\n", "utf-8")
    (out_dir / "results.md").write_text(markdown(results), "utf-8")
    return results


def markdown(results: Mapping[str, Any]) -> str:
    """The table of a run's rows."""
    out = [f"Config `{results['config']}`; {results['machine']}.", ""]
    out += [
        "| run | puzzles | wall s | CPU s | per second (wall) | per CPU second | goal | load "
        "before / after | command |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results["rows"]:
        goal = f"≥ {r['goal_per_second']:g}/s" if r.get("goal_per_second") else "–"
        out.append(
            f"| {r['name']} | {r['puzzles']} | {r['wall_s']:g} | {r['cpu_s']:g} | "
            f"{r['per_second']} | {r['per_cpu_second']} | {goal} | "
            f"{r['load_before']:g} / {r['load_after']:g} | `{r['command']}` |"
        )
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.bench_fast import config_main

    return config_main(argv, "genbench", run, "runs/bench_generate")


if __name__ == "__main__":
    raise SystemExit(main())
