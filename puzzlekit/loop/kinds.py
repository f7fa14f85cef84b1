"""Verifier kinds (:class:`VerifierKind`): what a verifier's verdicts are worth as evidence, by
the verifier's registry name; the table the publish gate (:mod:`puzzlekit.loop.publish`) reads
the assurance of each side from.

The gate looks a verifier up by the name the loop called it by (the run's own record), never
by what a report says about itself. Not for: deriving requests (:mod:`puzzlekit.loop.publish`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class VerifierKind:
    """What a verifier's verdicts are worth as evidence.

    ``exact``: its UNIQUE and UNSOLVABLE are proofs over the whole finite model.
    ``witnesses_sound``: a MULTIPLE it reports comes with real solutions of the full rules.
    ``uncertainty``: how much doubt its UNIQUE leaves (0 for a proof).
    """

    verifier: str
    exact: bool
    mode: str
    assurance: str
    witnesses_sound: bool
    uncertainty: float
    basis: str


VERIFIER_KINDS: Mapping[str, VerifierKind] = {
    k.verifier: k
    for k in (
        VerifierKind(
            "enumerative",
            True,
            "exhaustive_enumeration",
            "bounded_checked",
            True,
            0.0,
            "backtracking covers every assignment of the finite domain",
        ),
        VerifierKind(
            "sat",
            True,
            "sat_proof",
            "bounded_checked",
            True,
            0.0,
            "a second solution is refuted by UNSAT under a blocking clause",
        ),
        VerifierKind(
            "bitmask",
            True,
            "exhaustive_enumeration",
            "bounded_checked",
            True,
            0.0,
            "a compiled depth-first search with sound propagation covers every assignment of "
            "the finite domain",
        ),
        VerifierKind(
            "sampling",
            False,
            "sampling_search",
            "statistically_supported",
            True,
            0.5,
            "random restarts find solutions but cannot exclude an unseen second one",
        ),
        VerifierKind(
            "budgeted",
            False,
            "budgeted_search",
            "evaluator_supported",
            True,
            0.5,
            "a search cut off by its budget cannot exclude an unexplored second solution",
        ),
        VerifierKind(
            "faulty",
            False,
            "relaxed_model_check",
            "runtime_observed",
            False,
            1.0,
            "checks a model with one rule class removed, so its verdicts are about another puzzle",
        ),
    )
}
#: Any verifier id not in :data:`VERIFIER_KINDS`: the weakest assurance, full uncertainty.
UNKNOWN_KIND = VerifierKind(
    "unknown",
    False,
    "unclassified_verifier",
    "runtime_observed",
    False,
    1.0,
    "an unclassified verifier's verdicts carry no known assurance",
)
