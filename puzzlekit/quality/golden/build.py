"""Golden corpora, building: a schema's cases from a seeded random solution.

:func:`build_entries` makes the cases of :data:`~puzzlekit.quality.golden.entries.CASES` for one
schema (or takes the family's own, ``golden_instances``), searching with the fastest exact
backend that reads the schema and recording with the family's recorder (:func:`recorder_of`);
:func:`build_corpora` writes them. Every name here is importable from
:mod:`puzzlekit.quality.golden.corpus` too.

Not for: re-verifying corpora (:mod:`puzzlekit.quality.golden.corpus`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Clue, Instance, Schema
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import get_family
from puzzlekit.quality.golden.entries import CASES, GoldenEntry, registered_ids, write_corpus

REFERENCE = "enumerative"
#: solution cap of recorded entries: every solution of a small schema's MULTIPLE case is kept;
#: for schemas with more than SMALL_VARIABLES variables a few, so files stay small
CAP_SMALL, CAP_BIG, SMALL_VARIABLES = 8, 3, 36
#: schemas with more variables than this keep at least KEEP_BIG of their clues in the cases, so
#: the reference verifier (plain backtracking) stays fast on them
DENSE_VARIABLES, KEEP_BIG = 81, 0.6
#: clue swaps tried for the ``unsolvable`` case before settling for the first one found
MAX_SWAPS = 12
#: a candidate case is kept only if the recorder proves it within these limits: every step of
#: the reference's conflict shrinking within QUICK_NODES search nodes, all of it in QUICK_SECONDS
QUICK_NODES, QUICK_SECONDS = 5_000, 2.0

# --- building -----------------------------------------------------------------------------------


def _fast_exact(instance: Instance, fallback: str = REFERENCE) -> Any:
    """The sat backend where it can read ``instance``'s schema, else ``fallback``."""
    from puzzlekit.verifiers.registry import get_verifier, verifier_names

    if "sat" in verifier_names():
        from puzzlekit.verifiers.sat.backend import encodable

        if encodable(instance):
            return get_verifier("sat")
    return get_verifier(fallback)


def recorder_of(family: protocols.Family | str) -> str:
    """The verifier that records a family's corpora: its ``golden_verifier`` (the reference,
    ``enumerative``, unless the family names its own exact backend: ``oracle``, ``gametree``)."""
    fam = get_family(family) if isinstance(family, str) else family
    return fam.info.golden_verifier


def _quick(verifier: Any, instance: Instance, cap: int) -> bool:
    """Whether ``verifier`` proves ``instance`` UNSOLVABLE with a minimal conflict, quickly.

    Backtracking can take minutes to refute a sparse subset of clues while shrinking a conflict;
    a golden case must re-verify in a blink, so such candidates are passed over.
    """
    import time

    from puzzlekit.core.protocols import SearchBudget

    small = verifier.verify(instance, solution_cap=cap, budget=SearchBudget(nodes=QUICK_NODES))
    rd = small.reject_detail
    if small.verdict is not Verdict.UNSOLVABLE or rd is None or not rd.conflict:
        return False
    if not rd.conflict.minimal:
        return False
    started = time.perf_counter()
    full = verifier.verify(instance, solution_cap=cap)
    return full.verdict is Verdict.UNSOLVABLE and time.perf_counter() - started < QUICK_SECONDS


def build_entries(
    family: protocols.Family | str,
    params: Mapping[str, Any],
    *,
    seed: int = 0,
    verifier: str | None = None,
) -> list[GoldenEntry]:
    """The golden cases of one schema, from a seeded random solution (see :data:`CASES`),
    recorded with ``verifier`` (default: the family's, :func:`recorder_of`).

    A family whose ``golden_instances(params, seed=...)`` returns its cases (games: a position
    is one clue, so dropping clues makes nothing) gets those, recorded as they are. Otherwise:
    ``unique`` drops the solution's clues in random order while the puzzle stays UNIQUE (keeping
    at least :data:`KEEP_BIG` of them on big schemas); ``multiple`` is ``unique`` less the first
    clue it needs; ``multiple-capped`` drops more until the cap is reached; ``unsolvable``
    replaces one clue of ``unique`` (of the full solution on big schemas) by the clue of another
    solution, preferring a conflict of three clues or more (of at most three on big schemas),
    reduced to the conflict and four other clues; when no swap gives one (statement clues, which
    another solution's clue rarely contradicts, and reveals), ``unique`` plus one clue of another
    solution that is false of its own (UNSOLVABLE, since ``unique`` has one solution), reduced
    the same way; the ``invalid-*`` cases put a clue outside the grid, a value out of the domain
    (in the first clue that holds a number), and one clue id on two clues. Raises RuntimeError
    when a case cannot be made. The search runs on the sat backend where it can read the schema,
    else on the recorder.
    """
    from puzzlekit.core.solutions import random_solution
    from puzzlekit.verifiers.registry import get_verifier

    fam = get_family(family) if isinstance(family, str) else family
    verifier = verifier or recorder_of(fam)
    recorder = get_verifier(verifier)
    cases_of = fam.golden_instances(dict(params), seed=seed)
    if cases_of:
        return _record_own(fam, cases_of, recorder, verifier)
    b = _Builder.make(fam, params, recorder, verifier)
    rng = np.random.default_rng([seed, 8])
    sol = random_solution(b.schema, rng)
    clues = list(fam.clues_from_solution(b.schema, sol))
    current = _unique_case(b, clues, [int(i) for i in rng.permutation(len(clues))])
    multiple = _multiple_case(b, current)
    capped = _capped_case(b, multiple)
    other = {c.id: c for c in fam.clues_from_solution(b.schema, random_solution(b.schema, rng))}
    unsolvable, unsolvable_note = _unsolvable_case(b, clues, current, other)
    cases: list[tuple[str, str, list[Clue], Verdict]] = [
        (
            "unique",
            f"{len(current)} of {len(clues)} clues of a random solution",
            current,
            Verdict.UNIQUE,
        ),
        ("multiple", "the unique case less one clue it needs", multiple, Verdict.MULTIPLE),
        (
            "multiple-capped",
            f"clues dropped until {b.cap} solutions (the cap) are found",
            capped,
            Verdict.MULTIPLE,
        ),
        ("unsolvable", unsolvable_note, unsolvable, Verdict.UNSOLVABLE),
    ]
    cases += [
        (k, note, cs, Verdict.INVALID_SPEC) for k, (note, cs) in _invalid_cases(b, current).items()
    ]
    return _record(b, cases)


@dataclass(frozen=True)
class _Builder:
    """One schema being built: its family and params, the solution cap of its entries, the
    backend that searches for cases and the one that records them (named ``verifier``)."""

    fam: protocols.Family
    schema: Schema
    pdict: dict[str, Any]
    nvars: int
    cap: int
    search: Any
    recorder: Any
    verifier: str

    @classmethod
    def make(
        cls, fam: protocols.Family, params: Mapping[str, Any], recorder: Any, verifier: str
    ) -> _Builder:
        schema = fam.schema(dict(params))
        pdict = schema.params_dict()
        nvars = len(schema.variables)
        cap = CAP_SMALL if nvars <= SMALL_VARIABLES else CAP_BIG
        search = _fast_exact(Instance.make(fam.info.name, pdict, []), verifier)
        return cls(fam, schema, pdict, nvars, cap, search, recorder, verifier)

    @property
    def big(self) -> bool:
        """More variables than :data:`DENSE_VARIABLES`: cases keep more clues, conflicts stay
        small."""
        return self.nvars > DENSE_VARIABLES

    def inst(self, clues: Sequence[Clue]) -> Instance:
        return Instance.make(self.fam.info.name, self.pdict, clues)

    def verdict(self, clues: Sequence[Clue], k: int = 2) -> VerifierReport:
        return self.search.verify(self.inst(clues), solution_cap=k)


def _unique_case(b: _Builder, clues: list[Clue], order: list[int]) -> list[Clue]:
    """Drop the solution's clues in ``order`` while the puzzle stays UNIQUE (down to the floor
    of a big schema)."""
    floor = round(KEEP_BIG * len(clues)) if b.big else 1
    current = list(clues)
    for i in order:
        trial = [c for c in current if c.id != clues[i].id]
        if len(trial) >= floor and b.verdict(trial).verdict is Verdict.UNIQUE:
            current = trial
    return current


def _multiple_case(b: _Builder, current: list[Clue]) -> list[Clue]:
    """``current`` less the first clue it needs, preferring a solution count below the cap."""
    multiple: list[Clue] | None = None
    for c in current:  # the puzzle is minimal (or at the floor): most drops break uniqueness
        trial = [x for x in current if x.id != c.id]
        rep = b.verdict(trial, b.cap)
        if rep.verdict is Verdict.MULTIPLE and (multiple is None or rep.solution_count < b.cap):
            multiple = trial
            if rep.solution_count < b.cap:  # prefer an exact count
                break
    if multiple is None:
        raise RuntimeError(f"{b.fam.info.name} {b.pdict}: no clue drop breaks uniqueness")
    return multiple


def _capped_case(b: _Builder, multiple: list[Clue]) -> list[Clue]:
    """``multiple`` with more clues dropped until the cap is reached."""
    capped = list(multiple)
    for c in list(multiple):
        if capped != multiple and b.verdict(capped, b.cap).solution_count >= b.cap:
            break
        capped = [x for x in capped if x.id != c.id]
    return capped


def _unsolvable_case(
    b: _Builder, clues: list[Clue], current: list[Clue], other: Mapping[str, Clue]
) -> tuple[list[Clue], str]:
    """The ``unsolvable`` case and its note: a swapped clue if one makes a conflict, else (on
    schemas that are not big) one false clue of another solution added."""
    unsolvable = _by_swap(b, current if not b.big else clues, other)
    if unsolvable is not None:
        return unsolvable, "one clue from another solution, with its conflict and a few clues"
    if not b.big:
        found = _by_false_clue(b, clues, current, other)
        if found is not None:
            return found
    raise RuntimeError(f"{b.fam.info.name} {b.pdict}: no clue swap made the puzzle unsolvable")


def _by_swap(b: _Builder, base: list[Clue], other: Mapping[str, Clue]) -> list[Clue] | None:
    """One clue of ``base`` replaced by ``other``'s clue of the same id, reduced to the conflict
    and four other clues; a conflict of three clues or more preferred (at most three when big)."""
    unsolvable: list[Clue] | None = None
    fallback: list[Clue] | None = None
    tries = 0
    for c in base:
        swap = other.get(c.id)
        if swap is None or swap == c or tries >= MAX_SWAPS:
            continue
        trial = [swap if x.id == c.id else x for x in base]
        rep = b.search.verify(b.inst(trial), solution_cap=2)
        if rep.verdict is not Verdict.UNSOLVABLE or not rep.reject_detail:
            continue
        ids = set(rep.reject_detail.conflict.clue_ids) if rep.reject_detail.conflict else set()
        extra = [x for x in trial if x.id not in ids][:4]
        reduced = [x for x in trial if x.id in ids or x in extra]
        big = b.big
        if (big and len(ids) > 3) or (not big and len(ids) < 3 and fallback is not None):
            continue
        tries += 1
        if not _quick(b.recorder, b.inst(reduced), b.cap):
            continue
        if big or len(ids) >= 3:  # prefer a conflict beyond two equal values in one unit
            unsolvable = reduced
            break
        fallback = reduced
    return unsolvable or fallback


def _by_false_clue(
    b: _Builder, clues: list[Clue], current: list[Clue], other: Mapping[str, Clue]
) -> tuple[list[Clue], str] | None:
    """``current`` plus one clue of another solution that is false of its own, reduced to the
    conflict and four other clues, with its note (None if no such clue gives a quick proof)."""
    present = {x.id for x in current}
    truth = set(clues)
    for extra_clue in other.values():
        if extra_clue.id in present or extra_clue in truth:
            continue
        trial = [*current, extra_clue]
        rep = b.search.verify(b.inst(trial), solution_cap=2)
        rd = rep.reject_detail
        if rep.verdict is not Verdict.UNSOLVABLE or rd is None or rd.conflict is None:
            continue  # the other solution's clue holds in this one too
        ids = set(rd.conflict.clue_ids)
        extra = [x for x in trial if x.id not in ids][:4]
        reduced = [x for x in trial if x.id in ids or x in extra]
        if _quick(b.recorder, b.inst(reduced), b.cap):
            note = (
                f"the unique case and clue {extra_clue.id} of another solution (false of "
                "its own), with the conflict and a few clues"
            )
            return reduced, note
    return None


def _invalid_cases(b: _Builder, current: list[Clue]) -> dict[str, tuple[str, list[Clue]]]:
    """The ``invalid-*`` cases from the first clues of ``current``: one moved outside the grid,
    a number out of the domain, one clue id on two clues."""
    from puzzlekit.quality.sampling import outside_coord, replace_ints

    few = current[:3]
    first = few[0]
    outside = outside_coord(b.schema, first.coords[0]) if first.coords else None
    invalid: dict[str, tuple[str, list[Clue]]] = {}
    if outside is not None:
        moved = Clue.make(first.id, first.kind, first.data_dict(), [outside, *first.coords[1:]])
        invalid["invalid-outside"] = (
            f"clue {first.id} moved to {list(outside)}, outside the grid",
            [moved, *few[1:]],
        )
    top = max(max(v.domain) for v in b.schema.variables)

    def out_of_domain(c: Clue) -> dict[str, Any]:
        return replace_ints(c.data_dict(), lambda v: top + 1)

    valued = next((c for c in current if out_of_domain(c) != c.data_dict()), None)
    if valued is None:
        raise RuntimeError(
            f"{b.fam.info.name} {b.pdict}: no clue of the unique case holds a number"
        )
    bad = Clue.make(valued.id, valued.kind, out_of_domain(valued), valued.coords)
    invalid["invalid-value"] = (
        f"clue {valued.id} with {top + 1}, out of the domain",
        [bad, *[c for c in few if c.id != valued.id]][:3],
    )
    twin = Clue(first.id, few[1].kind, few[1].data, few[1].coords)
    invalid["invalid-duplicate"] = (f"clue id {first.id} on two clues", [first, twin, *few[2:]])
    return invalid


def _record(b: _Builder, cases: list[tuple[str, str, list[Clue], Verdict]]) -> list[GoldenEntry]:
    """Record each case with the recorder; RuntimeError if its verdict is not the one the search
    found."""
    out = []
    for case, note, cs, expected in cases:
        instance = b.inst(cs)
        rep = b.recorder.verify(instance, solution_cap=b.cap)
        if rep.verdict is not expected:
            raise RuntimeError(
                f"{b.fam.info.name} {b.pdict} case {case}: {b.verifier} says {rep.verdict.value}, "
                f"the search said {expected.value}; the backends disagree"
            )
        out.append(GoldenEntry.record(case, note, instance, b.verifier, b.cap, rep))
    return out


def _record_own(
    fam: protocols.Family,
    cases: Mapping[str, tuple[str, Instance, int]],
    recorder: Any,
    verifier: str,
) -> list[GoldenEntry]:
    """Record a family's own cases (``golden_instances``), in :data:`CASES` order."""
    missing = [c for c in CASES if c not in cases]
    if missing:
        raise RuntimeError(f"{fam.info.name}: golden_instances gave no {', '.join(missing)}")
    out = []
    for case in CASES:
        note, instance, cap = cases[case]
        rep = recorder.verify(instance, solution_cap=cap)
        out.append(GoldenEntry.record(case, note, instance, verifier, cap, rep))
    return out


def build_corpora(
    directory: str | Path,
    ids: Iterable[str] | None = None,
    *,
    seed: int = 0,
    verifier: str | None = None,
) -> list[Path]:
    """Write the corpus of each registered schema in ``ids`` (default: all), recorded with
    ``verifier`` (default: each family's, :func:`recorder_of`); returns the paths."""
    known = registered_ids()
    written = []
    for sid in ids if ids is not None else sorted(known):
        fam, params = known[sid]
        path = Path(directory) / f"{sid}.jsonl"
        write_corpus(path, build_entries(fam, params, seed=seed, verifier=verifier))
        written.append(path)
    return written
