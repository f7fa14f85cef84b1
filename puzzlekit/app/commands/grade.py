"""``puzzlekit grade``: the difficulty grade of each puzzle, one JSON line per puzzle.

Input is read as ``puzzlekit verify`` reads it (:func:`puzzlekit.io.inputs.iter_items`). Each line
holds the input position, the digest, the hardest technique and its ``level`` (see
:mod:`puzzlekit.grading.techniques` for the scales), the status, counts per technique, the stuck
cells and
the search measures; ``--budget-seconds``/``--budget-nodes`` bound each grade (past them the line
says ``status: "undecided"`` and ``budget``: what ran out and what was spent); ``--trace`` adds
every step; ``--target LEVEL`` adds ``againstTarget``,
the detail a generator acts on (:func:`puzzlekit.generators.graded.level_detail`): the stuck cells
and the
next technique needed when the puzzle is harder than LEVEL, the removable clues when easier.
An unreadable puzzle gives a line with ``status: "invalid"`` and its violations, and the command
goes on.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from puzzlekit.app.cli import UsageError
from puzzlekit.app.commands.core import check_family_arg, input_items, item_progress, params_arg
from puzzlekit.app.progress import add_quiet


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("grade", help="grade puzzles by the logical techniques they need")
    p.add_argument("file", nargs="?", default="-", help="input file, or - for stdin")
    p.add_argument("--family", help="family of text-format lines (e.g. sudoku)")
    p.add_argument("--params", help="family params as JSON, e.g. '{\"size\": 4}'")
    p.add_argument(
        "--input-format",
        choices=("auto", "tatham"),
        default="auto",
        help="tatham: one Simon Tatham game ID a line (solo, keen, unequal, ...)",
    )
    p.add_argument("--trace", action="store_true", help="include every step of the solver")
    p.add_argument("--no-search", action="store_true", help="skip the SAT search measures")
    p.add_argument(
        "--budget-seconds",
        type=float,
        default=None,
        help="wall-time budget of each grade (default 120); past it the line says status "
        "'undecided' and what was spent",
    )
    p.add_argument(
        "--budget-nodes", type=int, default=None, help="techniques tried per grade at most"
    )
    p.add_argument(
        "--target",
        type=int,
        metavar="LEVEL",
        help="add the detail against LEVEL: stuck cells and the next technique when harder, "
        "removable clues when easier",
    )
    add_quiet(p)
    p.set_defaults(func=cmd_grade)


def _budget(args: argparse.Namespace) -> Any:
    from puzzlekit.core.protocols import SearchBudget

    seconds, nodes = args.budget_seconds, args.budget_nodes
    if seconds is not None and not seconds > 0:  # NaN too
        raise UsageError(f"--budget-seconds must be positive, got {seconds}")
    if nodes is not None and nodes < 1:
        raise UsageError(f"--budget-nodes must be at least 1, got {nodes}")
    return SearchBudget(
        nodes=nodes if nodes is not None else SearchBudget.nodes,
        seconds=seconds if seconds is not None else SearchBudget.seconds,
    )


def cmd_grade(args: argparse.Namespace) -> int:
    params = params_arg(args.params)
    budget = _budget(args)
    check_family_arg(args.family, args.input_format)
    with item_progress(args, "grade") as bar:
        for item in input_items(args.file, args.family, params, args.input_format):
            print(json.dumps(_grade_one(args, item, budget), ensure_ascii=False), flush=True)
            bar.update(1)
    return 0


def _grade_one(args: argparse.Namespace, item: Any, budget: Any) -> dict[str, Any]:
    """The JSON line of one input puzzle."""
    from puzzlekit.core.model import SpecError
    from puzzlekit.grading.techniques import grade

    out: dict[str, Any] = {"input": item.position}
    violations = item.violations
    if item.instance is not None:
        try:
            g = grade(item.instance, search=not args.no_search, budget=budget)
        except SpecError as exc:
            violations = exc.violations
        else:
            out.update(g.to_json_obj(trace=args.trace))
            if args.target is not None:
                top = g.to_json_obj()["maxLevel"]
                if not 0 <= args.target <= top:
                    raise UsageError(f"--target must be in 0..{top} for {g.family}")
                from puzzlekit.generators.graded import level_detail

                out["againstTarget"] = level_detail(item.instance, args.target).to_json_obj()
    if item.instance is None or violations:
        out.update(
            instanceDigest=item.digest,
            status="invalid",
            violations=[v.to_json_obj() for v in violations],
        )
    if item.note:
        out["diagnostics"] = [item.note]
    return out
