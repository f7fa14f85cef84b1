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
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Iterator, Sequence

PLUGIN_HELP = (
    "import MODULE first: the families, verifiers, strategies and tools it registers are "
    "seen like built-ins (repeatable)"
)


class UsageError(Exception):
    """Unusable arguments or an unreadable file: one line on stderr, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as argparse does, without usage
        raise UsageError(message)


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

    parser = _Parser(prog="puzzlekit", description=__doc__.splitlines()[0])
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


def one_line(text: str) -> str:
    """``text`` with its control characters escaped (a name read from input may hold a
    newline): an error message stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def main(argv: Sequence[str] | None = None) -> int:
    from puzzlekit.core.plugins import PluginError, UnknownName

    try:
        args = build_parser().parse_args(argv)
        load_plugins(args)
        return int(args.func(args) or 0)
    except (UsageError, UnknownName) as exc:
        print(f"puzzlekit: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except PluginError as exc:  # worded like the warning of an entry point that fails to load
        print(f"puzzlekit: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("puzzlekit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
