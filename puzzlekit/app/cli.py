"""The ``puzzlekit`` command line: one subcommand per module in :mod:`puzzlekit.app.commands`.

Every module in ``puzzlekit/app/commands/`` defines ``register(subparsers)``, which adds its
subcommands and sets ``func`` on them (``func(args) -> int``, the exit code). A command raises
:class:`UsageError` for unusable arguments or unreadable files: the CLI prints one line on stderr
and exits 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence


class UsageError(Exception):
    """Unusable arguments or an unreadable file: one line on stderr, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as argparse does, without usage
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    import puzzlekit.app.commands as commands

    parser = _Parser(prog="puzzlekit", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"puzzlekit.app.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"puzzlekit: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("puzzlekit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
