"""The ``puzzlekit`` command line: one subcommand per module in :mod:`puzzlekit.app.commands`.

Every module in ``puzzlekit/app/commands/`` defines ``register(subparsers)``, which adds its
subcommands and sets ``func`` on them (``func(args) -> int``, the exit code). A command raises
:class:`UsageError` for unusable arguments or unreadable files: the CLI prints one line on stderr
and exits 2, never a traceback.

Plugins: every command takes ``--plugin MODULE`` (repeatable; also accepted before the command
name). The modules are imported before the command runs, so the families, verifiers, strategies
and tools they register are seen like built-ins; plugins installed with pip (entry-point group
``puzzlekit.plugins``) are seen without the flag. A module that cannot be imported (``puzzlekit:
plugin 'x' could not be loaded: ...``) and a name that no registry holds (``puzzlekit: error:
unknown family 'sudok'; closest: sudoku``) give one line and exit 2.

Conventions every command shares: help for every argument with its default shown (plain text:
:class:`HelpFormatter` drops the reST markup of docstrings), one output flag ``--format``
(:func:`add_format`; ``--json`` is kept as its alias), ``--quiet`` where a command shows
progress, and exit codes 0 (done), 1 (a check failed or a goal was not met) and 2 (unusable
arguments or input).
"""

from __future__ import annotations

import argparse
import importlib
import io
import math
import pkgutil
import re
import sys
from collections.abc import Iterator, Sequence

PLUGIN_HELP = (
    "import MODULE first: the families, verifiers, strategies and tools it registers are "
    "seen like built-ins (repeatable)"
)


class UsageError(Exception):
    """Unusable arguments or an unreadable file: one line on stderr, exit code 2 (one line per
    problem when several are given, e.g. every problem of a config at once)."""

    def __init__(self, *problems: str) -> None:
        super().__init__(*problems)
        self.problems = problems

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


_ROLE = re.compile(r":[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")


def plain(text: str) -> str:
    """``text`` without reST markup: ``:mod:`x``` and ``x`` written as code become x."""
    return _ROLE.sub(r"\1", text).replace("``", "")


class HelpFormatter(argparse.HelpFormatter):
    """Plain text (no reST markup), and each option's default shown unless its help already
    says it or there is none to show (None, False, an empty list)."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain(text))

    def _expand_help(self, action: argparse.Action) -> str:
        return plain(super()._expand_help(action))

    def _get_help_string(self, action: argparse.Action) -> str:
        help_text = action.help or ""
        default = action.default
        if (
            "default" in help_text
            or default in (None, False, [], argparse.SUPPRESS)
            or isinstance(action, argparse._StoreConstAction | argparse._VersionAction)
            or not (action.option_strings or action.nargs in ("?", "*"))
        ):
            return help_text
        return help_text + " (default: %(default)s)"


#: a number on the command line: ASCII decimal notation (``int()`` and ``float()`` would also
#: read Arabic-Indic, full-width and other Unicode digits)
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?")


def ascii_int(text: str) -> int:
    """An integer argument: an optional sign and ASCII digits, as many as the reading boundary
    allows (:func:`puzzlekit.core.reading.is_digits`, ``MAX_DIGITS``); every ``type=int`` of
    a ``puzzlekit`` parser reads through this."""
    from puzzlekit.core import reading  # here, so that ``--help`` loads no floor

    body = text[1:] if text[:1] in "+-" else text
    if not reading.is_digits(body):
        raise argparse.ArgumentTypeError(f"not an integer in ASCII digits: {text[:40]!r}")
    if len(body) > reading.MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"an integer of {len(body)} digits is too large")
    return int(text)


def ascii_float(text: str) -> float:
    """A number argument: ASCII decimal notation, finite (``type=float`` reads through this)."""
    if not _NUMBER.fullmatch(text) or len(text) > 64:
        raise argparse.ArgumentTypeError(f"not a number in ASCII decimal notation: {text[:40]!r}")
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # every ``type=int`` / ``type=float`` argument of the command line reads ASCII only
        self.register("type", int, ascii_int)
        self.register("type", float, ascii_float)

    def error(self, message: str) -> None:  # one line, exit 2, as argparse does, without usage
        raise UsageError(message)


FORMAT_HELP = {
    "json": "one JSON object a line",
    "text": "readable text",
    "table": "a table",
}


def add_format(
    parser: argparse.ArgumentParser,
    choices: Sequence[str] = ("json", "text"),
    default: str = "text",
    helps: dict[str, str] | None = None,
) -> None:
    """The one output flag: ``--format`` among ``choices`` (of json, text, table), with
    ``--json`` (and ``--table`` when offered) as aliases."""
    said = {**FORMAT_HELP, **(helps or {})}
    parser.add_argument(
        "--format",
        choices=tuple(choices),
        default=default,
        help="output: " + "; ".join(f"{c}: {said[c]}" for c in choices),
    )
    for alias in ("json", "table"):
        if alias in choices:
            parser.add_argument(
                f"--{alias}",
                dest="format",
                action="store_const",
                const=alias,
                help=f"same as --format {alias}",
            )


def _leaf_parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every parser under ``parser`` that runs a command (has no subcommands of its own)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield parser
        return
    seen: set[int] = set()
    for action in subs:
        for child in action.choices.values():
            if id(child) not in seen:  # aliases share one parser
                seen.add(id(child))
                yield from _leaf_parsers(child)


def build_parser() -> argparse.ArgumentParser:
    import puzzlekit.app.commands as commands
    from puzzlekit import __version__

    parser = _Parser(
        prog="puzzlekit",
        description="Generate and verify puzzles in a closed loop, run experiments and keep "
        "regression tests (walk-through: docs/tutorial.md).",
        epilog="exit codes: 0 done; 1 a check failed or a goal was not met; 2 unusable "
        "arguments or input",
    )
    parser.add_argument("--version", action="version", version=f"puzzlekit {__version__}")
    # before the command name too; its own dest, so a command's --plugin does not overwrite it
    parser.add_argument(
        "--plugin", action="append", default=[], metavar="MODULE", dest="global_plugins",
        help=PLUGIN_HELP,
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"puzzlekit.app.commands.{info.name}")
        module.register(sub)
    for leaf in _leaf_parsers(parser):
        leaf.add_argument(
            "--plugin", action="append", default=[], metavar="MODULE", dest="plugins",
            help=PLUGIN_HELP,
        )  # fmt: skip
    return parser


def load_plugins(args: argparse.Namespace) -> list[str]:
    """Import the ``--plugin`` modules of parsed ``args``; returns their names, in order."""
    from puzzlekit.core.plugins import use_plugins

    modules = [*getattr(args, "global_plugins", []), *getattr(args, "plugins", [])]
    modules = list(dict.fromkeys(modules))
    use_plugins(modules)
    return modules


def _judge_if_asked(args: argparse.Namespace) -> None:
    """A command that runs a holdout (``set_defaults(judges=FN)``, ``FN(args)`` true) makes this
    process a judging process before any plugin loads: plugins run in the loop process only
    (:func:`puzzlekit.core.plugins.judge_without_plugins`, docs/security.md)."""
    from puzzlekit.core.plugins import judge_without_plugins, loaded_plugins

    judges = getattr(args, "judges", None)
    # a session that loaded plugins itself already (main called from Python) trusts them
    if judges is not None and judges(args) and not loaded_plugins():
        judge_without_plugins()


def one_line(text: str) -> str:
    """``text`` with its control characters escaped (a name read from input may hold a
    newline): an error message stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _escape_unwritable() -> None:
    """Output never fails on what input let through: a lone surrogate that reached a message or
    a report (a JSON key, a name) is written as its ``\\udXXX`` escape, which is still JSON."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors != "backslashreplace":
            stream.reconfigure(errors="backslashreplace")


def _file_problem(exc: BaseException) -> str | None:
    """One line for a file the command could not read or write: a damaged file
    (:class:`puzzlekit.core.files.DamagedFile`), a full disk, a read-only or missing
    directory, a file where a directory belongs; None for any other exception."""
    from puzzlekit.core.files import DamagedFile

    ledger = sys.modules.get("puzzlekit.audit.ledger")  # loaded if its error was raised
    if isinstance(exc, DamagedFile) or (ledger is not None and isinstance(exc, ledger.LedgerError)):
        return str(exc)
    if isinstance(exc, OSError) and exc.filename is not None:
        where = str(exc.filename)
        if exc.filename2 is not None:
            where += f" -> {exc.filename2}"
        return f"{where}: {exc.strerror or type(exc).__name__}"
    if isinstance(exc, OSError) and exc.errno is not None:  # ENOSPC from a write names no file
        return f"{exc.strerror or type(exc).__name__} (errno {exc.errno})"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    if list(sys.argv[1:] if argv is None else argv) == ["--version"]:  # before any floor
        from puzzlekit import __version__

        print(f"puzzlekit {__version__}")
        return 0
    _escape_unwritable()
    try:
        args = build_parser().parse_args(argv)  # ``--help`` answers here, before any floor loads
        from puzzlekit.core.lifeline import terminated_as_interrupt

        with terminated_as_interrupt():  # SIGTERM cleans up as Ctrl-C does: children ended
            _judge_if_asked(args)
            load_plugins(args)
            return int(args.func(args) or 0)
    except UsageError as exc:  # each problem on its own line, none split by what it quotes
        for problem in exc.problems or ("",):
            print(f"puzzlekit: error: {one_line(str(problem))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt as exc:  # one line, no traceback; 130 (SIGINT) or 143 (SIGTERM)
        from puzzlekit.core.lifeline import interrupt_word

        word, status = interrupt_word(exc)
        print(f"\npuzzlekit: {word}", file=sys.stderr)
        return status
    except Exception as exc:
        from puzzlekit.core.plugins import PluginError, UnknownName  # loaded if either was raised

        if isinstance(exc, UnknownName):
            print(f"puzzlekit: error: {one_line(str(exc))}", file=sys.stderr)
            return 2
        if isinstance(exc, PluginError):  # worded like the warning of an entry point that fails
            print(f"puzzlekit: {one_line(str(exc))}", file=sys.stderr)
            return 2
        problem = _file_problem(exc)
        if problem is not None:  # what was written before is whole (files are atomic)
            print(f"puzzlekit: error: {one_line(problem)}", file=sys.stderr)
            return 2
        raise
    finally:  # main called from Python: the next call starts afresh (if it judged at all)
        plugins = sys.modules.get("puzzlekit.core.plugins")
        if plugins is not None:
            plugins.end_judging()


if __name__ == "__main__":
    sys.exit(main())
