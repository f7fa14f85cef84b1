"""The 9×9 bitboard search against the general compiled search, and its locked-candidate
look-ahead: nodes and CPU time of the compiled search alone on the 9×9 sets.

Run: ``python -m benchmarks.kernel9_bench [CONFIG]`` (default
``experiments/bench_user_path.toml``: its ``[[sets]]`` and seed; the same fresh copies as the
user's-path benchmark). For each puzzle the same prepared search runs on each kernel
(``general``: :mod:`~puzzlekit.verifiers.bitmask.kernel`; ``grid9``:
:mod:`~puzzlekit.verifiers.bitmask.kernel9`; ``grid9+locked``: with the look-ahead;
``band9``: :mod:`~puzzlekit.verifiers.bitmask.band9`, what a verification runs), counting
to two as a uniqueness filter does. Prints one JSON row per set and kernel: mean nodes, CPU µs
median and mean, ns a node, and whether every kernel found the same solutions with the same
node counts as the general one (the look-ahead and the band search: the same solutions).
Not for: tests.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

KERNELS = ("general", "grid9", "grid9+locked", "band9")


def _search(inst: Any, kernel: str) -> tuple[float, int, np.ndarray]:
    """CPU seconds, nodes and solution bits of one search of ``inst`` on ``kernel``."""
    from puzzlekit.verifiers.bitmask.backend import prepare_instance, variable_order
    from puzzlekit.verifiers.bitmask.kernel9 import grid9_arrays
    from puzzlekit.verifiers.bitmask.search import Search, start_domains

    cs, effects = prepare_instance(inst)
    dom = start_domains(cs, effects)
    structure = cs.structure(list(effects.values()))
    search = Search(cs, structure, 2)
    search.set_order(variable_order(cs, inst.digest))
    if kernel != "band9":  # the band search (what a verification runs) stays for its row
        search.band9 = None
    if kernel == "general":
        search.grid9 = None
    elif kernel == "grid9+locked":  # the arrays with the locked-candidate pairs
        search.grid9 = grid9_arrays(structure, cs.values)
    cpu = time.process_time()
    search.run(dom, None, None)
    return time.process_time() - cpu, search.nodes, search.bits().copy()


def run(config_path: Path) -> list[dict[str, Any]]:
    import puzzlekit as pk
    from benchmarks.bench_userpath import relabelled

    config = tomllib.loads(config_path.read_text("utf-8"))
    root = config_path.resolve().parent.parent
    seed = int(config.get("seed", 0))
    rows = []
    for i, spec in enumerate(config.get("sets", [])):
        lines = (root / spec["path"]).read_text("utf-8").split()[: spec.get("limit", 200)]
        copies = relabelled(lines, seed + 10 * i)
        for line in copies[:5]:  # the kernels loaded before any clock
            for kernel in KERNELS:
                _search(pk.parse("sudoku", line), kernel)
        cpu: dict[str, list[float]] = {k: [] for k in KERNELS}
        nodes: dict[str, list[int]] = {k: [] for k in KERNELS}
        same = {k: True for k in KERNELS}
        for line in copies:
            ran = {k: _search(pk.parse("sudoku", line), k) for k in KERNELS}
            for k, (seconds, n, bits) in ran.items():
                cpu[k].append(seconds)
                nodes[k].append(n)
                same[k] &= bool(np.array_equal(bits, ran["general"][2]))
                same[k] &= k in ("grid9+locked", "band9") or n == ran["general"][1]
        for k in KERNELS:
            rows.append(
                {
                    "set": spec["name"],
                    "kernel": k,
                    "nodes_mean": round(statistics.fmean(nodes[k]), 1),
                    "cpu_us_median": round(statistics.median(cpu[k]) * 1e6, 1),
                    "cpu_us_mean": round(statistics.fmean(cpu[k]) * 1e6, 1),
                    "ns_per_node": round(sum(cpu[k]) / sum(nodes[k]) * 1e9),
                    "same_as_general": same[k],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    import os

    print(f"load average {os.getloadavg()[0]:.1f} at start", flush=True)
    run(Path(sys.argv[1] if len(sys.argv) > 1 else "experiments/bench_user_path.toml"))
