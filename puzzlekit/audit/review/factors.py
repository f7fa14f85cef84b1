"""The review kernel's six factors and their composition: which input paths each factor reads
(so a defect there blocks it), the evaluation of applicability, authority, evidence, freshness,
risk and reversibility, and the rules that compose factor verdicts (routing) and basis flags
(measurement).

Pure functions over a normalised policy and request. Part of the kernel
(:mod:`puzzlekit.audit.review.kernel` re-exports the public names here); not for building the
decision document (that is :func:`puzzlekit.audit.review.kernel.decide`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from puzzlekit.audit.review.identity import _code_units
from puzzlekit.audit.review.jsonschema import (
    ASSURANCE_ORDER,
    FACTORS,
    FALLBACK_EVIDENCE_MODE,
    POLICY_SCHEMA,
    REQUEST_SCHEMA,
    SEVERITY_ORDER,
    JsonPath,
    _num,
    schema_violations,
)
from puzzlekit.core.clock import parse_datetime

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


def evaluate_factors(policy: dict, request: dict) -> tuple[list[dict[str, Any]], list[str]]:
    """The six factor objects in :data:`FACTORS` order for a normalised ``policy`` and
    ``request``, and the evidence modes that went stale.

    A factor that reads a defective field is not evaluated: it is ``human_required`` with
    ``basis_complete`` false and the defects as its reasons.
    """
    p, r = policy, request
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
    return factors, stale_modes
