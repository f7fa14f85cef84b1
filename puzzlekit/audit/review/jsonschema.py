"""The review kernel's contract: its names and versions, the packaged RBK JSON Schemas, and the
checks that find every value outside the domain a schema declares.

:func:`schema_violations` turns a document into :class:`SchemaViolation` records (a root-based
path such as ``request.action.reversibility`` and one sentence each); the RFC 3339 date-times
the contract uses are read by :func:`puzzlekit.core.clock.parse_datetime`. Part of the kernel
(:mod:`puzzlekit.audit.review.kernel` re-exports every public name here); not for evaluating factors
or deciding anything.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from puzzlekit.core.clock import parse_datetime

KERNEL_VERSION = "0.4.0"
DECISION_SCHEMA = "rbk.decision.v3"
REQUEST_SCHEMA = "rbk.request.v1"
POLICY_SCHEMA = "rbk.policy.v1"
SCHEMA_NAMES = (REQUEST_SCHEMA, POLICY_SCHEMA, DECISION_SCHEMA)

#: The six factors, in the contract's canonical (enum) order.
FACTORS = ("applicability", "authority", "evidence", "freshness", "risk", "reversibility")
VERDICTS = ("satisfied", "human_required", "incomplete")
OUTCOMES = ("auto_apply", "human_required", "incomplete")
#: The GAE agency vector <O,F,P,J,U,E,L>: canonical order of every dimension set.
AGENCY_DIMENSIONS = ("observe", "frame", "project", "judge", "authorize", "execute", "learn")
#: Weakest to strongest.
ASSURANCE_ORDER = (
    "runtime_observed",
    "evaluator_supported",
    "statistically_supported",
    "bounded_checked",
    "formal_verified",
)
SEVERITY_ORDER = ("none", "low", "medium", "high", "critical")
STALENESS_REASONS = (
    "target_changed",
    "dependency_changed",
    "context_changed",
    "evidence_changed",
    "test_changed",
    "policy_changed",
    "rule_changed",
    "extractor_changed",
    "model_policy_changed",
    "decision_expired",
    "runtime_evidence_expired",
    "mapping_unresolved",
)
CHANGED_COMPONENTS = (
    "action_digest",
    "evidence_state_digest",
    "policy_digest",
    "policy_id",
    "policy_version",
)
#: The routing advice when the policy's own accepted modes cannot be read: what would close
#: the gap is a corrected input, not another observation.
FALLBACK_EVIDENCE_MODE = "schema_valid_input"

_IDENTIFIER = re.compile(r"^[a-z0-9][a-z0-9._:-]*$")
_SEMVER = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")
_SAFE_INT = 2**53 - 1


class KernelInputError(ValueError):
    """The input cannot be turned into any decision: there is no identity to give one.

    ``defects`` lists every reason found, each naming the field.
    """

    def __init__(self, defects: Sequence[str]) -> None:
        self.defects = tuple(defects)
        super().__init__(
            "no decision can be built from this input: "
            + "; ".join(self.defects)
            + ". A malformed input is not reported as a boundary."
        )


class UndigestiblePolicyError(KernelInputError):
    """The policy cannot be digested, so no decision can bind it by content."""


# ---------------------------------------------------------------------------------------------
# Schemas
# ---------------------------------------------------------------------------------------------


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The packaged JSON Schema ``name`` (one of :data:`SCHEMA_NAMES`)."""
    if name not in SCHEMA_NAMES:
        raise KeyError(f"unknown RBK schema {name!r}; known: {', '.join(SCHEMA_NAMES)}")
    path = resources.files("puzzlekit").joinpath(f"schemas/rbk/{name}.schema.json")
    return json.loads(path.read_text("utf-8"))


@cache
def _validator(name: str) -> Any:
    import jsonschema

    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


JsonPath = tuple[str | int, ...]


@dataclass(frozen=True)
class SchemaViolation:
    """One place where a document leaves its schema: the path from the root and why."""

    path: JsonPath
    reason: str


def format_path(root: str, path: Iterable[str | int]) -> str:
    """``request.evidence_state.items[0].outcome`` style: the root name, keys and indices."""
    out = root
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else f".{key}"
    return out


def describe(value: Any) -> str:
    """How an offending value is shown: its value and its JSON type (``9`` is not ``'9'``)."""
    if value is _ABSENT:
        return "absent"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (boolean)"
    if isinstance(value, str):
        return f"{value!r} (string)"
    if isinstance(value, int | float):
        return f"{_num(value)} (number)"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)}"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


class _Absent:
    def __repr__(self) -> str:
        return "absent"


_ABSENT = _Absent()


def _num(value: float | int) -> str:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


def schema_violations(document: Any, schema_name: str, root: str) -> list[SchemaViolation]:
    """Every place ``document`` leaves ``schema_name``, plus what JSON Schema cannot see.

    Beyond the schema: non-finite numbers (NaN passes a ``number`` type check), unparseable
    ``date-time`` strings (format is not asserted by default), and evidence items sharing an
    ``evidence_id`` (the items are a set keyed by it; ``uniqueItems`` compares whole objects).
    Sorted by path, so the order does not depend on the validator's traversal.
    """
    out: list[SchemaViolation] = []
    for error in _validator(schema_name).iter_errors(document):
        out.extend(_from_error(error, root, schema_name))
    out.extend(_beyond_schema(document, schema_name, root))
    unique = {(v.path, v.reason): v for v in out}
    return sorted(unique.values(), key=lambda v: (_path_key(v.path), v.reason))


def _path_key(path: JsonPath) -> tuple:
    return tuple((0, k, "") if isinstance(k, int) else (1, 0, k) for k in path)


def _from_error(error: Any, root: str, schema_name: str) -> list[SchemaViolation]:
    path: JsonPath = tuple(error.absolute_path)
    where = format_path(root, path)
    value = error.instance
    kind = error.validator
    if kind == "required":
        present = value if isinstance(value, Mapping) else {}
        missing = [k for k in error.validator_value if k not in present]
        return [
            SchemaViolation(
                path + (k,),
                f"{format_path(root, path + (k,))} is absent but {schema_name} requires it",
            )
            for k in missing
        ]
    if kind == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in value if k not in allowed) if isinstance(value, Mapping) else []
        return [
            SchemaViolation(
                path + (k,), f"{format_path(root, path + (k,))} is not a field of {schema_name}"
            )
            for k in extra
        ]
    if kind == "enum":
        domain = ", ".join(str(v) for v in error.validator_value)
        text = f"{where} is {describe(value)}, which is not one of the declared values ({domain})"
    elif kind == "const":
        text = f"{where} is {describe(value)}, but {schema_name} requires {error.validator_value!r}"
    elif kind == "type":
        text = f"{where} is {describe(value)}, which is not of type {error.validator_value}"
    elif kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        text = f"{where} is {describe(value)}, outside its declared range ({error.message})"
    elif kind == "pattern":
        text = f"{where} is {describe(value)}, which does not match {error.validator_value}"
    else:
        text = f"{where} is {describe(value)}: {error.message}"
    return [SchemaViolation(path, text)]


def _walk(value: Any, path: JsonPath = ()) -> Iterable[tuple[JsonPath, Any]]:
    yield path, value
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _walk(v, path + (k,))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _walk(v, path + (i,))


def _nonjson_numbers(document: Any, root: str) -> list[SchemaViolation]:
    """Numbers RFC 8785 cannot serialise: NaN, infinities, integers beyond 2**53 - 1."""
    out = []
    for path, value in _walk(document):
        if isinstance(value, float) and not math.isfinite(value):
            out.append(
                SchemaViolation(
                    path, f"{format_path(root, path)} is {value} (number), which is not finite"
                )
            )
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE_INT:
            out.append(
                SchemaViolation(
                    path,
                    f"{format_path(root, path)} is {value} (number), outside the interoperable "
                    "JSON integer range",
                )
            )
    return out


def _beyond_schema(document: Any, schema_name: str, root: str) -> list[SchemaViolation]:
    out = _nonjson_numbers(document, root)
    if schema_name == REQUEST_SCHEMA and isinstance(document, Mapping):
        candidates: list[tuple[JsonPath, Any]] = [(("observed_at",), document.get("observed_at"))]
        state = document.get("evidence_state")
        items = state.get("items") if isinstance(state, Mapping) else None
        if isinstance(items, list):
            seen: dict[str, int] = {}
            for i, item in enumerate(items):
                if not isinstance(item, Mapping):
                    continue
                ev = item.get("evidence_id")
                if isinstance(ev, str):
                    seen[ev] = seen.get(ev, 0) + 1
                fresh = item.get("freshness")
                if isinstance(fresh, Mapping):
                    candidates.append(
                        (
                            ("evidence_state", "items", i, "freshness", "observed_at"),
                            fresh.get("observed_at"),
                        )
                    )
            for ev, n in sorted(seen.items()):
                if n > 1:
                    p: JsonPath = ("evidence_state", "items")
                    out.append(
                        SchemaViolation(
                            p,
                            f"{format_path(root, p)} holds {n} items with evidence_id {ev!r}; "
                            "the items are a set keyed by evidence_id",
                        )
                    )
        for path, value in candidates:
            if isinstance(value, str) and parse_datetime(value) is None:
                out.append(
                    SchemaViolation(
                        path,
                        f"{format_path(root, path)} is {describe(value)}, which is not an "
                        "RFC 3339 date-time",
                    )
                )
    return out
