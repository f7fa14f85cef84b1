"""Names a judging process resolves without importing a plugin (docs/security.md).

A command that runs a holdout (``generate``, ``run``) is a judging process: it imports no plugin
module (:func:`puzzlekit.core.plugins.judge_without_plugins`), so only built-in names are
registered in it. The holdout is resolved there, before any plugin loads; the names a plugin
may provide (a strategy, a filter) are looked up in the loop process, where the plugins are
(:func:`puzzlekit.loop.isolation.check_names`). Plugins are let into the judging process
(:func:`puzzlekit.core.plugins.admit_plugins`, recorded in the run's manifest) only when the
judging itself needs one: a holdout the user named that only a plugin provides, a plugin's
family (the holdout checks its puzzles), or a loop that runs beside the holdout.

Outside a judging process every function here looks names up as usual.

Not for: the plugin registry itself (:mod:`puzzlekit.core.plugins`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.app.cli import UsageError

__all__ = [
    "holdout_name",
    "loop_imports",
    "loop_names",
    "loop_problems",
    "need_family",
    "verifier_version",
]


def _judging() -> bool:
    from puzzlekit.core.plugins import judging

    return judging()


def holdout_name(named: str | None, filter_name: str, flag: str) -> str:
    """The holdout verifier's name, resolved before any plugin loads: ``named`` (given by
    ``flag``) or the filter's declared ``holdout_name``. A named holdout that is not built in is
    a plugin's verifier the user trusts: plugins are admitted. A default holdout is never a
    plugin's: a plugin filter that declares one gives a UsageError asking to name it."""
    from puzzlekit.core.plugins import admit_plugins
    from puzzlekit.verifiers.registry import VERIFIERS, default_holdout_name

    if not _judging():
        return named if named is not None else default_holdout_name(filter_name)
    if named is not None:
        if named != "none" and named not in VERIFIERS:
            admit_plugins(f"the holdout {named!r} is not built in: a plugin's verifier ({flag})")
        return named
    if filter_name in VERIFIERS:
        return default_holdout_name(filter_name)
    got = _ask([("verifier", filter_name, None)])[0]
    declared = got.get("holdout") or "enumerative"
    if declared not in VERIFIERS:
        raise UsageError(
            f"filter {filter_name!r} declares the holdout {declared!r}, a plugin's verifier: "
            f"name it with {flag} to trust it as the holdout"
        )
    return str(declared)


def need_family(name: str) -> None:
    """Make ``name`` known here: a plugin's family (known in the loop process) admits the
    plugins, since the holdout checks its puzzles; an unknown name gives its UsageError."""
    from puzzlekit.core.plugins import admit_plugins
    from puzzlekit.families import FAMILIES

    if not _judging() or name in FAMILIES:
        return
    problem = _ask([("family", name, None)])[0]["problem"]
    if problem is not None:
        raise UsageError(problem)
    admit_plugins(f"family {name!r} is not built in: the holdout checks a plugin's puzzles")


def loop_problems(items: Sequence[tuple[str, str, Mapping[str, Any] | None]]) -> list[str | None]:
    """For each ``(kind, name, settings)``: None when ``name`` is known (here, or in the loop
    process when this judging process does not know it), else the one-line problem."""
    from puzzlekit.families import FAMILIES
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.verifiers.registry import VERIFIERS

    registries: dict[str, Any] = {"strategy": STRATEGIES, "verifier": VERIFIERS, "family": FAMILIES}
    out: list[str | None] = [None] * len(items)
    if not _judging():
        return out
    ask = [i for i, (kind, name, _) in enumerate(items) if name not in registries[kind]]
    if ask:
        for i, got in zip(ask, _ask([items[i] for i in ask]), strict=True):
            out[i] = got["problem"]
    return out


def loop_names(
    strategy: str, filter_name: str, holdout: str | None, flag: str
) -> tuple[str, list[tuple[str, str]]]:
    """The loop's names checked, for ``generate`` and the MCP tool ``puzzle_generate`` alike:
    the holdout's name (:func:`holdout_name`: ``holdout`` as given by ``flag``, or the filter's;
    ``"none"``: no holdout), and every unknown one of the strategy, the filter and the holdout
    as ``(role, problem)`` (role ``strategy``, ``filter`` or ``holdout``; the problem the line a
    command prints, naming the closest known), looked up here or, for a name a judging process
    does not know, in the loop process where the plugins are."""
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.verifiers.registry import VERIFIERS

    holdout = holdout_name(holdout, filter_name, flag)
    roles = [("strategy", "strategy", strategy), ("filter", "verifier", filter_name)]
    if holdout != "none":
        roles.append(("holdout", "verifier", holdout))
    if _judging():  # built in, or known in the loop process
        problems = loop_problems([(kind, name, None) for _, kind, name in roles])
    else:
        problems = []
        for _, kind, name in roles:
            try:
                (STRATEGIES if kind == "strategy" else VERIFIERS).get(name)
                problems.append(None)
            except UnknownName as exc:
                problems.append(str(exc))
    found = [(role, p) for (role, _, _), p in zip(roles, problems, strict=True) if p is not None]
    return holdout, found


def verifier_version(name: str, settings: Mapping[str, Any]) -> str:
    """The ``version`` of verifier ``name`` built with ``settings``: here, or in the loop process
    when this judging process does not know it (a plugin's filter)."""
    from puzzlekit.verifiers.registry import VERIFIERS, get_verifier

    if _judging() and name not in VERIFIERS:
        return str(_ask([("verifier", name, settings)])[0].get("version", ""))
    return str(getattr(get_verifier(name, **settings), "version", ""))


def loop_imports() -> None:
    """In a judging process, have the loop process import the plugins named so far:
    PluginError (its message naming the plugin) if one cannot be imported there."""
    if _judging():
        _ask([])


def _ask(items: Sequence[tuple[str, str, Mapping[str, Any] | None]]) -> list[dict[str, Any]]:
    from puzzlekit.loop.isolation import check_names

    return check_names(list(items))
