"""``puzzlekit train``: train the shipped learner (the cross-entropy method over a linear softmax
policy, :mod:`puzzlekit.envs.train`) in the generator environment and write its policy file,
which ``puzzlekit generate --strategy policy --policy FILE`` runs in the closed loop.

Exit codes: 0 when the file is written; 2 for unusable arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from puzzlekit.app.cli import UsageError, add_format
from puzzlekit.app.progress import add_quiet

if TYPE_CHECKING:
    from puzzlekit.envs.train import TrainSettings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train a policy in the generator environment and write its policy file",
    )
    p.add_argument("family", help="the family to train on (see puzzlekit schemas)")
    p.add_argument(
        "--params",
        help="family params as JSON (default: the family's own, or its first listed schema)",
    )
    p.add_argument("--out", required=True, metavar="FILE", help="write the policy file here")
    p.add_argument(
        "--obs",
        choices=("structured", "scalar"),
        default="structured",
        help="observation mode: the reject detail as channels, or the verdict as a scalar "
        "reward only (PCGRL's setting)",
    )
    p.add_argument("--steps", type=int, default=20_000, help="environment steps to train for")
    p.add_argument("--seed", type=int, default=0, help="one seed gives one policy file")
    p.add_argument("--population", type=int, default=16, help="candidates per iteration")
    p.add_argument("--elite", type=int, default=4, help="best candidates the method refits to")
    p.add_argument("--episodes", type=int, default=4, help="episodes per candidate")
    p.add_argument(
        "--filter",
        default=None,
        help="filter verifier of the environment (default: the family's)",
    )
    p.add_argument(
        "--solution-cap",
        type=int,
        default=2,
        help="solutions the filter reports (2: the closed loop's)",
    )
    p.add_argument("--max-calls", type=int, default=20, help="filter calls per episode")
    p.add_argument("--start-clues", type=int, default=0, help="slots revealed at reset")
    p.add_argument(
        "--sampler",
        default=None,
        help="draw the episodes' solutions with this sampler (planted-deadly: a Sudoku with a "
        "deadly pattern planted in one region; default: the family's)",
    )
    add_format(p)
    add_quiet(p)
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    from puzzlekit.app.progress import progress
    from puzzlekit.envs.train import train

    settings = _settings(args)
    try:
        out = open(args.out, "a", encoding="utf-8")  # the directory and permissions, up front
        out.close()
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc.strerror}") from None
    with progress("train", settings.steps, "step", quiet=args.quiet) as bar:
        state = {"done": 0}

        def advance(used: int, total: int) -> None:
            step = min(used, total) - state["done"]
            if step > 0:
                bar.update(step)
                state["done"] += step

        policy = train(settings, progress=advance)
    digest = policy.write(args.out)
    last = policy.curve[-1]
    summary = {
        "policy": args.out,
        "digest": digest,
        "family": policy.family,
        "params": policy.params,
        "observation": policy.observation,
        "steps": policy.steps["used"],
        "iterations": policy.trainer["iterations"],
        "meanReturn": last[1],
        "acceptedShare": last[3],
    }
    if args.format == "json":
        print(json.dumps(summary, sort_keys=True))
    else:
        print(
            f"{args.out}: {policy.family} {json.dumps(policy.params, sort_keys=True)}, "
            f"{policy.observation}, {summary['steps']} steps in {summary['iterations']} "
            f"iterations, mean return {last[1]:.3f}, accepted {last[3]:.0%} in the last "
            f"iteration; {digest}"
        )
    sys.stdout.flush()
    return 0


def _settings(args: argparse.Namespace) -> TrainSettings:
    """The settings of ``args``, each checked (one line and exit 2 for the first bad one)."""
    from puzzlekit.app.commands.core import params_arg
    from puzzlekit.core.model import SpecError
    from puzzlekit.core.reading import MAX_SAFE_INT
    from puzzlekit.envs.train import TrainSettings, make_env
    from puzzlekit.families import FAMILIES, default_params
    from puzzlekit.verifiers.registry import VERIFIERS

    family = FAMILIES.get(args.family)
    if args.filter is not None:
        VERIFIERS.get(args.filter)
    params = (params_arg(args.params) or {}) if args.params is not None else None
    params = default_params(family) if params is None else params
    try:
        family.schema(params)
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    if not 0 <= args.seed <= MAX_SAFE_INT:
        raise UsageError(f"--seed must be in 0..{MAX_SAFE_INT}, got {args.seed}")
    settings = TrainSettings(
        family=args.family,
        params=params,
        obs_mode=args.obs,
        steps=args.steps,
        seed=args.seed,
        population=args.population,
        elite=args.elite,
        episodes=args.episodes,
        filter=args.filter,
        solution_cap=args.solution_cap,
        max_calls=args.max_calls,
        start_clues=args.start_clues,
        sampler=args.sampler,
    )
    try:
        settings.check()
        make_env(settings).close()  # the environment's own checks: the cap, calls, start clues
    except ValueError as exc:
        raise UsageError(_flag(str(exc))) from None
    return settings


def _flag(message: str) -> str:
    """A setting's name in a message as its flag (``elite`` → ``--elite``)."""
    head, _, rest = message.partition(" ")
    return f"--{head.replace('_', '-')} {rest}" if head.isidentifier() else message
