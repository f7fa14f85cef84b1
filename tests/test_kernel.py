"""The review kernel against the RBK contract: fixtures, field cases, composition, identity."""

from __future__ import annotations

import copy
import itertools
import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlekit.audit.review import kernel
from puzzlekit.audit.review.kernel import (
    FACTORS,
    KernelInputError,
    UndigestiblePolicyError,
    attribute,
    check_decision,
    compose,
    compose_basis,
    decide,
    load_schema,
    policy_digest,
)

RBK = Path(__file__).parent / "data" / "rbk"
FIXTURES = sorted(p for p in (RBK / "fixtures").iterdir() if p.is_dir())
AT = "2026-08-09T09:05:01Z"
RANK = {"human_required": 0, "incomplete": 1, "auto_apply": 2}


def load(path: Path):
    return json.loads(path.read_text("utf-8"))


def base_pair() -> tuple[dict, dict]:
    """Fixture 01, an auto_apply pair: every mutation below is measured against it."""
    d = RBK / "fixtures" / "01-auto-apply"
    return load(d / "policy.json"), load(d / "request.json")


def factor(decision: dict, name: str) -> dict:
    return next(f for f in decision["factors"] if f["factor"] == name)


# -- the five fixtures --------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_fixture_matches_expected_decision(fixture: Path) -> None:
    expected = load(fixture / "expected-decision.json")
    got = decide(
        load(fixture / "policy.json"),
        load(fixture / "request.json"),
        computed_at=expected["computed_at"],
    )
    for key in ("outcome", "basis_complete", "withheld_dimensions", "request_id", "policy_id"):
        assert got[key] == expected[key], key
    assert got.get("granted_dimensions") == expected.get("granted_dimensions")

    def view(d):
        return [(f["factor"], f["verdict"], f["basis_complete"], f.get("evidence_ids")) for f in d]

    assert view(got["factors"]) == view(expected["factors"])
    assert check_decision(got, load(fixture / "request.json")) == []


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_fixture_expected_decisions_pass_the_decision_checks(fixture: Path) -> None:
    expected = load(fixture / "expected-decision.json")
    assert check_decision(expected, load(fixture / "request.json")) == []


def test_fixture_05_declared_digests_equal_ours() -> None:
    # Fixture 05 was written after the contract fixed its normalisation; its declared action and
    # evidence digests are the reference's own, so ours must agree byte for byte.
    request = load(RBK / "fixtures" / "05-human-required-with-incomplete-basis" / "request.json")
    assert kernel.action_digest(request["action"]) == request["action"]["digest"]
    assert (
        kernel.evidence_state_digest(request["evidence_state"])
        == request["evidence_state"]["digest"]
    )


# -- the herdr-approvals field replication ------------------------------------------------------

HERDR = {
    "grep-placeholders": ("auto_apply", True),
    "git-checkout-branch": ("auto_apply", True),
    "npm-install": ("human_required", False),
    "git-commit": ("auto_apply", True),
    "git-push": ("human_required", True),
    "heredoc-unanalyzable": ("incomplete", False),
}


def herdr_cases() -> list[dict]:
    return load(RBK / "herdr-approvals" / "cases.json")


@pytest.mark.parametrize("case", herdr_cases(), ids=lambda c: c["case_id"])
def test_herdr_case_outcome(case: dict) -> None:
    policy = load(RBK / "herdr-approvals" / "policy.json")
    request = {
        "schema": "rbk.request.v1",
        "request_id": case["case_id"],
        "action": case["action"],
        "evidence_state": case["evidence_state"],
    }
    decision = decide(policy, request, computed_at=AT)
    assert (decision["outcome"], decision["basis_complete"]) == HERDR[case["case_id"]]
    assert len(herdr_cases()) == len(HERDR)


# -- composition over every verdict combination -------------------------------------------------


def assemble(verdicts: tuple[str, ...], human_basis: tuple[bool, ...] | None = None) -> dict:
    """A decision document whose factors carry ``verdicts``, composed by the kernel's rule."""
    factors = []
    for i, (name, verdict) in enumerate(zip(FACTORS, verdicts, strict=True)):
        basis = verdict != "incomplete"
        if verdict == "human_required" and human_basis is not None:
            basis = human_basis[i]
        reasons = [] if verdict == "satisfied" else [f"{name} is {verdict}"]
        factors.append(
            {"factor": name, "verdict": verdict, "basis_complete": basis, "reasons": reasons}
        )
    outcome = compose(verdicts)
    basis_complete = compose_basis(factors)
    decision = {
        "schema": "rbk.decision.v3",
        "decision_id": "sha256:" + "0" * 64,
        "request_id": "req",
        "policy_id": "pol",
        "outcome": outcome,
        "basis_complete": basis_complete,
        "withheld_dimensions": [] if outcome == "auto_apply" else ["execute"],
        "factors": factors,
        "identity": {k: "sha256:" + "1" * 64 for k in kernel.CHANGED_COMPONENTS[:3]},
        "routing": {} if basis_complete else {"required_evidence_modes": ["exact"]},
        "computed_at": AT,
    }
    if outcome == "auto_apply":
        decision["granted_dimensions"] = ["execute"]
    return decision


def test_all_729_verdict_combinations_compose_by_the_rule() -> None:
    counts = {"auto_apply": 0, "incomplete": 0, "human_required": 0}
    for verdicts in itertools.product(kernel.VERDICTS, repeat=6):
        decision = assemble(verdicts)
        counts[decision["outcome"]] += 1
        assert check_decision(decision) == [], verdicts
    assert counts == {"auto_apply": 1, "incomplete": 63, "human_required": 665}


def test_incomplete_exactly_when_basis_short_and_no_factor_human_required() -> None:
    # Every factor in {satisfied, human_required with or without a basis gap, incomplete}.
    states = [("satisfied", True), ("human_required", True), ("human_required", False)]
    states.append(("incomplete", False))
    for combo in itertools.product(states, repeat=6):
        verdicts = tuple(v for v, _ in combo)
        decision = assemble(verdicts, tuple(b for _, b in combo))
        no_human = "human_required" not in verdicts
        assert (decision["outcome"] == "incomplete") == (
            decision["basis_complete"] is False and no_human
        )
        if any(v == "incomplete" for v in verdicts):
            assert decision["basis_complete"] is False  # never swallowed by human_required


IMPROVES = {"human_required": ("incomplete", "satisfied"), "incomplete": ("satisfied",)}


@settings(max_examples=300, deadline=None)
@given(st.tuples(*[st.sampled_from(kernel.VERDICTS)] * 6), st.integers(0, 5), st.data())
def test_improving_one_factor_never_worsens_the_outcome(verdicts, i, data) -> None:
    if verdicts[i] == "satisfied":
        return
    better = list(verdicts)
    better[i] = data.draw(st.sampled_from(IMPROVES[verdicts[i]]))
    assert RANK[compose(better)] >= RANK[compose(verdicts)]


# -- monotonicity at the level of request fields ------------------------------------------------

SEV = kernel.SEVERITY_ORDER
EXPOSURES = [0.0, 0.1, 0.3, 0.5, 0.7, 1.0]
REVERSIBILITY_STEPS = {
    "irreversible": ["compensatable", "reversible"],
    "compensatable": ["reversible"],
    "unknown": ["reversible"],
    "reversible": [],
}


@st.composite
def pairs(draw) -> tuple[dict, dict]:
    policy, request = base_pair()
    action = request["action"]
    action["risk"] = {
        "impact": draw(st.sampled_from(SEV)),
        "exposure": draw(st.sampled_from(EXPOSURES)),
        "uncertainty": draw(st.sampled_from(EXPOSURES)),
    }
    action["reversibility"] = draw(st.sampled_from(list(REVERSIBILITY_STEPS)))
    action["applicability"] = {
        "status": draw(st.sampled_from(["applicable", "capability_missing", "unknown"]))
    }
    action["proposed_by"]["actor_kind"] = draw(
        st.sampled_from(["ai_agent", "deterministic", "unknown", "human"])
    )
    dims = draw(st.lists(st.sampled_from(kernel.AGENCY_DIMENSIONS), min_size=1, unique=True))
    action["requested_dimensions"] = dims
    items = []
    for n in range(draw(st.integers(0, 3))):
        status = draw(st.sampled_from(["fresh", "stale", "unknown"]))
        fresh = {"status": status}
        if status == "stale":
            fresh["reasons"] = draw(
                st.lists(st.sampled_from(["target_changed", "extractor_changed"]), unique=True)
            )
        items.append(
            {
                "evidence_id": f"ev-{n}",
                "mode": draw(st.sampled_from(["executable_test", "static_verification", "vibe"])),
                "outcome": draw(st.sampled_from(["passed", "failed", "inconclusive"])),
                "assurance": draw(st.sampled_from(kernel.ASSURANCE_ORDER)),
                "freshness": fresh,
            }
        )
    request["evidence_state"] = {"items": items}
    policy["reversibility"]["minimum"] = draw(st.sampled_from(["reversible", "compensatable"]))
    return policy, request


def improvements(request: dict) -> list[tuple[str, dict]]:
    """Every single-field change that makes the action strictly better on its own factor."""
    out = []
    action = request["action"]

    def variant(label, fn):
        r = copy.deepcopy(request)
        fn(r)
        out.append((label, r))

    risk = action["risk"]
    if SEV.index(risk["impact"]) > 0:
        lower = SEV[SEV.index(risk["impact"]) - 1]
        variant("impact", lambda r: r["action"]["risk"].update(impact=lower))
    for key in ("exposure", "uncertainty"):
        if risk[key] > 0:
            variant(key, lambda r, k=key: r["action"]["risk"].update({k: 0.0}))
    for step in REVERSIBILITY_STEPS[action["reversibility"]]:
        variant("reversibility", lambda r, s=step: r["action"].update(reversibility=s))
    if action["applicability"]["status"] != "applicable":
        variant(
            "applicability", lambda r: r["action"].update(applicability={"status": "applicable"})
        )
    if action["proposed_by"]["actor_kind"] != "human":
        variant("actor", lambda r: r["action"]["proposed_by"].update(actor_kind="human"))
    if len(action["requested_dimensions"]) > 1:
        variant("dims", lambda r: r["action"]["requested_dimensions"].pop())
    for i, item in enumerate(request["evidence_state"]["items"]):
        if item["freshness"]["status"] != "fresh":
            variant(
                "fresh",
                lambda r, i=i: r["evidence_state"]["items"][i].update(
                    freshness={"status": "fresh"}
                ),
            )
        if item["outcome"] == "failed":
            variant(
                "unfailed",
                lambda r, i=i: r["evidence_state"]["items"][i].update(outcome="inconclusive"),
            )
    return out


@settings(max_examples=60, deadline=None)
@given(pairs())
def test_improving_one_request_field_never_worsens_the_outcome(pair) -> None:
    policy, request = pair
    before = decide(policy, request, computed_at=AT)["outcome"]
    for label, better in improvements(request):
        after = decide(policy, better, computed_at=AT)["outcome"]
        assert RANK[after] >= RANK[before], (label, before, after)


def test_a_newly_qualifying_stale_item_can_close_an_open_boundary() -> None:
    # Reference semantics, pinned: freshness judges every item that qualifies, so raising the
    # assurance of a stale item (which then qualifies) blocks a boundary another item had opened.
    # This is why "more assurance" is not among the monotone improvements above.
    policy, request = base_pair()
    stale = {
        "evidence_id": "ev-02-old",
        "mode": "executable_test",
        "outcome": "passed",
        "assurance": "runtime_observed",
        "freshness": {"status": "stale", "reasons": ["target_changed"]},
    }
    policy["evidence"]["minimum_assurance"] = "bounded_checked"
    request["evidence_state"]["items"][0]["assurance"] = "formal_verified"
    request["evidence_state"]["items"].append(stale)
    assert decide(policy, request, computed_at=AT)["outcome"] == "auto_apply"
    stale["assurance"] = "formal_verified"
    assert decide(policy, request, computed_at=AT)["outcome"] == "incomplete"


# -- identity -----------------------------------------------------------------------------------


def test_same_input_gives_the_same_decision() -> None:
    policy, request = base_pair()
    a = decide(policy, request, computed_at=AT)
    b = decide(copy.deepcopy(policy), copy.deepcopy(request), computed_at=AT)
    assert a == b


def test_computed_at_is_not_part_of_the_identity() -> None:
    policy, request = base_pair()
    a = decide(policy, request, computed_at=AT)
    b = decide(policy, request, computed_at="2031-01-01T00:00:00Z")
    assert a["decision_id"] == b["decision_id"]


def permuted(policy: dict, request: dict) -> tuple[dict, dict]:
    p, r = copy.deepcopy(policy), copy.deepcopy(request)
    r["action"]["requested_dimensions"].reverse()
    r["evidence_state"]["items"].reverse()
    for item in r["evidence_state"]["items"]:
        item["freshness"].get("reasons", []).reverse()
    p["authority"]["non_human_may_hold"].reverse()
    p["authority"]["human_reserved"].reverse()
    p["evidence"]["accepted_modes"].reverse()
    p["scope"]["action_kinds"].reverse()
    p["freshness"]["tolerated_staleness_reasons"].reverse()
    return p, r


def test_permuting_every_set_changes_nothing() -> None:
    policy, request = base_pair()
    request["evidence_state"]["items"].append(
        {
            "evidence_id": "ev-00-lint",
            "mode": "static_verification",
            "outcome": "passed",
            "assurance": "bounded_checked",
            "freshness": {"status": "stale", "reasons": ["extractor_changed", "target_changed"]},
        }
    )
    policy["freshness"]["tolerated_staleness_reasons"] = ["extractor_changed", "rule_changed"]
    a = decide(policy, request, computed_at=AT)
    b = decide(*permuted(policy, request), computed_at=AT)
    assert a == b  # not only the id: the whole decision, byte for byte
    assert attribute(a, b)["cause"] == "no_change"


def test_unicode_normalisation_changes_nothing() -> None:
    policy, request = base_pair()
    request["action"]["summary"] = unicodedata.normalize("NFC", "Fix the café pagination")
    policy["description"] = unicodedata.normalize("NFC", "Politique par défaut")
    nfd_policy, nfd_request = copy.deepcopy(policy), copy.deepcopy(request)
    nfd_request["action"]["summary"] = unicodedata.normalize("NFD", request["action"]["summary"])
    nfd_policy["description"] = unicodedata.normalize("NFD", policy["description"])
    assert nfd_request["action"]["summary"] != request["action"]["summary"]
    a = decide(policy, request, computed_at=AT)
    b = decide(nfd_policy, nfd_request, computed_at=AT)
    assert a == b


def test_declared_digests_are_not_content() -> None:
    policy, request = base_pair()
    lying = copy.deepcopy(request)
    lying["action"]["digest"] = "sha256:" + "f" * 64
    lying["evidence_state"]["digest"] = "sha256:" + "e" * 64
    assert decide(policy, lying, computed_at=AT) == decide(policy, request, computed_at=AT)


def test_evidence_digest_never_includes_the_policy() -> None:
    policy, request = base_pair()
    strict = copy.deepcopy(policy)
    strict["risk"]["max_impact"] = "none"
    a = decide(policy, request, computed_at=AT)
    b = decide(strict, request, computed_at=AT)
    assert a["identity"]["evidence_state_digest"] == b["identity"]["evidence_state_digest"]
    assert a["identity"]["action_digest"] == b["identity"]["action_digest"]


# -- attribution --------------------------------------------------------------------------------


def test_policy_rewritten_behind_the_same_label_is_a_policy_change() -> None:
    policy, request = base_pair()
    strict = copy.deepcopy(policy)
    strict["risk"]["max_impact"] = "none"
    a = decide(policy, request, computed_at=AT)
    b = decide(strict, request, computed_at=AT)
    assert a["decision_id"] != b["decision_id"]
    assert attribute(a, b) == {
        "compared_to_decision_id": a["decision_id"],
        "cause": "policy_change",
        "changed_components": ["policy_digest"],
        "outcome_transition": {"from": "auto_apply", "to": "human_required"},
    }


def test_a_version_bump_and_a_rewrite_are_one_policy_change() -> None:
    policy, request = base_pair()
    newer = copy.deepcopy(policy)
    newer["version"] = "1.1.0"
    newer["risk"]["max_uncertainty"] = 0.01
    result = attribute(
        decide(policy, request, computed_at=AT), decide(newer, request, computed_at=AT)
    )
    assert result["cause"] == "policy_change"
    assert result["changed_components"] == ["policy_digest", "policy_version"]


def test_action_change_alone() -> None:
    policy, request = base_pair()
    other = copy.deepcopy(request)
    other["action"]["summary"] = "a materially different patch"
    result = attribute(
        decide(policy, request, computed_at=AT), decide(policy, other, computed_at=AT)
    )
    assert (result["cause"], result["changed_components"]) == ("action_change", ["action_digest"])
    assert "outcome_transition" not in result


def test_evidence_change_alone() -> None:
    policy, request = base_pair()
    other = copy.deepcopy(request)
    other["evidence_state"]["items"][0]["produced_by"] = "another-runner"
    result = attribute(
        decide(policy, request, computed_at=AT), decide(policy, other, computed_at=AT)
    )
    assert (result["cause"], result["changed_components"]) == (
        "evidence_change",
        ["evidence_state_digest"],
    )


def test_two_axes_changing_are_unattributable() -> None:
    policy, request = base_pair()
    other_policy, other = copy.deepcopy(policy), copy.deepcopy(request)
    other["evidence_state"]["items"][0]["produced_by"] = "another-runner"
    other_policy["risk"]["max_impact"] = "none"
    result = attribute(
        decide(policy, request, computed_at=AT), decide(other_policy, other, computed_at=AT)
    )
    assert result["cause"] == "unattributable"
    assert result["changed_components"] == ["evidence_state_digest", "policy_digest"]


def test_attribution_validates_inside_a_decision() -> None:
    policy, request = base_pair()
    a = decide(policy, request, computed_at=AT)
    b = dict(a, attribution=attribute(a, a))
    assert b["attribution"]["cause"] == "no_change"
    assert check_decision(b) == []


# -- the contract's vocabulary ------------------------------------------------------------------


def test_vocabulary_equals_the_schema_enums() -> None:
    policy_defs = load_schema("rbk.policy.v1")["$defs"]
    request_defs = load_schema("rbk.request.v1")["$defs"]
    decision = load_schema("rbk.decision.v3")
    assert tuple(policy_defs["severity"]["enum"]) == kernel.SEVERITY_ORDER
    assert tuple(policy_defs["assuranceLevel"]["enum"]) == kernel.ASSURANCE_ORDER
    assert tuple(policy_defs["stalenessReason"]["enum"]) == kernel.STALENESS_REASONS
    assert tuple(request_defs["agencyDimension"]["enum"]) == kernel.AGENCY_DIMENSIONS
    verdict_def = decision["$defs"]["factorVerdict"]["properties"]
    assert tuple(verdict_def["factor"]["enum"]) == FACTORS
    assert tuple(verdict_def["verdict"]["enum"]) == kernel.VERDICTS
    assert tuple(decision["properties"]["outcome"]["enum"]) == kernel.OUTCOMES
    components = decision["properties"]["attribution"]["properties"]["changed_components"]
    assert tuple(components["items"]["enum"]) == kernel.CHANGED_COMPONENTS


def test_policy_digest_ignores_set_order_but_not_substance() -> None:
    policy, request = base_pair()
    p2, _ = permuted(policy, request)
    assert policy_digest(p2) == policy_digest(policy)
    p3 = copy.deepcopy(policy)
    p3["description"] = "changed words are changed content"
    assert policy_digest(p3) != policy_digest(policy)


# -- input from which no decision can be built --------------------------------------------------


@pytest.mark.parametrize(
    "mutate, error",
    [
        (lambda p, r: None, None),
        (lambda p, r: p.clear(), UndigestiblePolicyError),
        (lambda p, r: p["risk"].update(max_exposure=float("nan")), UndigestiblePolicyError),
        (lambda p, r: p["evidence"].update(minimum_count=2**60), UndigestiblePolicyError),
        (lambda p, r: p.update(policy_id="Not An Id"), UndigestiblePolicyError),
        (lambda p, r: p.update(version="1.0"), UndigestiblePolicyError),
        (lambda p, r: p["scope"].update(action_kinds={"code.patch"}), UndigestiblePolicyError),
        (lambda p, r: r.update(request_id="REQ 1"), KernelInputError),
        (lambda p, r: r.pop("request_id"), KernelInputError),
        (lambda p, r: r["action"].update(summary=object()), KernelInputError),
    ],
    ids=[
        "control",
        "empty-policy",
        "policy-nan",
        "policy-huge-int",
        "policy-id",
        "policy-version",
        "policy-python-set",
        "request-id",
        "request-id-absent",
        "request-non-json",
    ],
)
def test_input_without_an_identity_raises(mutate, error) -> None:
    policy, request = base_pair()
    mutate(policy, request)
    if error is None:
        assert decide(policy, request, computed_at=AT)["outcome"] == "auto_apply"
    else:
        with pytest.raises(error):
            decide(policy, request, computed_at=AT)


def test_non_objects_raise() -> None:
    policy, request = base_pair()
    with pytest.raises(UndigestiblePolicyError):
        decide(None, request, computed_at=AT)  # type: ignore[arg-type]
    with pytest.raises(KernelInputError):
        decide(policy, [request], computed_at=AT)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        decide(policy, request, computed_at="yesterday")


# -- one row per factor rule --------------------------------------------------------------------


def _stale_no_reason(p, r):
    r["evidence_state"]["items"][0]["freshness"] = {"status": "stale"}


def _old_evidence(p, r):
    r["evidence_state"]["items"][0]["freshness"]["observed_at"] = "2026-08-09T07:00:00Z"


def _tolerated_stale(p, r):
    r["evidence_state"]["items"][0]["freshness"] = {
        "status": "stale",
        "reasons": ["extractor_changed"],
    }


def _no_evidence(p, r):
    r["evidence_state"]["items"] = []


def _evidence_not_required(p, r):
    p["evidence"]["required"] = False
    r["evidence_state"]["items"] = []


def _failed_evidence(p, r):
    r["evidence_state"]["items"][0]["outcome"] = "failed"


def _weak_evidence(p, r):
    p["evidence"]["minimum_assurance"] = "formal_verified"


def _unaccepted_mode(p, r):
    r["evidence_state"]["items"][0]["mode"] = "llm_review"


def _freshness_not_required(p, r):
    p["freshness"]["require_fresh"] = False
    r["evidence_state"]["items"][0]["freshness"] = {"status": "unknown"}


FACTOR_ROWS = [
    (
        "kind-out-of-scope",
        lambda p, r: r["action"].update(action_kind="code.merge"),
        "applicability",
        "human_required",
        True,
    ),
    (
        "domain-out-of-scope",
        lambda p, r: r["action"].update(domain="elsewhere"),
        "applicability",
        "human_required",
        True,
    ),
    (
        "not-applicable",
        lambda p, r: r["action"].update(applicability={"status": "not_applicable"}),
        "applicability",
        "human_required",
        True,
    ),
    (
        "capability-missing",
        lambda p, r: r["action"].update(applicability={"status": "capability_missing"}),
        "applicability",
        "incomplete",
        False,
    ),
    (
        "applicability-unknown",
        lambda p, r: r["action"].update(applicability={"status": "unknown"}),
        "applicability",
        "incomplete",
        False,
    ),
    (
        "dimension-not-held",
        lambda p, r: r["action"].update(requested_dimensions=["learn"]),
        "authority",
        "human_required",
        True,
    ),
    (
        "human-actor",
        lambda p, r: (
            r["action"]["proposed_by"].update(actor_kind="human"),
            r["action"].update(requested_dimensions=["learn"]),
        ),
        "authority",
        "satisfied",
        True,
    ),
    ("no-evidence", _no_evidence, "evidence", "incomplete", False),
    ("evidence-not-required", _evidence_not_required, "evidence", "satisfied", True),
    ("failed-evidence", _failed_evidence, "evidence", "human_required", False),
    ("weak-evidence", _weak_evidence, "evidence", "incomplete", False),
    ("unaccepted-mode", _unaccepted_mode, "evidence", "incomplete", False),
    ("stale-no-reason", _stale_no_reason, "freshness", "incomplete", False),
    ("tolerated-staleness", _tolerated_stale, "freshness", "satisfied", True),
    ("too-old", _old_evidence, "freshness", "incomplete", False),
    ("freshness-not-required", _freshness_not_required, "freshness", "satisfied", True),
    (
        "exposure-over",
        lambda p, r: r["action"]["risk"].update(exposure=0.9),
        "risk",
        "human_required",
        True,
    ),
    (
        "exposure-absent",
        lambda p, r: r["action"]["risk"].pop("exposure"),
        "risk",
        "incomplete",
        False,
    ),
    (
        "uncertainty-absent",
        lambda p, r: r["action"]["risk"].pop("uncertainty"),
        "risk",
        "incomplete",
        False,
    ),
    (
        "irreversible",
        lambda p, r: r["action"].update(reversibility="irreversible"),
        "reversibility",
        "human_required",
        True,
    ),
    (
        "reversibility-unknown",
        lambda p, r: r["action"].update(reversibility="unknown"),
        "reversibility",
        "incomplete",
        False,
    ),
    (
        "compensatable-under-reversible",
        lambda p, r: r["action"].update(reversibility="compensatable"),
        "reversibility",
        "human_required",
        True,
    ),
    (
        "compensatable-allowed",
        lambda p, r: (
            p["reversibility"].update(minimum="compensatable"),
            r["action"].update(reversibility="compensatable"),
        ),
        "reversibility",
        "satisfied",
        True,
    ),
]


@pytest.mark.parametrize("row", FACTOR_ROWS, ids=[row[0] for row in FACTOR_ROWS])
def test_factor_rule(row) -> None:
    _, mutate, name, verdict, basis = row
    policy, request = base_pair()
    mutate(policy, request)
    decision = decide(policy, request, computed_at=AT)
    f = factor(decision, name)
    assert (f["verdict"], f["basis_complete"]) == (verdict, basis), f["reasons"]
    assert f["reasons"] or verdict == "satisfied"
    if not basis:
        assert decision["routing"]["required_evidence_modes"]
