"""``puzzlekit regress``: re-verify the golden corpora and say what changed.

Exit 0 when every case gives its recorded report, 1 when any changed (each change printed as a
readable diff of verdict, solution count, solutions and coordinates), 2 for unusable arguments
and for a corpus of a family that is not registered (its plugin not loaded: ``--plugin MODULE``;
nothing is rewritten), and for a corpus changed outside ``--update`` (the corpora's ``SEAL.json``
holds every file's digest) or rewritten by the verifier being checked (its bytes are restored).
``--update`` rewrites the entries that changed (with ``--schema S``, also builds the corpus of a
registered schema that has none), prints how many entries changed, and exits 0. The corpus logic is
:mod:`puzzlekit.quality.golden.corpus`; this module only parses arguments and prints.
"""

from __future__ import annotations

import argparse

from puzzlekit.app.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "regress", help="re-verify the golden corpora; exit 1 and show a diff on any change"
    )
    p.add_argument("--golden", default="tests/golden", help="corpus directory (tests/golden)")
    p.add_argument("--schema", help="only this corpus, e.g. sudoku-9x9 (file name without .jsonl)")
    p.add_argument("--verifier", help="verify with this backend instead of the recorded one")
    p.add_argument(
        "--update",
        action="store_true",
        help="rewrite changed entries and entries of an older form (with --schema: build the "
        "corpus if missing)",
    )
    p.set_defaults(func=cmd_regress)


def cmd_regress(args: argparse.Namespace) -> int:
    from puzzlekit.quality.golden.corpus import CorpusTampered, format_result, regress
    from puzzlekit.verifiers.registry import VERIFIERS

    if args.verifier is not None:
        VERIFIERS.get(args.verifier)  # UnknownName: one line naming the closest, exit 2
    # an unknown --schema, or a corpus whose family no plugin registers (UnknownName), is one
    # line and exit 2, before anything is verified or rewritten
    try:
        result = regress(
            args.golden, schema=args.schema, verifier=args.verifier, update=args.update
        )
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    except CorpusTampered as exc:  # changed by hand, or by the verifier under check
        raise UsageError(str(exc)) from None
    except ValueError as exc:  # a corrupt corpus line
        raise UsageError(f"unreadable corpus: {exc}") from None
    print(format_result(result, update=args.update))
    if args.update:
        return 0
    return 0 if result.ok else 1
