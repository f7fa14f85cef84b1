"""The publish gate's derivation layer: an ``rbk.request.v1`` built from machine evidence only.

A review kernel's outcome is only as independent as its judgment fields (``risk``,
``reversibility``, evidence assurance, ``requested_dimensions``). If a requester types them, the
kernel launders the requester's opinion. For a generated puzzle every one of them can be derived
mechanically, before any approval, from things the requester does not choose:

* evidence items from the filter and holdout :class:`~puzzlekit.core.report.VerifierReport` s, their
  mode and assurance from the verifier kind (:data:`VERIFIER_KINDS`: an exhaustive enumeration or
  a SAT refutation is not the assurance of a sampling, budgeted or fault-injected filter), their
  outcome from the verdict, their freshness from whether the report is about this instance digest;
* ``risk.uncertainty`` from the verification itself: capped counts, budgets that ran out,
  sampling, oracle errors, filter/holdout disagreement, a holdout that is not independent;
* ``risk.impact``, ``risk.exposure`` and ``reversibility`` from the :class:`CorpusPolicy` of the
  corpus the puzzle would enter (declared once per corpus, not per request);
* ``requested_dimensions`` from what the action kind does (a corpus append executes).

:func:`derive_request` returns the request together with a :class:`Provenance` record for every
field, naming the report digests or the corpus policy it came from and the rule applied.
:func:`default_policy` is the shipped puzzle policy (``puzzlekit/policies/``).

Not for: deciding (that is :func:`puzzlekit.audit.review.kernel.decide`), appending to a corpus or
queueing a
review (the loop does that with the decision), or running verifiers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from puzzlekit.audit.review.kernel import REQUEST_SCHEMA, parse_datetime
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.loop.kinds import UNKNOWN_KIND as UNKNOWN_KIND
from puzzlekit.loop.kinds import VERIFIER_KINDS as VERIFIER_KINDS
from puzzlekit.loop.kinds import VerifierKind as VerifierKind

ACTION_KIND = "puzzle.corpus_append"
#: What each action kind does, as agency dimensions: appending writes into the corpus. Judging
#: stays with the kernel and authorising with the policy, so neither is requested.
ACTION_DIMENSIONS: Mapping[str, tuple[str, ...]] = {ACTION_KIND: ("execute",)}
DEFAULT_POLICY = "puzzle-corpus-default"

_IDENT = re.compile(r"^[a-z0-9][a-z0-9._:-]*$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_CONTRACT = f"contract {REQUEST_SCHEMA}"


VISIBILITIES = ("private", "internal", "public")
RETRACTIONS = ("tombstone", "none")
#: Severity of a wrong puzzle in the corpus, by who sees the corpus.
IMPACT_BY_VISIBILITY = {"private": "none", "internal": "low", "public": "medium"}
#: Share of the corpus's audience that sees a new entry, by who sees the corpus.
EXPOSURE_BY_VISIBILITY = {"private": 0.0, "internal": 0.1, "public": 1.0}


@dataclass(frozen=True)
class CorpusPolicy:
    """What the corpus a puzzle would enter is like; declared once per corpus, never per puzzle.

    ``visibility``: ``private`` (only the run), ``internal`` (the lab), ``public`` (published,
    copied by others). ``retraction``: ``tombstone`` (an entry can be withdrawn by a later
    ledger entry and its line removed) or ``none``.
    """

    corpus_id: str = "puzzlekit.corpus"
    visibility: str = "internal"
    retraction: str = "tombstone"

    def __post_init__(self) -> None:
        if self.visibility not in VISIBILITIES:
            raise ValueError(f"visibility {self.visibility!r} is not one of {VISIBILITIES}")
        if self.retraction not in RETRACTIONS:
            raise ValueError(f"retraction {self.retraction!r} is not one of {RETRACTIONS}")
        if not _IDENT.match(self.corpus_id):
            raise ValueError(f"corpus_id {self.corpus_id!r} is not an RBK identifier")

    @property
    def source(self) -> str:
        return (
            f"corpus policy {self.corpus_id} (visibility={self.visibility}, "
            f"retraction={self.retraction})"
        )

    def reversibility(self) -> tuple[str, str]:
        """The reversibility of appending to this corpus, and why."""
        if self.retraction == "none":
            return "irreversible", "the corpus has no retraction, so an append cannot be undone"
        if self.visibility == "public":
            return (
                "compensatable",
                "a public entry can be tombstoned, but copies already taken remain",
            )
        return (
            "reversible",
            "a tombstone ledger entry and removing the line undo an append nobody outside "
            f"the {self.visibility} audience has seen",
        )


DEFAULT_CORPUS = CorpusPolicy()


@dataclass(frozen=True)
class Provenance:
    """Where one request field came from: its path, value, sources and the rule applied."""

    field: str
    value: Any
    sources: tuple[str, ...]
    rule: str

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "value": self.value,
            "sources": list(self.sources),
            "rule": self.rule,
        }


@dataclass(frozen=True)
class DerivedRequest:
    """An ``rbk.request.v1`` document and the provenance of each of its fields."""

    request: Mapping[str, Any]
    provenance: tuple[Provenance, ...] = field(default_factory=tuple)

    def provenance_of(self, path: str) -> Provenance:
        for record in self.provenance:
            if record.field == path:
                return record
        raise KeyError(path)

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "request": json.loads(json.dumps(self.request)),
            "provenance": [p.to_json_obj() for p in self.provenance],
        }


def kind_of(
    report: VerifierReport,
    kinds: Mapping[str, VerifierKind] = VERIFIER_KINDS,
    called: str | None = None,
) -> VerifierKind:
    """The kind of the verifier the loop called (``called``, its registry name from the run's
    own record); without a record, the kind ``report`` declares (``source["verifier"]``)."""
    name = called if called is not None else str(report.source.get("verifier", ""))
    return kinds.get(name, UNKNOWN_KIND)


def _ident(text: str) -> str:
    cleaned = re.sub(r"[^a-z0-9._:-]+", "-", text.lower()).strip("-")
    return cleaned if cleaned and cleaned[0].isalnum() else f"x{cleaned}"


#: the verifier each side called, by registry name, as the run recorded it (set per derivation)
Called = Mapping[str, str]


def _called(report: VerifierReport, called: Called, side: str) -> str:
    return called.get(side) or str(report.source.get("verifier", "?"))


def _report_ref(side: str, report: VerifierReport, called: Called) -> str:
    version = report.source.get("version", "?")
    return f"{side} report {report.digest()} ({_called(report, called, side)} {version})"


def _outcome(report: VerifierReport, kind: VerifierKind) -> tuple[str, str]:
    """The evidence outcome of one report, and why. ``inconclusive`` is never rounded up."""
    v = report.verdict
    if report.dispatch_error_count:
        return "inconclusive", f"{report.dispatch_error_count} oracle call(s) raised"
    if v is Verdict.UNIQUE:
        if report.solution_count_is_lower_bound or report.solution_count != 1:
            return "inconclusive", "UNIQUE with an inconsistent solution count"
        return "passed", "UNIQUE"
    if v is Verdict.MULTIPLE:
        if kind.witnesses_sound:
            return "failed", "MULTIPLE, witnessed by solutions of the full rules"
        return "inconclusive", "MULTIPLE from a relaxed model, which witnesses nothing"
    if v is Verdict.UNSOLVABLE:
        if kind.exact:
            return "failed", "UNSOLVABLE, proved over the whole model"
        return "inconclusive", "UNSOLVABLE from an inexact search, which proves nothing"
    if v is Verdict.INVALID_SPEC:
        return "failed", "INVALID_SPEC: the instance is not a puzzle of its schema"
    return "inconclusive", f"{v.value}: no verdict on uniqueness"


def _uncertainty(
    instance_digest: str,
    sides: list[tuple[str, VerifierReport, VerifierKind]],
    called: Called,
) -> list[tuple[float, str, str]]:
    """Every source of doubt in the verification, as (value, why, source)."""
    found: list[tuple[float, str, str]] = []
    for side, report, kind in sides:
        ref = _report_ref(side, report, called)
        declared = str(report.source.get("verifier", "?"))
        if side in called and declared != called[side]:
            found.append(
                (1.0, f"{side} report declares {declared}, the loop called {called[side]}", ref)
            )
        if report.verdict is Verdict.UNIQUE and kind.uncertainty > 0:
            found.append(
                (kind.uncertainty, f"{side} UNIQUE from {kind.verifier}: {kind.basis}", ref)
            )
        if report.verdict in (Verdict.UNDECIDED, Verdict.DOMAIN_TOO_LARGE):
            found.append((1.0, f"{side} reached no verdict ({report.verdict.value})", ref))
        if report.solution_count_is_lower_bound:
            found.append((1.0, f"{side} solution count is a capped lower bound", ref))
        if report.dispatch_error_count:
            found.append((1.0, f"{side} had {report.dispatch_error_count} oracle error(s)", ref))
        if report.instance_digest != instance_digest:
            found.append((1.0, f"{side} report is about {report.instance_digest}", ref))
    (fs, fr, fk), (hs, hr, hk) = sides
    refs = f"{_report_ref(fs, fr, called)}; {_report_ref(hs, hr, called)}"
    if fr.verdict is not hr.verdict:
        found.append(
            (1.0, f"filter says {fr.verdict.value}, holdout says {hr.verdict.value}", refs)
        )
    if _called(fr, called, fs) == _called(hr, called, hs):
        found.append(
            (1.0, "the holdout ran the filter's own verifier, so it is not independent", refs)
        )
    return found


def derive_request(
    instance_digest: str,
    filter_report: VerifierReport,
    holdout_report: VerifierReport,
    *,
    observed_at: str,
    corpus: CorpusPolicy = DEFAULT_CORPUS,
    proposed_by: str = "puzzlekit.loop.driver",
    kinds: Mapping[str, VerifierKind] = VERIFIER_KINDS,
    verifiers: tuple[str, str] | None = None,
) -> DerivedRequest:
    """The ``rbk.request.v1`` for appending the instance ``instance_digest`` to ``corpus``.

    Every judgment field is derived from the two reports, their verifier kinds and the corpus
    policy; the caller supplies no risk, reversibility, assurance or dimension. ``observed_at``
    (RFC 3339) is when the evidence was gathered; ``proposed_by`` names the proposing process.
    ``verifiers``: the registry names of the filter and the holdout the loop called, from the
    run's own record (:attr:`puzzlekit.loop.driver.LoopResult.filter_name`, ``holdout_name``).
    The verifier kinds come from them, never from what a report says about itself; a report
    whose ``source`` names another verifier is a doubt. Without them (reports with no run
    behind them) the reports' ``source`` is all there is.
    """
    if not _DIGEST.match(instance_digest):
        raise ValueError(f"instance_digest {instance_digest!r} is not a sha256 digest")
    if parse_datetime(observed_at) is None:
        raise ValueError(f"observed_at {observed_at!r} is not an RFC 3339 date-time")
    hexdigest = instance_digest.split(":", 1)[1]
    note = _Notes()
    called: Called = dict(zip(("filter", "holdout"), verifiers, strict=True)) if verifiers else {}
    sides = [
        ("filter", filter_report, kind_of(filter_report, kinds, called.get("filter"))),
        ("holdout", holdout_report, kind_of(holdout_report, kinds, called.get("holdout"))),
    ]
    evidence_items, all_refs = _evidence_items(note, instance_digest, sides, called)
    risk = _risk(note, instance_digest, sides, corpus, all_refs, called)
    action = _action(note, instance_digest, corpus, proposed_by, risk)
    request = {
        "schema": note("schema", REQUEST_SCHEMA, _CONTRACT, "the contract"),
        "request_id": note(
            "request_id", f"publish:{hexdigest}", f"instance {instance_digest}", "instance digest"
        ),
        "action": action,
        "evidence_state": {"items": evidence_items},
        "observed_at": note(
            "observed_at", observed_at, "the gathering of the evidence", "when it was gathered"
        ),
    }
    return DerivedRequest(request, tuple(note.records))


class _Notes:
    """The provenance of one derivation: calling it records a field and returns its value, so
    the records come in the order the fields are derived."""

    def __init__(self) -> None:
        self.records: list[Provenance] = []

    def __call__(self, path: str, value: Any, sources: tuple[str, ...] | str, rule: str) -> Any:
        self.records.append(
            Provenance(path, value, (sources,) if isinstance(sources, str) else sources, rule)
        )
        return value


def _evidence_items(
    note: _Notes,
    instance_digest: str,
    sides: list[tuple[str, VerifierReport, VerifierKind]],
    called: Called,
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """One evidence item per report (sorted by evidence id), and the reports' references in that
    order."""
    instance_src = f"instance {instance_digest}"
    items = []
    for side, report, kind in sides:
        ref = _report_ref(side, report, called)
        items.append((side, report, kind, ref, f"ev.{side}.{_ident(kind.verifier)}"))
    items.sort(key=lambda t: t[4])
    evidence_items = []
    for i, (side, report, kind, ref, ev_id) in enumerate(items):
        base = f"evidence_state.items[{i}]"
        outcome, why = _outcome(report, kind)
        if report.instance_digest == instance_digest:
            fresh = {"status": "fresh"}
            fresh_rule = "the report's instanceDigest equals the instance's digest"
        else:
            fresh = {"status": "stale", "reasons": ["target_changed"]}
            fresh_rule = f"the report is about {report.instance_digest}, not this instance"
        produced = f"{_called(report, called, side)}@{report.source.get('version', '?')}"
        evidence_items.append(
            {
                "evidence_id": note(f"{base}.evidence_id", ev_id, ref, "side and verifier kind"),
                "mode": note(
                    f"{base}.mode", kind.mode, ref, f"verifier kind {kind.verifier}: {kind.basis}"
                ),
                "outcome": note(f"{base}.outcome", outcome, ref, f"verdict {why}"),
                "assurance": note(
                    f"{base}.assurance",
                    kind.assurance,
                    ref,
                    f"verifier kind {kind.verifier} ({'exact' if kind.exact else 'inexact'})",
                ),
                "freshness": note(f"{base}.freshness", fresh, (ref, instance_src), fresh_rule),
                "produced_by": note(
                    f"{base}.produced_by",
                    produced,
                    ref,
                    "the run's record of the verifier called" if called else "report source",
                ),
            }
        )
    return evidence_items, tuple(ref for *_, ref, _ in items)


def _risk(
    note: _Notes,
    instance_digest: str,
    sides: list[tuple[str, VerifierReport, VerifierKind]],
    corpus: CorpusPolicy,
    all_refs: tuple[str, ...],
    called: Called,
) -> dict[str, Any]:
    """``action.risk``: impact and exposure from the corpus, uncertainty from the largest doubt
    in the verification (:func:`_uncertainty`), and a rationale summing them up."""
    doubts = _uncertainty(instance_digest, sides, called)
    uncertainty = max((d[0] for d in doubts), default=0.0)
    if doubts:
        uncertainty_rule = "largest doubt: " + "; ".join(f"{d[1]} ({d[0]})" for d in doubts)
        uncertainty_sources = tuple(dict.fromkeys(d[2] for d in doubts))
    else:
        uncertainty_rule = "two independent exact verifications of this instance agree"
        uncertainty_sources = all_refs
    (_, filter_report, _), (_, holdout_report, _) = sides
    verdicts = f"filter {filter_report.verdict.value}, holdout {holdout_report.verdict.value}"
    return {
        "impact": note(
            "action.risk.impact",
            IMPACT_BY_VISIBILITY[corpus.visibility],
            corpus.source,
            f"a wrong puzzle in a {corpus.visibility} corpus",
        ),
        "exposure": note(
            "action.risk.exposure",
            EXPOSURE_BY_VISIBILITY[corpus.visibility],
            corpus.source,
            f"share of a {corpus.visibility} corpus's audience that sees a new entry",
        ),
        "uncertainty": note(
            "action.risk.uncertainty", uncertainty, uncertainty_sources, uncertainty_rule
        ),
        "rationale": note(
            "action.risk.rationale",
            f"{verdicts}; uncertainty {uncertainty} ({uncertainty_rule}); "
            f"{corpus.visibility} corpus",
            (*all_refs, corpus.source),
            "summary of the derivations of impact, exposure and uncertainty",
        ),
    }


def _action(
    note: _Notes,
    instance_digest: str,
    corpus: CorpusPolicy,
    proposed_by: str,
    risk: dict[str, Any],
) -> dict[str, Any]:
    """``action``: what is appended where, by whom, with which dimensions and reversibility."""
    instance_src = f"instance {instance_digest}"
    hexdigest = instance_digest.split(":", 1)[1]
    reversibility, why_reversible = corpus.reversibility()
    return {
        "action_id": note(
            "action.action_id", f"corpus-append:{hexdigest}", instance_src, "instance digest"
        ),
        "action_kind": note("action.action_kind", ACTION_KIND, _CONTRACT, "the publish gate"),
        "domain": note("action.domain", corpus.corpus_id, corpus.source, "the target corpus"),
        "summary": note(
            "action.summary",
            f"append instance {instance_digest} to corpus {corpus.corpus_id}",
            (instance_src, corpus.source),
            "instance digest and target corpus",
        ),
        "proposed_by": note(
            "action.proposed_by",
            {"actor_id": proposed_by, "actor_kind": "deterministic"},
            "the proposing process",
            "a generation loop is a deterministic, non-human actor",
        ),
        "requested_dimensions": note(
            "action.requested_dimensions",
            list(ACTION_DIMENSIONS[ACTION_KIND]),
            _CONTRACT,
            "what a corpus append does: it writes into the corpus (execute)",
        ),
        "reversibility": note("action.reversibility", reversibility, corpus.source, why_reversible),
        "risk": risk,
    }


@cache
def _policy_text(name: str) -> str:
    return resources.files("puzzlekit").joinpath(f"policies/{name}.json").read_text("utf-8")


def default_policy(name: str = DEFAULT_POLICY) -> dict[str, Any]:
    """A shipped ``rbk.policy.v1`` (a fresh copy): by default the puzzle-corpus publish gate."""
    return json.loads(_policy_text(name))
