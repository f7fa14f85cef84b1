"""Experiment configs: a pre-registered TOML file, read and checked before anything runs.

A config (``experiments/*.toml``) names schemas, strategies with their clue counts ``k``, filter
verifiers, one holdout verifier, a budget, the number of trials and the seed, and declares in a
``[preregistration]`` table the hypotheses and the metrics the run will report.
:func:`load_config` reads it through the reading boundary (size, encoding, nesting and integers
bounded) and rejects unknown keys (naming the closest valid one), wrong types and unusable
values with the key's path (``strategies[1].clues[0]``)
before anything runs, every problem at once: the structure is checked against the shipped JSON
Schema (:mod:`~puzzlekit.app.experiment.config_jsonschema`), then each schema, strategy and verifier
against its registry (names of :data:`puzzlekit.generators.STRATEGIES` and of the verifier
registry). ``overrides`` (``puzzlekit run --set key=value``) are applied first. The parsed
:class:`ExperimentConfig` has every default filled in; its digest identifies the run.

Not for: running or splitting into tasks (:mod:`~puzzlekit.app.experiment.runner`, ``tasks``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from puzzlekit.app.experiment.config_jsonschema import closest
from puzzlekit.app.experiment.config_jsonschema import type_name as _type_name
from puzzlekit.app.experiment.config_keys import (
    STRATEGY_KEYS,
    Preregistration,
    loop_problem,
)
from puzzlekit.app.experiment.config_keys import check_arms as _check_arms
from puzzlekit.app.experiment.config_keys import check_policies as _check_policies
from puzzlekit.app.experiment.config_keys import check_strategy_filters as _check_strategy_filters
from puzzlekit.app.experiment.config_keys import clue_counts as _clue_counts
from puzzlekit.app.experiment.config_keys import extras as _extras
from puzzlekit.app.experiment.config_keys import plugins as _plugins
from puzzlekit.app.experiment.config_keys import preregistration as _preregistration
from puzzlekit.app.experiment.config_keys import strategy_filters as _strategy_filters
from puzzlekit.app.experiment.config_keys import strategy_settings as _strategy_settings
from puzzlekit.core.jsondata import plain
from puzzlekit.core.model import canonical_json, sha256_digest
from puzzlekit.core.reading import ReadError, check, load_toml_file

EXECUTORS = ("local", "dask", "serial")


class ConfigError(ValueError):
    """A config that cannot run; ``path`` names the offending key (``budget.max_calls``).

    ``problems`` lists every problem found (this one first); the text has one line each."""

    def __init__(
        self,
        path: str,
        message: str,
        source: str | None = None,
        problems: Sequence[ConfigError] = (),
    ) -> None:
        self.path = path
        self.message = message
        self.source = source
        self.problems: tuple[ConfigError, ...] = tuple(problems) or (self,)
        where = f"{source}: " if source else ""
        lines = [f"{where}{p.path or '<config>'}: {p.message}" for p in self.problems]
        super().__init__("\n".join(lines))

    @classmethod
    def every(cls, problems: Sequence[ConfigError]) -> ConfigError:
        """One error listing ``problems`` (the first names ``path``)."""
        first = problems[0]
        return cls(first.path, first.message, first.source, problems)


# --- the parsed config ---------------------------------------------------------------------


@dataclass(frozen=True)
class SchemaSpec:
    family: str
    params: Mapping[str, Any]
    label: str


@dataclass(frozen=True)
class StrategySpec:
    name: str
    clues: tuple[int, ...]
    #: keyword settings of the strategy's factory (``external``: ``cmd``, ``cmd_timeout``;
    #: ``policy``: ``policy``, the file's absolute path, and ``policy_digest``, its digest when
    #: the config was read; ``blind``, ``adaptive``, ``pattern``, ``policy``: ``sampler``;
    #: ``blind``, ``adaptive``: ``fix_region``; ``pattern``: ``temperature``, ``prior``)
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: the arm's name in rows, task ids and hypotheses (default: ``name``): two arms of one
    #: strategy, such as two policies, need labels
    label: str = ""
    #: the filter labels the arm runs under (``filters = [...]``); empty: every filter
    filters: tuple[str, ...] = ()

    def runs_under(self, label: str) -> bool:
        """Whether the arm runs under the filter labelled ``label``."""
        return not self.filters or label in self.filters

    @property
    def arm(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class VerifierSpec:
    verifier: str
    settings: Mapping[str, Any]
    label: str


@dataclass(frozen=True)
class HoldoutSpec:
    verifier: str
    settings: Mapping[str, Any]
    process: bool = True


@dataclass(frozen=True)
class ExperimentConfig:
    name: str
    description: str
    seed: int
    trials: int
    batch: int
    executor: str
    workers: int
    scheduler: str | None
    minimize: bool
    symmetric: bool
    grade: bool
    max_calls: int
    solution_cap: int
    schemas: tuple[SchemaSpec, ...]
    strategies: tuple[StrategySpec, ...]
    filters: tuple[VerifierSpec, ...]
    holdout: HoldoutSpec | None
    preregistration: Preregistration
    #: plugin modules (``plugins = [...]``), loaded before the rest was checked
    plugins: tuple[str, ...] = ()
    #: report extras every filter call computes (``extras = ["forcedCells"]``): the rows'
    #: ``forcedCells`` is null without it
    extras: tuple[str, ...] = ()

    def to_json_obj(self) -> dict[str, Any]:
        """The parsed config with every default filled in; its digest identifies the run.

        ``plugins``, ``extras`` and a strategy's ``filters`` appear only when the config names
        some, so a config without them keeps the digest it had before the keys existed."""
        out = plain(asdict(self))
        # a free-text hypothesis stays a string, so such a config keeps its digest
        hyps = [h.to_json_obj() for h in self.preregistration.hypotheses]
        out["preregistration"]["hypotheses"] = plain(hyps)
        for key in ("plugins", "extras"):
            if not out[key]:
                del out[key]
        for strategy in out["strategies"]:
            if not strategy["filters"]:
                del strategy["filters"]
        return out

    @property
    def digest(self) -> str:
        return sha256_digest(canonical_json(self.to_json_obj()))

    def trial_seeds(self) -> list[int]:
        from puzzlekit.loop.driver import loop_seed

        return [loop_seed(self.seed, t) for t in range(self.trials)]


# --- the typed reader ----------------------------------------------------------------------


_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", dict: "a table"}


class _Reader:
    def __init__(self, source: str | None) -> None:
        self.source = source
        self.problems: list[ConfigError] = []

    def fail(self, path: str, message: str) -> ConfigError:
        return ConfigError(path, message, self.source)

    def attempt(self, fn: Any, *args: Any, default: Any = None, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``; a ConfigError it raises is kept and ``default`` returned, so
        the reader goes on and reports every problem at once."""
        try:
            return fn(*args, **kwargs)
        except ConfigError as exc:
            self.problems.append(exc)
            return default

    def table(self, value: Any, path: str, allowed: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a table, got {_type_name(value)}")
        for key in value:  # kept, not raised: the rest of the table is still checked
            if key not in allowed:
                sub = f"{path}.{key}" if path else key
                self.problems.append(self.fail(sub, "unknown key" + closest(key, allowed)))
        return value

    def get(self, table: dict, key: str, path: str, kind: type, default: Any = ...) -> Any:
        sub = f"{path}.{key}" if path else key
        if key not in table:
            if default is ...:
                raise self.fail(sub, f"required ({_TYPE_NAMES[kind]})")
            return default
        value = table[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise self.fail(sub, f"expected {_TYPE_NAMES[kind]}, got {_type_name(value)}")
        return value

    def positive(self, table: dict, key: str, path: str, default: Any = ...) -> int:
        value = self.get(table, key, path, int, default)
        if value < 1:
            raise self.fail(f"{path}.{key}" if path else key, f"must be at least 1, got {value}")
        return value

    def array(self, table: dict, key: str, path: str, default: Any = ...) -> list[Any]:
        sub = f"{path}.{key}" if path else key
        if key not in table:
            if default is ...:
                raise self.fail(sub, "required (an array)")
            return default
        value = table[key]
        if not isinstance(value, list):
            raise self.fail(sub, f"expected an array, got {_type_name(value)}")
        return value

    def strings(self, table: dict, key: str, path: str) -> tuple[str, ...]:
        items = self.array(table, key, path)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.fail(f"{path}.{key}[{i}]", f"expected a string, got {_type_name(item)}")
        return tuple(items)


def _verifier_spec(r: _Reader, raw: Any, path: str, *, holdout: bool) -> Any:
    from puzzlekit.core.plugins import UnknownName, judging
    from puzzlekit.verifiers.registry import VERIFIERS, get_verifier

    keys = ("verifier", "settings", "process") if holdout else ("verifier", "settings", "label")
    t = r.table(raw, path, keys)
    name = r.get(t, "verifier", path, str)
    settings = r.get(t, "settings", path, dict, {})
    if not holdout and name not in VERIFIERS:  # a judging process: a plugin's, or none
        problem = loop_problem("verifier", name, settings)
        if problem is not None:
            where = "settings" if problem.startswith("not accepted") else "verifier"
            raise r.fail(f"{path}.{where}", problem)
        if judging():
            return VerifierSpec(name, settings, r.get(t, "label", path, str, name))
    try:
        VERIFIERS.get(name)
    except UnknownName as exc:
        raise r.fail(f"{path}.verifier", str(exc)) from None
    try:
        verifier = get_verifier(name, **settings)
    except TypeError as exc:
        raise r.fail(f"{path}.settings", f"not accepted by {name!r}: {exc}") from None
    if holdout:
        if not verifier.exact:
            raise r.fail(f"{path}.verifier", f"{name!r} is not exact; a holdout must be")
        return HoldoutSpec(name, settings, r.get(t, "process", path, bool, True))
    label = r.get(t, "label", path, str, name)
    return VerifierSpec(name, settings, label)


TOP_KEYS = (
    "name",
    "plugins",
    "extras",
    "description",
    "seed",
    "trials",
    "batch",
    "executor",
    "workers",
    "scheduler",
    "minimize",
    "symmetric",
    "grade",
    "budget",
    "schemas",
    "strategies",
    "filters",
    "holdout",
    "preregistration",
)


def _schemas(r: _Reader, top: dict[str, Any]) -> tuple[list[SchemaSpec], list[int]]:
    """The ``[[schemas]]`` and each one's number of variables (problems kept on ``r``)."""
    schemas: list[SchemaSpec] = []
    sizes: list[int] = []
    raw_schemas = r.array(top, "schemas", "")
    if not raw_schemas:
        raise r.fail("schemas", "needs at least one schema")
    for i, item in enumerate(raw_schemas):
        got = r.attempt(_schema_item, r, item, f"schemas[{i}]", schemas)
        if got is not None:
            schemas.append(got[0])
            sizes.append(got[1])
    return schemas, sizes


def _schema_item(
    r: _Reader, item: Any, path: str, schemas: list[SchemaSpec]
) -> tuple[SchemaSpec, int]:
    from puzzlekit.core.model import SpecError
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.families import FAMILIES

    t = r.table(item, path, ("family", "params", "label"))
    family = r.get(t, "family", path, str)
    params = r.get(t, "params", path, dict, {})
    try:
        fam = FAMILIES.get(family)
    except UnknownName as exc:
        raise r.fail(f"{path}.family", str(exc)) from None
    try:
        schema = fam.schema(params)
    except SpecError as exc:
        raise r.fail(f"{path}.params", str(exc)) from None
    default_label = family + "".join(f"-{v}" for v in params.values() if isinstance(v, int))
    label = r.get(t, "label", path, str, default_label)
    if label in {s.label for s in schemas}:
        raise r.fail(f"{path}.label", f"label {label!r} is used twice; give labels")
    return SchemaSpec(family, params, label), len(schema.variables)


def _strategies(r: _Reader, top: dict[str, Any], sizes: list[int]) -> list[StrategySpec]:
    """The ``[[strategies]]``: names of :data:`puzzlekit.generators.STRATEGIES`, clue counts."""
    strategies: list[StrategySpec] = []
    raw_strats = r.array(top, "strategies", "")
    if not raw_strats:
        raise r.fail("strategies", "needs at least one strategy")
    most = min(sizes) if sizes else None  # None: no schema could be read
    for i, item in enumerate(raw_strats):
        got = r.attempt(_strategy_item, r, item, f"strategies[{i}]", most, strategies)
        if got is not None:
            strategies.append(got)
    return strategies


def _strategy_item(
    r: _Reader, item: Any, path: str, most: int | None, strategies: list[StrategySpec]
) -> StrategySpec:
    from puzzlekit.core.plugins import judging
    from puzzlekit.generators import STRATEGIES

    t = r.table(item, path, STRATEGY_KEYS)
    sname = r.get(t, "name", path, str)
    problem = loop_problem("strategy", sname) if sname not in STRATEGIES else None
    if problem is not None:  # a judging process asks the loop process, where the plugins are
        raise r.fail(f"{path}.name", problem)
    try:
        if not judging():
            STRATEGIES.get(sname)
    except LookupError as exc:
        raise r.fail(f"{path}.name", str(exc).strip("'\"")) from None
    clues = _clue_counts(r, t, path, most)
    label = r.get(t, "label", path, str, "")
    arm = label or sname
    if arm in {s.arm for s in strategies}:
        where, what = ("label", "label") if label else ("name", "strategy")
        raise r.fail(f"{path}.{where}", f"{what} {arm!r} is listed twice; give labels")
    settings = _strategy_settings(r, t, path, sname)
    return StrategySpec(sname, clues, settings, label, _strategy_filters(r, t, path))


def _filters(r: _Reader, top: dict[str, Any]) -> list[VerifierSpec]:
    filters: list[VerifierSpec] = []
    raw_filters = r.array(top, "filters", "")
    if not raw_filters:
        raise r.fail("filters", "needs at least one filter")
    for i, item in enumerate(raw_filters):
        spec = r.attempt(_filter_item, r, item, f"filters[{i}]", filters)
        if spec is not None:
            filters.append(spec)
    return filters


def _filter_item(r: _Reader, item: Any, path: str, filters: list[VerifierSpec]) -> VerifierSpec:
    spec = _verifier_spec(r, item, path, holdout=False)
    if spec.label in {f.label for f in filters}:
        raise r.fail(f"{path}.label", f"label {spec.label!r} is used twice")
    return spec


def parse_config(raw: Mapping[str, Any], source: str | None = None) -> ExperimentConfig:
    """Check ``raw`` (a parsed TOML document) and fill in defaults; :class:`ConfigError` listing
    every problem found else (structural ones from the JSON Schema, then the registries').

    The ``plugins`` it names are imported first (into this process), so schemas, strategies
    and verifiers registered by a plugin are checked like built-ins."""
    from puzzlekit.app.experiment.config_jsonschema import structural_problems

    r = _Reader(source)
    structural = [r.fail(path, message) for path, message in structural_problems(raw)]
    top = dict(raw)
    config = r.attempt(_parse, r, top)
    said = [p.path for p in structural]
    more = [
        p
        for p in r.problems
        if not any(p.path == s or p.path.startswith((f"{s}.", f"{s}[")) for s in said)
    ]
    problems = structural + more
    plugins = [p for p in problems if p.path.startswith("plugins[")]
    if plugins:  # what the plugin would have registered is unknown: those follow from it
        problems = plugins
    if problems:
        raise ConfigError.every(problems)
    return config


def _parse(r: _Reader, top: dict[str, Any]) -> ExperimentConfig | None:
    r.table(top, "", TOP_KEYS)
    name = r.attempt(r.get, top, "name", "", str, default="")
    plugins = r.attempt(_plugins, r, top, default=())
    extras = r.attempt(_extras, r, top, default=())
    executor = r.attempt(r.get, top, "executor", "", str, "local", default="local")
    if executor not in EXECUTORS:
        r.problems.append(
            r.fail("executor", f"expected one of {', '.join(EXECUTORS)}, got {executor!r}")
        )
    budget = r.attempt(r.table, top.get("budget", {}), "budget", ("max_calls", "solution_cap"))
    budget = budget if budget is not None else {}
    schemas, sizes = _schemas(r, top)
    strategies = _strategies(r, top, sizes)
    r.attempt(_check_policies, r, schemas, strategies)
    filters = _filters(r, top)
    r.attempt(_check_strategy_filters, r, strategies, filters)
    holdout = None
    if "holdout" in top:
        holdout = r.attempt(_verifier_spec, r, top["holdout"], "holdout", holdout=True)
    preregistration = r.attempt(_preregistration, r, top)
    if preregistration is not None:
        _check_arms(r, preregistration, schemas, strategies, filters)
    scalars = {
        "description": r.attempt(r.get, top, "description", "", str, ""),
        "seed": r.attempt(r.get, top, "seed", "", int, 0),
        "trials": r.attempt(r.positive, top, "trials", ""),
        "batch": r.attempt(r.positive, top, "batch", "", 10),
        "workers": r.attempt(r.positive, top, "workers", "", 2),
        "scheduler": r.attempt(r.get, top, "scheduler", "", str, None),
        "minimize": r.attempt(r.get, top, "minimize", "", bool, False),
        "symmetric": r.attempt(r.get, top, "symmetric", "", bool, False),
        "grade": r.attempt(r.get, top, "grade", "", bool, True),
        "max_calls": r.attempt(r.positive, budget, "max_calls", "budget", 200),
        "solution_cap": r.attempt(r.positive, budget, "solution_cap", "budget", 2),
    }
    if r.problems:
        return None  # parse_config reports them all
    return ExperimentConfig(
        name=name,
        executor=executor,
        schemas=tuple(schemas),
        strategies=tuple(strategies),
        filters=tuple(filters),
        holdout=holdout,
        preregistration=preregistration,
        plugins=plugins,
        extras=extras,
        **scalars,
    )


def load_config(path: str | Path, overrides: Sequence[str] = ()) -> ExperimentConfig:
    """Read and check a TOML config, with ``overrides`` (``key=value``, see
    :func:`~puzzlekit.app.experiment.config_jsonschema.apply_overrides`) applied;
    :class:`ConfigError` names the file and every key's path."""
    from puzzlekit.app.experiment.config_jsonschema import apply_overrides

    p = Path(path)
    try:
        raw = load_toml_file(p)
    except OSError as exc:
        raise ConfigError("", f"cannot read: {exc.strerror or exc}", str(p)) from None
    except ReadError as exc:
        raise ConfigError("" if exc.field == "$" else exc.field, exc.detail, str(p)) from None
    try:
        raw = check(apply_overrides(raw, overrides))
    except ReadError as exc:  # an override beyond what canonical JSON holds (--set seed=2**64)
        raise ConfigError(exc.field, exc.detail, str(p)) from None
    except ValueError as exc:
        raise ConfigError("", str(exc), str(p)) from None
    return parse_config(raw, str(p))
