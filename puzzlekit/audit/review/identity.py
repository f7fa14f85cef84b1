"""The review kernel's identity: normalised policies and requests (sets in canonical order,
strings NFC-normalised) and the content digests a decision binds (``action_digest``,
``evidence_state_digest``, ``policy_digest``, ``decision_id``).

Part of the kernel (:mod:`puzzlekit.audit.review.kernel` re-exports every public name here); not for
schema checks (:mod:`puzzlekit.audit.review.jsonschema`) or factor verdicts.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.audit.review.jsonschema import (
    _SAFE_INT,
    AGENCY_DIMENSIONS,
    DECISION_SCHEMA,
    KERNEL_VERSION,
    STALENESS_REASONS,
    JsonPath,
    KernelInputError,
    UndigestiblePolicyError,
    _nonjson_numbers,
    describe,
    format_path,
)
from puzzlekit.core.model import canonical_json, sha256_digest
from puzzlekit.core.reading import faults, valid_unicode

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
    if isinstance(value, str) and not valid_unicode(value):  # a lone surrogate: no UTF-8
        return {"$non_unicode_string": value.encode("utf-8", "surrogatepass").hex()}
    if isinstance(value, list):
        return [_encodable(v) for v in value]
    if isinstance(value, dict):
        return {_encodable_key(k): _encodable(v) for k, v in value.items()}
    return value


def _encodable_key(key: Any) -> Any:
    if isinstance(key, str) and not valid_unicode(key):
        return "$non_unicode_key:" + key.encode("utf-8", "surrogatepass").hex()
    return key


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
    problems += [f"{f.path}: {f.detail}" for f in faults(normalized, "policy") if not problems]
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
