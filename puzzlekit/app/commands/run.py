"""``puzzlekit run CONFIG``: run an experiment into a run directory; ``puzzlekit report RUN``.

A config with a ``[[sets]]`` array is a verification benchmark and goes to ``puzzlekit bench``'s
engine; every other config is a closed-loop experiment (:mod:`puzzlekit.app.experiment`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from puzzlekit.app.cli import UsageError
from puzzlekit.app.progress import add_quiet

if TYPE_CHECKING:
    from puzzlekit.app.report_ahead import ReportAhead

#: ``report --figure-format`` (puzzlekit.app.plots.panels.FIGURE_FORMATS, not imported here so
#: that the command line starts without pandas and matplotlib)
FIGURE_FORMATS = ("png", "svg", "pdf")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run an experiment config into a run directory")
    p.add_argument("config", help="experiment config (TOML)")
    p.add_argument("--out", help="run directory (default: runs/<config name>)")
    p.add_argument(
        "--executor",
        choices=("local", "dask", "serial"),
        default=None,
        help="where tasks run (default: the config's, else a local process pool)",
    )
    p.add_argument("--scheduler", help="Dask scheduler address (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=None, help="worker processes")
    p.add_argument("--resume", action="store_true", help="skip the tasks already finished")
    p.add_argument(
        "--no-report",
        dest="report",
        action="store_false",
        help="write the rows, manifest and ledger but draw no report (puzzlekit report RUN "
        "draws it later)",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, e.g. trials=2 or budget.max_calls=50 (a TOML value; "
        "repeatable; recorded in the manifest)",
    )
    add_quiet(p)
    # a judging process unless a benchmark: plugins run in the loop process only (security.md)
    p.set_defaults(func=cmd_run, judges=lambda a: not _is_bench(Path(a.config)))
    r = sub.add_parser(
        "report", help="draw a run directory's figures and write RUN_DIR/report/report.md"
    )
    r.add_argument("run_dir", help="a finished run directory (holds manifest.json)")
    r.add_argument(
        "--figure-format",
        choices=FIGURE_FORMATS,
        default=FIGURE_FORMATS[0],
        help="the figures' file format (svg and pdf for papers; report.md links them)",
    )
    r.add_argument(
        "--check",
        action="store_true",
        help="check the run directory's files against its manifest and ledger instead of "
        "drawing (exit 1 naming every file that changed)",
    )
    r.set_defaults(func=cmd_report)


def _is_bench(path: Path) -> bool:
    from puzzlekit.core.reading import ReadError, load_toml_file

    try:
        raw = load_toml_file(path)
    except (OSError, ReadError):
        return False  # reported by the run
    return "sets" in raw and "strategies" not in raw


def cmd_run(args: argparse.Namespace) -> int:
    path = Path(args.config)
    if _is_bench(path):
        from puzzlekit.app.commands.bench import cmd_bench

        return int(cmd_bench(args) or 0)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    from puzzlekit.app.experiment import ConfigError, load_config
    from puzzlekit.app.report_ahead import ReportAhead

    try:
        config = load_config(path, args.overrides)
    except ConfigError as exc:
        where = f"{exc.source}: " if exc.source else ""
        raise UsageError(
            *(f"{where}{p.path or '<config>'}: {p.message}" for p in exc.problems)
        ) from None
    # the report's own imports (matplotlib) start now, in a copy forked after the run's own
    # imports (pandas), beside the run's manifest checks and loops
    with ReportAhead(args.report) as report:
        return _run(args, path, config, report)


def _run(args: argparse.Namespace, path: Path, config: Any, report: ReportAhead) -> int:
    """:func:`cmd_run` for the experiment ``config`` read from ``path``; ``report`` draws the
    report at the end."""
    from puzzlekit.app.experiment import RunError, run_experiment

    out = Path(args.out) if args.out else Path("runs") / config.name
    try:
        run = run_experiment(
            config,
            out,
            executor=args.executor,
            workers=args.workers,
            scheduler=args.scheduler,
            resume=args.resume,
            quiet=args.quiet,
            config_path=str(path),
            overrides=args.overrides,
            report=False,
        )
        if args.report:
            report.write(run)
    except RunError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the workers were stopped; one line
        from puzzlekit.core.lifeline import interrupt_word

        word, status = interrupt_word(exc)
        print(
            f"puzzlekit: {word}; {out} keeps every finished task: "
            f"puzzlekit run {path} --out {out} --resume",
            file=sys.stderr,
        )
        return status
    print(f"run: {run}")
    if args.report:
        print(f"report: {run / 'report' / 'report.md'}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from puzzlekit.app.plots import write_report

    run = Path(args.run_dir)
    if not (run / "manifest.json").exists() or not (run / "puzzles.parquet").exists():
        raise UsageError(f"{run} is not a finished run directory")
    if getattr(args, "check", False):
        return _check_run(run)
    report = write_report(run, args.figure_format)
    print(f"report: {report}", file=sys.stdout)
    return 0


def _check_run(run: Path) -> int:
    from puzzlekit.app.experiment.run_check import check_run, data_files

    problems = check_run(run)
    for line in problems:
        print(f"puzzlekit: {line}", file=sys.stderr)
    if problems:
        return 1
    print(f"{run}: intact ({len(data_files(run))} data files, manifest and ledger agree)")
    return 0
