"""``puzzlekit check``: judge solvers' answers to puzzles against the rules.

The puzzles are read as ``verify`` reads them; the answers come as one argument (``--answer``),
one whole file (``--answer-file``: a model's completion, whose last grid is the answer) or one a
line (``--answers``: JSON Lines of strings, objects cell -> value, or plain text lines). With
one puzzle every answer is judged against it; with several, answer ``i`` answers puzzle ``i``.
One report a line (``--format json``) or a readable block each. Exit code 0 when every answer
is CORRECT (with ``--partial``: every board still completable), 1 otherwise, 2 for unusable
arguments or a puzzle that does not read.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from puzzlekit.app.cli import UsageError, add_format


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check", help="judge answers to puzzles against the rules; one report per answer"
    )
    p.add_argument("file", nargs="?", default="-", help="puzzle file, or - for stdin")
    p.add_argument("--family", help="family of text-format puzzle lines, e.g. sudoku")
    p.add_argument("--params", help="family params as JSON, e.g. '{\"size\": 4}'")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--answer", help="one answer: a grid line, JSON, or free text")
    given.add_argument(
        "--answer-file", metavar="PATH", help="one answer: the whole file (a model's completion)"
    )
    given.add_argument(
        "--answers",
        metavar="PATH",
        help="answers one a line: JSON strings or objects (cell -> value), or plain lines",
    )
    p.add_argument(
        "--partial",
        action="store_true",
        help="judge partly filled boards: does a completion exist, and if not, the smallest "
        "set of placed cells that makes the board dead",
    )
    p.add_argument(
        "--moves",
        action="store_true",
        help="each answer is a JSON list of placements [[cell, value], ...], judged move by "
        "move: the first move after which the board is dead is named",
    )
    p.add_argument(
        "--no-uniqueness",
        action="store_true",
        help="do not verify whether a CORRECT answer's puzzle is unique (saves one "
        "verification per puzzle)",
    )
    add_format(p, ("json", "text"), "json", {"json": "one JSON report an answer"})
    p.set_defaults(func=cmd_check)


def _answers(args: argparse.Namespace) -> list[Any]:
    from puzzlekit.core.reading import ReadError, loads
    from puzzlekit.io.inputs import read_text

    if args.answer is not None:
        return [args.answer]
    path = args.answer_file or args.answers
    if path == "-" and args.file == "-":
        raise UsageError("the puzzles and the answers cannot both come from stdin")
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if args.answer_file:
        return [text]
    out: list[Any] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            out.append(loads(line.encode("utf-8", "surrogatepass"), "answer"))
        except ReadError:
            out.append(line)
    return out


def _puzzles(args: argparse.Namespace) -> list[Any]:
    from puzzlekit.app.commands.core import check_family_arg, input_items, params_arg

    params = params_arg(args.params)
    check_family_arg(args.family)
    out = []
    for item in input_items(args.file, args.family, params, "auto"):
        if item.instance is None:
            first = item.violations[0] if item.violations else None
            said = f"{first.field_name}: {first.detail}" if first else "unreadable"
            raise UsageError(f"puzzle {item.position} does not read ({said})")
        out.append(item.instance)
    if not out:
        raise UsageError(f"no puzzle in {args.file}")
    return out


def cmd_check(args: argparse.Namespace) -> int:
    from puzzlekit.core.model import SpecError

    puzzles = _puzzles(args)
    answers = _answers(args)
    if len(puzzles) > 1 and len(puzzles) != len(answers):
        raise UsageError(f"{len(puzzles)} puzzles but {len(answers)} answers (one each)")
    pairs = [(puzzles[0] if len(puzzles) == 1 else puzzles[i], a) for i, a in enumerate(answers)]
    ok = True
    for i, (puzzle, answer) in enumerate(pairs, start=1):
        try:
            rep = _judge(args, puzzle, answer)
        except SpecError as exc:
            raise UsageError(f"puzzle for answer {i} does not resolve: {exc}") from None
        ok = ok and (rep.completable if args.partial or args.moves else rep.correct)
        if args.format == "json":
            print(rep.to_json(), flush=True)
        else:
            print(_text(i, rep) + "\n", flush=True)
    return 0 if ok else 1


def _judge(args: argparse.Namespace, puzzle: Any, answer: Any) -> Any:
    from puzzlekit.answers import check_answer

    if args.moves:
        from puzzlekit.answers import check_moves

        return check_moves(puzzle, answer)
    if args.partial:
        from puzzlekit.answers import check_partial

        return check_partial(puzzle, answer)
    return check_answer(puzzle, answer, uniqueness=not args.no_uniqueness)


def _text(i: int, rep: Any) -> str:
    head = (
        f"# answer {i}: {rep.verdict.value} (score {rep.score:.3f}, {rep.cells_right}/{rep.cells})"
    )
    lines = [head]
    if rep.unique is False:
        lines.append("#   the puzzle is not unique")
    if rep.distance is not None:
        lines.append(f"#   distance: {rep.distance} plies")
    if rep.completable is not None:
        dead = "" if rep.dead_cells is None else " ".join(map(json.dumps, rep.dead_cells))
        lines.append(
            f"#   completable: {rep.completable}"
            + (f"; dead set ({rep.dead_kind}, coordinates): {dead}" if dead else "")
        )
    if rep.first_dead_move is not None:
        lines.append(f"#   first dead move: {rep.first_dead_move}")
    for v in rep.violations:
        lines.append(f"#   {v.violation_type} at {v.field_name}: {v.detail}")
    return "\n".join(lines)
