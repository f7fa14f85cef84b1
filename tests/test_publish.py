"""The publish gate's derived request: the outcome follows the machine evidence, nothing typed."""

from __future__ import annotations

import inspect
import itertools

import pytest

from puzzlekit.audit.review.kernel import POLICY_SCHEMA, REQUEST_SCHEMA, decide, schema_violations
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.loop.publish import (
    VERIFIER_KINDS,
    CorpusPolicy,
    default_policy,
    derive_request,
)
from tests.helpers import fake_report

DIGEST = "sha256:" + "ab" * 32
OTHER = "sha256:" + "cd" * 32
AT = "2026-08-09T09:00:00Z"
LATER = "2026-08-09T09:00:01Z"
EXACT = ("enumerative", "sat")
INEXACT = ("sampling", "budgeted", "faulty", "mystery")


def report(
    verifier: str,
    verdict: Verdict = Verdict.UNIQUE,
    *,
    digest: str = DIGEST,
    lower_bound: bool = False,
    dispatch_errors: int = 0,
) -> VerifierReport:
    return fake_report(
        verdict, verifier, digest, lower_bound=lower_bound, dispatch_errors=dispatch_errors
    )


def gate(filter_report, holdout_report, corpus: CorpusPolicy | None = None) -> dict:
    kwargs = {"corpus": corpus} if corpus is not None else {}
    derived = derive_request(DIGEST, filter_report, holdout_report, observed_at=AT, **kwargs)
    assert schema_violations(derived.request, REQUEST_SCHEMA, "request") == []
    return decide(default_policy(), derived.request, computed_at=LATER)


def test_default_policy_is_a_valid_policy() -> None:
    assert schema_violations(default_policy(), POLICY_SCHEMA, "policy") == []


@pytest.mark.parametrize(
    "filter_kind, holdout_kind", [("enumerative", "sat"), ("sat", "enumerative")]
)
def test_exact_filter_and_exact_holdout_agreeing_unique_auto_apply(filter_kind, holdout_kind):
    decision = gate(report(filter_kind), report(holdout_kind))
    assert decision["outcome"] == "auto_apply"
    assert decision["basis_complete"] is True
    assert decision["granted_dimensions"] == ["execute"]


@pytest.mark.parametrize("filter_kind", INEXACT)
@pytest.mark.parametrize("holdout_verdict", [Verdict.UNIQUE, Verdict.MULTIPLE, Verdict.UNSOLVABLE])
def test_an_inexact_filter_never_auto_applies(filter_kind, holdout_verdict):
    decision = gate(report(filter_kind), report("sat", holdout_verdict))
    assert decision["outcome"] != "auto_apply"
    if holdout_verdict is Verdict.UNIQUE:
        # the holdout's proof stands, but one exact proof is not two: observe, don't escalate
        assert decision["outcome"] == "incomplete"
        assert decision["routing"]["required_evidence_modes"] == [
            "exhaustive_enumeration",
            "sat_proof",
        ]
    else:
        assert decision["outcome"] == "human_required"  # a proved rejection is a known failure


@pytest.mark.parametrize("filter_kind", EXACT + INEXACT)
@pytest.mark.parametrize(
    "holdout_verdict",
    [v for v in Verdict if v is not Verdict.UNIQUE],
)
def test_a_holdout_that_rejects_never_auto_applies(filter_kind, holdout_verdict):
    decision = gate(report(filter_kind), report("enumerative", holdout_verdict))
    assert decision["outcome"] != "auto_apply"
    assert decision["basis_complete"] is False  # the disagreement is a basis gap too


def test_auto_apply_exactly_for_two_distinct_exact_kinds_agreeing_unique():
    kinds = EXACT + INEXACT
    for f, h in itertools.product(kinds, kinds):
        outcome = gate(report(f), report(h))["outcome"]
        assert (outcome == "auto_apply") == (f in EXACT and h in EXACT and f != h), (f, h)


def test_exact_filter_verdict_grid_auto_applies_only_on_unique_unique():
    for fv, hv in itertools.product(Verdict, Verdict):
        outcome = gate(report("sat", fv), report("enumerative", hv))["outcome"]
        assert (outcome == "auto_apply") == (fv is hv is Verdict.UNIQUE), (fv, hv)


@pytest.mark.parametrize(
    "filter_report, holdout_report, doubt",
    [
        (report("sat", lower_bound=True), report("enumerative"), "capped lower bound"),
        (report("sat"), report("enumerative", Verdict.UNDECIDED), "no verdict"),
        (report("sampling"), report("enumerative"), "sampling"),
        (report("budgeted"), report("enumerative"), "budgeted"),
        (report("sat"), report("enumerative", Verdict.MULTIPLE), "holdout says MULTIPLE"),
        (report("sat"), report("sat"), "not independent"),
        (report("sat", dispatch_errors=2), report("enumerative"), "oracle error"),
        (report("sat"), report("enumerative", digest=OTHER), OTHER),
    ],
    ids=["capped", "undecided", "sampling", "budgeted", "disagree", "self", "oracle", "digest"],
)
def test_uncertainty_comes_from_the_verification(filter_report, holdout_report, doubt):
    derived = derive_request(DIGEST, filter_report, holdout_report, observed_at=AT)
    record = derived.provenance_of("action.risk.uncertainty")
    assert derived.request["action"]["risk"]["uncertainty"] > 0
    assert doubt in record.rule
    assert gate(filter_report, holdout_report)["outcome"] != "auto_apply"


def test_a_report_about_another_instance_is_stale_evidence():
    derived = derive_request(
        DIGEST, report("sat"), report("enumerative", digest=OTHER), observed_at=AT
    )
    holdout = next(
        i for i in derived.request["evidence_state"]["items"] if i["evidence_id"].startswith("ev.h")
    )
    assert holdout["freshness"] == {"status": "stale", "reasons": ["target_changed"]}


def test_exact_agreement_carries_no_uncertainty():
    derived = derive_request(DIGEST, report("enumerative"), report("sat"), observed_at=AT)
    assert derived.request["action"]["risk"]["uncertainty"] == 0.0
    items = derived.request["evidence_state"]["items"]
    assert [(i["mode"], i["assurance"], i["outcome"]) for i in items] == [
        ("exhaustive_enumeration", "bounded_checked", "passed"),
        ("sat_proof", "bounded_checked", "passed"),
    ]


def test_inexact_kinds_claim_less_assurance_than_exact_ones():
    from puzzlekit.audit.review.kernel import ASSURANCE_ORDER

    exact = min(ASSURANCE_ORDER.index(VERIFIER_KINDS[k].assurance) for k in EXACT)
    for name in ("sampling", "budgeted", "faulty"):
        assert ASSURANCE_ORDER.index(VERIFIER_KINDS[name].assurance) < exact
        assert VERIFIER_KINDS[name].mode not in default_policy()["evidence"]["accepted_modes"]


@pytest.mark.parametrize(
    "corpus, outcome",
    [
        (CorpusPolicy(visibility="private"), "auto_apply"),
        (CorpusPolicy(visibility="internal"), "auto_apply"),
        (CorpusPolicy(visibility="public"), "human_required"),
        (CorpusPolicy(retraction="none"), "human_required"),
    ],
    ids=["private", "internal", "public", "no-retraction"],
)
def test_impact_exposure_and_reversibility_follow_the_corpus_policy(corpus, outcome):
    assert gate(report("enumerative"), report("sat"), corpus)["outcome"] == outcome


def test_reversibility_of_an_append_is_derived_from_the_corpus():
    for corpus, expected in [
        (CorpusPolicy(visibility="internal"), "reversible"),
        (CorpusPolicy(visibility="public"), "compensatable"),
        (CorpusPolicy(retraction="none"), "irreversible"),
    ]:
        derived = derive_request(
            DIGEST, report("sat"), report("enumerative"), observed_at=AT, corpus=corpus
        )
        assert derived.request["action"]["reversibility"] == expected
        assert corpus.source in derived.provenance_of("action.reversibility").sources


def _leaves(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path


@pytest.mark.parametrize("filter_kind", EXACT + INEXACT)
def test_every_field_of_the_request_has_a_provenance(filter_kind):
    derived = derive_request(DIGEST, report(filter_kind), report("enumerative"), observed_at=AT)
    fields = {p.field for p in derived.provenance}
    for leaf in _leaves(derived.request):
        assert any(leaf == f or leaf.startswith(f + ".") for f in fields), leaf
    for p in derived.provenance:
        assert p.sources and all(p.sources) and p.rule, p


def test_judgment_fields_cite_the_reports_they_came_from():
    f, h = report("sampling"), report("enumerative")
    derived = derive_request(DIGEST, f, h, observed_at=AT)
    for path in ("mode", "assurance", "outcome"):
        for i in range(2):
            record = derived.provenance_of(f"evidence_state.items[{i}].{path}")
            assert any(r.digest() in s for r in (f, h) for s in record.sources)
    uncertainty = derived.provenance_of("action.risk.uncertainty")
    assert any(f.digest() in s for s in uncertainty.sources)


def test_no_judgment_field_can_be_typed_by_the_caller():
    params = set(inspect.signature(derive_request).parameters)
    for judgment in (
        "risk",
        "impact",
        "exposure",
        "uncertainty",
        "reversibility",
        "assurance",
        "mode",
        "requested_dimensions",
        "outcome",
        "applicability",
    ):
        assert judgment not in params


def test_same_evidence_same_request():
    a = derive_request(DIGEST, report("sat"), report("enumerative"), observed_at=AT)
    b = derive_request(DIGEST, report("sat"), report("enumerative"), observed_at=AT)
    assert a == b
    assert a.to_json_obj()["request"] == dict(a.request)


def test_oracle_errors_make_the_evidence_inconclusive():
    derived = derive_request(
        DIGEST, report("sat", dispatch_errors=1), report("enumerative"), observed_at=AT
    )
    outcomes = {i["evidence_id"]: i["outcome"] for i in derived.request["evidence_state"]["items"]}
    assert outcomes["ev.filter.sat"] == "inconclusive"


@pytest.mark.parametrize(
    "call",
    [
        lambda: derive_request("md5:1", report("sat"), report("enumerative"), observed_at=AT),
        lambda: derive_request(DIGEST, report("sat"), report("enumerative"), observed_at="now"),
        lambda: CorpusPolicy(visibility="everyone"),
        lambda: CorpusPolicy(retraction="maybe"),
        lambda: CorpusPolicy(corpus_id="My Corpus"),
    ],
    ids=["digest", "observed-at", "visibility", "retraction", "corpus-id"],
)
def test_unusable_arguments_raise(call):
    with pytest.raises(ValueError):
        call()
