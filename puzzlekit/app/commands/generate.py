"""``puzzlekit generate``: closed-loop generation to JSON Lines.

Exit codes: 0 when ``--count`` puzzles were accepted; 1 when fewer were (``puzzlekit: k of n
accepted`` on stderr; the records written are kept); 2 for unusable arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from puzzlekit.app.cli import UsageError
from puzzlekit.app.progress import add_quiet

if TYPE_CHECKING:
    from puzzlekit.core import protocols
    from puzzlekit.loop.batch import GenerateConfig


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate puzzles in the closed loop (JSON Lines)")
    p.add_argument("family", help="the family to generate (see puzzlekit schemas)")
    p.add_argument(
        "--params",
        help="family params as JSON (default: the family's own, or its first listed schema "
        "when it has required params)",
    )
    p.add_argument("--count", type=int, default=1, help="accepted puzzles wanted")
    p.add_argument(
        "--strategy",
        default="adaptive",
        help="generator strategy: adaptive, blind, pattern (learns across loops), policy (a "
        "trained policy: --policy), external (a program: --cmd), or one a plugin registers",
    )
    p.add_argument(
        "--policy",
        metavar="FILE",
        help="--strategy policy: the policy file to run (written by puzzlekit train)",
    )
    p.add_argument(
        "--cmd",
        metavar="COMMAND",
        help="--strategy external: the program to run as the strategy (JSON Lines on "
        "stdin/stdout, docs/envs.md), split like a shell command",
    )
    p.add_argument(
        "--cmd-timeout",
        type=float,
        default=None,
        metavar="S",
        help="--strategy external: seconds the program may take per request (default 10)",
    )
    p.add_argument(
        "--sampler",
        metavar="NAME",
        help="blind, adaptive, pattern: draw solutions with this sampler (planted-deadly: a "
        "Sudoku with a deadly pattern planted in one region, a test generator)",
    )
    p.add_argument(
        "--clues",
        type=int,
        default=None,
        help="clue count: exact for blind, the start for adaptive",
    )
    p.add_argument("--minimize", action="store_true", help="drop clues while UNIQUE")
    p.add_argument("--symmetric", action="store_true", help="minimize in rotational pairs")
    p.add_argument(
        "--filter",
        default=None,
        help="filter verifier (the strategy reads it; default: the family's own, else bitmask "
        "for all-different rules that compile, as Sudoku's, else sat)",
    )
    p.add_argument(
        "--holdout",
        default=None,
        help="holdout verifier (default: the other exact backend); 'none' to skip",
    )
    p.add_argument("--seed", type=int, default=0, help="one seed gives one output")
    p.add_argument(
        "--difficulty",
        type=int,
        metavar="LEVEL",
        help="exact grade level (see docs/difficulty.md); implies --minimize",
    )
    p.add_argument("--max-calls", type=int, default=200, help="filter calls per loop")
    p.add_argument("--out", help="write JSON Lines here instead of stdout")
    p.add_argument(
        "--ledger",
        metavar="DB",
        help="settle each loop: ledger and escalation queues in this SQLite file",
    )
    p.add_argument(
        "--corpus",
        metavar="FILE",
        help="settle each loop: append auto_apply puzzles to this JSON Lines corpus",
    )
    add_quiet(p)
    # a judging process: plugins run in the loop process only (docs/security.md)
    p.set_defaults(func=cmd_generate, judges=lambda a: a.holdout != "none")


def cmd_generate(args: argparse.Namespace) -> int:
    from puzzlekit.families import default_params
    from puzzlekit.loop.batch import GenerateConfig

    family, holdout = _check_names(args)
    params = _params(args.params) if args.params is not None else default_params(family)
    _check_values(args, family, params)
    config = GenerateConfig(
        family=args.family,
        params=params,
        count=args.count,
        strategy=args.strategy,
        strategy_settings=_strategy_settings(args, family, params),
        clues=args.clues,
        minimize=args.minimize,
        symmetric=args.symmetric,
        filter=args.filter,
        holdout=None if holdout == "none" else holdout,
        seed=args.seed,
        max_calls=args.max_calls,
        ledger=args.ledger,
        corpus=args.corpus,
        difficulty=args.difficulty,
    )
    from puzzlekit.loop.batch import k_raised, k_raised_line

    raised = k_raised(config)
    if raised is not None:  # before the first loop, quiet or not: the records differ from asked
        print(k_raised_line(args.family, raised), file=sys.stderr)
    got = _write_records(config, args)
    if got < args.count:
        level = f" at level {args.difficulty}" if args.difficulty is not None else ""
        print(f"puzzlekit: {got} of {args.count} accepted{level}", file=sys.stderr)
        return 1
    return 0


def _strategy_settings(args: argparse.Namespace, family: protocols.Family, params: dict) -> dict:
    """The strategy's settings from its options (``--policy``; ``--cmd``, ``--cmd-timeout``;
    ``--sampler``)."""
    return {
        **_external_settings(args),
        **_policy_settings(args, family, params),
        **_sampler_settings(args, family, params),
    }


def _sampler_settings(args: argparse.Namespace, family: protocols.Family, params: dict) -> dict:
    """``--sampler`` as the strategy's setting, checked against the schema (exit 2 otherwise)."""
    if args.sampler is None:
        return {}
    from puzzlekit.generators.samplers import SAMPLER_STRATEGIES, check_sampler

    if args.strategy not in SAMPLER_STRATEGIES:
        raise UsageError(f"--sampler goes with --strategy {', '.join(SAMPLER_STRATEGIES)}")
    problem = check_sampler(args.sampler, family.schema(params))
    if problem is not None:
        raise UsageError(f"--sampler: {problem}")
    return {"sampler": args.sampler}


def _policy_settings(args: argparse.Namespace, family: protocols.Family, params: dict) -> dict:
    """``--policy`` as the policy strategy's settings (the file read and checked against the
    schema here: one line naming the file, exit 2); a usage error when it is given to another
    strategy or missing."""
    import os

    if args.strategy != "policy":
        if args.policy is not None:
            raise UsageError("--policy goes with --strategy policy")
        return {}
    if args.policy is None:
        raise UsageError("--strategy policy needs --policy FILE (written by puzzlekit train)")
    from puzzlekit.generators.policy.file import PolicyFileError, check_schema, read_policy

    try:
        found = read_policy(args.policy)
        schema = family.schema(params)
        check_schema(found, schema.family, schema.params_dict(), args.policy)
    except PolicyFileError as exc:
        raise UsageError(str(exc)) from None
    return {"policy": os.path.abspath(args.policy)}


def _external_settings(args: argparse.Namespace) -> dict:
    """``--cmd`` and ``--cmd-timeout`` as the external strategy's settings; a usage error when
    they are given to another strategy, missing, or out of range."""
    if args.strategy != "external":
        if args.cmd is not None or args.cmd_timeout is not None:
            raise UsageError("--cmd and --cmd-timeout go with --strategy external")
        return {}
    if not args.cmd or not args.cmd.strip():
        raise UsageError('--strategy external needs --cmd "PROGRAM ARGS"')
    out: dict = {"cmd": args.cmd}
    if args.cmd_timeout is not None:
        if not args.cmd_timeout > 0 or args.cmd_timeout != args.cmd_timeout:
            raise UsageError(f"--cmd-timeout must be a positive number, got {args.cmd_timeout}")
        out["cmd_timeout"] = args.cmd_timeout
    try:
        from puzzlekit.generators.external import External

        External(0, **out)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return out


def _params(text: str | None) -> dict:
    """``--params`` as a dict ({} when absent)."""
    from puzzlekit.app.commands.core import params_arg

    return params_arg(text) or {}


def _check_names(args: argparse.Namespace) -> tuple[protocols.Family, str]:
    """Look up the family, strategy and verifiers named; fill in the default filter on ``args``.

    Returns the family and the holdout name ("none" to skip). Each unknown name gives one line
    naming the closest known ones, exit 2 (:func:`puzzlekit.app.judging.loop_names`, which
    ``puzzle_generate`` of ``puzzlekit mcp`` uses too). The holdout is resolved before any plugin
    loads; a strategy or filter only a plugin provides is looked up in the loop process.
    """
    from puzzlekit.app.judging import loop_names, need_family
    from puzzlekit.families import FAMILIES
    from puzzlekit.verifiers.registry import default_filter_name

    need_family(args.family)
    family = FAMILIES.get(args.family)
    if args.filter is None:
        args.filter = default_filter_name(args.family)
    holdout, problems = loop_names(args.strategy, args.filter, args.holdout, "--holdout")
    if problems:
        raise UsageError(*(problem for _, problem in problems))
    return family, holdout


def _check_values(args: argparse.Namespace, family: protocols.Family, params: dict) -> None:
    """The params, counts, difficulty level and output directories, each against its range."""
    import os

    from puzzlekit.core.model import SpecError
    from puzzlekit.core.reading import MAX_SAFE_INT

    try:
        schema = family.schema(params)
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    if args.count < 1:
        raise UsageError(f"--count must be at least 1, got {args.count}")
    if not 0 <= args.seed <= MAX_SAFE_INT:
        raise UsageError(f"--seed must be in 0..{MAX_SAFE_INT}, got {args.seed}")
    if args.clues is not None and not 0 <= args.clues <= len(schema.variables):
        raise UsageError(f"--clues must be in 0..{len(schema.variables)}, got {args.clues}")
    if args.max_calls < 1:
        raise UsageError(f"--max-calls must be at least 1, got {args.max_calls}")
    if args.difficulty is not None:
        from puzzlekit.grading.techniques import GRADED_FAMILIES, family_scale

        if args.family not in GRADED_FAMILIES:
            raise UsageError(f"--difficulty: family {args.family} is not graded")
        top = len(family_scale(args.family, params)) - 1
        if not 0 <= args.difficulty <= top:
            raise UsageError(f"--difficulty must be in 0..{top} for {args.family}")
    for flag, path in (("--ledger", args.ledger), ("--corpus", args.corpus)):
        if path is not None and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise UsageError(f"{flag}: no directory for {path}")


def _write_records(config: GenerateConfig, args: argparse.Namespace) -> int:
    """Run the loop, one JSON line per record to ``--out`` (or stdout), progress on stderr;
    returns how many were accepted."""
    from puzzlekit.app.progress import progress
    from puzzlekit.loop.batch import dumps, generate

    try:
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc.strerror}") from None
    try:
        with progress("generate", args.count, "puzzle", quiet=args.quiet) as bar:
            got = 0
            for rec in generate(config, progress=bar):
                got += rec.get("status") == "accepted"
                out.write(dumps(rec) + "\n")
                out.flush()
        return got
    finally:
        if out is not sys.stdout:
            out.close()
