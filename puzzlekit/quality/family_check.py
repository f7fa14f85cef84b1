"""``check_family``: one function that tells a researcher whether a puzzle family keeps the
contract, and exactly what to change when it does not (Gymnasium's ``check_env``,
scikit-learn's ``check_estimator``).

It raises :class:`~puzzlekit.quality.contract.ContractError` (an ``AssertionError``) listing
every problem found, each with a stable code and a sentence that says what to change. Checks run
on seeded random instances (:func:`~puzzlekit.quality.sampling.sample_instances`), so a failure
is reproducible from the seed printed in the message. In order (a step that fails stops the
later steps, which depend on it):

0. ``family-protocol``/``repair-found``: the family has every hook of
   :class:`puzzlekit.core.protocols.Family` (subclass it to get the defaults), and its
   ``repair_moves`` accepts ``found``.
1. ``schema``: the schema builds, names and coordinates are unique, every domain is non-empty;
   ``not-registered``: the family is registered under its name.
2. ``clues-hold``: every clue of ``clues_from_solution(solution)`` lies inside the schema,
   resolves, and each of its constraints holds in that solution (``sampling`` when no sample
   can be built).
3. ``full-reveal``: a random solution with all its clues revealed verifies UNIQUE, with that
   solution, on the reference (enumerative) verifier.
4. ``round-trip``: ``parse_text(format_text(instance))`` gives the same clues and params, and
   formatting again gives the same text; ``one-line``: the text is one line (skipped, with a
   note, when ``format_text`` raises ``NotImplementedError``; the default writes the instance's
   JSON on one line); ``identity``: the text line and the JSON with the clues shuffled read
   back to the instance's digest (:mod:`puzzlekit.quality.identity_check`).
5. ``verifier-raised``/``input-mutated``/``not-a-report``/``wrong-digest``/``detail-case``/
   ``coord-outside-schema``/``wrong-solution``/...: every exact registered verifier that
   accepts an instance (``Verifier.accepts``; one that accepts and then declines, by raising
   ``NotImplementedError`` or its own ``NotEncodable``, is noted) returns a well-formed report
   whose coordinates are coordinates of the schema (INVALID_SPEC violations excepted);
   ``backends-disagree``: exact backends agree on
   the verdict, the capped solution count and, below the cap, the set of solutions;
   ``default-filter-declines``: the family's default filter (chosen from its rules alone)
   takes every sample, so a loop of the family never ends on a clue its filter cannot read.
6. ``deterministic``: the same seed gives the same instances and the same report digests, also
   on a fresh verifier fed the instances in reverse order.
7. ``cross-process``: a fresh Python process (another hash seed) computes the same instance
   digests and the same report digest.
8. ``malformed``: a clue outside the grid, a value out of domain, a clue of an unknown kind, a
   duplicate clue id and an unknown param each give INVALID_SPEC (not an exception); garbage
   text makes ``parse_text`` raise ``SpecError`` and nothing else.
9. generation (:mod:`puzzlekit.quality.generation`): a few puzzles of the adaptive strategy
   through the loop driver, watched: ``initial-clues`` and ``repair-true`` (every clue a fresh
   puzzle has or a repair adds is true of the loop's solution), ``generate-raised``,
   ``round-trip-generated``, ``identity-generated`` (the generated instances' text and shuffled
   JSON read back to their digests), ``render-ascii``, ``render``.

Not for: proving a family correct (the checks are samples), benchmarking, or verifiers
(:mod:`puzzlekit.quality.verifier_check`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import Schema, SpecError
from puzzlekit.families import get_family
from puzzlekit.quality.contract import Checker, CheckSummary, where
from puzzlekit.quality.cross_process import check_cross_process
from puzzlekit.quality.family_steps import (
    check_agreement,
    check_clues_hold,
    check_deterministic,
    check_full_reveal,
    check_malformed,
    check_protocol,
    check_round_trip,
    check_schema,
)
from puzzlekit.quality.generation import check_generation
from puzzlekit.quality.identity_check import check_identity
from puzzlekit.quality.sampling import Sample, as_family, default_params, sample_instances
from puzzlekit.quality.verifying import (
    CHECK_BUDGET,
    CHECK_CAP,
    REFERENCE,
    exact_verifiers,
    verify_all,
)


def check_family(
    family: protocols.Family | str,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    n: int = 2,
    verifiers: Mapping[str, Any] | None = None,
    solution_cap: int = CHECK_CAP,
    cross_process: bool = True,
    generate: bool = True,
) -> CheckSummary:
    """Check that ``family`` (an object or a registered name) keeps the family contract.

    ``params`` defaults to the family's first listed params; ``n`` random solutions are drawn
    from ``seed``. ``verifiers`` maps names to verifier objects (default: every registered exact
    verifier); the one named ``enumerative`` is the reference. ``cross_process=False`` skips the
    fresh-process step, ``generate=False`` the generation step. Raises :class:`ContractError`
    (an ``AssertionError``) listing what to fix; returns a :class:`CheckSummary` with notes on
    skipped steps otherwise. The module docstring lists the checks.
    """
    fam: Any = as_family(family)
    params = dict(params if params is not None else default_params(fam))
    name = getattr(getattr(fam, "info", None), "name", fam)
    subject = f"check_family({name!r}, {json.dumps(params)}, seed={seed})"
    ck = Checker(subject)
    budget, cap = CHECK_BUDGET, solution_cap
    schema = check_structure(ck, fam, params)
    samples = check_samples(ck, fam, params, schema, seed, n)
    all_verifiers = with_reference(exact_verifiers(verifiers))
    fulls = [s for s in samples if s.label.endswith(".full")]
    check_full_reveal(ck, all_verifiers[REFERENCE], fulls, cap, budget)
    ck.gate()
    if not check_round_trip(ck, fam, samples):
        ck.note(f"family {fam.info.name} has no text format: parse/format round-trip skipped")
    ck.gate()
    check_identity(ck, fam, samples, seed)
    ck.gate()
    reports = verify_all(ck, all_verifiers, samples, schema, cap, budget)
    ck.gate()
    check_agreement(ck, all_verifiers, samples, reports)
    ck.gate()
    check_deterministic(ck, fam, params, seed, n, samples, all_verifiers, reports, cap, budget)
    ck.gate()
    if cross_process:
        check_cross_process(ck, fam, params, seed, samples, reports[REFERENCE], cap)
        ck.gate()
    check_malformed(ck, fam, params, seed, all_verifiers, cap, budget)
    ck.gate()
    if generate:
        check_generation(ck, fam, schema, seed)
        ck.gate()
    return ck.summary


def check_structure(ck: Checker, fam: Any, params: Mapping[str, Any]) -> Schema:
    """Steps 0 and 1: the protocol, the schema and the registration (gated)."""
    check_protocol(ck, fam)
    ck.gate()
    schema = check_schema(ck, fam, params)
    ck.gate()
    assert schema is not None
    try:
        registered = get_family(fam.info.name)
    except SpecError:
        registered = None
    if registered is not fam and type(registered) is not type(fam):
        ck.fail(
            "not-registered",
            f"no family named {fam.info.name!r} of this class is registered; verifiers look "
            "families up by name, so call puzzlekit.families.register_family(family) at import "
            "time.",
        )
    ck.gate()
    return schema


def check_samples(
    ck: Checker, fam: protocols.Family, params: Mapping[str, Any], schema: Schema, seed: int, n: int
) -> list[Sample]:
    """Step 2: the sample instances build and the clues of each full reveal hold (gated)."""
    samples: list[Sample] = []
    try:
        samples = sample_instances(fam, params, seed=seed, n=n)
    except SpecError as exc:
        ck.fail("sampling", f"sample instances could not be built: {exc}")
    except Exception as exc:
        ck.fail(
            "sampling",
            f"building sample instances raised {type(exc).__name__}: {exc}{where(exc)}; "
            "check schema rules (random_solution must find a solution) and clues_from_solution.",
        )
    ck.gate()
    ck.summary.instances = len(samples)
    for s in samples:
        if s.label.endswith(".full"):
            check_clues_hold(ck, fam, schema, s)
    ck.gate()
    return samples


def with_reference(verifiers: dict[str, Any]) -> dict[str, Any]:
    """``verifiers`` with the reference backend first when it is missing."""
    if REFERENCE in verifiers:
        return verifiers
    from puzzlekit.verifiers.registry import get_verifier

    return {REFERENCE: get_verifier(REFERENCE), **verifiers}
