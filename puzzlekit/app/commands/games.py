"""``puzzlekit game-verdict GAME POSITION``: the exact value of a game position and of each move.

GAME is ``tictactoe``, ``mnk``, ``connect`` or ``nim`` (or a family name such as
``owm-connect``); POSITION is the rows from top to bottom joined by ``/`` (``x``, ``o``, ``.``),
or Nim heap sizes ``3,4,5``. The side to move comes from the piece counts (x moves first) unless
``--to-move`` says otherwise. Board size comes from the position; ``--k`` sets k in a row.
Connect Four (7×6, k = 4) is solved by the compiled bitboard solver (``--solver auto``). The
search has a budget (default 60 s, ``--budget-seconds``/``--budget-nodes``) and a fixed-size
transposition table; when the budget runs out it prints what was spent and exits 1.
A malformed or illegal position is answered with an INVALID_SPEC report (``--format json``:
the report JSON; text: a line per violation, each at the offending cell's coordinates) and exits
1; unusable arguments exit 2.

``puzzlekit game-verdict GAME -`` (or ``--input FILE``) reads positions one a line, as
``puzzlekit verify`` reads puzzles: each line is answered before the next is read, so a set of
positions costs one start-up (and Connect Four's table is reused). A line is a position,
optionally followed by ``x`` or ``o`` for the side to move; blank lines and ``#`` comments are
skipped. Each answer names its line: ``--format json`` prints one object a line with
``"input": N`` (a verdict, an INVALID_SPEC report, or ``"value": "UNDECIDED"`` with the budget
spent), text a ``# input N: POSITION`` header before the usual lines. Each position has the
whole budget. Exit 0 when every line got a verdict, 1 when one was invalid or undecided.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from puzzlekit.app.cli import UsageError, add_format

if TYPE_CHECKING:
    from puzzlekit.core.report import VerifierReport

GAMES = ("tictactoe", "mnk", "connect", "nim")


def known_games() -> list[str]:
    """Every registered game by its short name (``tictactoe`` for family ``owm-tictactoe``),
    built-ins and plugins."""
    from puzzlekit.families import FAMILIES
    from puzzlekit.families.games import OnlyWinningMove

    return sorted(
        name.removeprefix("owm-")
        for name, fam in FAMILIES.items()
        if isinstance(fam, OnlyWinningMove)
    )


def find_game(game: str) -> Any:
    """The game family of ``game`` (a short name or the family name); UnknownName naming the
    closest games otherwise."""
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.families import FAMILIES
    from puzzlekit.families.games import OnlyWinningMove

    name = game if game.startswith("owm-") else f"owm-{game}"
    family = FAMILIES.get(name) if name in FAMILIES else None
    if not isinstance(family, OnlyWinningMove):
        raise UnknownName("game", game, known_games())
    return family


def read_position(
    family: Any, position: str, to_move: str | None, k: int | None
) -> tuple[Any, Any] | VerifierReport:
    """``(game, state)`` of ``position`` in ``family``'s game, or, for a position that cannot
    be played (malformed, or illegal: impossible piece counts, play after a win, a floating
    piece), its INVALID_SPEC report: the violations with the coordinates of the offending cells
    (a board too small or too large for the game has none), under the digest of the text."""
    from puzzlekit.core.model import SpecError, sha256_digest
    from puzzlekit.verifiers.base import invalid_report, source

    given = {"k": k} if k is not None else {}
    try:
        params = family.params_from_text(position, given)
        game = family.game(params)
        return game, game.parse(position, to_move)
    except SpecError as exc:
        digest = sha256_digest(position.encode("utf-8", "surrogatepass"))
        return invalid_report(digest, exc.violations, source("input", "1"), 2)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "game-verdict", help="exact value of a game position (WIN/LOSS/DRAW) and of every move"
    )
    p.add_argument("game", help=f"one of {', '.join(GAMES)} (or a game a plugin registers)")
    p.add_argument(
        "position",
        nargs="?",
        help="rows top to bottom joined by '/', e.g. x.o/.x./... ; Nim 3,4,5; - reads stdin",
    )
    p.add_argument(
        "--input", metavar="FILE", help="read positions from FILE, one a line (- for stdin)"
    )
    p.add_argument("--to-move", choices=("x", "o"), help="side to move (default: from counts)")
    p.add_argument("--k", type=int, help="k in a row (mnk default 3, connect default 4)")
    p.add_argument(
        "--solver",
        choices=("auto", "compiled", "alphabeta", "minimax"),
        default="auto",
        help="auto: the compiled solver where the game has one (Connect Four 7x6), else alphabeta",
    )
    p.add_argument("--budget-seconds", type=float, default=60.0, help="wall-time budget")
    p.add_argument("--budget-nodes", type=int, default=None, help="node budget (none: no limit)")
    add_format(p, ("text", "json"), "text", {"json": "the verdict as one JSON object"})
    p.set_defaults(func=cmd_game_verdict)


def _print_invalid(rep: VerifierReport, fmt: str) -> None:
    """The INVALID_SPEC report of a position: its JSON, or a line per violation."""
    if fmt == "json":
        print(rep.to_json())
        return
    print("INVALID_SPEC: the position cannot be played")
    assert rep.reject_detail is not None
    for v in rep.reject_detail.violations:
        where = f" at {list(v.coord)}" if v.coord is not None else ""
        print(f"invalid position: {v.violation_type}{where} {v.field_name}: {v.detail}")


def _budget(args: argparse.Namespace) -> Any:
    from puzzlekit.core.protocols import SearchBudget

    seconds = args.budget_seconds
    if not (math.isfinite(seconds) and seconds > 0) or (
        args.budget_nodes is not None and args.budget_nodes <= 0
    ):
        raise UsageError("--budget-seconds and --budget-nodes must be positive")
    return SearchBudget(nodes=args.budget_nodes, seconds=seconds)


def cmd_game_verdict(args: argparse.Namespace) -> int:
    family = find_game(args.game)  # UnknownName: one line naming the closest games, exit 2
    budget = _budget(args)
    source = args.input
    if args.position == "-" or source is not None:
        if args.position is not None and (source is not None or args.position != "-"):
            raise UsageError("give a position, - (stdin) or --input FILE, not two of them")
        return _answer_lines(args, family, budget, source or "-")
    if args.position is None:
        raise UsageError("give a position, - (stdin) or --input FILE")
    return _answer(args, family, budget, args.position, args.to_move)


def _answer(
    args: argparse.Namespace,
    family: Any,
    budget: Any,
    position: str,
    to_move: str | None,
    line: int | None = None,
) -> int:
    """Print the verdict of one position (with ``"input": line`` / a header when read from a
    stream); 0 when it has one, 1 when the position is invalid or the budget ran out."""
    from puzzlekit.verifiers.gametree import GameBudgetExceeded, game_verdict

    tag = {"input": line} if line is not None else {}
    if line is not None and args.format != "json":
        print(f"# input {line}: {position}")
    read = read_position(family, position, to_move, args.k)
    if not isinstance(read, tuple):
        if tag and args.format == "json":
            print(json.dumps({**tag, **read.to_json_obj()}), flush=True)
        else:
            _print_invalid(read, args.format)
        return 1
    game, state = read
    try:
        verdict = game_verdict(game, state, solver=args.solver, budget=budget)
    except GameBudgetExceeded as exc:
        if tag and args.format == "json":
            spent = {"resource": exc.resource, "limit": exc.limit, "nodes": exc.nodes}
            obj = {**tag, "value": "UNDECIDED", "budget": {**spent, "seconds": exc.seconds}}
            print(json.dumps(obj), flush=True)
            return 1
        print(
            f"undecided: the {exc.resource} budget of {exc.limit:g} ran out after "
            f"{exc.nodes} nodes and {exc.seconds:.2f} s",
            flush=True,
        )
        return 1
    except ValueError as exc:  # --solver compiled on a game without one
        raise UsageError(str(exc)) from None
    _print_verdict(game, verdict, args.format, tag)
    return 0


def _print_verdict(game: Any, verdict: Any, fmt: str, tag: dict[str, int]) -> None:
    if fmt == "json":
        obj = {**tag, "game": game.info.name, "params": dict(game.params)}
        obj.update(verdict.to_json_obj())
        obj["toMove"] = game.side_name(verdict.to_move)
        print(json.dumps(obj), flush=True)
        return
    side = game.side_name(verdict.to_move)
    print(f"{side} to move: {verdict.result} in {verdict.distance} plies")
    rank = {"WIN": 0, "DRAW": 1, "LOSS": 2}
    for m in sorted(
        verdict.moves,
        key=lambda m: (rank[m.result], m.distance if m.result == "WIN" else -m.distance),
    ):
        print(f"  {m.label:<6} {m.result:<5} {m.distance}")
    print(end="", flush=True)


def _answer_lines(args: argparse.Namespace, family: Any, budget: Any, path: str) -> int:
    """Answer every position of ``path`` (``-``: stdin) in order, each before the next line
    is read; 1 when any line was invalid or undecided."""
    status = 0
    for line in _lines(path):
        if line.text is None:  # too long, or not UTF-8: its INVALID_SPEC answer, then on
            status |= _unreadable(args, line)
            continue
        fields = line.text.split()
        if not fields or fields[0].startswith("#"):
            continue
        to_move = args.to_move
        if len(fields) == 2 and fields[1] in ("x", "o"):
            fields, to_move = fields[:1], fields[1]
        status |= _answer(args, family, budget, " ".join(fields), to_move, line.number)
        if args.format != "json":
            print(flush=True)
    return status


def _unreadable(args: argparse.Namespace, line: Any) -> int:
    """The INVALID_SPEC answer of a line that cannot be read (as ``verify`` answers one)."""
    from puzzlekit.io.inputs import bad_line
    from puzzlekit.verifiers.base import invalid_report, source

    item = bad_line(line)
    report = invalid_report(item.raw_digest, item.violations, source("input", "1"), 2)
    if args.format == "json":
        print(json.dumps({"input": line.number, **report.to_json_obj()}), flush=True)
    else:
        print(f"# input {line.number}: (unreadable)")
        _print_invalid(report, args.format)
        print(flush=True)
    return 1


def _lines(path: str) -> Iterator[Any]:
    """The lines of ``path`` (``-``: stdin) read one at a time as ``verify`` reads them
    (:func:`puzzlekit.core.reading.iter_lines`: a byte-order mark skipped, every line end, a
    line too long or not UTF-8 an error of its own); a file that cannot be read is a
    UsageError (exit 2)."""
    from puzzlekit.app.commands.core import _closing
    from puzzlekit.core.reading import iter_lines
    from puzzlekit.io.inputs import open_input

    try:
        stream = open_input(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return _closing(stream, iter_lines(stream))
