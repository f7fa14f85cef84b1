"""``puzzlekit completion SHELL``: print a shell completion script (bash, zsh or tcsh).

The script is generated from the argument parser itself by shtab, so every command, option and
choice of this version (plugins' families and verifiers aside: they are free-form names) is
completed. Install it once, e.g. ``puzzlekit completion bash > ~/.local/share/bash-completion/
completions/puzzlekit`` or, for zsh, into a directory of ``$fpath`` as ``_puzzlekit``.
"""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "tcsh")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("completion", help="print a shell completion script")
    p.add_argument("shell", choices=SHELLS, help="the shell the script is for")
    p.set_defaults(func=cmd_completion)


def cmd_completion(args: argparse.Namespace) -> int:
    import shtab

    from puzzlekit.app.cli import build_parser

    print(shtab.complete(build_parser(), shell=args.shell))
    return 0
