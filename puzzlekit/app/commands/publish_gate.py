"""``puzzlekit publish-gate CONFIG``: the publish gate's prospective test.

Runs :func:`puzzlekit.app.experiment.publish_gate.run_publish_gate` over the config's arms and
schemas and prints one JSON row per (arm, schema), then the pre-registered hypotheses that
failed. Exit 1 when any failed. Until the experiment runner covers it, this is the command behind
docs/publish_gate.md.
"""

from __future__ import annotations

import argparse
import json

from puzzlekit.app.cli import UsageError, add_format


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("publish-gate", help="run the publish-gate prospective test (JSON rows)")
    p.add_argument("config", metavar="CONFIG", help="TOML with a [publish_gate] table")
    add_format(
        p, ("json", "table"), "json", {"json": "one JSON row an arm", "table": "a Markdown table"}
    )
    p.set_defaults(func=cmd_publish_gate)


def markdown_table(rows: list[dict]) -> str:
    """The rows as the Markdown table of docs/publish_gate.md."""
    head = (
        "| arm | filter/holdout | schema | loops | accepted | holdout rejected | gate outcomes "
        "| kernel alone | auto_apply of rejected | hand-filled fields |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
    )

    def fmt(d: dict) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "-"

    lines = [
        f"| {r['arm']} | {r['filter']}/{r['holdout']} | {r['family']} "
        f"{json.dumps(r['params'], separators=(',', ':'))} | {r['loops']} | {r['accepted']} | "
        f"{r['holdout_rejected']} | {fmt(r['gate'])} | {fmt(r['kernel_alone'])} | "
        f"{r['auto_apply_of_holdout_rejected']} | {r['hand_filled_fields']} "
        f"(of {r['provenance_records']}) |"
        for r in rows
    ]
    return head + "\n".join(lines) + "\n"


def check_names(config: dict) -> None:
    """Every family, strategy and verifier the config names is registered (UnknownName, naming
    the closest, otherwise); a missing key is a UsageError naming it."""
    from puzzlekit.families import FAMILIES
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.verifiers.registry import VERIFIERS

    try:
        for arm in config["arms"]:
            VERIFIERS.get(arm["filter"])
            VERIFIERS.get(arm["holdout"])
            STRATEGIES.get(arm.get("strategy", config.get("strategy", "adaptive")))
        for schema in config["schemas"]:
            FAMILIES.get(schema["family"])
    except (KeyError, TypeError) as exc:
        raise UsageError(f"[publish_gate]: an arm or schema lacks {exc}") from None


def cmd_publish_gate(args: argparse.Namespace) -> int:
    from puzzlekit.app.experiment.publish_gate import (
        check_hypotheses,
        load_config,
        run_publish_gate,
    )

    try:
        config = load_config(args.config)
    except (OSError, ValueError) as exc:
        raise UsageError(f"{args.config}: {exc}") from None
    check_names(config)
    rows = run_publish_gate(config)
    failed = check_hypotheses(rows)
    if args.format == "table":
        print(markdown_table(rows), end="")
    else:
        for row in rows:
            print(json.dumps(row, sort_keys=True))
    print(json.dumps({"hypotheses_failed": failed}))
    return 1 if failed else 0
