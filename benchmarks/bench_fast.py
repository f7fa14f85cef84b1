"""The speed benchmark of the compiled ``bitmask`` backend: checks, sizes, generation, first call.

Run: ``puzzlekit bench experiments/bench_fast.toml --out DIR`` (the config says
``study = "bench_fast"``), or ``python -m benchmarks.bench_fast CONFIG --out DIR``.
Everything is measured in one process run, both sides of a ratio on the same instances, one
check after the other per instance (so a busy machine slows both alike):

- ``[[sets]]`` (9×9 files, one 81-character puzzle a line): per-check medians of the public
  ``pk.verify(instance)`` (defaults: the default verifier, cap 100; the instance's digest is
  computed before the clock, as a generation loop has it), a kept ``bitmask`` and a kept ``sat``
  verifier (cap 2), and the pure-Python bitmask checker of :mod:`~.pybitmask` (counting to two);
  every verdict must agree.
- ``[[sizes]]``: puzzles of an N×N Sudoku (a random grid, cells dropped in a seeded order while
  unique, down to ``givens`` of the cells), checked by kept ``bitmask`` and ``sat`` verifiers.
- ``[[families]]``: the same two on puzzles the loop generates for another covered family
  (killer Sudoku, KenKen, Futoshiki, jigsaw, Latin), and on each with its first clue dropped.
- ``[generation]``: minimal 9×9 puzzles per second of the loop behind ``puzzlekit generate sudoku
  --minimize`` (the default filter and holdout; with the holdout off, to see its share; and with
  the previous default, the ``sat`` filter), of the pure-Python remove-and-check generator, and
  of the command itself (``cli_count`` puzzles, process start included).
- ``[first_call]``: seconds of a fresh process's first bitmask check with an empty numba cache
  (compiling) and with the cache it left (loading).

Writes ``results.json`` and ``results.md``. Not for: timing assertions in tests.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.pybitmask import PySudoku, generate_minimal, random_grid
from puzzlekit.core.model import Clue, Instance

VERDICTS = ("UNSOLVABLE", "UNIQUE", "MULTIPLE")


def _median_us(times: Sequence[float]) -> float:
    return round(statistics.median(times) * 1e6, 1) if times else float("nan")


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def bench_set(name: str, lines: Sequence[str], sat_sample: int) -> dict[str, Any]:
    """Per-check times of the four checkers on one 9×9 set (verdicts must agree)."""
    import puzzlekit as pk
    from puzzlekit.verifiers.registry import get_verifier

    fam = pk.get_family("sudoku")
    bitmask, sat = get_verifier("bitmask"), get_verifier("sat", forced_cells=False)
    py = PySudoku(9, 3, 3)
    times: dict[str, list[float]] = {"pk.verify": [], "bitmask": [], "sat": [], "python": []}
    verdicts: dict[str, int] = {}
    for i, line in enumerate(lines):
        inst = fam.parse_text(line)
        inst.digest  # noqa: B018  (outside the clock)
        grid = [0 if ch in ".0" else int(ch, 36) for ch in line]
        t, rep = _timed(lambda inst=inst: pk.verify(inst))
        times["pk.verify"].append(t)
        t, kept = _timed(lambda inst=inst: bitmask.verify(inst, solution_cap=2))
        times["bitmask"].append(t)
        t, count = _timed(lambda grid=grid: py.count(grid, 2))
        times["python"].append(t)
        if i < sat_sample:
            t, srep = _timed(lambda inst=inst: sat.verify(inst, solution_cap=2))
            times["sat"].append(t)
            assert srep.verdict is kept.verdict, (name, i)
        expected = VERDICTS[count]
        if not rep.verdict.value == kept.verdict.value == expected:
            raise AssertionError(
                f"{name} puzzle {i}: verdicts {rep.verdict} {kept.verdict} {count}"
            )
        verdicts[expected] = verdicts.get(expected, 0) + 1
    med = {k: _median_us(v) for k, v in times.items()}
    return {
        "set": name,
        "checks": len(lines),
        "sat_checks": len(times["sat"]),
        "verdicts": verdicts,
        "median_us": med,
        "python_over_pk_verify": round(med["python"] / med["pk.verify"], 1),
        "python_over_bitmask": round(med["python"] / med["bitmask"], 1),
        "sat_over_bitmask": round(med["sat"] / med["bitmask"], 1),
    }


def sized_puzzles(n: int, box: Sequence[int], count: int, givens: float, seed: int) -> list[Any]:
    """``count`` unique N×N puzzles: random grids, cells dropped while unique, down to ``givens``
    of the cells (checked by a bitmask uniqueness session)."""
    from puzzlekit.verifiers.registry import get_verifier

    rng = random.Random(seed)
    bitmask = get_verifier("bitmask")
    params = {"size": n, "box": list(box)}
    out = []
    for _ in range(count):
        grid = random_grid(rng, n, box[0], box[1])
        clues = [
            Clue.make(f"r{i // n + 1}c{i % n + 1}", "given", {"value": v}, [(i // n, i % n)])
            for i, v in enumerate(grid)
        ]
        full = Instance.make("sudoku", params, clues)
        solution = {f"r{i // n + 1}c{i % n + 1}": v for i, v in enumerate(grid)}
        kept = {c.id for c in clues}
        target = round(givens * n * n)
        with bitmask.uniqueness_session(full, solution) as session:
            for i in rng.sample(range(n * n), n * n):
                if len(kept) <= target:
                    break
                cid = clues[i].id
                if session.unique_with(kept - {cid}):
                    kept.discard(cid)
        out.append(full.with_clues(c for c in clues if c.id in kept))
    return out


def _kept_pair(puzzles: Sequence[Any], label: str) -> tuple[dict[str, float], list[str]]:
    """Median µs of a kept ``bitmask`` and a kept ``sat`` check (cap 2) on each puzzle, one
    after the other, and the verdicts (the two must agree)."""
    from puzzlekit.verifiers.registry import get_verifier

    bitmask, sat = get_verifier("bitmask"), get_verifier("sat", forced_cells=False)
    times: dict[str, list[float]] = {"bitmask": [], "sat": []}
    verdicts = []
    for inst in puzzles:
        inst.digest  # noqa: B018  (outside the clock)
        t, a = _timed(lambda inst=inst: bitmask.verify(inst, solution_cap=2))
        times["bitmask"].append(t)
        t, b = _timed(lambda inst=inst: sat.verify(inst, solution_cap=2))
        times["sat"].append(t)
        assert a.verdict is b.verdict, (label, a.verdict, b.verdict)
        verdicts.append(a.verdict.value)
    return {k: _median_us(v) for k, v in times.items()}, verdicts


def bench_size(spec: dict[str, Any], seed: int) -> dict[str, Any]:
    """Kept bitmask and sat checks (cap 2) of generated N×N puzzles."""
    n, box = spec["size"], spec["box"]
    puzzles = sized_puzzles(n, box, spec.get("count", 10), spec.get("givens", 0.5), seed)
    med, verdicts = _kept_pair(puzzles, f"{n}x{n}")
    return {
        "size": f"{n}x{n}",
        "box": list(box),
        "checks": len(puzzles),
        "givens": round(statistics.mean(len(p.clues) for p in puzzles) / (n * n), 3),
        "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
        "median_us": med,
        "sat_over_bitmask": round(med["sat"] / med["bitmask"], 1),
    }


def bench_family(spec: dict[str, Any], seed: int) -> dict[str, Any]:
    """Kept bitmask and sat checks (cap 2) of puzzles the loop generates for one family (the
    accepted ones, and each with its first clue dropped)."""
    from puzzlekit.loop.batch import GenerateConfig, generate

    family, params = spec["family"], spec.get("params", {})
    config = GenerateConfig(
        family, params, count=spec.get("count", 10), filter="bitmask", holdout=None, seed=seed
    )
    puzzles = []
    for rec in generate(config):
        if rec["status"] == "accepted":
            inst = Instance.from_json_obj(rec["instance"])
            puzzles += [inst, inst.with_clues(inst.clues[1:])]
    med, verdicts = _kept_pair(puzzles, family)
    return {
        "family": family,
        "params": params,
        "checks": len(puzzles),
        "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
        "median_us": med,
        "sat_over_bitmask": round(med["sat"] / med["bitmask"], 1),
    }


class _TimedFilter:
    """A filter wrapper adding up the seconds of its verify calls and session questions."""

    def __init__(self, inner: Any, clock: list[float]) -> None:
        self._inner, self._clock = inner, clock

    def verify(self, *args: Any, **kwargs: Any) -> Any:
        t, out = _timed(lambda: self._inner.verify(*args, **kwargs))
        self._clock[0] += t
        return out

    def uniqueness_session(self, instance: Any, solution: Any) -> Any:
        inner = self._inner.uniqueness_session(instance, solution)
        return None if inner is None else _TimedSession(inner, self._clock)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _TimedSession:
    def __init__(self, inner: Any, clock: list[float]) -> None:
        self._inner, self._clock = inner, clock

    def unique_with(self, clue_ids: Any) -> bool:
        t, out = _timed(lambda: self._inner.unique_with(clue_ids))
        self._clock[0] += t
        return bool(out)

    def close(self) -> None:
        self._inner.close()


def loop_rate(count: int, filt: str, holdout: str | None, seed: int) -> dict[str, Any]:
    """Minimal 9×9 puzzles per second of the generation loop (``puzzlekit generate``'s)."""
    from puzzlekit.loop.batch import GenerateConfig, generate

    config = GenerateConfig(
        family="sudoku",
        params={},
        count=count,
        minimize=True,
        filter=filt,
        holdout=holdout,
        seed=seed,
        holdout_in_process=True,  # the filter's share is timed here: the loop in this process
    )
    clock = [0.0]
    list(generate(GenerateConfig(**{**config.__dict__, "count": 2, "seed": seed + 1})))  # warm
    t, records = _timed(
        lambda: list(generate(config, wrap_filter=lambda f: _TimedFilter(f, clock)))
    )
    accepted = sum(1 for r in records if r["status"] == "accepted")
    return {
        "arm": f"loop filter={filt} holdout={holdout}",
        "puzzles": accepted,
        "seconds": round(t, 3),
        "per_second": round(accepted / t, 1),
        "filter_share": round(clock[0] / t, 3),
    }


def python_rate(count: int, seed: int) -> dict[str, Any]:
    """Minimal 9×9 puzzles per second of the pure-Python remove-and-check generator."""
    rng = random.Random(seed)
    py = PySudoku(9, 3, 3)
    t, _ = _timed(lambda: [generate_minimal(py, rng) for _ in range(count)])
    return {"arm": "pure-Python remove-and-check", "puzzles": count, "seconds": round(t, 3),
            "per_second": round(count / t, 1)}  # fmt: skip


def cli_rate(count: int) -> dict[str, Any]:
    """``puzzlekit generate sudoku --minimize --count N`` end to end (process start included)."""
    exe = Path(sys.executable).with_name("puzzlekit")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        cmd = [
            str(exe),
            "generate",
            "sudoku",
            "--minimize",
            "--count",
            str(count),
            "--out",
            str(out),
        ]
        t, _ = _timed(lambda: subprocess.run(cmd, check=True, capture_output=True))
        accepted = sum(1 for line in out.read_text().splitlines() if '"accepted"' in line)
    return {"arm": "CLI " + " ".join(cmd[1:6]), "puzzles": accepted, "seconds": round(t, 3),
            "per_second": round(accepted / t, 1)}  # fmt: skip


_FIRST = """
import time
t0 = time.perf_counter()
import puzzlekit as pk
inst = pk.get_family("sudoku").parse_text("{line}")
t1 = time.perf_counter()
c1 = time.process_time()
pk.verify(inst)
t2 = time.perf_counter()
c2 = time.process_time()
pk.verify(inst)
print(t1 - t0, t2 - t1, c2 - c1, time.perf_counter() - t2)
"""


def first_call(line: str) -> dict[str, Any]:
    """A fresh process's first ``pk.verify`` with an empty numba cache, then with its cache."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold cache (compiles)", "warm cache (loads)"):
            res = subprocess.run(
                [sys.executable, "-c", _FIRST.format(line=line)],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            )
            imp, first, first_cpu, second = (float(x) for x in res.stdout.split())
            out[label] = {
                "import_s": round(imp, 3),
                "first_verify_s": round(first, 3),
                "first_verify_cpu_s": round(first_cpu, 3),
                "second_verify_s": round(second, 6),
            }
    return out


def run(config_path: Path, out_dir: Path, progress: Callable[[str], None] = print) -> dict:
    """Run the benchmark; write ``results.json`` and ``results.md`` in ``out_dir``."""
    config = tomllib.loads(config_path.read_text("utf-8"))
    root = config_path.resolve().parent.parent
    seed = int(config.get("seed", 0))
    results: dict[str, Any] = {"config": config_path.name, "machine": machine()}
    sets = config.get("sets", [])
    if sets:  # compile or load the compiled search before any clock
        first = (root / sets[0]["path"]).read_text("utf-8").split()[0]
        results["first_call"] = first_call(first) if config.get("first_call", True) else {}
        import puzzlekit as pk

        pk.verify(pk.get_family("sudoku").parse_text(first))
    results["sets"] = []
    for spec in sets:
        lines = (root / spec["path"]).read_text("utf-8").split()[: spec.get("limit", 200)]
        row = bench_set(spec["name"], lines, spec.get("sat_sample", len(lines)))
        results["sets"].append(row)
        progress(json.dumps(row))
    results["sizes"] = []
    for i, spec in enumerate(config.get("sizes", [])):
        row = bench_size(spec, seed + i)
        results["sizes"].append(row)
        progress(json.dumps(row))
    results["families"] = []
    for i, spec in enumerate(config.get("families", [])):
        row = bench_family(spec, seed + i)
        results["families"].append(row)
        progress(json.dumps(row))
    results["generation"] = _generation(config.get("generation", {}), seed, progress)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(results, indent=1) + "\n", "utf-8")
    (out_dir / "results.md").write_text(markdown(results), "utf-8")
    return results


def _generation(spec: dict[str, Any], seed: int, progress: Callable[[str], None]) -> list[dict]:
    from puzzlekit.verifiers.registry import default_filter_name, default_holdout_name

    if not spec:
        return []
    filt = default_filter_name("sudoku")
    rows = [
        loop_rate(spec.get("count", 300), filt, default_holdout_name(filt), seed),
        loop_rate(spec.get("count", 300), filt, None, seed),
        loop_rate(spec.get("sat_count", 60), "sat", default_holdout_name("sat"), seed),
        python_rate(spec.get("python_count", 30), seed),
    ]
    if spec.get("cli_count"):
        rows.append(cli_rate(spec["cli_count"]))
    for row in rows:
        progress(json.dumps(row))
    return rows


def machine() -> str:
    """The CPU, core count, load average at start and numpy version a figure ran with."""
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{cpu}, {os.cpu_count()} cores, load average {load:.1f} at start, numpy {np.__version__}"
    )


def markdown(results: dict[str, Any]) -> str:
    """The tables of ``results`` (times are medians per check, in microseconds)."""
    out = [f"Config `{results['config']}`; {results['machine']}.", ""]
    out += [
        "| set | checks | pk.verify µs | bitmask µs | sat µs | pure Python µs "
        "| Python / pk.verify | sat / bitmask |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["sets"]:
        m = r["median_us"]
        out.append(
            f"| {r['set']} | {r['checks']} | {m['pk.verify']:g} | {m['bitmask']:g} | {m['sat']:g} "
            f"| {m['python']:g} | {r['python_over_pk_verify']:g}× | {r['sat_over_bitmask']:g}× |"
        )
    out += ["", "| size | checks | givens | bitmask µs | sat µs | sat / bitmask |",
            "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in results["sizes"]:
        m = r["median_us"]
        out.append(
            f"| {r['size']} | {r['checks']} | {r['givens']:.0%} | {m['bitmask']:g} | {m['sat']:g} "
            f"| {r['sat_over_bitmask']:g}× |"
        )
    out += ["", "| family | checks | verdicts | bitmask µs | sat µs | sat / bitmask |"]
    out += ["|---|---:|---|---:|---:|---:|"]
    for r in results.get("families", []):
        m = r["median_us"]
        seen = ", ".join(f"{k} {v}" for k, v in r["verdicts"].items())
        out.append(
            f"| {r['family']} {json.dumps(r['params'])} | {r['checks']} | {seen} "
            f"| {m['bitmask']:g} | {m['sat']:g} | {r['sat_over_bitmask']:g}× |"
        )
    out += ["", "| generation (minimal 9×9) | puzzles | seconds | per second | filter share |",
            "|---|---:|---:|---:|---:|"]  # fmt: skip
    for r in results["generation"]:
        share = f"{r['filter_share']:.0%}" if "filter_share" in r else "-"
        out.append(
            f"| {r['arm']} | {r['puzzles']} | {r['seconds']:g} | {r['per_second']:g} | {share} |"
        )
    if results.get("first_call"):
        out += [
            "",
            "| first call (fresh process) | import s | first pk.verify s (CPU s) | second µs |",
            "|---|---:|---:|---:|",
        ]
        for label, r in results["first_call"].items():
            out.append(
                f"| {label} | {r['import_s']:g} | {r['first_verify_s']:g} "
                f"({r['first_verify_cpu_s']:g}) | {r['second_verify_s'] * 1e6:.0f} |"
            )
    return "\n".join(out) + "\n"


def config_main(
    argv: Sequence[str] | None, study: str, run_study: Callable[..., dict], out: str
) -> int:
    """The command line of a config-driven study: ``CONFIG [--out DIR]``; runs ``run_study``
    with progress on stderr and prints the table it wrote (``results.md``)."""
    import argparse

    p = argparse.ArgumentParser(prog=f"python -m benchmarks.{study}")
    p.add_argument("config")
    p.add_argument("--out", default=out)
    args = p.parse_args(argv)
    progress = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    run_study(Path(args.config), Path(args.out), progress=progress)
    print((Path(args.out) / "results.md").read_text("utf-8"), end="")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return config_main(argv, "bench_fast", run, "runs/bench_fast")


if __name__ == "__main__":
    raise SystemExit(main())
