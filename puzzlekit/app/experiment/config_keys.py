"""Config keys whose checking reaches outside their own table: ``plugins`` (imported so that what
they register is known to the rest of the check), ``extras`` (names of report extras) and the
``[preregistration]`` table (metrics, and hypotheses whose arms, schemas and ``k`` are checked
against the config's names), and a strategy entry's settings (:func:`strategy_settings`; its
``policy`` is a file read and checked against every schema). Read by
:mod:`puzzlekit.app.experiment.config` with its reader ``r``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzlekit.app.experiment.config_jsonschema import type_name
from puzzlekit.app.experiment.hypotheses import Hypothesis, read_hypothesis

METRICS = {
    "accept_rate": "share of trials the filter accepted within the budget",
    "holdout_reject_rate": "share of filter-accepted puzzles the holdout rejected",
    "calls_per_accept_mean": "mean filter calls of accepted trials",
    "calls_per_accept_median": "median filter calls of accepted trials",
    "final_clues_mean": "mean clue count of accepted puzzles",
    "reject_cases": "share of each reject case among filter rejects",
}


@dataclass(frozen=True)
class Preregistration:
    hypotheses: tuple[Hypothesis, ...]
    metrics: tuple[str, ...]


def plugins(r: Any, top: dict[str, Any]) -> tuple[str, ...]:
    """Import the config's ``plugins`` (module names) so that what they register is known when
    the rest of the config is checked; ConfigError naming the entry that cannot be imported.
    In a judging process (docs/security.md) they are imported in the loop process instead."""
    from puzzlekit.core.plugins import PluginError, judging, unname, use_plugins

    _trust_holdout(top)
    modules = r.strings(top, "plugins", "") if "plugins" in top else ()
    for i, module in enumerate(modules):
        try:
            use_plugins([module])
            if judging():  # named here, imported there: does it import?
                from puzzlekit.app.judging import loop_imports

                loop_imports()
        except PluginError as exc:
            unname(module)  # the rest of the config is checked without it
            raise r.fail(f"plugins[{i}]", str(exc).removeprefix("in the loop process: ")) from None
    _trust_families(top)
    return tuple(modules)


def _trust_holdout(top: dict[str, Any]) -> None:
    """Before any plugin loads, in a judging process: the holdout resolved among built-ins, and
    plugins admitted there only when the judging needs one (recorded in the manifest)."""
    from puzzlekit.core.plugins import admit_plugins, judging
    from puzzlekit.verifiers.registry import VERIFIERS

    if not judging():
        return
    raw = top.get("holdout")
    if raw is None:
        admit_plugins("the config names no holdout: nothing is judged")
    elif isinstance(raw, dict) and raw.get("process", True) is False:
        admit_plugins("holdout.process = false: the loop runs beside the holdout")
    elif isinstance(raw, dict) and isinstance(raw.get("verifier"), str):
        if raw["verifier"] not in VERIFIERS:
            name = raw["verifier"]
            admit_plugins(f"the holdout {name!r} is not built in: a plugin's verifier, named")


def _trust_families(top: dict[str, Any]) -> None:
    """A plugin's family (known in the loop process) admits the plugins: the holdout checks its
    puzzles. An unknown family is left to the schema's own check."""
    from puzzlekit.core.plugins import admit_plugins, judging
    from puzzlekit.families import FAMILIES

    schemas = top.get("schemas")
    if not judging() or not isinstance(schemas, list):
        return
    names = [
        s["family"] for s in schemas if isinstance(s, dict) and isinstance(s.get("family"), str)
    ]
    foreign = [n for n in dict.fromkeys(names) if n not in FAMILIES]
    if foreign:
        from puzzlekit.app.judging import loop_problems

        known = [
            n
            for n, p in zip(
                foreign, loop_problems([("family", n, None) for n in foreign]), strict=True
            )
            if p is None
        ]
        if known:
            admit_plugins(
                f"family {known[0]!r} is not built in: the holdout checks a plugin's puzzles"
            )


def loop_problem(kind: str, name: str, settings: Any = None) -> str | None:
    """None when ``name`` is a known ``kind``, else one line; in a judging process, a name that
    is not built in is looked up in the loop process (:mod:`puzzlekit.app.judging`)."""
    from puzzlekit.app.judging import loop_problems

    return loop_problems([(kind, name, settings)])[0]


def extras(r: Any, top: dict[str, Any]) -> tuple[str, ...]:
    """The report extras the config asks of every filter call (sorted, each known)."""
    from puzzlekit.core.protocols import EXTRAS

    names = r.strings(top, "extras", "") if "extras" in top else ()
    for i, name in enumerate(names):
        if name not in EXTRAS:
            raise r.fail(
                f"extras[{i}]", f"unknown report extra {name!r}; known: {', '.join(sorted(EXTRAS))}"
            )
    return tuple(sorted(set(names)))


def preregistration(r: Any, top: dict[str, Any]) -> Preregistration:
    if "preregistration" not in top:
        raise r.fail("preregistration", "required: declare hypotheses and metrics up front")
    pre = r.table(top["preregistration"], "preregistration", ("hypotheses", "metrics"))
    hypotheses = _hypotheses(r, pre)
    metrics = r.strings(pre, "metrics", "preregistration")
    if not hypotheses:
        raise r.fail("preregistration.hypotheses", "declare at least one hypothesis")
    if not metrics:
        raise r.fail("preregistration.metrics", "declare at least one metric")
    for i, m in enumerate(metrics):
        if m not in METRICS:
            raise r.fail(
                f"preregistration.metrics[{i}]",
                f"unknown metric {m!r}; known: {', '.join(sorted(METRICS))}",
            )
    return Preregistration(hypotheses, metrics)


def _hypotheses(r: Any, pre: dict[str, Any]) -> tuple[Hypothesis, ...]:
    out = []
    for i, item in enumerate(r.array(pre, "hypotheses", "preregistration")):
        try:
            out.append(read_hypothesis(item, f"preregistration.hypotheses[{i}]"))
        except ValueError as exc:
            path, _, message = str(exc).partition(": ")
            raise r.fail(path, message) from None
    return tuple(out)


def check_arms(
    r: Any,
    pre: Preregistration,
    schemas: Sequence[Any],
    strategies: Sequence[Any],
    filters: Sequence[Any],
) -> None:
    """Every arm, ``schema`` and ``k`` of the hypotheses checked against the config's names
    (problems kept on ``r``), unless a schema, strategy or filter could not be read: then the
    names are not all known."""
    from puzzlekit.app.experiment.hypotheses import arm_problems

    if any(p.path.startswith(("schemas", "strategies", "filters")) for p in r.problems):
        return
    names = {
        "strategy": [s.arm for s in strategies],
        "filter": [f.label for f in filters],
        "k": [str(k) for k in sorted({k for s in strategies for k in s.clues})],
        "schema": [s.label for s in schemas],
    }
    for i, h in enumerate(pre.hypotheses):
        if h.checkable:
            path = f"preregistration.hypotheses[{i}]"
            found = arm_problems(h, path, names)
            found = found or _unrun_arms(h.arms, path, strategies)
            for where, message in found:
                r.problems.append(r.fail(where, message))


def _unrun_arms(arms: Sequence[str], path: str, strategies: Sequence[Any]) -> list[tuple[str, str]]:
    """A hypothesis arm naming a strategy and a filter the strategy does not run under (its
    ``filters``): the arm would have no rows."""
    by_arm = {s.arm: s for s in strategies}
    out = []
    for i, arm in enumerate(arms):
        parts = dict(
            (k.strip(), v.strip()) for k, _, v in (p.partition("=") for p in arm.split(","))
        )
        strategy = by_arm.get(parts.get("strategy", ""))
        label = parts.get("filter")
        if strategy is not None and label is not None and not strategy.runs_under(label):
            out.append(
                (
                    f"{path}.arms[{i}]",
                    f"strategy {strategy.arm!r} does not run under filter {label!r} "
                    f"(its filters: {', '.join(strategy.filters)})",
                )
            )
    return out


def check_strategy_filters(r: Any, strategies: Sequence[Any], filters: Sequence[Any]) -> None:
    """Each strategy's ``filters``: labels of ``[[filters]]``, none twice."""
    from puzzlekit.app.experiment.config_jsonschema import closest

    labels = [f.label for f in filters]
    for i, strat in enumerate(strategies):
        path = f"strategies[{i}].filters"
        seen: set[str] = set()
        for j, label in enumerate(strat.filters):
            if label not in labels:
                hint = closest(label, labels)
                r.problems.append(r.fail(f"{path}[{j}]", f"no filter labelled {label!r}{hint}"))
            elif label in seen:
                r.problems.append(r.fail(f"{path}[{j}]", f"filter {label!r} is listed twice"))
            seen.add(label)


def strategy_filters(r: Any, t: dict[str, Any], path: str) -> tuple[str, ...]:
    """A ``[[strategies]]`` entry's ``filters``: the filter labels its arm runs under (checked
    against ``[[filters]]`` by :func:`check_strategy_filters`); empty when not given (every
    filter)."""
    if "filters" not in t:
        return ()
    under = r.strings(t, "filters", path)
    if not under:
        raise r.fail(
            f"{path}.filters", "needs at least one filter label (leave it out: every filter)"
        )
    return under


def clue_counts(r: Any, t: dict[str, Any], path: str, most: int | None) -> tuple[int, ...]:
    """A strategy entry's ``clues``: an integer or a non-empty array of them, each in
    ``0..most`` (``most``: the smallest schema's variable count; None when none was read)."""
    clues = t.get("clues")
    if isinstance(clues, int) and not isinstance(clues, bool):
        clues = [clues]
    if not isinstance(clues, list) or not clues:
        got = "nothing" if clues is None else type_name(clues)
        raise r.fail(f"{path}.clues", f"expected an integer or an array of them, got {got}")
    for j, k in enumerate(clues):
        if not isinstance(k, int) or isinstance(k, bool):
            raise r.fail(f"{path}.clues[{j}]", f"expected an integer, got {type_name(k)}")
        if k < 0 or (most is not None and k > most):
            raise r.fail(f"{path}.clues[{j}]", f"must be in 0..{most}, got {k}")
    return tuple(clues)


def strategy_settings(r: Any, t: dict[str, Any], path: str, sname: str) -> dict[str, Any]:
    """A ``[[strategies]]`` entry's settings: ``cmd``/``cmd_timeout`` (external only), a
    ``policy`` (:func:`policy_settings`), a ``sampler`` and the strategy's knobs (:func:`knobs`)."""
    settings: dict[str, Any] = {key: t[key] for key in ("cmd", "cmd_timeout") if key in t}
    if sname == "external" and "cmd" not in settings:
        raise r.fail(f"{path}.cmd", "strategy external needs cmd, the program to run")
    if sname != "external" and settings:
        raise r.fail(f"{path}.cmd", "cmd and cmd_timeout go with strategy external")
    if "policy" in t or sname == "policy":
        settings = policy_settings(r, t, path, sname)
    settings |= {"sampler": sampler_setting(r, t, path, sname)} if "sampler" in t else {}
    return settings | knobs(r, t, path, sname)


def policy_settings(r: Any, t: dict[str, Any], path: str, sname: str) -> dict[str, Any]:
    """The policy strategy's settings: its file (relative to the config's directory), read
    and checked here, so a bad file is a config problem naming it."""
    from puzzlekit.generators.policy.file import PolicyFileError, read_policy

    if sname != "policy":
        raise r.fail(f"{path}.policy", "policy goes with strategy policy")
    if "policy" not in t:
        raise r.fail(f"{path}.policy", "strategy policy needs policy, a file of puzzlekit train")
    given = r.get(t, "policy", path, str)
    base = Path(r.source).parent if r.source else Path.cwd()
    file = (base / given).resolve()
    try:
        found = read_policy(file)
    except PolicyFileError as exc:
        raise r.fail(f"{path}.policy", str(exc)) from None
    return {"policy": str(file), "policy_digest": found.digest}


def sampler_setting(r: Any, t: dict[str, Any], path: str, sname: str) -> str:
    """A strategy's ``sampler``: a name of the sampler registry, for a strategy that takes it."""
    from puzzlekit.generators.samplers import SAMPLER_STRATEGIES, SAMPLERS

    name = r.get(t, "sampler", path, str)
    if sname not in SAMPLER_STRATEGIES:
        raise r.fail(f"{path}.sampler", f"sampler goes with {', '.join(SAMPLER_STRATEGIES)}")
    try:
        SAMPLERS.get(name)
    except LookupError as exc:
        raise r.fail(f"{path}.sampler", str(exc).strip("'\"")) from None
    return name


#: the keys of a ``[[strategies]]`` table
STRATEGY_KEYS = (
    "name",
    "clues",
    "label",
    "cmd",
    "cmd_timeout",
    "policy",
    "sampler",
    "fix_region",
    "temperature",
    "prior",
    "filters",
)


def knobs(r: Any, t: dict[str, Any], path: str, sname: str) -> dict[str, Any]:
    """A strategy's ``fix_region`` (``blind``, ``adaptive``: one start clue in the sampler's
    planted region, the human's one-time fix) and ``temperature`` and ``prior`` (``pattern``:
    its start's temperature and its map's prior, :mod:`puzzlekit.generators.pattern`)."""
    from puzzlekit.generators.samplers import FIX_STRATEGIES, REGIONS

    out: dict[str, Any] = {}
    if "fix_region" in t:
        fix = r.get(t, "fix_region", path, bool)
        if sname not in FIX_STRATEGIES:
            raise r.fail(f"{path}.fix_region", f"fix_region goes with {', '.join(FIX_STRATEGIES)}")
        if fix and t.get("sampler") not in REGIONS:
            raise r.fail(
                f"{path}.fix_region",
                f"fix_region needs a sampler that names its region: {', '.join(sorted(REGIONS))}",
            )
        out["fix_region"] = fix
    for key in ("temperature", "prior"):
        if key not in t:
            continue
        value = t[key]
        if sname != "pattern":
            raise r.fail(f"{path}.{key}", f"{key} goes with strategy pattern")
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < 1e9:
            raise r.fail(f"{path}.{key}", f"expected a positive number, got {value!r}")
        out[key] = float(value)
    return out


def check_policies(r: Any, schemas: Sequence[Any], strategies: Sequence[Any]) -> None:
    """Every policy arm against every schema: a policy runs on the schema it was trained on."""
    from puzzlekit.families import get_family
    from puzzlekit.generators.policy.file import PolicyFileError, check_schema, read_policy

    for i, strat in enumerate(strategies):
        if "policy" not in strat.settings:
            continue
        found = read_policy(strat.settings["policy"])
        for spec in schemas:
            schema = get_family(spec.family).schema(dict(spec.params))
            try:
                check_schema(found, schema.family, schema.params_dict(), strat.settings["policy"])
            except PolicyFileError as exc:
                r.problems.append(r.fail(f"strategies[{i}].policy", f"{spec.label}: {exc}"))
