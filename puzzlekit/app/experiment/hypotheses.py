"""Pre-registered hypotheses in a checkable form, read from an experiment config.

A hypothesis names a metric, the arms it compares, a direction and a test, so that the report
can judge it from the rows (:mod:`puzzlekit.app.plots.hypotheses`)::

    hypotheses = [
      { id = "H1", claim = "adaptive needs fewer filter calls than blind",
        metric = "calls_per_accept_mean", arms = ["adaptive", "blind"], direction = "less",
        test = "bootstrap", alpha = 0.05 },
      { id = "H2", claim = "the holdout rejects nothing the sat filter accepts",
        metric = "holdout_reject_rate", arms = ["sat"], direction = "equal", value = 0 },
    ]

Two arms: the statistic is metric(first) − metric(second); one arm: metric(arm) − ``value``.
An arm is a strategy name or a filter label (``strategy=NAME`` / ``filter=LABEL`` / ``k=N`` /
``schema=LABEL``, joined by ``,``, when a bare name is ambiguous); its rows are pooled over
everything else. The optional ``schema`` (a schema label) and ``k`` (a clue count) keys limit
every arm's rows to that schema and that k, so a hypothesis need not pool what differs.
:func:`arm_problems` checks each arm, ``schema`` and ``k`` against the config's names before the
first trial. A hypothesis given as a plain string is kept and reported as not checkable.

Metrics over the loop index (a learner's experience: a trial's position in its task, ``trial %
batch``, since one task is one learner, :mod:`puzzlekit.generators.pattern`):

- ``calls_slope``: the least-squares slope of every loop's filter calls (an exhausted loop
  counts its whole budget) on the loop index, per 100 loops: a learning curve falls (< 0), a
  memoryless loop's is flat;
- ``holdout_reject_slope``: the same of the holdout's rejections among accepted puzzles;
- ``map_overlap``: the share of the ``|R|`` top-scoring places of each learner's map after its
  last loop (the rows' ``strategyState``, read by :func:`puzzlekit.generators.pattern.
  learned_map`; tied places share what is left) that lie in the region ``R`` the sampler named
  by ``region`` plants its defect in (:func:`puzzlekit.generators.samplers.sampler_region`),
  one value per learner; chance is ``|R|`` over the number of places.

Directions ``at_most`` / ``at_least``: the statistic is at most / at least ``tolerance``
(−``tolerance``): "no higher" and "no lower", which ``less`` and ``greater`` cannot say of two
equal rates.

Not for: computing the judgement (:mod:`puzzlekit.app.plots.hypotheses`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: the metrics a hypothesis can test (per-row values the report can resample)
CHECKABLE_METRICS = (
    "accept_rate",
    "holdout_reject_rate",
    "calls_per_accept_mean",
    "calls_per_accept_median",
    "final_clues_mean",
    "calls_slope",
    "holdout_reject_slope",
    "map_overlap",
)
#: the metrics whose statistic is a learner's (``map_overlap`` also needs ``region``)
LEARNING_METRICS = ("calls_slope", "holdout_reject_slope", "map_overlap")
DIRECTIONS = ("less", "greater", "equal", "at_most", "at_least")
TESTS = ("bootstrap",)
KEYS = (
    "id",
    "claim",
    "metric",
    "arms",
    "direction",
    "test",
    "alpha",
    "value",
    "tolerance",
    "schema",
    "k",
    "region",
)
#: the keys of an arm's ``key=value`` form
ARM_KEYS = ("strategy", "filter", "k", "schema")


@dataclass(frozen=True)
class Hypothesis:
    """One pre-registered hypothesis; ``metric`` None: free text, not checkable."""

    claim: str
    id: str = ""
    metric: str | None = None
    arms: tuple[str, ...] = ()
    direction: str = "less"
    test: str = "bootstrap"
    alpha: float = 0.05
    value: float | None = None
    tolerance: float = 0.0
    #: only the rows of this schema label (None: every schema)
    schema: str | None = None
    #: only the rows of this clue count (None: every k)
    k: int | None = None
    #: ``map_overlap``: the sampler whose planted region the map is compared with
    region: str | None = None

    @property
    def checkable(self) -> bool:
        return self.metric is not None

    def to_json_obj(self) -> str | dict[str, Any]:
        """A free-text hypothesis as its string; a checkable one as a table (the manifest's
        ``preregistration.hypotheses``)."""
        if not self.checkable:
            return self.claim
        out: dict[str, Any] = {
            "id": self.id,
            "claim": self.claim,
            "metric": self.metric,
            "arms": list(self.arms),
            "direction": self.direction,
            "test": self.test,
            "alpha": self.alpha,
            "tolerance": self.tolerance,
        }
        if self.value is not None:
            out["value"] = self.value
        # absent when unset, so a config written before the keys existed keeps its digest
        if self.schema is not None:
            out["schema"] = self.schema
        if self.k is not None:
            out["k"] = self.k
        if self.region is not None:
            out["region"] = self.region
        return out


def snake(name: str) -> str:
    """``holdoutRejectRate`` → ``holdout_reject_rate`` (both spellings are accepted)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def read_hypothesis(raw: Any, path: str) -> Hypothesis:
    """A hypothesis from a config item (a string, or a table of :data:`KEYS`); ValueError naming
    ``path`` and what is wrong otherwise."""
    if isinstance(raw, str):
        return Hypothesis(claim=raw)
    if not isinstance(raw, Mapping):
        raise ValueError(f"{path}: expected a string or a table, got {type(raw).__name__}")
    for key in raw:
        if key not in KEYS:
            raise ValueError(f"{path}.{key}: unknown key; allowed: {', '.join(KEYS)}")
    for key in ("metric", "arms", "direction"):
        if key not in raw:
            raise ValueError(f"{path}.{key}: required in a checkable hypothesis")
    metric = snake(str(raw["metric"]))
    if metric not in CHECKABLE_METRICS:
        raise ValueError(
            f"{path}.metric: {raw['metric']!r} is not checkable; "
            f"known: {', '.join(CHECKABLE_METRICS)}"
        )
    arms = raw["arms"]
    if (
        not isinstance(arms, list)
        or not 1 <= len(arms) <= 2
        or not all(isinstance(a, str) and a for a in arms)
    ):
        raise ValueError(f"{path}.arms: expected one or two arm names")
    direction = raw["direction"]
    if direction not in DIRECTIONS:
        raise ValueError(
            f"{path}.direction: {direction!r}; expected one of {', '.join(DIRECTIONS)}"
        )
    test = raw.get("test", "bootstrap")
    if test not in TESTS:
        raise ValueError(f"{path}.test: {test!r}; expected one of {', '.join(TESTS)}")
    value = raw.get("value")
    if len(arms) == 1 and not isinstance(value, int | float):
        raise ValueError(f"{path}.value: a one-arm hypothesis compares its metric to a number")
    if len(arms) == 2 and value is not None:
        raise ValueError(f"{path}.value: a two-arm hypothesis compares the arms, not a value")
    alpha = raw.get("alpha", 0.05)
    if not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ValueError(f"{path}.alpha: expected a number between 0 and 1")
    tolerance = raw.get("tolerance", 0.0)
    if not isinstance(tolerance, int | float) or tolerance < 0:
        raise ValueError(f"{path}.tolerance: expected a number >= 0")
    schema = raw.get("schema")
    if schema is not None and (not isinstance(schema, str) or not schema):
        raise ValueError(f"{path}.schema: expected a schema label (a string)")
    k = raw.get("k")
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 0):
        raise ValueError(f"{path}.k: expected a clue count (an integer >= 0)")
    region = _region(raw, metric, path)
    return Hypothesis(
        claim=str(raw.get("claim", "")),
        id=str(raw.get("id", "")),
        metric=metric,
        arms=tuple(arms),
        direction=direction,
        test=test,
        alpha=float(alpha),
        value=None if value is None else float(value),
        tolerance=float(tolerance),
        schema=schema,
        k=k,
        region=region,
    )


def _region(raw: Mapping[str, Any], metric: str, path: str) -> str | None:
    """``region``: a sampler that names its planted region, given with ``map_overlap`` only."""
    from puzzlekit.generators.samplers import REGIONS

    region = raw.get("region")
    if metric != "map_overlap":
        if region is not None:
            raise ValueError(f"{path}.region: region goes with metric map_overlap")
        return None
    if region not in REGIONS:
        raise ValueError(
            f"{path}.region: map_overlap needs region, a sampler that names its planted region "
            f"({', '.join(sorted(REGIONS))}), got {region!r}"
        )
    return str(region)


def _near(word: str, choices: Sequence[str]) -> str:
    """``"; did you mean X?"`` for the closest of ``choices`` (difflib), else the valid names."""
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    if near:
        return f"; did you mean {near[0]!r}?"
    return f"; valid: {', '.join(choices)}"


def _hint(arm: str, names: Mapping[str, Sequence[str]]) -> str:
    """The closest bare name; for ``SCHEMA/NAME`` (a schema label and an arm), the key to use."""
    head, sep, tail = arm.partition("/")
    if sep and head in names["schema"] and tail in [*names["strategy"], *names["filter"]]:
        return f"; did you mean {tail!r} with schema = {head!r}?"
    return _near(arm, [*names["strategy"], *names["filter"]])


def arm_problems(
    h: Hypothesis,
    path: str,
    names: Mapping[str, Sequence[str]],
) -> list[tuple[str, str]]:
    """Every (key path, message) for an arm, ``schema`` or ``k`` of ``h`` that names nothing in
    the config, each with the closest valid name. ``names`` maps each of :data:`ARM_KEYS` to
    the config's names for it (strategy names, filter labels, clue counts, schema labels)."""
    out: list[tuple[str, str]] = []
    bare = [*names["strategy"], *names["filter"]]
    pairs = [f"{key}={value}" for key in ARM_KEYS for value in names[key]]
    for i, arm in enumerate(h.arms):
        where = f"{path}.arms[{i}]"
        if "=" not in arm:
            if arm not in bare:
                out.append((where, f"arm {arm!r} names no strategy or filter" + _hint(arm, names)))
            continue
        for part in arm.split(","):
            key, _, value = (x.strip() for x in part.partition("="))
            if key not in ARM_KEYS:
                out.append((where, f"{key!r} is not an arm key" + _near(key, ARM_KEYS)))
            elif value not in names[key]:
                out.append((where, f"no {key} {value!r} in the config" + _near(part, pairs)))
    if h.schema is not None and h.schema not in names["schema"]:
        out.append((f"{path}.schema", f"no schema {h.schema!r}" + _near(h.schema, names["schema"])))
    if h.k is not None and str(h.k) not in names["k"]:
        out.append((f"{path}.k", f"no strategy has k = {h.k}; valid: {', '.join(names['k'])}"))
    return out
