"""The review boundary kernel: may this action be applied without a human?

``decide(policy, request, *, computed_at)`` implements the RBK contract (``rbk.policy.v1`` and
``rbk.request.v1`` in, ``rbk.decision.v3`` out; schemas in ``puzzlekit/schemas/rbk/``) with the
semantics of kernel v0.4.0. Six factors (applicability, authority, evidence, freshness, risk,
reversibility) each give a verdict, a ``basis_complete`` flag and reasons. Two axes come out:

* routing, ``outcome``: any factor ``human_required`` gives ``human_required``; otherwise any
  ``incomplete`` gives ``incomplete``; otherwise ``auto_apply``;
* measurement, ``basis_complete``: false whenever any factor raised an incomplete signal, whatever
  the routing, so a basis gap is never swallowed by ``human_required``.

Fail closed: a value outside the domain its schema declares (an unknown enum member, a wrong type,
a NaN, an unknown field, a duplicated evidence id, an unparseable timestamp) is not evaluated. The
factor that reads it becomes ``human_required`` with ``basis_complete`` false and a reason naming
the field; it never opens the boundary and never routes to ``incomplete`` (no re-observation
repairs a malformed input). Only input from which no decision can be built at all raises
:class:`KernelInputError`: a request or policy that is not a JSON object, a ``request_id``,
``policy_id`` or ``version`` that the decision could not carry, and a policy that cannot be
digested (:class:`UndigestiblePolicyError`), since ``identity.policy_digest`` binds it.

Identity: sets are put in canonical order and strings NFC-normalised before RFC 8785
serialisation; ``action_digest`` and ``evidence_state_digest`` exclude the declared ``digest``
field they would contain (a claim is not content), ``evidence_state_digest`` never includes the
policy, and ``decision_id`` binds both digests, the policy's content digest and label, the decision
schema and the kernel version. :func:`attribute` names which of those changed between two
decisions.

Pure and deterministic: no clock (the time is an argument), no I/O beyond reading the packaged
schemas once. Not for: producing requests (``puzzlekit.loop.publish`` derives them from
verification),
acting on a decision (the host routes it), or authenticating anyone.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any

from puzzlekit.core.model import canonical_json, sha256_digest

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
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
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


def parse_datetime(text: str) -> datetime | None:
    """An RFC 3339 date-time with an offset, or ``None``."""
    if not isinstance(text, str) or not _RFC3339.match(text):
        return None
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# Normalisation and digests
# ---------------------------------------------------------------------------------------------


def _nfc(value: Any, root: str, path: JsonPath = ()) -> Any:
    """A deep copy with every string (keys included) NFC-normalised; JSON types only."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [_nfc(v, root, path + (i,)) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise KernelInputError([f"{format_path(root, path)} has a non-string key {k!r}"])
            out[unicodedata.normalize("NFC", k)] = _nfc(v, root, path + (k,))
        return out
    raise KernelInputError(
        [f"{format_path(root, path)} is {describe(value)}, which is not a JSON value"]
    )


def _code_units(text: str) -> bytes:
    # The contract orders free-vocabulary sets by UTF-16 code unit, not by code point.
    return text.encode("utf-16-be", "surrogatepass")


def _fallback_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _sorted_set(values: Any, order: Sequence[str] | None = None) -> Any:
    """A set-typed array in canonical order: enum order, else UTF-16 code units.

    A member outside the enum (invalid input, reported elsewhere) sorts after the known members,
    so the order stays total and stable. A value that is not an array is left as it is.
    """
    if not isinstance(values, list):
        return values

    def key(v: Any) -> tuple:
        if order is not None and isinstance(v, str) and v in order:
            return (0, order.index(v), b"", "")
        if isinstance(v, str):
            return (1, 0, _code_units(v), "")
        return (2, 0, b"", _fallback_key(v))

    return sorted(values, key=key)


def normalize_policy(policy: Mapping[str, Any]) -> dict[str, Any]:
    """The policy as the digest and the kernel see it: NFC, sets in canonical order."""
    p = _nfc(policy, "policy")
    if not isinstance(p, dict):
        return p
    scope = p.get("scope")
    if isinstance(scope, dict):
        for k in ("action_kinds", "domains"):
            if k in scope:
                scope[k] = _sorted_set(scope[k])
    authority = p.get("authority")
    if isinstance(authority, dict):
        for k in ("non_human_may_hold", "human_reserved"):
            if k in authority:
                authority[k] = _sorted_set(authority[k], AGENCY_DIMENSIONS)
    evidence = p.get("evidence")
    if isinstance(evidence, dict) and "accepted_modes" in evidence:
        evidence["accepted_modes"] = _sorted_set(evidence["accepted_modes"])
    freshness = p.get("freshness")
    if isinstance(freshness, dict) and "tolerated_staleness_reasons" in freshness:
        freshness["tolerated_staleness_reasons"] = _sorted_set(
            freshness["tolerated_staleness_reasons"], STALENESS_REASONS
        )
    return p


def _item_key(item: Any) -> tuple:
    ev = item.get("evidence_id") if isinstance(item, Mapping) else None
    first = (0, _code_units(ev)) if isinstance(ev, str) else (1, b"")
    return first + (_fallback_key(item),)


def normalize_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request as the digests and the kernel see it: NFC, sets in canonical order.

    Sequences stay as they are: ``action.applicability.reasons`` is the host's narrative.
    """
    r = _nfc(request, "request")
    if not isinstance(r, dict):
        return r
    action = r.get("action")
    if isinstance(action, dict) and "requested_dimensions" in action:
        action["requested_dimensions"] = _sorted_set(
            action["requested_dimensions"], AGENCY_DIMENSIONS
        )
    state = r.get("evidence_state")
    if isinstance(state, dict) and isinstance(state.get("items"), list):
        for item in state["items"]:
            fresh = item.get("freshness") if isinstance(item, dict) else None
            if isinstance(fresh, dict) and "reasons" in fresh:
                fresh["reasons"] = _sorted_set(fresh["reasons"], STALENESS_REASONS)
        state["items"] = sorted(state["items"], key=_item_key)
    return r


def _encodable(value: Any) -> Any:
    """Replace numbers RFC 8785 refuses by a tagged object, so a request still has an identity.

    Only for request content, whose out-of-domain values fail closed rather than raise; the
    tagged form can only collide with another out-of-domain input.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return {"$non_json_number": repr(value)}
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE_INT:
        return {"$non_json_number": str(value)}
    if isinstance(value, list):
        return [_encodable(v) for v in value]
    if isinstance(value, dict):
        return {k: _encodable(v) for k, v in value.items()}
    return value


def _without_digest(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k != "digest"}
    return value


def action_digest(action: Any) -> str:
    """Content digest of an action: normalised, without its own declared ``digest``."""
    normalized = normalize_request({"action": action})["action"]
    return sha256_digest(canonical_json(_encodable(_without_digest(normalized))))


def evidence_state_digest(evidence_state: Any) -> str:
    """Content digest of the evidence state alone (never the policy), without ``digest``."""
    normalized = normalize_request({"evidence_state": evidence_state})["evidence_state"]
    return sha256_digest(canonical_json(_encodable(_without_digest(normalized))))


def policy_digest(policy: Mapping[str, Any]) -> str:
    """Content digest of the normalised policy; raises :class:`UndigestiblePolicyError`."""
    if not isinstance(policy, Mapping):
        raise UndigestiblePolicyError([f"policy is {describe(policy)}, which is not an object"])
    try:
        normalized = normalize_policy(policy)
    except KernelInputError as exc:
        raise UndigestiblePolicyError(exc.defects) from exc
    problems = [v.reason for v in _nonjson_numbers(normalized, "policy")]
    if problems:
        raise UndigestiblePolicyError(problems)
    return sha256_digest(canonical_json(normalized))


def decision_id(
    action_digest: str,
    evidence_state_digest: str,
    policy_digest: str,
    policy_id: str,
    policy_version: str | None,
) -> str:
    """``hash(action, evidence state, policy content and label, decision schema, kernel)``."""
    preimage = {
        "action_digest": action_digest,
        "evidence_state_digest": evidence_state_digest,
        "policy_digest": policy_digest,
        "policy_id": policy_id,
        "decision_schema": DECISION_SCHEMA,
        "kernel_version": KERNEL_VERSION,
    }
    if policy_version is not None:
        preimage["policy_version"] = policy_version
    return sha256_digest(canonical_json(preimage))


# ---------------------------------------------------------------------------------------------
# Which factor reads which field
# ---------------------------------------------------------------------------------------------

#: The input paths each factor reads. A defect at a path, or above or below one, blocks the
#: factor. ``freshness`` judges exactly the items ``evidence`` qualified, so it also reads the
#: evidence items and the policy fields that qualify them.
FACTOR_READS: Mapping[str, tuple[JsonPath, ...]] = {
    "applicability": (
        ("policy", "scope"),
        ("request", "action", "action_kind"),
        ("request", "action", "domain"),
        ("request", "action", "applicability"),
    ),
    "authority": (
        ("policy", "authority"),
        ("request", "action", "proposed_by"),
        ("request", "action", "requested_dimensions"),
        ("request", "human_admission"),
    ),
    "evidence": (("policy", "evidence"), ("request", "evidence_state")),
    "freshness": (
        ("policy", "freshness"),
        ("policy", "evidence", "accepted_modes"),
        ("policy", "evidence", "minimum_assurance"),
        ("request", "evidence_state", "items"),
        ("request", "observed_at"),
    ),
    "risk": (("policy", "risk"), ("request", "action", "risk")),
    "reversibility": (("policy", "reversibility"), ("request", "action", "reversibility")),
}


def factors_reading(path: JsonPath) -> tuple[str, ...]:
    """The factors that read ``path`` (rooted at ``"policy"`` or ``"request"``).

    A field no factor reads (``request.action.summary``, an unknown top-level field, a wrong
    ``schema`` constant) still means the document is not the contract's; it is attributed to
    ``applicability``: whether this policy applies to an unreadable request cannot be known.
    """
    hits = tuple(
        factor
        for factor, reads in FACTOR_READS.items()
        if any(path[: len(r)] == r or r[: len(path)] == path for r in reads)
    )
    return hits or ("applicability",)


def _defects_by_factor(policy: Any, request: Any) -> dict[str, list[str]]:
    found = [
        (("policy",) + v.path, v.reason) for v in schema_violations(policy, POLICY_SCHEMA, "policy")
    ]
    found += [
        (("request",) + v.path, v.reason)
        for v in schema_violations(request, REQUEST_SCHEMA, "request")
    ]
    out: dict[str, list[str]] = {}
    for path, reason in found:
        text = f"{reason}; the boundary cannot be computed from it"
        for factor in factors_reading(path):
            out.setdefault(factor, []).append(text)
    return out


# ---------------------------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------------------------


def compose(verdicts: Iterable[str]) -> str:
    """Routing: any human_required -> human_required; else any incomplete -> incomplete."""
    verdicts = list(verdicts)
    if "human_required" in verdicts:
        return "human_required"
    if "incomplete" in verdicts:
        return "incomplete"
    return "auto_apply"


def compose_basis(factors: Iterable[Mapping[str, Any]]) -> bool:
    """Measurement: the basis is complete only if no factor reported a gap."""
    return all(f["basis_complete"] for f in factors)


def _factor(name: str, signals: list[str], reasons: list[str], **extra: Any) -> dict[str, Any]:
    # human_required wins the routing; an incomplete signal still marks the basis short.
    verdict = compose(signals)
    out = {
        "factor": name,
        "verdict": "satisfied" if verdict == "auto_apply" else verdict,
        "basis_complete": "incomplete" not in signals,
        "reasons": reasons,
    }
    out.update(extra)
    return out


def _applicability(policy: dict, request: dict) -> dict[str, Any]:
    action = request["action"]
    scope = policy["scope"]
    signals: list[str] = []
    reasons: list[str] = []
    if action["action_kind"] not in scope["action_kinds"]:
        signals.append("human_required")
        reasons.append(
            f"action_kind {action['action_kind']!r} is not in policy.scope.action_kinds; "
            "this policy is not_applicable to the action"
        )
    domains = scope.get("domains")
    if domains is not None and "domain" in action and action["domain"] not in domains:
        signals.append("human_required")
        reasons.append(f"action.domain {action['domain']!r} is not in policy.scope.domains")
    declared = action.get("applicability")
    if declared is not None:
        host = list(declared.get("reasons", []))
        status = declared["status"]
        if status == "not_applicable":
            signals.append("human_required")
            reasons += ["request.action.applicability.status is 'not_applicable'", *host]
        elif status == "capability_missing":
            signals.append("incomplete")
            reasons += [
                "request.action.applicability.status is 'capability_missing'; the capability "
                "needed to judge applicability is absent, which is not the same as "
                "not_applicable",
                *host,
            ]
        elif status == "unknown":
            signals.append("incomplete")
            reasons += [
                "request.action.applicability.status is 'unknown'; applicability was not "
                "determined",
                *host,
            ]
    return _factor("applicability", signals, reasons)


def _authority(policy: dict, request: dict) -> dict[str, Any]:
    action = request["action"]
    # A human performing the act holds their own agency; the ceiling binds non-humans only.
    if action["proposed_by"]["actor_kind"] == "human":
        return _factor("authority", [], [])
    authority = policy["authority"]
    may_hold = authority["non_human_may_hold"]
    reserved = authority.get("human_reserved", [])
    rationale = authority.get("authorize_delegation_rationale")
    reasons: list[str] = []
    withheld = False
    for dim in action["requested_dimensions"]:
        mine: list[str] = []
        if dim not in may_hold:
            mine.append(
                f"requested dimension {dim!r} is not in policy.authority.non_human_may_hold"
            )
        if dim in reserved:
            # human_reserved is absolute, even over a dimension that is also in may_hold.
            if dim == "authorize" and rationale is None:
                mine.append(
                    "policy.authority.human_reserved includes 'authorize' and no "
                    "authorize_delegation_rationale is present"
                )
            else:
                mine.append(f"policy.authority.human_reserved includes {dim!r}")
        if mine:
            withheld = True
            reasons += mine
    # Authority is decided from the policy's map alone: never short of measurement.
    return _factor("authority", ["human_required"] if withheld else [], reasons)


def _qualifying(policy: dict, items: list[dict]) -> list[dict]:
    ev = policy["evidence"]
    minimum = ev.get("minimum_assurance")
    floor = ASSURANCE_ORDER.index(minimum) if minimum is not None else 0
    return [
        item
        for item in items
        if item["mode"] in ev["accepted_modes"]
        and item["outcome"] == "passed"
        and ASSURANCE_ORDER.index(item["assurance"]) >= floor
    ]


def _near_miss(policy: dict, item: dict) -> str:
    ev = policy["evidence"]
    if item["mode"] not in ev["accepted_modes"]:
        return (
            f"evidence {item['evidence_id']} has mode {item['mode']!r}, which is not in "
            "policy.evidence.accepted_modes"
        )
    if item["outcome"] != "passed":
        return f"evidence {item['evidence_id']} has outcome {item['outcome']!r}, not 'passed'"
    return (
        f"evidence {item['evidence_id']} has assurance {item['assurance']!r}, below "
        f"policy.evidence.minimum_assurance {ev.get('minimum_assurance')!r}"
    )


def _evidence(policy: dict, request: dict, qualifying: list[dict]) -> dict[str, Any]:
    items = request["evidence_state"]["items"]
    ev = policy["evidence"]
    signals: list[str] = []
    reasons: list[str] = []
    # A known failure is a settled fact, not a missing measurement.
    for item in items:
        if item["outcome"] == "failed":
            signals.append("human_required")
            reasons.append(
                f"evidence {item['evidence_id']} (mode {item['mode']!r}) has outcome 'failed'; "
                "a known failure is never auto-applied"
            )
    if ev["required"]:
        need = ev.get("minimum_count", 1)
        if len(qualifying) < need:
            signals.append("incomplete")
            assurance = ev.get("minimum_assurance")
            reasons.append(
                f"{len(qualifying)} of {need} required evidence item(s) satisfy policy.evidence "
                f"(accepted_modes=[{', '.join(ev['accepted_modes'])}], outcome=passed"
                + (f", minimum_assurance={assurance}" if assurance is not None else "")
                + ")"
            )
            ids = {id(q) for q in qualifying}
            for item in items:
                if id(item) not in ids and item["outcome"] != "failed":
                    reasons.append(_near_miss(policy, item))
    return _factor(
        "evidence", signals, reasons, evidence_ids=[q["evidence_id"] for q in qualifying]
    )


def _age_seconds(item: dict, request: dict) -> int | None:
    observed = item["freshness"].get("observed_at")
    now = request.get("observed_at")
    if observed is None or now is None:
        return None
    start, end = parse_datetime(observed), parse_datetime(now)
    if start is None or end is None:
        return None
    return max(0, math.floor((end - start).total_seconds() + 0.5))


def _freshness(
    policy: dict, request: dict, qualifying: list[dict]
) -> tuple[dict[str, Any], list[str]]:
    ids = [q["evidence_id"] for q in qualifying]
    rules = policy["freshness"]
    if not rules["require_fresh"]:
        return _factor("freshness", [], [], evidence_ids=ids), []
    tolerated = rules.get("tolerated_staleness_reasons", [])
    max_age = rules.get("max_age_seconds")
    signals: list[str] = []
    reasons: list[str] = []
    unresolved: list[str] = []
    for item in qualifying:
        status = item["freshness"]["status"]
        ev_id = item["evidence_id"]
        why = item["freshness"].get("reasons", [])
        blocked = None
        if status == "unknown":
            blocked = (
                f"evidence {ev_id} has freshness.status 'unknown'; "
                "policy.freshness.require_fresh=true and unknown is not fresh"
            )
        elif status == "stale" and not why:
            blocked = (
                f"evidence {ev_id} is stale with no reason given; the staleness cannot be "
                "checked against policy.freshness.tolerated_staleness_reasons"
            )
        elif status == "stale":
            untolerated = [r for r in why if r not in tolerated]
            if untolerated:
                blocked = (
                    f"evidence {ev_id} is stale ({', '.join(why)}); "
                    f"policy.freshness.require_fresh=true and {', '.join(untolerated)} "
                    f"{'is' if len(untolerated) == 1 else 'are'} not in "
                    "tolerated_staleness_reasons"
                )
        elif max_age is not None:
            # An absent timestamp is not staleness: the host asserted freshness.
            age = _age_seconds(item, request)
            if age is not None and age > max_age:
                blocked = (
                    f"evidence {ev_id} is {age}s old, exceeding "
                    f"policy.freshness.max_age_seconds {_num(max_age)}"
                )
        if blocked is not None:
            signals.append("incomplete")
            reasons.append(blocked)
            if item["mode"] not in unresolved:
                unresolved.append(item["mode"])
    return _factor("freshness", signals, reasons, evidence_ids=ids), unresolved


def _risk(policy: dict, request: dict) -> dict[str, Any]:
    risk = request["action"]["risk"]
    ceiling = policy["risk"]
    signals: list[str] = []
    reasons: list[str] = []
    if SEVERITY_ORDER.index(risk["impact"]) > SEVERITY_ORDER.index(ceiling["max_impact"]):
        signals.append("human_required")
        reasons.append(
            f"action.risk.impact {risk['impact']!r} exceeds policy.risk.max_impact "
            f"{ceiling['max_impact']!r}"
        )
    if "max_exposure" in ceiling:
        if "exposure" not in risk:
            signals.append("incomplete")
            reasons.append(
                "action.risk.exposure is absent but policy.risk.max_exposure is "
                f"{_num(ceiling['max_exposure'])}; exposure cannot be evaluated"
            )
        elif risk["exposure"] > ceiling["max_exposure"]:
            signals.append("human_required")
            reasons.append(
                f"action.risk.exposure {_num(risk['exposure'])} exceeds "
                f"policy.risk.max_exposure {_num(ceiling['max_exposure'])}"
            )
    if "max_uncertainty" in ceiling:
        if "uncertainty" not in risk:
            signals.append("incomplete")
            reasons.append(
                "action.risk.uncertainty is absent but policy.risk.max_uncertainty is "
                f"{_num(ceiling['max_uncertainty'])}; uncertainty cannot be evaluated"
            )
        elif risk["uncertainty"] > ceiling["max_uncertainty"]:
            # Too much uncertainty means the boundary cannot be computed: incomplete.
            signals.append("incomplete")
            reasons.append(
                f"action.risk.uncertainty {_num(risk['uncertainty'])} exceeds "
                f"policy.risk.max_uncertainty {_num(ceiling['max_uncertainty'])}; "
                "the boundary cannot be computed"
            )
    return _factor("risk", signals, reasons)


def _reversibility(policy: dict, request: dict) -> dict[str, Any]:
    actual = request["action"]["reversibility"]
    minimum = policy["reversibility"]["minimum"]
    if actual == "irreversible":
        return _factor(
            "reversibility",
            ["human_required"],
            [
                "action.reversibility is 'irreversible'; an irreversible action is never "
                "auto-applied"
            ],
        )
    if actual == "unknown":
        return _factor(
            "reversibility",
            ["incomplete"],
            ["action.reversibility is 'unknown'; unknown must not be treated as reversible"],
        )
    if actual == "compensatable" and minimum == "reversible":
        return _factor(
            "reversibility",
            ["human_required"],
            [
                "action.reversibility 'compensatable' does not meet "
                "policy.reversibility.minimum 'reversible'"
            ],
        )
    return _factor("reversibility", [], [])


def _required_modes(policy: dict, factors: list[dict], stale_modes: list[str]) -> list[str]:
    """What would have to be observed to close the basis gap (a set, code-unit order).

    Freshness names the modes of the very items that went stale; any other gap falls back to
    the policy's accepted modes.
    """
    modes = set(stale_modes)
    others = any(f["factor"] != "freshness" and not f["basis_complete"] for f in factors)
    if others or not modes:
        ev = policy.get("evidence")
        accepted = ev.get("accepted_modes") if isinstance(ev, dict) else None
        if isinstance(accepted, list):
            modes.update(m for m in accepted if isinstance(m, str) and m)
    if not modes:
        modes.add(FALLBACK_EVIDENCE_MODE)
    return sorted(modes, key=_code_units)


# ---------------------------------------------------------------------------------------------
# decide
# ---------------------------------------------------------------------------------------------


def _identity_defects(policy: Mapping, request: Mapping) -> list[str]:
    defects = []
    rid = request.get("request_id", _ABSENT)
    if not (isinstance(rid, str) and _IDENTIFIER.match(rid)):
        defects.append(f"request.request_id is {describe(rid)}, which is not an identifier")
    pid = policy.get("policy_id", _ABSENT)
    if not (isinstance(pid, str) and _IDENTIFIER.match(pid)):
        defects.append(f"policy.policy_id is {describe(pid)}, which is not an identifier")
    version = policy.get("version", _ABSENT)
    if not (isinstance(version, str) and _SEMVER.match(version)):
        defects.append(f"policy.version is {describe(version)}, which is not a semver")
    return defects


def decide(
    policy: Mapping[str, Any], request: Mapping[str, Any], *, computed_at: str
) -> dict[str, Any]:
    """The ``rbk.decision.v3`` document for ``request`` under ``policy``, as of ``computed_at``.

    Raises :class:`KernelInputError` only when no decision can be built (see the module
    docstring); every other defect fails closed on the factor that reads it.
    """
    if parse_datetime(computed_at) is None:
        raise ValueError(f"computed_at is {describe(computed_at)}, not an RFC 3339 date-time")
    if not isinstance(request, Mapping):
        raise KernelInputError([f"request is {describe(request)}, which is not an object"])
    digest_of_policy = policy_digest(policy)  # raises UndigestiblePolicyError
    p = normalize_policy(policy)
    r = normalize_request(request)
    identity_defects = _identity_defects(p, r)
    if identity_defects:
        if any(d.startswith("policy.") for d in identity_defects):
            raise UndigestiblePolicyError(identity_defects)
        raise KernelInputError(identity_defects)

    blocked = _defects_by_factor(p, r)
    evaluated: dict[str, dict[str, Any]] = {}
    stale_modes: list[str] = []
    if "applicability" not in blocked:
        evaluated["applicability"] = _applicability(p, r)
    if "authority" not in blocked:
        evaluated["authority"] = _authority(p, r)
    if "evidence" not in blocked or "freshness" not in blocked:
        qualifying = _qualifying(p, r["evidence_state"]["items"])
        if "evidence" not in blocked:
            evaluated["evidence"] = _evidence(p, r, qualifying)
        if "freshness" not in blocked:
            evaluated["freshness"], stale_modes = _freshness(p, r, qualifying)
    if "risk" not in blocked:
        evaluated["risk"] = _risk(p, r)
    if "reversibility" not in blocked:
        evaluated["reversibility"] = _reversibility(p, r)
    factors = []
    for name in FACTORS:
        if name in blocked:
            # Both axes: a person must look (routing) and our basis was short (measurement).
            factors.append(
                {
                    "factor": name,
                    "verdict": "human_required",
                    "basis_complete": False,
                    "reasons": blocked[name],
                }
            )
        else:
            factors.append(evaluated[name])

    outcome = compose(f["verdict"] for f in factors)
    basis_complete = compose_basis(factors)
    a_digest = action_digest(r.get("action"))
    e_digest = evidence_state_digest(r.get("evidence_state"))
    action = r.get("action")
    requested = action.get("requested_dimensions") if isinstance(action, dict) else None
    requested = requested if isinstance(requested, list) else []
    # Only readable members: an unknown dimension is a defect already routed to a human.
    dims = [d for d in AGENCY_DIMENSIONS if d in requested]

    decision: dict[str, Any] = {
        "schema": DECISION_SCHEMA,
        "decision_id": decision_id(
            a_digest, e_digest, digest_of_policy, p["policy_id"], p["version"]
        ),
        "request_id": r["request_id"],
        "policy_id": p["policy_id"],
        "policy_version": p["version"],
        "outcome": outcome,
        "basis_complete": basis_complete,
    }
    if outcome == "auto_apply":
        # Monotone narrowing: what is granted is what was requested, nothing more.
        decision["granted_dimensions"] = dims
        decision["withheld_dimensions"] = []
    else:
        # The boundary did not open: no dimension passes, whichever factor closed it.
        decision["withheld_dimensions"] = dims
    decision["factors"] = factors
    decision["identity"] = {
        "action_digest": a_digest,
        "evidence_state_digest": e_digest,
        "policy_digest": digest_of_policy,
    }
    decision["routing"] = {}
    if not basis_complete:
        decision["routing"]["required_evidence_modes"] = _required_modes(p, factors, stale_modes)
    decision["computed_at"] = computed_at
    decision["kernel_version"] = KERNEL_VERSION

    problems = [v.reason for v in schema_violations(decision, DECISION_SCHEMA, "decision")]
    if problems:  # a kernel bug, never an input problem: every input defect was absorbed above
        raise AssertionError("decide() built an invalid decision: " + "; ".join(problems))
    return decision


# ---------------------------------------------------------------------------------------------
# attribution and checks
# ---------------------------------------------------------------------------------------------


def attribute(prev: Mapping[str, Any], next: Mapping[str, Any]) -> dict[str, Any]:
    """Which identity component changed from ``prev`` to ``next`` (an ``attribution`` object).

    One changed axis names its cause (``action_change``, ``evidence_change``, ``policy_change``;
    the policy's digest, id and version are three components of one thing); several axes are
    ``unattributable``, never guessed; none is ``no_change``. A policy change is therefore never
    attributed to evidence, and a permuted set, which leaves every digest alone, changes nothing.
    """
    pi, ni = prev["identity"], next["identity"]
    changed = []
    for component in CHANGED_COMPONENTS:
        if component in ("policy_id", "policy_version"):
            before, after = prev.get(component), next.get(component)
        else:
            before, after = pi[component], ni[component]
        if before != after:
            changed.append(component)
    axis = {
        "action_digest": "action_change",
        "evidence_state_digest": "evidence_change",
        "policy_digest": "policy_change",
        "policy_id": "policy_change",
        "policy_version": "policy_change",
    }
    causes = {axis[c] for c in changed}
    cause = "no_change" if not causes else causes.pop() if len(causes) == 1 else "unattributable"
    out: dict[str, Any] = {
        "compared_to_decision_id": prev["decision_id"],
        "cause": cause,
        "changed_components": changed,
    }
    if prev["outcome"] != next["outcome"]:
        out["outcome_transition"] = {"from": prev["outcome"], "to": next["outcome"]}
    return out


def check_decision(
    decision: Mapping[str, Any], request: Mapping[str, Any] | None = None
) -> list[str]:
    """What is wrong with a decision document, in sentences; empty when nothing is.

    Checks the schema, all six factors exactly once, reasons on every non-satisfied factor,
    the composition rule on both axes, no withheld dimension under ``auto_apply``, and (given
    the request) granted dimensions within the requested ones.
    """
    problems = [v.reason for v in schema_violations(decision, DECISION_SCHEMA, "decision")]
    factors = decision.get("factors")
    if not isinstance(factors, list) or not all(isinstance(f, Mapping) for f in factors):
        return problems + ["decision.factors is not an array of factor objects"]
    names = [f.get("factor") for f in factors]
    for name in FACTORS:
        if names.count(name) != 1:
            problems.append(f"factor {name!r} appears {names.count(name)} times, not once")
    for f in factors:
        if f.get("verdict") != "satisfied" and not f.get("reasons"):
            problems.append(f"factor {f.get('factor')!r} is {f.get('verdict')!r} with no reason")
        if f.get("basis_complete") is False and not f.get("reasons"):
            problems.append(f"factor {f.get('factor')!r} reports a basis gap with no reason")
    verdicts = [f.get("verdict") for f in factors]
    if decision.get("outcome") != compose(verdicts):
        problems.append(
            f"outcome {decision.get('outcome')!r} is not the composition of the factor "
            f"verdicts ({compose(verdicts)!r})"
        )
    basis = all(f.get("basis_complete") is True for f in factors)
    if decision.get("basis_complete") is not basis:
        problems.append(
            f"basis_complete {decision.get('basis_complete')!r} is not the conjunction of the "
            f"factors' basis_complete ({basis!r})"
        )
    if decision.get("outcome") == "auto_apply" and decision.get("withheld_dimensions"):
        problems.append(f"auto_apply with withheld dimensions {decision['withheld_dimensions']}")
    if request is not None:
        action = request.get("action")
        requested = action.get("requested_dimensions") if isinstance(action, Mapping) else None
        requested = requested if isinstance(requested, list) else []
        extra = [d for d in decision.get("granted_dimensions", []) if d not in requested]
        if extra:
            problems.append(f"granted dimensions {extra} were not requested")
    return problems
