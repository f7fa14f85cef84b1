"""``puzzlekit schemas``, ``puzzlekit verify`` and ``puzzlekit solve``."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from puzzlekit.app.cli import UsageError, add_format
from puzzlekit.app.progress import add_quiet, progress

if TYPE_CHECKING:  # the floors load when a command runs, not when the parser is built
    from puzzlekit.app.verify_stream import LineItem
    from puzzlekit.core.report import VerifierReport
    from puzzlekit.io.inputs import InputItem, TextLine


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schemas", help="list every registered schema")
    add_format(p, ("table", "json"), "table", {"json": "one JSON object per schema"})
    p.add_argument(
        "--config-schema",
        action="store_true",
        help="print the JSON Schema of experiment configs instead (for editors)",
    )
    p.set_defaults(func=cmd_schemas)

    for name, func, helptext in (
        ("verify", cmd_verify, "verify puzzles; one JSON report per puzzle, in input order"),
        ("solve", cmd_solve, "solve puzzles; print each puzzle's solutions"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("file", nargs="?", default="-", help="input file, or - for stdin")
        p.add_argument(
            "--family",
            help="family of text-format lines, e.g. sudoku (default: JSON lines name their "
            "own; a bare line of n*n grid characters is read as sudoku)",
        )
        p.add_argument("--params", help="family params as JSON, e.g. '{\"size\": 4}'")
        p.add_argument(
            "--verifier",
            help="backend name (default: the family's own, else the first of bitmask, sat, "
            "enumerative that accepts the instance: bitmask for all-different rules and clues "
            "that compile, as Sudoku's, else sat where encodable)",
        )
        p.add_argument(
            "--cap", type=int, default=100 if name == "verify" else 2, help="solution cap"
        )
        p.add_argument("--budget-seconds", type=float, default=None, help="wall-time budget")
        p.add_argument("--budget-nodes", type=int, default=None, help="search-node budget")
        add_format(
            p,
            ("json", "text"),
            "json",
            {"json": "one JSON object a puzzle", "text": "the verdict and the grid, readable"},
        )
        p.add_argument(
            "--with-instance",
            action="store_true",
            help="each JSON line carries its input's instance, so another verify or solve "
            "reads it on (generate | verify --with-instance | solve)",
        )
        if name == "verify":
            p.add_argument(
                "--extras",
                default="",
                metavar="NAMES",
                help="report extras to compute, comma-separated (forcedCells: the backbone of a "
                "MULTIPLE puzzle; fieldVerdicts: an oracle family's verdicts by field and value; "
                "both in stats); default none",
            )
        p.add_argument(
            "--input-format",
            choices=("auto", "tatham"),
            default="auto",
            help="tatham: one Simon Tatham game ID a line (solo, keen, unequal, ...)",
        )
        add_quiet(p)
        p.set_defaults(func=func)


def cmd_schemas(args: argparse.Namespace) -> int:
    from puzzlekit.families import registered_schemas

    if args.config_schema:
        from puzzlekit.app.experiment.config_jsonschema import config_schema

        print(json.dumps(config_schema(), indent=2))
        return 0
    rows = registered_schemas()
    if args.format == "json":
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    width = max(len(r["family"]) for r in rows) + 2
    print(f"{'family':<{width}}{'variables':>9}{'domain':>8}  {'clue kinds':<32}params")
    for row in rows:
        params = json.dumps(row["params"], separators=(",", ":"))
        kinds = ",".join(row["clueKinds"])
        print(
            f"{row['family']:<{width}}{row['variables']:>9}{row['domainSize']:>8}  "
            f"{kinds:<32}{params}"
        )
    limits = {r["family"]: r.get("limits") for r in rows if r.get("limits")}
    if limits:
        print("\nsize limits (params beyond them are INVALID_SPEC before any work):")
        for family, lim in limits.items():
            print(f"  {family:<{width}}" + ", ".join(f"{k} <= {v}" for k, v in lim.items()))
    return 0


def check_family_arg(family: str | None, input_format: str = "auto") -> None:
    """Refuse a ``--family`` no registry holds (UnknownName, exit 2) before reading any input.

    With ``--input-format tatham`` the name may also be a Tatham puzzle (``solo``, ``keen``, ...).
    A family named inside an input puzzle is data, not an argument: it gives INVALID_SPEC.
    """
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.families import FAMILIES

    if family is None:
        return
    if input_format == "tatham":
        from puzzlekit.io.tatham import FAMILY_PUZZLE, PARSERS

        if family not in PARSERS and family not in FAMILY_PUZZLE:
            raise UnknownName("Tatham puzzle or family", family, [*PARSERS, *FAMILY_PUZZLE])
        return
    FAMILIES.get(family)


def budget_arg(seconds: float | None, nodes: int | None) -> Any:
    """The SearchBudget of ``--budget-seconds`` and ``--budget-nodes`` (defaults where not
    given); a UsageError (exit 2) for a budget that is not positive and finite."""
    import math

    from puzzlekit.core.protocols import SearchBudget

    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise UsageError(f"--budget-seconds must be a positive number of seconds, got {seconds}")
    if nodes is not None and nodes < 1:
        raise UsageError(f"--budget-nodes must be at least 1, got {nodes}")
    return SearchBudget(
        nodes=nodes if nodes is not None else SearchBudget.nodes,
        seconds=seconds if seconds is not None else SearchBudget.seconds,
    )


def params_arg(raw: str | None, flag: str = "--params") -> dict[str, Any] | None:
    """The JSON object of a ``--params`` argument, read through the reading boundary."""
    from puzzlekit.core.reading import ReadError, loads

    if raw is None:
        return None
    try:
        params = loads(raw.encode("utf-8", "surrogatepass"), flag)
    except ReadError as exc:
        detail = exc.detail if exc.field == flag else str(exc)
        raise UsageError(
            f"{flag} is {detail}" if detail.startswith("not ") else f"{flag}: {detail}"
        ) from None
    if not isinstance(params, dict):
        raise UsageError(f"{flag} must be a JSON object")
    return params


def _settings(args: argparse.Namespace) -> tuple[dict[str, Any] | None, Any, Any]:
    from puzzlekit.core.reading import MAX_SAFE_INT
    from puzzlekit.verifiers.registry import VERIFIERS

    params = params_arg(args.params)
    if args.cap < 2:
        raise UsageError(
            f"--cap must be at least 2 (uniqueness needs a second solution), got {args.cap}"
        )
    if args.cap > MAX_SAFE_INT:
        raise UsageError(f"--cap must be at most {MAX_SAFE_INT}, got {args.cap}")
    if args.verifier is not None:
        VERIFIERS.get(args.verifier)  # UnknownName: one line naming the closest, exit 2
    check_family_arg(args.family, getattr(args, "input_format", "auto"))
    budget = budget_arg(args.budget_seconds, args.budget_nodes)

    def verifier_for(instance: Any) -> Any:
        """The name of the verifier for ``instance``; :func:`verify_item` borrows it from
        :func:`~puzzlekit.verifiers.registry.kept_verifier` (kept for the process's life)."""
        from puzzlekit.verifiers.registry import choice_seconds, default_verifier_name

        return args.verifier or default_verifier_name(instance, choice_seconds(budget))

    return params, verifier_for, budget


def extras_arg(text: str) -> tuple[str, ...]:
    """``--extras a,b`` as names of :data:`~puzzlekit.core.protocols.EXTRAS`; UsageError else."""
    from puzzlekit.core.protocols import EXTRAS

    names = tuple(sorted({n.strip() for n in text.split(",") if n.strip()}))
    for n in names:
        if n not in EXTRAS:
            raise UsageError(
                f"--extras: unknown report extra {n!r}; known: {', '.join(sorted(EXTRAS))}"
            )
    return names


def input_items(
    path: str, family: str | None, params: dict[str, Any] | None, input_format: str
) -> Iterator[InputItem]:
    """The items of the input file ``path`` (``-``: stdin), read lazily: each is answered
    before the next line is read. A file that cannot be opened is a UsageError (exit 2)."""
    from puzzlekit.io.inputs import iter_stream

    stream = _opened(path)
    return _closing(stream, iter_stream(stream, family, params, input_format))


def input_entries(
    path: str, family: str | None, input_format: str
) -> Iterator[InputItem | TextLine]:
    """:func:`input_items` with each line that reads on its own left as a
    :class:`~puzzlekit.io.inputs.TextLine` (:func:`~puzzlekit.io.inputs.iter_entries`), for a
    reader of many lines at once."""
    from puzzlekit.io.inputs import iter_entries

    stream = _opened(path)
    return _closing(stream, iter_entries(stream, family, input_format))


def _opened(path: str) -> Any:
    """``path`` (``-``: stdin) opened for reading bytes; a UsageError (exit 2) if it cannot be."""
    from puzzlekit.io.inputs import open_input

    try:
        return open_input(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _closing(stream: Any, items: Iterator[Any]) -> Iterator[Any]:
    try:
        yield from items
    except OSError as exc:  # a read error halfway (a device, a vanished file)
        raise UsageError(f"cannot read on: {exc.strerror or exc}") from None
    finally:
        if stream is not getattr(sys.stdin, "buffer", None):
            stream.close()


def _items(args: argparse.Namespace, params: dict[str, Any] | None) -> Iterator[InputItem]:
    return input_items(args.file, args.family, params, getattr(args, "input_format", "auto"))


def verify_item(
    item: InputItem, verifier_for: Any, cap: int, budget: Any, extras: tuple[str, ...] = ()
) -> VerifierReport:
    """The report for one input item; unreadable input gives INVALID_SPEC, never an exception.
    ``verifier_for(instance)`` names the verifier, kept for the life of the process. How the
    input was understood, when that was a guess, is the report's last diagnostic."""
    from dataclasses import replace

    from puzzlekit.verifiers.base import invalid_report, source
    from puzzlekit.verifiers.registry import kept_verifier, verify_or_decline

    if item.instance is None:
        rep = invalid_report(item.raw_digest, item.violations, source("input", "1"), cap)
    else:
        with kept_verifier(verifier_for(item.instance)) as verifier:
            rep = verify_or_decline(
                verifier, item.instance, solution_cap=cap, budget=budget, extras=extras
            )
    if item.note:
        rep = replace(rep, diagnostics=(*rep.diagnostics, item.note))
    return rep


def render_text(item: InputItem | LineItem, rep: VerifierReport) -> str:
    """A readable block: the verdict, then the grid with ambiguous (?) and conflicting (!) marks."""
    from puzzlekit.core.report import Verdict
    from puzzlekit.families import get_family

    head = f"# input {item.position}: {rep.verdict.value}"
    if rep.solution_count:
        more = "+" if rep.solution_count_is_lower_bound else ""
        head += f" ({rep.solution_count}{more} solution{'s' if rep.solution_count != 1 else ''})"
    lines = [head]
    lines += [f"#   {d}" for d in rep.diagnostics]
    if item.instance is None:
        return "\n".join(lines)
    rd = rep.reject_detail
    marks = rd.marks() if rd is not None else {}
    if rd is not None and rd.conflict:
        lines.append("#   conflict: " + ", ".join(c.field_name for c in rd.conflict.clues))
    solution = rep.solutions[0] if rep.verdict is Verdict.UNIQUE else None
    try:
        lines.append(get_family(item.instance.family).render_ascii(item.instance, solution, marks))
    except Exception as exc:  # rendering must never lose the report
        lines.append(f"#   (cannot draw: {exc})")
    if marks:
        lines.append("#   ? ambiguous cell   ! conflicting clue   * search culprit")
    return "\n".join(lines)


def item_progress(args: argparse.Namespace, what: str) -> Any:
    """Progress over input puzzles on stderr; none when stdout is a terminal (each result shows
    as it comes) or with ``--quiet``."""
    return progress(what, None, "puzzle", quiet=args.quiet or sys.stdout.isatty())


def with_instance(obj: dict[str, Any], item: InputItem | LineItem, wanted: bool) -> dict[str, Any]:
    """``obj`` with the item's ``instance`` (a JSON object, null when it was unreadable) when
    ``--with-instance`` asked for it."""
    if wanted:
        obj["instance"] = item.instance.to_json_obj() if item.instance is not None else None
    return obj


def _check_with_instance(args: argparse.Namespace) -> None:
    if args.with_instance and args.format != "json":
        raise UsageError("--with-instance goes with --format json (the text format has no field)")


#: puzzles of a file read and verified together (stdin: one, each answered before the next)
VERIFY_CHUNK = 256


def _chunks(items: Iterator[Any], size: int) -> Iterator[list[Any]]:
    while True:
        chunk = list(itertools.islice(items, size))
        if not chunk:
            return
        yield chunk


def cmd_verify(args: argparse.Namespace) -> int:
    from puzzlekit.app.verify_stream import Asked, verify_entries

    params, _, budget = _settings(args)
    extras = extras_arg(args.extras)
    _check_with_instance(args)
    asked = Asked(args.family, params, args.verifier, args.cap, budget, extras)
    size = 1 if args.file == "-" else VERIFY_CHUNK
    entries = input_entries(args.file, args.family, getattr(args, "input_format", "auto"))
    with item_progress(args, "verify") as bar:
        for chunk in _chunks(entries, size):
            out = []
            for item, rep in verify_entries(chunk, asked):
                if args.format == "json":
                    obj = with_instance(rep.to_json_obj(), item, args.with_instance)
                    out.append(json.dumps(obj, ensure_ascii=False) + "\n")
                else:
                    out.append(render_text(item, rep) + "\n\n")
            sys.stdout.write("".join(out))
            sys.stdout.flush()
            bar.update(len(out))
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    params, verifier_for, budget = _settings(args)
    _check_with_instance(args)
    with item_progress(args, "solve") as bar:
        for item in _items(args, params):
            _solve_one(args, item, verify_item(item, verifier_for, args.cap, budget))
            bar.update(1)
    return 0


def _solve_one(args: argparse.Namespace, item: InputItem, rep: VerifierReport) -> None:
    """Print one puzzle's solutions: a JSON line, or the drawing and one text line each."""
    from puzzlekit.core.model import SpecError
    from puzzlekit.families import MISREAD_ERRORS, get_family

    formatted = []
    if item.instance is not None and rep.solutions:
        fam = get_family(item.instance.family)
        schema = fam.schema(item.instance.params_dict())
        for sol in rep.solutions:
            try:
                full = item.instance.with_clues(fam.clues_from_solution(schema, sol))
                formatted.append(fam.format_text(full))
            except (NotImplementedError, SpecError, StopIteration, *MISREAD_ERRORS):
                formatted.append(sol)  # no text for this solution: the assignment itself
    if args.format == "json":
        out = {
            "input": item.position,
            "instanceDigest": rep.instance_digest,
            "uniquenessVerdict": rep.verdict.value,
            "solutionCount": rep.solution_count,
            "solutionCountIsLowerBound": rep.solution_count_is_lower_bound,
            "solutions": formatted,
            "diagnostics": list(rep.diagnostics),
        }
        line = json.dumps(with_instance(out, item, args.with_instance), ensure_ascii=False)
        print(line, flush=True)
    else:
        print(render_text(item, rep), flush=True)
        for f in formatted:
            print(f if isinstance(f, str) else json.dumps(f), flush=True)
        print(flush=True)
