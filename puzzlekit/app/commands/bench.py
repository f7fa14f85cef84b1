"""``puzzlekit bench CONFIG [--out DIR]``: run a verification benchmark.

See :mod:`benchmarks.bench_verify`; a config with ``study = "bench_fast"`` is the speed
benchmark of :mod:`benchmarks.bench_fast`, ``study = "user_path"`` the user's-path
benchmark of :mod:`benchmarks.bench_userpath`, ``study = "generate"`` the generation
benchmark of :mod:`benchmarks.genbench`.

The benchmarks are not installed: they are the ``benchmarks/`` folder of a clone of the
repository, found beside the ``puzzlekit`` package the command runs (an editable install of the
clone). An installed package has none: the command says so in one line and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from puzzlekit.app.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run a benchmark config from a clone; write CSV + MD")
    p.add_argument("config", help="benchmark config, e.g. experiments/bench_verify.toml")
    p.add_argument("--out", default=None, help="output folder (default: runs/<config name>)")
    p.set_defaults(func=cmd_bench)


#: a config's ``study`` -> its module in ``benchmarks/`` (any other: ``bench_verify``)
STUDIES = {"bench_fast": "bench_fast", "user_path": "bench_userpath", "generate": "genbench"}


def clone_root() -> Path:
    """The folder that holds the running ``puzzlekit`` package: a clone's root when it is one."""
    import puzzlekit

    return Path(puzzlekit.__file__).resolve().parent.parent


def load_study(name: str) -> ModuleType:
    """``benchmarks.NAME`` from the ``benchmarks/`` folder of :func:`clone_root`, never another
    ``benchmarks`` on the path; a UsageError when there is none."""
    folder = clone_root() / "benchmarks"
    if not (folder / "__init__.py").is_file():
        raise UsageError(
            f"bench runs from a clone of the repository: no benchmarks/ folder in {folder.parent} "
            "(an installed puzzlekit ships none; clone it and pip install -e the clone)"
        )
    loaded = sys.modules.get("benchmarks")
    if loaded is None:
        spec = importlib.util.spec_from_file_location(
            "benchmarks", folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules["benchmarks"] = loaded
        spec.loader.exec_module(loaded)
    elif Path(loaded.__file__ or "").resolve().parent != folder.resolve():
        raise UsageError(f"another benchmarks package is imported: {loaded.__file__}, not {folder}")
    return importlib.import_module(f"benchmarks.{name}")


def cmd_bench(args: argparse.Namespace) -> int:
    import tomllib

    from puzzlekit.core.reading import ReadError, load_toml_file

    config = Path(args.config)
    if not config.is_file():
        raise UsageError(f"cannot read {args.config}: no such file")
    study = None
    try:
        study = load_toml_file(config).get("study")
    except (ReadError, OSError):
        pass  # reported below, by the run
    bench = load_study(STUDIES.get(study, "bench_verify"))
    out = Path(args.out) if args.out else Path("runs") / config.stem
    try:
        bench.run(config, out, progress=lambda line: print(line, file=sys.stderr, flush=True))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{args.config} is not TOML: {exc}") from None
    except (KeyError, ValueError, OSError, ImportError) as exc:
        raise UsageError(f"{args.config}: {exc}") from None
    print((out / "results.md").read_text("utf-8"), end="")
    return 0
