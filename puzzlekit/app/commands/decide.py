"""``puzzlekit decide``: run the review kernel on files, or check RBK fixture directories.

``puzzlekit decide --policy P --request R [--computed-at T]`` prints the ``rbk.decision.v3``
document and exits 0 whatever the outcome; input that fails its schema exits 2 with the JSON path
of what is wrong. ``puzzlekit decide --validate DIR`` checks fixture directories (each holding
``policy.json``, ``request.json`` and ``expected-decision.json``) and exits 1 when any check
fails. The decision logic is :mod:`puzzlekit.audit.review.kernel`; this module only reads files and
prints.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from puzzlekit.app.cli import UsageError

FIXTURE_FILES = ("policy.json", "request.json", "expected-decision.json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "decide",
        help="may this action be applied without a human? (review kernel, RBK contract)",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("--policy", metavar="P", help="rbk.policy.v1 JSON file")
    p.add_argument("--request", metavar="R", help="rbk.request.v1 JSON file")
    p.add_argument(
        "--computed-at",
        metavar="T",
        help="RFC 3339 time written to computed_at (default: now, UTC)",
    )
    p.add_argument(
        "--validate",
        metavar="DIR",
        help="check fixture directories under DIR instead of deciding",
    )
    p.set_defaults(func=cmd_decide)


def _read_json(path: str | Path, what: str) -> Any:
    """The JSON document at ``path``, read through the reading boundary (UTF-8, bounded
    nesting, numbers canonical JSON can hold); UsageError (exit 2) naming what is wrong."""
    from puzzlekit.core.reading import ReadError, load_json_file

    try:
        return load_json_file(path)
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except ReadError as exc:
        where = "" if exc.field == "$" else f" at {exc.field}"
        raise UsageError(f"{what} {path}{where}: {exc.detail}") from None


def _require_schema(document: Any, schema: str, root: str, path: str) -> None:
    from puzzlekit.audit.review.kernel import schema_violations

    found = schema_violations(document, schema, root)
    if found:
        shown = "; ".join(v.reason for v in found[:3])
        more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
        raise UsageError(f"{path} fails {schema}: {shown}{more}")


def cmd_decide(args: argparse.Namespace) -> int:
    from puzzlekit.audit.review.kernel import (
        POLICY_SCHEMA,
        REQUEST_SCHEMA,
        KernelInputError,
        decide,
        parse_datetime,
    )

    if args.validate is not None:
        if args.policy or args.request:
            raise UsageError("--validate takes no --policy/--request")
        return _validate(Path(args.validate))
    if not args.policy or not args.request:
        raise UsageError("decide needs --policy P and --request R (or --validate DIR)")
    computed_at = args.computed_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if parse_datetime(computed_at) is None:
        raise UsageError(f"--computed-at {computed_at!r} is not an RFC 3339 date-time")
    policy = _read_json(args.policy, "policy")
    request = _read_json(args.request, "request")
    _require_schema(policy, POLICY_SCHEMA, "policy", args.policy)
    _require_schema(request, REQUEST_SCHEMA, "request", args.request)
    try:
        decision = decide(policy, request, computed_at=computed_at)
    except KernelInputError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps(decision, indent=2, ensure_ascii=False))
    return 0


def fixture_dirs(root: Path) -> list[Path]:
    """``root`` itself when it is a fixture directory, else its fixture subdirectories."""
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory")
    if any((root / name).exists() for name in FIXTURE_FILES):
        return [root]
    found = sorted(
        d for d in root.iterdir() if d.is_dir() and any((d / n).exists() for n in FIXTURE_FILES)
    )
    if not found:
        raise UsageError(f"{root} holds no fixture directory ({', '.join(FIXTURE_FILES)})")
    return found


def check_fixture(directory: Path) -> list[str]:
    """Every problem with one fixture directory, in sentences; empty when it passes."""
    from puzzlekit.audit.review.kernel import (
        POLICY_SCHEMA,
        REQUEST_SCHEMA,
        KernelInputError,
        check_decision,
        decide,
        schema_violations,
    )
    from puzzlekit.core.reading import ReadError, load_json_file

    docs: dict[str, Any] = {}
    problems: list[str] = []
    for name in FIXTURE_FILES:
        path = directory / name
        try:
            docs[name] = load_json_file(path)
        except OSError:
            problems.append(f"{name} is missing or unreadable")
        except ReadError as exc:
            where = "" if exc.field == "$" else f" at {exc.field}"
            problems.append(f"{name}{where}: {exc.detail}")
    policy, request = docs.get("policy.json"), docs.get("request.json")
    expected = docs.get("expected-decision.json")
    if policy is not None:
        problems += [v.reason for v in schema_violations(policy, POLICY_SCHEMA, "policy")]
    if request is not None:
        problems += [v.reason for v in schema_violations(request, REQUEST_SCHEMA, "request")]
    if expected is not None:
        problems += check_decision(expected, request if isinstance(request, dict) else None)
    if problems or policy is None or request is None or expected is None:
        return problems
    # The expected decision is self-consistent; does the kernel draw the same boundary?
    computed_at = expected.get("computed_at")
    try:
        got = decide(policy, request, computed_at=computed_at)
    except (KernelInputError, ValueError) as exc:
        return [f"the kernel cannot decide this fixture: {exc}"]
    for key in ("outcome", "basis_complete", "granted_dimensions", "withheld_dimensions"):
        if got.get(key) != expected.get(key):
            problems.append(f"kernel gives {key}={got.get(key)!r}, expected {expected.get(key)!r}")
    mine = {f["factor"]: (f["verdict"], f["basis_complete"]) for f in got["factors"]}
    for f in expected["factors"]:
        if mine.get(f["factor"]) != (f["verdict"], f["basis_complete"]):
            problems.append(
                f"kernel gives factor {f['factor']} (verdict, basis_complete)="
                f"{mine.get(f['factor'])}, expected {(f['verdict'], f['basis_complete'])}"
            )
    return problems


def _validate(root: Path) -> int:
    failed = 0
    dirs = fixture_dirs(root)
    for directory in dirs:
        problems = check_fixture(directory)
        if problems:
            failed += 1
            print(f"FAIL {directory.name}")
            for problem in problems:
                print(f"  - {problem}")
        else:
            print(f"ok   {directory.name}")
    print(f"{len(dirs) - failed} of {len(dirs)} fixture(s) pass")
    return 1 if failed else 0
