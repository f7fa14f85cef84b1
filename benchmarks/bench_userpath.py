"""The user's-path benchmark: what ``pk.verify(pk.parse(line))`` costs against its compiled
search, ``pk.verify_many`` per puzzle, and ``puzzlekit verify`` on a file.

Run: ``puzzlekit bench experiments/bench_user_path.toml --out DIR`` (the config says
``study = "user_path"``), or ``python benchmarks/bench_userpath.py CONFIG --out DIR``
(with ``PYTHONPATH`` at another checkout, to measure it with the same code: only the public API
and the bitmask internals every version has are used; ``verify_many`` is skipped where absent).

- ``[[sets]]`` (9×9 files): for each puzzle, a fresh copy (digits relabelled by a seeded
  permutation: a puzzle of the same difficulty that no cache has seen) is timed through
  ``pk.verify(pk.parse("sudoku", line))``, and the compiled search alone (its run from
  the prepared domains, nothing around it) on the same instance; another fresh copy of each
  20 puzzles goes through one ``pk.verify_many`` call right after. Medians and means per puzzle
  in µs (``verify_many``: the mean, a call's time shared by its puzzles, wall and CPU; a few
  slow puzzles put the means of these sets well above their medians). Both timings include
  reading each report's verdict, what every caller reads: a report builds its solutions, gap
  and (on the 9×9 band search) the instance's digest only when they are read, so a timing
  without a read would time less than a caller waits for.
- ``[cli]``: ``lines`` distinct puzzles (fresh copies of the first set) in a file, through
  ``python -m puzzlekit verify FILE --family sudoku --format json`` in a fresh process (start-up
  included): lines per second.

Writes ``results.json`` and ``results.md``. Not for: timing assertions in tests.
"""

from __future__ import annotations

import json
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

from benchmarks.bench_fast import machine


def relabelled(lines: Sequence[str], seed: int) -> list[str]:
    """Each line with its digits 1-9 permuted by a permutation drawn from ``seed`` and its
    position (the same puzzle up to symmetry: same difficulty, another digest)."""
    out = []
    for i, line in enumerate(lines):
        perm = list("123456789")
        random.Random(seed * 1_000_003 + i).shuffle(perm)
        out.append(line.translate(str.maketrans("123456789", "".join(perm))))
    return out


def _search_alone(inst: Any) -> tuple[float, float]:
    """Wall and CPU seconds of the compiled search of ``inst`` alone (prepared outside the
    clock)."""
    import numpy as np

    from puzzlekit.verifiers.bitmask.backend import prepare_instance, variable_order
    from puzzlekit.verifiers.bitmask.search import Search, restrict

    cs, effects = prepare_instance(inst)
    dom = cs.base_dom.copy()
    pairs = [p for e in effects.values() for p in e.unary]
    idx, masks = zip(*pairs, strict=True)
    restrict(dom, np.array(idx, np.int64), np.array(masks, np.int64))
    search = Search(cs, cs.structure(list(effects.values())), 100)
    search.set_order(variable_order(cs, inst.digest))
    start, cpu = time.perf_counter(), time.process_time()
    search.run(dom, None, None)
    return time.perf_counter() - start, time.process_time() - cpu


def reference_times(command: Sequence[str], lines: Sequence[str]) -> list[float]:
    """Seconds per puzzle of an external checker (``[reference]``: a command that reads one
    puzzle a line on stdin and prints, for each, its time in µs as the first field)."""
    done = subprocess.run(
        list(command), input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    )
    out = [float(row.split()[0]) * 1e-6 for row in done.stdout.splitlines() if row.strip()]
    if len(out) != len(lines):
        raise RuntimeError(f"{command[0]}: {len(out)} times for {len(lines)} puzzles")
    return out


#: puzzles a ``pk.verify_many`` call of the benchmark takes, between the single checks of them
MANY_CHUNK = 20


def bench_set(
    name: str, lines: Sequence[str], seed: int, reference: Sequence[str] = ()
) -> dict[str, Any]:
    """The three medians of one set (see the module docstring); ``pk.verify_many`` takes the
    fresh copies of each :data:`MANY_CHUNK` puzzles right after their single checks, so a busy
    machine slows both alike."""
    import puzzlekit as pk

    single, alone, many, single_cpu, alone_cpu, many_cpu = [], [], [], [], [], []
    verdicts: dict[str, int] = {}
    copies, others = relabelled(lines, seed), relabelled(lines, seed + 1)
    for start in range(0, len(lines), MANY_CHUNK):
        got = []
        for line in copies[start : start + MANY_CHUNK]:
            began, cpu = time.perf_counter(), time.process_time()
            rep = pk.verify(pk.parse("sudoku", line))
            rep.verdict  # noqa: B018 - what a caller reads first
            single.append(time.perf_counter() - began)
            single_cpu.append(time.process_time() - cpu)
            wall, cpu = _search_alone(pk.parse("sudoku", line))
            alone.append(wall)
            alone_cpu.append(cpu)
            verdicts[rep.verdict.value] = verdicts.get(rep.verdict.value, 0) + 1
            got.append(rep.verdict)
        if hasattr(pk, "verify_many"):
            chunk = others[start : start + MANY_CHUNK]
            began, cpu = time.perf_counter(), time.process_time()
            reps = pk.verify_many(chunk, "sudoku")
            read = [r.verdict for r in reps]  # what every caller reads (reports build the rest)
            many.append((time.perf_counter() - began) / len(chunk))
            many_cpu.append((time.process_time() - cpu) / len(chunk))
            assert read == got  # the same puzzles up to relabelling
    row: dict[str, Any] = {
        "set": name,
        "puzzles": len(lines),
        "verdicts": verdicts,
        "pk_verify_us": round(statistics.median(single) * 1e6, 1),
        "search_alone_us": round(statistics.median(alone) * 1e6, 1),
    }
    row["pk_verify_mean_us"] = round(statistics.fmean(single) * 1e6, 1)
    row["search_alone_mean_us"] = round(statistics.fmean(alone) * 1e6, 1)
    row["pk_verify_cpu_us"] = round(statistics.median(single_cpu) * 1e6, 1)
    row["search_alone_cpu_us"] = round(statistics.median(alone_cpu) * 1e6, 1)
    if reference:  # the same fresh copies through the external checker, right after
        ref = reference_times(reference, copies)
        row["reference_us"] = round(statistics.median(ref) * 1e6, 2)
        row["reference_mean_us"] = round(statistics.fmean(ref) * 1e6, 2)
        row["pk_verify_over_reference"] = round(
            statistics.median(single) / statistics.median(ref), 1
        )
        row["search_over_reference"] = round(statistics.median(alone) / statistics.median(ref), 1)
        if many:
            row["verify_many_over_reference"] = round(
                statistics.fmean(many) / statistics.fmean(ref), 1
            )
    if many:  # each entry is a call's mean per puzzle: compare it with the means
        row["verify_many_mean_us"] = round(statistics.fmean(many) * 1e6, 1)
        row["verify_many_cpu_mean_us"] = round(statistics.fmean(many_cpu) * 1e6, 1)
    row["pk_verify_over_search"] = round(row["pk_verify_us"] / row["search_alone_us"], 1)
    return row


def bench_cli(lines: Sequence[str], count: int, seed: int) -> dict[str, Any]:
    """Lines per second of ``puzzlekit verify`` on ``count`` distinct puzzles in a file."""
    puzzles: list[str] = []
    round_ = 0
    while len(puzzles) < count:
        puzzles += relabelled(lines, seed + 100 + round_)
        round_ += 1
    puzzles = puzzles[:count]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "puzzles.txt"
        path.write_text("\n".join(puzzles) + "\n")
        cmd = [sys.executable, "-m", "puzzlekit", "verify", str(path), "--family", "sudoku"]
        cmd += ["--format", "json", "--quiet"]
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
    printed = done.stdout.count("\n")
    assert printed == count, (printed, count)
    return {"lines": count, "seconds": round(wall, 2), "lines_per_s": round(count / wall, 1)}


def markdown(results: dict[str, Any]) -> str:
    """The tables of ``results``."""
    out = [f"Config `{results['config']}`; {results['machine']}.", ""]
    out += [
        "| set | puzzles | `pk.verify(pk.parse(line))` median / mean µs (CPU median) | "
        "compiled search alone median / mean µs (CPU median) | median ratio | "
        "`pk.verify_many` mean µs per puzzle (CPU) | reference median / mean µs | "
        "× reference: verify / search / verify_many |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["sets"]:
        many = r.get("verify_many_mean_us", "—")
        if "verify_many_cpu_mean_us" in r:
            many = f"{many} ({r['verify_many_cpu_mean_us']})"
        ref, times = "—", "—"
        if "reference_us" in r:
            ref = f"{r['reference_us']} / {r['reference_mean_us']}"
            times = (
                f"{r['pk_verify_over_reference']}× / {r['search_over_reference']}× / "
                f"{r.get('verify_many_over_reference', '—')}×"
            )
        out.append(
            f"| {r['set']} | {r['puzzles']} | {r['pk_verify_us']} / {r['pk_verify_mean_us']} "
            f"({r.get('pk_verify_cpu_us', '—')}) | {r['search_alone_us']} / "
            f"{r['search_alone_mean_us']} ({r.get('search_alone_cpu_us', '—')}) | "
            f"{r['pk_verify_over_search']}× | {many} | {ref} | {times} |"
        )
    cli = results.get("cli")
    if cli:
        out += ["", f"`puzzlekit verify` of {cli['lines']} lines: {cli['seconds']} s wall, "]
        out[-1] += f"{cli['lines_per_s']} lines/s (start-up included)."
    return "\n".join(out) + "\n"


def _reference(config: dict, root: Path, progress: Callable[[str], None]) -> list[str]:
    """The ``[reference]`` command (its program relative to the repository root), or none when
    the config names none or its program is not built."""
    command = list(config.get("reference", {}).get("command", []))
    if not command:
        return []
    program = root / command[0]
    if not program.exists():
        progress(f"reference {command[0]} not built: skipped (see the config)")
        return []
    return [str(program), *command[1:]]


def run(config_path: Path, out_dir: Path, progress: Callable[[str], None] = print) -> dict:
    """Run the benchmark; write ``results.json`` and ``results.md`` in ``out_dir``."""
    import puzzlekit as pk

    config = tomllib.loads(config_path.read_text("utf-8"))
    root = config_path.resolve().parent.parent
    seed = int(config.get("seed", 0))
    results: dict[str, Any] = {"config": config_path.name, "machine": machine(), "sets": []}
    sets = config.get("sets", [])
    texts = [(root / s["path"]).read_text("utf-8").split()[: s.get("limit", 200)] for s in sets]
    warm = relabelled(texts[0][:20], seed + 999) if texts else []
    for line in warm:  # the compiled searches loaded (or compiled) before any clock
        pk.verify(pk.parse("sudoku", line))
        _search_alone(pk.parse("sudoku", line))
    if warm and hasattr(pk, "verify_many"):
        pk.verify_many(warm, "sudoku")
    for i, (spec, lines) in enumerate(zip(sets, texts, strict=True)):
        row = bench_set(spec["name"], lines, seed + 10 * i, _reference(config, root, progress))
        results["sets"].append(row)
        progress(json.dumps(row))
    cli = config.get("cli")
    if cli and texts:
        results["cli"] = bench_cli(texts[0], int(cli.get("lines", 10_000)), seed)
        progress(json.dumps(results["cli"]))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    (out_dir / "results.md").write_text(markdown(results), "utf-8")
    return results


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--out", type=Path, default=Path("runs/bench_user_path"))
    args = parser.parse_args()
    run(args.config, args.out, progress=lambda line: print(line, file=sys.stderr, flush=True))
    print((args.out / "results.md").read_text("utf-8"), end="")
