"""Golden corpora: recorded verifier reports per schema, re-verified to catch any change.

A corpus is one JSON Lines file per schema, ``<dir>/<schema id>.jsonl``; each line is a
:class:`GoldenEntry`: a named case (``unique``, ``multiple``, ``multiple-capped``, ``unsolvable``,
``invalid-outside``, ``invalid-value``, ``invalid-duplicate``), the instance, the verifier and
solution cap it was recorded with, and the report's content (the wire form without ``stats`` and
``source``, see :meth:`puzzlekit.core.report.VerifierReport.content_json_obj`) with its digest
(:meth:`~puzzlekit.core.report.VerifierReport.digest`).

Schema ids (:func:`schema_id`): the family name, then its params. A ``size`` param ``N`` is written
``NxN`` (the grid it makes); every other param is written as its name and value (lists joined by
``x``), and left out where it equals what the family derives from the others. So
``{"family": "sudoku", "params": {"size": 9, "box": [3, 3]}}`` is ``sudoku-9x9``, a 6×6 Sudoku
with 3×2 boxes is ``sudoku-6x6-box3x2``, and a 5×5 Latin square is ``latin-5x5``. A family may
define ``schema_id(params) -> str`` to choose its own.

:func:`regress` re-verifies every entry and describes what changed (verdict, solution count,
solutions, coordinates of the reject detail, and any other report field when the verifier is the
one that recorded the entry); ``update=True`` rewrites the entries that changed (and, for one named
registered schema without a corpus, builds it). :func:`build_entries` makes a schema's cases from a
seeded random solution (or takes the family's own, ``golden_instances``), searching with the
fastest exact backend that reads the schema and recording with the family's recorder
(:func:`recorder_of`: the reference ``enumerative`` verifier unless the family names another).

Not for: benchmarks (reports here hold no timings) or storing generated puzzle collections.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from puzzlekit.core.model import Clue, Instance, SpecError, canonical_json, sha256_digest
from puzzlekit.core.plugins import UnknownName
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import Family, get_family

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
CASES = (
    "unique",
    "multiple",
    "multiple-capped",
    "unsolvable",
    "invalid-outside",
    "invalid-value",
    "invalid-duplicate",
)


# --- naming -------------------------------------------------------------------------------------


def _render(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "x".join(_render(v) for v in value)
    return str(value).replace(" ", "").replace("/", "_")


def schema_id(family: Family | str, params: Mapping[str, Any] | None = None) -> str:
    """The stable file name (without ``.jsonl``) of a schema's corpus; see the module docstring."""
    fam = get_family(family) if isinstance(family, str) else family
    custom = getattr(fam, "schema_id", None)
    norm = fam.normalize_params(dict(params or {}))
    if callable(custom):
        return str(custom(norm))
    parts = [fam.name]
    size = norm.get("size")
    if isinstance(size, int) and not isinstance(size, bool):
        parts.append(f"{size}x{size}")
        try:
            derived = fam.normalize_params({"size": size})
        except SpecError:
            derived = {}
    else:
        derived = {}
    for key in sorted(norm):
        if key == "size" or derived.get(key) == norm[key]:
            continue
        parts.append(f"{key}{_render(norm[key])}")
    return "-".join(parts)


def registered_ids() -> dict[str, tuple[Family, dict[str, Any]]]:
    """Every registered schema by its id, with its family and params."""
    from puzzlekit.families import families

    return {
        schema_id(fam, params): (fam, dict(params))
        for fam in families()
        for params in fam.listed_params
    }


# --- entries ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GoldenEntry:
    """One recorded case: an instance and the report content it must keep giving."""

    case: str
    note: str
    instance: Instance
    verifier: str
    cap: int
    report: Mapping[str, Any]
    report_digest: str

    @property
    def verdict(self) -> str:
        return str(self.report["uniquenessVerdict"])

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "note": self.note,
            "instance": self.instance.to_json_obj(),
            "instanceDigest": self.instance.digest,
            "verifier": self.verifier,
            "solutionCap": self.cap,
            "verdict": self.verdict,
            "reportDigest": self.report_digest,
            "report": dict(self.report),
        }

    @classmethod
    def from_json_obj(cls, obj: Mapping[str, Any], where: str = "entry") -> GoldenEntry:
        """Read one line; ValueError naming ``where`` for a corrupt or hand-edited entry."""
        try:
            instance = Instance.from_json_obj(obj["instance"])
            entry = cls(
                obj["case"],
                obj.get("note", ""),
                instance,
                obj["verifier"],
                int(obj["solutionCap"]),
                obj["report"],
                obj["reportDigest"],
            )
        except (KeyError, TypeError, SpecError) as exc:
            raise ValueError(f"{where}: not a golden entry ({exc})") from None
        if instance.digest != obj.get("instanceDigest", instance.digest):
            raise ValueError(f"{where}: instanceDigest does not match the instance")
        if content_digest(entry.report) != entry.report_digest:
            raise ValueError(
                f"{where}: reportDigest does not match the recorded report; "
                "rewrite the corpus with `puzzlekit regress --update`, do not edit it by hand"
            )
        return entry

    @classmethod
    def record(
        cls,
        case: str,
        note: str,
        instance: Instance,
        verifier: str,
        cap: int,
        report: VerifierReport,
    ) -> GoldenEntry:
        content = report.content_json_obj()
        return cls(case, note, instance, verifier, cap, content, report.digest())


def content_digest(content: Mapping[str, Any]) -> str:
    """The digest of a report's content, as :meth:`VerifierReport.digest` computes it."""
    return sha256_digest(canonical_json(dict(content)))


def load_corpus(path: str | Path) -> list[GoldenEntry]:
    """The entries of one ``.jsonl`` corpus; ValueError naming the line of a bad entry."""
    path = Path(path)
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not JSON ({exc.msg})") from None
        out.append(GoldenEntry.from_json_obj(obj, where))
    return out


def write_corpus(path: str | Path, entries: Iterable[GoldenEntry]) -> None:
    """Write entries as JSON Lines (keys sorted, so rewrites give small diffs)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(e.to_json_obj(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        for e in entries
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# --- building -----------------------------------------------------------------------------------


def _fast_exact(instance: Instance, fallback: str = REFERENCE) -> Any:
    """The sat backend where it can read ``instance``'s schema, else ``fallback``."""
    from puzzlekit.verifiers.registry import get_verifier, verifier_names

    if "sat" in verifier_names():
        from puzzlekit.verifiers.sat import encodable

        if encodable(instance):
            return get_verifier("sat")
    return get_verifier(fallback)


def recorder_of(family: Family | str) -> str:
    """The verifier that records a family's corpora: its ``golden_verifier`` (the reference,
    ``enumerative``, unless the family names its own exact backend: ``oracle``, ``gametree``)."""
    fam = get_family(family) if isinstance(family, str) else family
    return str(getattr(fam, "golden_verifier", None) or REFERENCE)


def _quick(verifier: Any, instance: Instance, cap: int) -> bool:
    """Whether ``verifier`` proves ``instance`` UNSOLVABLE with a minimal conflict, quickly.

    Backtracking can take minutes to refute a sparse subset of clues while shrinking a conflict;
    a golden case must re-verify in a blink, so such candidates are passed over.
    """
    import time

    from puzzlekit.verifiers.base import SearchBudget

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
    family: Family | str,
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
    from puzzlekit.quality.checks import _outside_coord, _replace_ints
    from puzzlekit.verifiers.registry import get_verifier

    fam = get_family(family) if isinstance(family, str) else family
    verifier = verifier or recorder_of(fam)
    recorder = get_verifier(verifier)
    own = getattr(fam, "golden_instances", None)
    cases_of = own(dict(params), seed=seed) if callable(own) else None
    if cases_of:
        return _record_own(fam, cases_of, recorder, verifier)
    schema = fam.schema(dict(params))
    pdict = schema.params_dict()
    nvars = len(schema.variables)
    cap = CAP_SMALL if nvars <= SMALL_VARIABLES else CAP_BIG
    search = _fast_exact(Instance.make(fam.name, pdict, []), verifier)
    rng = np.random.default_rng([seed, 8])

    def inst(clues: Sequence[Clue]) -> Instance:
        return Instance.make(fam.name, pdict, clues)

    def verdict(clues: Sequence[Clue], k: int = 2) -> VerifierReport:
        return search.verify(inst(clues), solution_cap=k)

    sol = random_solution(schema, rng)
    clues = list(fam.clues_from_solution(schema, sol))
    order = [int(i) for i in rng.permutation(len(clues))]
    floor = round(KEEP_BIG * len(clues)) if nvars > DENSE_VARIABLES else 1
    current = list(clues)
    for i in order:
        trial = [c for c in current if c.id != clues[i].id]
        if len(trial) >= floor and verdict(trial).verdict is Verdict.UNIQUE:
            current = trial
    multiple: list[Clue] | None = None
    for c in current:  # the puzzle is minimal (or at the floor): most drops break uniqueness
        trial = [x for x in current if x.id != c.id]
        rep = verdict(trial, cap)
        if rep.verdict is Verdict.MULTIPLE and (multiple is None or rep.solution_count < cap):
            multiple = trial
            if rep.solution_count < cap:  # prefer an exact count
                break
    if multiple is None:
        raise RuntimeError(f"{fam.name} {pdict}: no clue drop breaks uniqueness")
    capped = list(multiple)
    for c in list(multiple):
        if capped != multiple and verdict(capped, cap).solution_count >= cap:
            break
        capped = [x for x in capped if x.id != c.id]

    other = {c.id: c for c in fam.clues_from_solution(schema, random_solution(schema, rng))}
    unsolvable: list[Clue] | None = None
    fallback: list[Clue] | None = None
    base = current if nvars <= DENSE_VARIABLES else clues
    tries = 0
    for c in base:
        swap = other.get(c.id)
        if swap is None or swap == c or tries >= MAX_SWAPS:
            continue
        trial = [swap if x.id == c.id else x for x in base]
        rep = search.verify(inst(trial), solution_cap=2)
        if rep.verdict is not Verdict.UNSOLVABLE or not rep.reject_detail:
            continue
        ids = set(rep.reject_detail.conflict.clue_ids) if rep.reject_detail.conflict else set()
        extra = [x for x in trial if x.id not in ids][:4]
        reduced = [x for x in trial if x.id in ids or x in extra]
        big = nvars > DENSE_VARIABLES
        if (big and len(ids) > 3) or (not big and len(ids) < 3 and fallback is not None):
            continue
        tries += 1
        if not _quick(recorder, inst(reduced), cap):
            continue
        if big or len(ids) >= 3:  # prefer a conflict beyond two equal values in one unit
            unsolvable = reduced
            break
        fallback = reduced
    unsolvable = unsolvable or fallback
    unsolvable_note = "one clue from another solution, with its conflict and a few clues"
    if unsolvable is None and nvars <= DENSE_VARIABLES:
        present = {x.id for x in current}
        truth = set(clues)
        for extra_clue in other.values():
            if extra_clue.id in present or extra_clue in truth:
                continue
            trial = [*current, extra_clue]
            rep = search.verify(inst(trial), solution_cap=2)
            rd = rep.reject_detail
            if rep.verdict is not Verdict.UNSOLVABLE or rd is None or rd.conflict is None:
                continue  # the other solution's clue holds in this one too
            ids = set(rd.conflict.clue_ids)
            extra = [x for x in trial if x.id not in ids][:4]
            reduced = [x for x in trial if x.id in ids or x in extra]
            if _quick(recorder, inst(reduced), cap):
                unsolvable = reduced
                unsolvable_note = (
                    f"the unique case and clue {extra_clue.id} of another solution (false of "
                    "its own), with the conflict and a few clues"
                )
                break
    if unsolvable is None:
        raise RuntimeError(f"{fam.name} {pdict}: no clue swap made the puzzle unsolvable")

    few = current[:3]
    first = few[0]
    outside = _outside_coord(schema, first.coords[0]) if first.coords else None
    invalid: dict[str, tuple[str, list[Clue]]] = {}
    if outside is not None:
        moved = Clue.make(first.id, first.kind, first.data_dict(), [outside, *first.coords[1:]])
        invalid["invalid-outside"] = (
            f"clue {first.id} moved to {list(outside)}, outside the grid",
            [moved, *few[1:]],
        )
    top = max(max(v.domain) for v in schema.variables)

    def out_of_domain(c: Clue) -> dict[str, Any]:
        return _replace_ints(c.data_dict(), lambda v: top + 1)

    valued = next((c for c in current if out_of_domain(c) != c.data_dict()), None)
    if valued is None:
        raise RuntimeError(f"{fam.name} {pdict}: no clue of the unique case holds a number")
    bad = Clue.make(valued.id, valued.kind, out_of_domain(valued), valued.coords)
    invalid["invalid-value"] = (
        f"clue {valued.id} with {top + 1}, out of the domain",
        [bad, *[c for c in few if c.id != valued.id]][:3],
    )
    twin = Clue(first.id, few[1].kind, few[1].data, few[1].coords)
    invalid["invalid-duplicate"] = (f"clue id {first.id} on two clues", [first, twin, *few[2:]])

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
            f"clues dropped until {cap} solutions (the cap) are found",
            capped,
            Verdict.MULTIPLE,
        ),
        ("unsolvable", unsolvable_note, unsolvable, Verdict.UNSOLVABLE),
    ]
    cases += [(k, note, cs, Verdict.INVALID_SPEC) for k, (note, cs) in invalid.items()]
    out = []
    for case, note, cs, expected in cases:
        instance = inst(cs)
        rep = recorder.verify(instance, solution_cap=cap)
        if rep.verdict is not expected:
            raise RuntimeError(
                f"{fam.name} {pdict} case {case}: {verifier} says {rep.verdict.value}, "
                f"the search said {expected.value}; the backends disagree"
            )
        out.append(GoldenEntry.record(case, note, instance, verifier, cap, rep))
    return out


def _record_own(
    fam: Family,
    cases: Mapping[str, tuple[str, Instance, int]],
    recorder: Any,
    verifier: str,
) -> list[GoldenEntry]:
    """Record a family's own cases (``golden_instances``), in :data:`CASES` order."""
    missing = [c for c in CASES if c not in cases]
    if missing:
        raise RuntimeError(f"{fam.name}: golden_instances gave no {', '.join(missing)}")
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


# --- comparing ----------------------------------------------------------------------------------


def _coords(items: Iterable[Mapping[str, Any]], key: str = "coord") -> list[tuple]:
    return [tuple(i[key]) for i in items if i.get(key) is not None]


def _fmt_coords(coords: Iterable[tuple]) -> str:
    return " ".join(str(list(c)).replace(" ", "") for c in coords) or "-"


def _set_change(label: str, old: Sequence[Any], new: Sequence[Any], fmt: Callable) -> list[str]:
    if list(old) == list(new):
        return []
    gone = [x for x in old if x not in new]
    came = [x for x in new if x not in old]
    if not gone and not came:
        return [f"{label}: same items in another order: {fmt(new)}"]
    parts = []
    if gone:
        parts.append(f"no longer {fmt(gone)}")
    if came:
        parts.append(f"now also {fmt(came)}")
    return [f"{label}: {'; '.join(parts)}"]


def _short(value: Any, width: int = 70) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _count(report: Mapping[str, Any]) -> str:
    more = "+" if report.get("solutionCountIsLowerBound") else ""
    return f"{report.get('solutionCount')}{more}"


def diff_reports(
    expected: Mapping[str, Any], actual: Mapping[str, Any], *, same_verifier: bool = True
) -> list[str]:
    """Readable lines naming what changed between two report contents (empty: nothing did).

    Always compared: verdict, solution count and whether it is a lower bound; below the cap the
    solutions and the reject detail (gap cells, conflict clues and rules, violations, culprits,
    with coordinates). With ``same_verifier`` also every other field (solutions and details at
    the cap, ``cartesianSize``, ``diagnostics``, ...). Another exact backend may pick other
    solutions at the cap and count the search space otherwise, so those are not compared then.
    """
    out = []
    ev, av = expected.get("uniquenessVerdict"), actual.get("uniquenessVerdict")
    if ev != av:
        out.append(f"verdict: {ev} -> {av}")
    if _count(expected) != _count(actual):
        out.append(f"solutionCount: {_count(expected)} -> {_count(actual)}")
    capped = bool(
        expected.get("solutionCountIsLowerBound") or actual.get("solutionCountIsLowerBound")
    )
    if ev != av or (capped and not same_verifier):
        return out
    old_s = [json.dumps(s, sort_keys=True) for s in expected.get("solutions", [])]
    new_s = [json.dumps(s, sort_keys=True) for s in actual.get("solutions", [])]
    if sorted(old_s) != sorted(new_s):
        gone = sum(1 for s in old_s if s not in new_s)
        came = sum(1 for s in new_s if s not in old_s)
        out.append(f"solutions: {gone} no longer found, {came} new")
    elif old_s != new_s and same_verifier:
        out.append("solutions: the same, in another order")
    ed, ad = expected.get("rejectDetail") or {}, actual.get("rejectDetail") or {}
    out += _detail_diff(ed, ad)
    if same_verifier:
        handled = {
            "uniquenessVerdict",
            "solutionCount",
            "solutionCountIsLowerBound",
            "solutions",
            "rejectDetail",
        }
        for key in sorted((set(expected) | set(actual)) - handled):
            if expected.get(key) != actual.get(key):
                out.append(f"{key}: {_short(expected.get(key))} -> {_short(actual.get(key))}")
        if not out and ed != ad:
            out.append(f"rejectDetail: {_short(ed)} -> {_short(ad)}")
    return out


def _detail_diff(ed: Mapping[str, Any], ad: Mapping[str, Any]) -> list[str]:
    out = []
    out += _set_change(
        "discriminativeGap cells",
        _coords(ed.get("discriminativeGap", [])),
        _coords(ad.get("discriminativeGap", [])),
        _fmt_coords,
    )
    ec, ac = ed.get("conflict") or {}, ad.get("conflict") or {}
    if ec or ac:

        def clue_list(c: Mapping[str, Any]) -> list[str]:
            return [
                f"{x['clueId']}@{_fmt_coords(map(tuple, x['coords']))}" for x in c.get("clues", [])
            ]

        def rule_list(c: Mapping[str, Any]) -> list[str]:
            return [r["rule"] for r in c.get("rules", [])]

        out += _set_change("conflict clues", clue_list(ec), clue_list(ac), " ".join)
        out += _set_change("conflict rules", rule_list(ec), rule_list(ac), " ".join)
        if ec.get("minimal") != ac.get("minimal"):
            out.append(f"conflict minimal: {ec.get('minimal')} -> {ac.get('minimal')}")

    def violation_list(d: Mapping[str, Any]) -> list[str]:
        return [
            f"{v['violationType']} at {_fmt_coords([tuple(v['coord'])]) if v.get('coord') else '-'}"
            f" ({v['fieldName']})"
            for v in d.get("violations", [])
        ]

    out += _set_change("violations", violation_list(ed), violation_list(ad), "; ".join)
    out += _set_change(
        "culprits", _coords(ed.get("culprits", [])), _coords(ad.get("culprits", [])), _fmt_coords
    )
    return out


# --- regress ------------------------------------------------------------------------------------


@dataclass
class CaseResult:
    """One golden entry re-verified: what changed (``diff``), or why it was not compared."""

    schema: str
    entry: GoldenEntry
    verifier: str
    report: VerifierReport | None
    diff: list[str]
    skipped: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.diff)


@dataclass
class RegressResult:
    """Every case of every corpus checked, and what ``update`` rewrote."""

    cases: list[CaseResult] = field(default_factory=list)
    corpora: list[Path] = field(default_factory=list)
    updated: dict[str, int] = field(default_factory=dict)  # corpus id -> entries rewritten
    built: list[str] = field(default_factory=list)  # corpus ids built from nothing
    missing: list[str] = field(default_factory=list)  # registered schemas without a corpus

    @property
    def changed(self) -> list[CaseResult]:
        return [c for c in self.cases if c.changed]

    @property
    def ok(self) -> bool:
        return not self.changed


def corpus_files(directory: str | Path, schema: str | None = None) -> list[Path]:
    """The corpora in ``directory`` (all, or the one of ``schema``); FileNotFoundError if none."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"no golden directory {directory}")
    files = sorted(directory.glob("*.jsonl"))
    if schema is not None:
        files = [f for f in files if f.stem == schema]
        if not files:
            known = ", ".join(f.stem for f in sorted(directory.glob("*.jsonl"))) or "none"
            raise FileNotFoundError(f"no corpus {schema}.jsonl in {directory}; corpora: {known}")
    return files


class _Verifiers:
    def __init__(self, override: str | None) -> None:
        self.override = override
        self._made: dict[str, Any] = {}

    def name_for(self, entry: GoldenEntry) -> str:
        return self.override or entry.verifier

    def get(self, name: str) -> Any:
        if name not in self._made:
            from puzzlekit.verifiers.registry import get_verifier

            self._made[name] = get_verifier(name)
        return self._made[name]


def check_entry(
    schema: str, entry: GoldenEntry, verifier: str | None = None, *, _pool: Any = None
) -> CaseResult:
    """Re-verify one entry (with its own verifier unless ``verifier`` names another)."""
    pool = _pool or _Verifiers(verifier)
    name = pool.name_for(entry)
    try:
        rep = pool.get(name).verify(entry.instance, solution_cap=entry.cap)
    except Exception as exc:
        if isinstance(exc, NotImplementedError) or type(exc).__name__ == "NotEncodable":
            return CaseResult(schema, entry, name, None, [], skipped=f"{name} declines: {exc}")
        return CaseResult(
            schema, entry, name, None, [f"verifier {name} raised {type(exc).__name__}: {exc}"]
        )
    diff = diff_reports(entry.report, rep.content_json_obj(), same_verifier=name == entry.verifier)
    if not diff and name == entry.verifier and rep.digest() != entry.report_digest:
        diff = [f"report digest: {entry.report_digest} -> {rep.digest()}"]
    return CaseResult(schema, entry, name, rep, diff)


class UnknownCorpusFamily(UnknownName):
    """A corpus whose entries name a family no registry holds: the plugin that registers it is
    not loaded. Nothing is re-verified or rewritten (every entry would read as INVALID_SPEC)."""

    def __init__(self, path: str | Path, family: object, known: Iterable[str]) -> None:
        self.path = Path(path)
        super().__init__("family", family, known)

    def __str__(self) -> str:
        return (
            f"{self.path}: {super().__str__()}; if a plugin registers it, "
            "pass --plugin MODULE (nothing was re-verified or rewritten)"
        )


def check_corpus_families(path: str | Path, entries: Iterable[GoldenEntry]) -> None:
    """Raise :class:`UnknownCorpusFamily` if an entry of ``path`` names an unregistered family."""
    from puzzlekit.families import FAMILIES

    for entry in entries:
        if entry.instance.family not in FAMILIES:
            raise UnknownCorpusFamily(path, entry.instance.family, FAMILIES.names())


def _check_schema_arg(directory: Path, schema: str, known: Mapping[str, Any]) -> None:
    """A ``schema`` without a corpus in ``directory``: FileNotFoundError if it is registered
    (``--update`` builds it), UnknownName naming the closest schemas if it is not."""
    if not directory.is_dir():
        raise FileNotFoundError(f"no golden directory {directory}")
    if schema in known:
        raise FileNotFoundError(
            f"no corpus {schema}.jsonl in {directory}; "
            f"puzzlekit regress --update --schema {schema} builds it"
        )
    present = [f.stem for f in directory.glob("*.jsonl")]
    raise UnknownName("schema", schema, sorted({*known, *present}))


def regress(
    directory: str | Path,
    *,
    schema: str | None = None,
    verifier: str | None = None,
    update: bool = False,
) -> RegressResult:
    """Re-verify every entry of the corpora in ``directory`` (or of one ``schema``).

    With ``update``, entries that changed are rewritten with the new report (recorded under the
    verifier used); with ``update`` and a registered ``schema`` that has no corpus yet, its corpus
    is built (:func:`build_entries`). Registered schemas without a corpus are listed in
    ``missing`` (not a failure: a directory may hold only some schemas).

    Every corpus is read and its families checked before anything is verified: a corpus of a
    family that is not registered (its plugin not loaded) raises :class:`UnknownCorpusFamily`
    and nothing is rewritten. An unknown ``schema`` raises UnknownName naming the closest.
    """
    directory = Path(directory)
    result = RegressResult()
    known = registered_ids()
    if schema is not None and not (directory / f"{schema}.jsonl").exists():
        if update and schema in known:
            directory.mkdir(parents=True, exist_ok=True)
            build_corpora(directory, [schema], verifier=verifier)
            result.built.append(schema)
        else:
            _check_schema_arg(directory, schema, known)
    files = corpus_files(directory, schema)
    present = {f.stem for f in files}
    if schema is None:
        result.missing = sorted(set(known) - present)
    corpora = [(path, load_corpus(path)) for path in files]
    for path, entries in corpora:
        check_corpus_families(path, entries)
    pool = _Verifiers(verifier)
    for path, entries in corpora:
        result.corpora.append(path)
        results = [check_entry(path.stem, e, _pool=pool) for e in entries]
        result.cases += results
        if update and path.stem not in result.built:
            changed = [r for r in results if r.changed and r.report is not None]
            if changed:
                fresh = [
                    GoldenEntry.record(
                        r.entry.case,
                        r.entry.note,
                        r.entry.instance,
                        r.verifier,
                        r.entry.cap,
                        r.report,
                    )
                    if r.changed and r.report is not None
                    else r.entry
                    for r in results
                ]
                write_corpus(path, fresh)
                result.updated[path.stem] = len(changed)
    return result


def format_result(result: RegressResult, *, update: bool = False) -> str:
    """The text ``puzzlekit regress`` prints: each changed case with its diff, then a summary."""
    lines = []
    by_schema: dict[str, list[CaseResult]] = {}
    for c in result.cases:
        by_schema.setdefault(c.schema, []).append(c)
    for sid, cases in by_schema.items():
        changed = [c for c in cases if c.changed]
        skipped = [c for c in cases if c.skipped]
        head = f"{sid}: {len(cases)} cases, {len(changed)} changed"
        if skipped:
            head += f", {len(skipped)} skipped ({skipped[0].skipped})"
        lines.append(head)
        for c in changed:
            lines.append(
                f"  {c.entry.case} ({c.entry.instance.digest[:19]}…, {c.verifier}, "
                f"cap {c.entry.cap}):"
            )
            lines += [f"    {d}" for d in c.diff]
    for sid in result.built:
        lines.append(f"{sid}: new corpus built")
    if result.missing:
        lines.append(
            "no corpus for registered schemas: "
            + ", ".join(result.missing)
            + " (puzzlekit regress --update --schema S builds one)"
        )
    n_changed = len(result.changed)
    total = f"{len(result.cases)} cases in {len(result.corpora)} corpora"
    if update:
        n = sum(result.updated.values())
        where = ", ".join(f"{k} ({v})" for k, v in sorted(result.updated.items()))
        lines.append(
            f"regress: {total}; updated {n} entr{'y' if n == 1 else 'ies'}"
            + (f" in {where}" if where else "")
        )
    else:
        lines.append(f"regress: {total}, {n_changed} changed")
    return "\n".join(lines)


# --- one case, for test runners -----------------------------------------------------------------


@dataclass(frozen=True)
class GoldenCase:
    """One entry of a corpus file, as a test runner sees it (see
    ``puzzlekit.quality.pytest_plugin``)."""

    path: Path
    entry: GoldenEntry

    @property
    def schema(self) -> str:
        return self.path.stem

    @property
    def id(self) -> str:
        return f"{self.schema}:{self.entry.case}"

    def verify(self, verifier: str | None = None) -> VerifierReport:
        """Verify the instance with the recorded verifier (or ``verifier``) and cap."""
        from puzzlekit.verifiers.registry import get_verifier

        v = get_verifier(verifier or self.entry.verifier)
        return v.verify(self.entry.instance, solution_cap=self.entry.cap)

    def check(self, verifier: str | None = None) -> CaseResult:
        """Re-verify; raise AssertionError with the readable diff if anything changed.

        A case whose family is not registered fails saying so (load the plugin that registers
        it) rather than with a diff to INVALID_SPEC."""
        from puzzlekit.families import FAMILIES

        family = self.entry.instance.family
        if family not in FAMILIES:
            raise AssertionError(
                f"golden case {self.id} ({self.path}): "
                f"{UnknownName('family', family, FAMILIES.names())}; load the plugin that "
                "registers it (pytest: --puzzlekit-plugin MODULE or the ini option "
                "puzzlekit_plugins; puzzlekit regress: --plugin MODULE)"
            )
        res = check_entry(self.schema, self.entry, verifier)
        if res.changed:
            origin = FAMILIES.origin(family)
            plugin = "" if origin.split(".")[0] == "puzzlekit" else f" --plugin {origin}"
            raise AssertionError(
                f"golden case {self.id} ({self.path}) changed under {res.verifier}:\n"
                + "\n".join(f"  {d}" for d in res.diff)
                + "\nIf the change is intended: puzzlekit regress --update --golden "
                f"{self.path.parent}{plugin}"
            )
        return res


def iter_cases(directory: str | Path, schema: str | None = None) -> list[GoldenCase]:
    """Every entry of every corpus in ``directory``, in file then line order."""
    return [
        GoldenCase(path, entry)
        for path in corpus_files(directory, schema)
        for entry in load_corpus(path)
    ]


__all__ = [
    "CASES",
    "CaseResult",
    "UnknownCorpusFamily",
    "GoldenCase",
    "GoldenEntry",
    "RegressResult",
    "build_corpora",
    "build_entries",
    "check_corpus_families",
    "check_entry",
    "content_digest",
    "corpus_files",
    "diff_reports",
    "format_result",
    "iter_cases",
    "load_corpus",
    "recorder_of",
    "regress",
    "registered_ids",
    "schema_id",
    "write_corpus",
]
