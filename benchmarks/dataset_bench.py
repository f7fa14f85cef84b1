"""Study: symmetry classes and dataset export at the sizes issue 30 names.

``python -m benchmarks.dataset_bench --puzzles FILE [--grades FILE]`` with FILE the
JSON Lines of ``puzzlekit generate sudoku`` (9x9) and, optionally, ``puzzlekit grade`` output:

1. **transformed**: the first ``--transformed`` puzzles (default 1,000), each moved by a random
   element of Sudoku's group (digit relabelling, rows within bands, columns within stacks,
   bands, stacks, transpose; seeded): how many have the canonical digest of their original;
2. **distinct**: every puzzle of the file with a distinct digest: how many share a canonical
   digest with another (the canonical form is exact, so each such pair is one puzzle moved);
3. **export**: ``puzzlekit export FILE --grades GRADES --split train=0.8,test=0.2`` to a
   temporary directory (JSON Lines with ``--jobs`` 1 and 2, Parquet with 2), wall and CPU
   seconds (the CPU of the row-building processes counted).

``--families all`` (or a comma list; no ``--puzzles`` needed) measures every other family with
a group the same way on seeded random puzzles
(:mod:`~benchmarks.symmetry_images`): ``--family-transformed`` puzzles (default
1,000) each moved by a random element of the family's group, rebuilt from the moved solution,
and ``--family-distinct`` distinct puzzles (default 10,000): how many merged.

Prints one line per part as it goes, with the machine's load average when it ends; CPU and
wall time, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from puzzlekit.core.model import Clue, Instance


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"(load average {one:.1f}, 5 min {five:.1f})"


def _moved(inst: Instance, rng: np.random.Generator) -> Instance:
    grid = np.zeros((9, 9), dtype=np.int64)
    for clue in inst.clues:
        (r, c), v = clue.coords[0], clue.data_dict()["value"]
        grid[r, c] = v
    if rng.random() < 0.5:
        grid = grid.T

    def wreath() -> np.ndarray:
        return np.concatenate([b * 3 + rng.permutation(3) for b in rng.permutation(3)])

    grid = np.concatenate([[0], rng.permutation(9) + 1])[grid[wreath()][:, wreath()]]
    clues = [
        Clue.make(f"r{r + 1}c{c + 1}", "given", {"value": int(grid[r, c])}, [(r, c)])
        for r in range(9)
        for c in range(9)
        if grid[r, c]
    ]
    return Instance.make(inst.family, inst.params_dict(), clues)


def _instances(path: Path) -> list[Instance]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("status") == "accepted" and rec.get("instance"):
            out.append(Instance.from_json_obj(rec["instance"]))
    return out


def transformed(puzzles: list[Instance], n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    cpu = time.process_time()
    merged = sum(p.canonical_digest() == _moved(p, rng).canonical_digest() for p in puzzles[:n])
    per = (time.process_time() - cpu) / (2 * min(n, len(puzzles))) * 1e3
    print(f"transformed: {merged} of {min(n, len(puzzles))} merged with their originals "
          f"({per:.2f} CPU ms per canonical digest) {_load()}", flush=True)  # fmt: skip


def distinct(puzzles: list[Instance]) -> None:
    by_digest = {p.digest: p for p in puzzles}
    classes = {p.canonical_digest() for p in by_digest.values()}
    print(f"distinct: {len(by_digest)} distinct puzzles, {len(classes)} classes: "
          f"{len(by_digest) - len(classes)} merged {_load()}", flush=True)  # fmt: skip


def export_time(path: Path, grades: Path | None) -> None:
    from puzzlekit.app.dataset import export

    for fmt, jobs in (("jsonl", 1), ("jsonl", 2), ("parquet", 2)):
        with tempfile.TemporaryDirectory() as tmp:
            wall, cpu = time.perf_counter(), _cpu_with_children()
            summary = export([path], Path(tmp) / "ds", fmt=fmt, split="train=0.8,test=0.2",
                             grades=grades, jobs=jobs)  # fmt: skip
            wall, cpu = time.perf_counter() - wall, _cpu_with_children() - cpu
        print(f"export --to {fmt} --jobs {jobs}: {summary['rows']} rows, "
              f"{summary['duplicates']} duplicates, {wall:.1f} s wall, {cpu:.1f} s CPU "
              f"(with its processes) {_load()}", flush=True)  # fmt: skip


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its ended child processes."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def families(names: list[str], transformed_n: int, distinct_n: int, seed: int) -> None:
    from benchmarks.symmetry_images import moved_puzzle, random_puzzle

    for name in names:
        rng = np.random.default_rng([seed, len(name)])
        merged = 0
        cpu = 0.0
        for _ in range(transformed_n):
            inst, grid = random_puzzle(name, rng)
            image = moved_puzzle(inst, grid, rng)
            start = time.process_time()
            merged += inst.canonical_digest() == image.canonical_digest()
            cpu += time.process_time() - start
        puzzles = {}
        for _ in range(distinct_n * 2):
            inst, _grid = random_puzzle(name, rng)
            puzzles.setdefault(inst.digest, inst)
            if len(puzzles) == distinct_n:
                break
        classes = {p.canonical_digest() for p in puzzles.values()}
        per = cpu / max(1, 2 * transformed_n) * 1e3
        print(f"{name}: transformed {merged} of {transformed_n} merged; distinct "
              f"{len(puzzles)} puzzles, {len(classes)} classes: {len(puzzles) - len(classes)} "
              f"merged ({per:.2f} CPU ms per canonical digest) {_load()}", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--puzzles", help="generate output of 9x9 Sudoku (JSON Lines)")
    p.add_argument("--families", help="'all' or a comma list: the other families' groups")
    p.add_argument("--family-transformed", type=int, default=1000, help="puzzles moved a family")
    p.add_argument("--family-distinct", type=int, default=10000, help="distinct puzzles a family")
    p.add_argument("--grades", help="puzzlekit grade output of the same puzzles")
    p.add_argument("--transformed", type=int, default=1000, help="puzzles moved in part 1")
    p.add_argument("--seed", type=int, default=0, help="seed of the group elements")
    args = p.parse_args(argv)
    if args.families:
        from benchmarks.symmetry_images import FAMILIES

        names = list(FAMILIES) if args.families == "all" else args.families.split(",")
        unknown = [n for n in names if n not in FAMILIES]
        if unknown:
            p.error(f"--families: no group study for {', '.join(unknown)}")
        families(names, args.family_transformed, args.family_distinct, args.seed)
    if not args.puzzles:
        return 0
    path = Path(args.puzzles)
    puzzles = _instances(path)
    transformed(puzzles, args.transformed, args.seed)
    distinct(puzzles)
    export_time(path, None if args.grades is None else Path(args.grades))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
