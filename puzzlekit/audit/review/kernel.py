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

Layout: :mod:`~puzzlekit.audit.review.jsonschema` holds the contract's names, the packaged schemas
and the domain checks; :mod:`~puzzlekit.audit.review.identity` the normalisation and digests;
:mod:`~puzzlekit.audit.review.factors` which factor reads which field, the six factor evaluations
and the composition rules; this module builds the decision document from them (:func:`decide`),
attributes the change between two decisions and checks a decision. Every public name of those
modules is importable from here.

Pure and deterministic: no clock (the time is an argument), no I/O beyond reading the packaged
schemas once. Not for: producing requests (``puzzlekit.loop.publish`` derives them from
verification), acting on a decision (the host routes it), or authenticating anyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.audit.review.factors import (
    FACTOR_READS,
    _required_modes,
    compose,
    compose_basis,
    evaluate_factors,
    factors_reading,
)
from puzzlekit.audit.review.identity import (
    action_digest,
    decision_id,
    evidence_state_digest,
    normalize_policy,
    normalize_request,
    policy_digest,
)
from puzzlekit.audit.review.jsonschema import (
    _ABSENT,
    _IDENTIFIER,
    _SEMVER,
    AGENCY_DIMENSIONS,
    ASSURANCE_ORDER,
    CHANGED_COMPONENTS,
    DECISION_SCHEMA,
    FACTORS,
    FALLBACK_EVIDENCE_MODE,
    KERNEL_VERSION,
    OUTCOMES,
    POLICY_SCHEMA,
    REQUEST_SCHEMA,
    SCHEMA_NAMES,
    SEVERITY_ORDER,
    STALENESS_REASONS,
    VERDICTS,
    JsonPath,
    KernelInputError,
    SchemaViolation,
    UndigestiblePolicyError,
    describe,
    format_path,
    load_schema,
    schema_violations,
)
from puzzlekit.core.clock import parse_datetime
from puzzlekit.core.reading import MAX_DEPTH, nesting_depth_of

__all__ = [
    "AGENCY_DIMENSIONS",
    "ASSURANCE_ORDER",
    "CHANGED_COMPONENTS",
    "DECISION_SCHEMA",
    "FACTORS",
    "FACTOR_READS",
    "FALLBACK_EVIDENCE_MODE",
    "KERNEL_VERSION",
    "OUTCOMES",
    "POLICY_SCHEMA",
    "REQUEST_SCHEMA",
    "SCHEMA_NAMES",
    "SEVERITY_ORDER",
    "STALENESS_REASONS",
    "VERDICTS",
    "JsonPath",
    "KernelInputError",
    "SchemaViolation",
    "UndigestiblePolicyError",
    "action_digest",
    "attribute",
    "check_decision",
    "compose",
    "compose_basis",
    "decide",
    "decision_id",
    "describe",
    "evaluate_factors",
    "evidence_state_digest",
    "factors_reading",
    "format_path",
    "load_schema",
    "normalize_policy",
    "normalize_request",
    "parse_datetime",
    "policy_digest",
    "schema_violations",
]


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
    if not isinstance(computed_at, str) or parse_datetime(computed_at) is None:
        raise KernelInputError(
            [f"computed_at is {describe(computed_at)}, not an RFC 3339 date-time"]
        )
    if not isinstance(request, Mapping):
        raise KernelInputError([f"request is {describe(request)}, which is not an object"])
    # the reading boundary: documents nested too deeply are read by nothing further on
    for name, doc, error in (
        ("policy", policy, UndigestiblePolicyError),
        ("request", request, KernelInputError),
    ):
        if nesting_depth_of(doc) > MAX_DEPTH:
            raise error([f"{name} is nested deeper than {MAX_DEPTH} levels"])
    digest_of_policy = policy_digest(policy)  # raises UndigestiblePolicyError
    p = normalize_policy(policy)
    r = normalize_request(request)
    identity_defects = _identity_defects(p, r)
    if identity_defects:
        if any(d.startswith("policy.") for d in identity_defects):
            raise UndigestiblePolicyError(identity_defects)
        raise KernelInputError(identity_defects)

    factors, stale_modes = evaluate_factors(p, r)
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
    if not isinstance(decision, Mapping):
        return problems or ["decision is not a JSON object"]
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
