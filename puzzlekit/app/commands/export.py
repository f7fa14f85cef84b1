"""``puzzlekit export``: accepted puzzles to a dataset for models (JSON Lines, Parquet, or a
Hugging Face ``DatasetDict``), with a dataset card; splits disjoint by canonical digest.

Prints one JSON summary line (rows per split, duplicates dropped, overlap with each
``--check-against`` dataset). Exit codes: 0 when written, 2 for unusable arguments or inputs.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from puzzlekit.app.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export accepted puzzles as a dataset for models")
    p.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="generate output (JSON Lines) or run directory"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="the dataset directory to write")
    p.add_argument(
        "--to",
        default="jsonl",
        choices=("jsonl", "parquet", "datasets"),
        help="jsonl, parquet, or a Hugging Face DatasetDict saved to disk",
    )
    p.add_argument(
        "--split",
        default="train=1",
        help="split fractions, e.g. train=0.8,test=0.2 (disjoint by canonical digest)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the split assignment")
    p.add_argument(
        "--style", default="plain", choices=("plain", "brief", "json"), help="prompt style"
    )
    p.add_argument(
        "--grades", metavar="FILE", help="puzzlekit grade output to join by digest (level)"
    )
    p.add_argument(
        "--check-against",
        action="append",
        default=[],
        metavar="OTHER",
        help="report how many puzzles' classes are also in OTHER (an export, generate output "
        "or run directory); repeatable",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="build the rows in N processes (default 1; the dataset is the same)",
    )
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from puzzlekit.app.dataset import ExportError, export

    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give a number of processes, 1 or more")
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out {args.out}: exists and is not an empty directory")
    command = _command(args)
    try:
        summary = export(
            [Path(p) for p in args.inputs],
            out,
            fmt=args.to,
            split=args.split,
            seed=args.seed,
            style=args.style,
            grades=None if args.grades is None else Path(args.grades),
            check_against=[Path(p) for p in args.check_against],
            command=command,
            jobs=args.jobs,
        )
    except ExportError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps(summary))
    return 0


def _command(args: argparse.Namespace) -> str:
    """The command line that reproduces this export (for the dataset card)."""
    words = ["puzzlekit", "export", *args.inputs, "--out", args.out, "--to", args.to]
    words += ["--split", args.split, "--seed", str(args.seed), "--style", args.style]
    if args.grades:
        words += ["--grades", args.grades]
    for other in args.check_against:
        words += ["--check-against", other]
    return shlex.join(words)
