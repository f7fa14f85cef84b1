"""Every out-of-domain field fails closed: human_required, basis incomplete, a reason naming it.

Each row mutates the auto_apply pair of fixture 01 in one place. The decision must route to a
person (never auto_apply, and never incomplete: no re-observation repairs a malformed input),
the factor that reads the field must say so on both axes, and a reason must name the field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from puzzlekit.audit.review.kernel import check_decision, decide

FIXTURE = Path(__file__).parent / "data" / "rbk" / "fixtures" / "01-auto-apply"
AT = "2026-08-09T09:05:01Z"
NAN = float("nan")


def pair() -> tuple[dict, dict]:
    return (
        json.loads((FIXTURE / "policy.json").read_text("utf-8")),
        json.loads((FIXTURE / "request.json").read_text("utf-8")),
    )


def action(r):
    return r["action"]


def item(r):
    return r["evidence_state"]["items"][0]


def put(get, key, value):
    """A mutation that sets ``get(doc)[key] = value`` (or deletes it when value is ``DEL``)."""

    def apply(doc):
        target = get(doc)
        if value is DEL:
            target.pop(key, None)
        else:
            target[key] = value

    return apply


DEL = object()

# (id, side, mutation, factors expected to fail closed, text every reason list must contain)
R, P = "request", "policy"
ROWS = [
    # the eight fields that admitted unreadable values before v0.4.0
    (
        "impact-upper",
        R,
        put(lambda r: action(r)["risk"], "impact", "CRITICAL"),
        ["risk"],
        "request.action.risk.impact",
    ),
    ("impact-number", R, put(lambda r: action(r)["risk"], "impact", 9), ["risk"], "9 (number)"),
    ("impact-null", R, put(lambda r: action(r)["risk"], "impact", None), ["risk"], "null"),
    ("impact-absent", R, put(lambda r: action(r)["risk"], "impact", DEL), ["risk"], "absent"),
    (
        "applicability-status",
        R,
        put(lambda r: action(r)["applicability"], "status", "UNKNOWN"),
        ["applicability"],
        "request.action.applicability.status",
    ),
    (
        "freshness-status",
        R,
        put(lambda r: item(r)["freshness"], "status", "STALE"),
        ["evidence", "freshness"],
        "freshness.status",
    ),
    (
        "exposure-string",
        R,
        put(lambda r: action(r)["risk"], "exposure", "0.1"),
        ["risk"],
        "request.action.risk.exposure",
    ),
    ("exposure-nan", R, put(lambda r: action(r)["risk"], "exposure", NAN), ["risk"], "not finite"),
    (
        "exposure-bool",
        R,
        put(lambda r: action(r)["risk"], "exposure", True),
        ["risk"],
        "true (boolean)",
    ),
    (
        "exposure-range",
        R,
        put(lambda r: action(r)["risk"], "exposure", 1.5),
        ["risk"],
        "request.action.risk.exposure",
    ),
    (
        "uncertainty-nan",
        R,
        put(lambda r: action(r)["risk"], "uncertainty", NAN),
        ["risk"],
        "request.action.risk.uncertainty",
    ),
    (
        "uncertainty-inf",
        R,
        put(lambda r: action(r)["risk"], "uncertainty", float("inf")),
        ["risk"],
        "request.action.risk.uncertainty",
    ),
    ("evidence-outcome", R, put(item, "outcome", "FAILED"), ["evidence", "freshness"], "outcome"),
    (
        "reversibility-floor",
        P,
        put(lambda p: p["reversibility"], "minimum", "irreversible"),
        ["reversibility"],
        "policy.reversibility.minimum",
    ),
    (
        "minimum-assurance",
        P,
        put(lambda p: p["evidence"], "minimum_assurance", "FORMAL_VERIFIED"),
        ["evidence", "freshness"],
        "policy.evidence.minimum_assurance",
    ),
    # the rest of the request
    (
        "reversibility",
        R,
        put(action, "reversibility", "Reversible"),
        ["reversibility"],
        "request.action.reversibility",
    ),
    (
        "requested-dimension",
        R,
        put(action, "requested_dimensions", ["execute", "deploy"]),
        ["authority"],
        "request.action.requested_dimensions",
    ),
    (
        "requested-duplicate",
        R,
        put(action, "requested_dimensions", ["execute", "execute"]),
        ["authority"],
        "request.action.requested_dimensions",
    ),
    (
        "requested-empty",
        R,
        put(action, "requested_dimensions", []),
        ["authority"],
        "request.action.requested_dimensions",
    ),
    (
        "actor-kind",
        R,
        put(lambda r: action(r)["proposed_by"], "actor_kind", "robot"),
        ["authority"],
        "request.action.proposed_by.actor_kind",
    ),
    (
        "action-kind-type",
        R,
        put(action, "action_kind", 5),
        ["applicability"],
        "request.action.action_kind",
    ),
    ("domain-null", R, put(action, "domain", None), ["applicability"], "request.action.domain"),
    (
        "applicability-reasons",
        R,
        put(lambda r: action(r)["applicability"], "reasons", [1]),
        ["applicability"],
        "request.action.applicability.reasons",
    ),
    ("assurance", R, put(item, "assurance", "proved"), ["evidence", "freshness"], "assurance"),
    ("mode-type", R, put(item, "mode", 3), ["evidence", "freshness"], "mode"),
    ("evidence-id", R, put(item, "evidence_id", "Ev 1"), ["evidence", "freshness"], "evidence_id"),
    (
        "staleness-reason",
        R,
        put(lambda r: item(r)["freshness"], "reasons", ["moon_phase"]),
        ["evidence", "freshness"],
        "freshness.reasons",
    ),
    (
        "item-observed-at",
        R,
        put(lambda r: item(r)["freshness"], "observed_at", "yesterday"),
        ["evidence", "freshness"],
        "observed_at",
    ),
    (
        "observed-at",
        R,
        put(lambda r: r, "observed_at", "2026-13-45T99:00:00Z"),
        ["freshness"],
        "request.observed_at",
    ),
    (
        "items-not-array",
        R,
        put(lambda r: r["evidence_state"], "items", "none"),
        ["evidence", "freshness"],
        "request.evidence_state.items",
    ),
    (
        "evidence-state-absent",
        R,
        put(lambda r: r, "evidence_state", DEL),
        ["evidence", "freshness"],
        "request.evidence_state",
    ),
    (
        "action-not-object",
        R,
        put(lambda r: r, "action", "patch"),
        ["applicability", "authority", "risk", "reversibility"],
        "request.action",
    ),
    ("risk-absent", R, put(action, "risk", DEL), ["risk"], "request.action.risk"),
    ("unknown-field", R, put(lambda r: r, "approved", True), ["applicability"], "request.approved"),
    (
        "unknown-action-field",
        R,
        put(action, "auto", True),
        ["applicability"],
        "request.action.auto",
    ),
    (
        "schema-const",
        R,
        put(lambda r: r, "schema", "rbk.request.v2"),
        ["applicability"],
        "request.schema",
    ),
    ("summary-type", R, put(action, "summary", 42), ["applicability"], "request.action.summary"),
    (
        "human-admission",
        R,
        put(lambda r: r, "human_admission", {"actor": "bob", "authority": "x"}),
        ["authority"],
        "request.human_admission.actor",
    ),
    (
        "declared-digest",
        R,
        put(action, "digest", "md5:abc"),
        ["applicability"],
        "request.action.digest",
    ),
    # the rest of the policy
    (
        "max-impact",
        P,
        put(lambda p: p["risk"], "max_impact", "Medium"),
        ["risk"],
        "policy.risk.max_impact",
    ),
    (
        "max-exposure",
        P,
        put(lambda p: p["risk"], "max_exposure", "0.5"),
        ["risk"],
        "policy.risk.max_exposure",
    ),
    (
        "max-uncertainty",
        P,
        put(lambda p: p["risk"], "max_uncertainty", 2),
        ["risk"],
        "policy.risk.max_uncertainty",
    ),
    (
        "may-hold",
        P,
        put(lambda p: p["authority"], "non_human_may_hold", ["execute", "deploy"]),
        ["authority"],
        "policy.authority.non_human_may_hold",
    ),
    (
        "reserved",
        P,
        put(lambda p: p["authority"], "human_reserved", ["learn", 7]),
        ["authority"],
        "policy.authority.human_reserved",
    ),
    (
        "authorize-without-rationale",
        P,
        put(lambda p: p["authority"], "non_human_may_hold", ["project", "authorize", "execute"]),
        ["authority"],
        "authorize_delegation_rationale",
    ),
    (
        "evidence-required",
        P,
        put(lambda p: p["evidence"], "required", "yes"),
        ["evidence"],
        "policy.evidence.required",
    ),
    (
        "minimum-count",
        P,
        put(lambda p: p["evidence"], "minimum_count", 1.5),
        ["evidence"],
        "policy.evidence.minimum_count",
    ),
    (
        "minimum-count-negative",
        P,
        put(lambda p: p["evidence"], "minimum_count", -1),
        ["evidence"],
        "policy.evidence.minimum_count",
    ),
    (
        "accepted-modes-empty",
        P,
        put(lambda p: p["evidence"], "accepted_modes", []),
        ["evidence", "freshness"],
        "policy.evidence.accepted_modes",
    ),
    (
        "require-fresh",
        P,
        put(lambda p: p["freshness"], "require_fresh", "true"),
        ["freshness"],
        "policy.freshness.require_fresh",
    ),
    (
        "max-age",
        P,
        put(lambda p: p["freshness"], "max_age_seconds", "3600"),
        ["freshness"],
        "policy.freshness.max_age_seconds",
    ),
    (
        "tolerated",
        P,
        put(lambda p: p["freshness"], "tolerated_staleness_reasons", ["typo"]),
        ["freshness"],
        "policy.freshness.tolerated_staleness_reasons",
    ),
    (
        "scope-kinds",
        P,
        put(lambda p: p["scope"], "action_kinds", []),
        ["applicability"],
        "policy.scope.action_kinds",
    ),
    (
        "scope-not-object",
        P,
        put(lambda p: p, "scope", "everything"),
        ["applicability"],
        "policy.scope",
    ),
    ("risk-section-absent", P, put(lambda p: p, "risk", DEL), ["risk"], "policy.risk"),
    (
        "policy-unknown-field",
        P,
        put(lambda p: p, "auto_approve", True),
        ["applicability"],
        "policy.auto_approve",
    ),
    (
        "policy-schema-const",
        P,
        put(lambda p: p, "schema", "rbk.policy.v0"),
        ["applicability"],
        "policy.schema",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_out_of_domain_field_fails_closed(row) -> None:
    _, side, mutate, factors, text = row
    policy, request = pair()
    mutate(request if side == R else policy)
    decision = decide(policy, request, computed_at=AT)  # validated against rbk.decision.v3 inside
    assert decision["outcome"] == "human_required"
    assert decision["basis_complete"] is False
    assert "granted_dimensions" not in decision
    assert decision["routing"]["required_evidence_modes"]
    for name in factors:
        f = next(f for f in decision["factors"] if f["factor"] == name)
        assert f["verdict"] == "human_required", name
        assert f["basis_complete"] is False, name
        assert any(text in reason for reason in f["reasons"]), (name, f["reasons"])
    # the factors whose inputs are readable still report their own, satisfied, verdict
    for f in decision["factors"]:
        if f["factor"] not in factors:
            assert f["verdict"] == "satisfied", (f["factor"], f["reasons"])
    assert check_decision(decision, request) == []


def test_the_control_pair_is_auto_apply() -> None:
    policy, request = pair()
    assert decide(policy, request, computed_at=AT)["outcome"] == "auto_apply"


def test_a_case_difference_is_not_a_licence() -> None:
    policy, request = pair()
    request["action"]["risk"]["impact"] = "critical"
    lower = decide(policy, request, computed_at=AT)
    request["action"]["risk"]["impact"] = "CRITICAL"
    upper = decide(policy, request, computed_at=AT)
    assert lower["outcome"] == upper["outcome"] == "human_required"
    # one exceeded a ceiling we could read; the other could not be read: only that is a gap
    assert (lower["basis_complete"], upper["basis_complete"]) == (True, False)


def test_reason_names_value_type_and_domain() -> None:
    policy, request = pair()
    request["action"]["risk"]["impact"] = "9"
    risk = next(
        f for f in decide(policy, request, computed_at=AT)["factors"] if f["factor"] == "risk"
    )
    reason = " ".join(risk["reasons"])
    assert "'9' (string)" in reason
    assert "none, low, medium, high, critical" in reason


def test_duplicated_evidence_id_fails_closed() -> None:
    policy, request = pair()
    twin = dict(request["evidence_state"]["items"][0], produced_by="elsewhere")
    request["evidence_state"]["items"].append(twin)
    decision = decide(policy, request, computed_at=AT)
    evidence = next(f for f in decision["factors"] if f["factor"] == "evidence")
    assert evidence["verdict"] == "human_required"
    assert any("ev-01-test" in r for r in evidence["reasons"])


def test_a_defect_does_not_remove_the_other_factors_own_verdicts() -> None:
    policy, request = pair()
    request["action"]["risk"]["impact"] = "BOGUS"
    policy["authority"]["non_human_may_hold"] = ["observe"]
    decision = decide(policy, request, computed_at=AT)
    assert [f["factor"] for f in decision["factors"]] == [
        "applicability",
        "authority",
        "evidence",
        "freshness",
        "risk",
        "reversibility",
    ]
    authority = next(f for f in decision["factors"] if f["factor"] == "authority")
    assert authority["verdict"] == "human_required"
    assert authority["basis_complete"] is True  # its own reason, a readable ceiling
    assert "non_human_may_hold" in " ".join(authority["reasons"])
