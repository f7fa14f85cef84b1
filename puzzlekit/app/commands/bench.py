"""``puzzlekit bench CONFIG [--out DIR]``: run a verification benchmark.

See :mod:`benchmarks.bench_verify`; a config with ``study = "bench_fast"`` is the speed
benchmark of :mod:`benchmarks.bench_fast`, ``study = "user_path"`` the user's-path
benchmark of :mod:`benchmarks.bench_userpath`, ``study = "generate"`` the generation
benchmark of :mod:`benchmarks.genbench`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from puzzlekit.app.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run a verification benchmark (TOML config); write CSV + MD")
    p.add_argument("config", help="benchmark config, e.g. experiments/bench_verify.toml")
    p.add_argument("--out", default=None, help="output folder (default: runs/<config name>)")
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    import tomllib

    from benchmarks import bench_fast, bench_userpath, bench_verify, genbench
    from puzzlekit.core.reading import ReadError, load_toml_file

    config = Path(args.config)
    if not config.is_file():
        raise UsageError(f"cannot read {args.config}: no such file")
    bench: Any = bench_verify
    studies = {"bench_fast": bench_fast, "user_path": bench_userpath, "generate": genbench}
    try:
        bench = studies.get(load_toml_file(config).get("study"), bench_verify)
    except (ReadError, OSError):
        pass  # reported below, by the run
    out = Path(args.out) if args.out else Path("runs") / config.stem
    try:
        bench.run(config, out, progress=lambda line: print(line, file=sys.stderr, flush=True))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{args.config} is not TOML: {exc}") from None
    except (KeyError, ValueError, OSError, ImportError) as exc:
        raise UsageError(f"{args.config}: {exc}") from None
    print((out / "results.md").read_text("utf-8"), end="")
    return 0
