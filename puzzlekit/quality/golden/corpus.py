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
with 3×2 boxes is ``sudoku-6x6-box3x2``, and a 5×5 Latin square is ``latin-5x5``. That is the
default of the family hook ``Family.schema_id(params) -> str``; a family overrides it to choose
its own.

:func:`regress` re-verifies every entry and describes what changed (verdict, solution count,
solutions, coordinates of the reject detail, and any other report field when the verifier is the
one that recorded the entry); ``update=True`` rewrites the entries that changed (and, for one named
registered schema without a corpus, builds it). :func:`build_entries` makes a schema's cases from a
seeded random solution (or takes the family's own, ``golden_instances``), searching with the
fastest exact backend that reads the schema and recording with the family's recorder
(:func:`recorder_of`: the reference ``enumerative`` verifier unless the family names another).

The records (schema ids, :class:`GoldenEntry`, reading and writing corpus files) live in
:mod:`puzzlekit.quality.golden.entries`, the building in :mod:`puzzlekit.quality.golden.build`,
the comparing of two reports in :mod:`puzzlekit.quality.golden.diff`; this module re-verifies,
and every public name of the four is importable from here.

Not for: benchmarks (reports here hold no timings) or storing generated puzzle collections.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlekit.core.plugins import UnknownName
from puzzlekit.core.report import VerifierReport
from puzzlekit.core.seal import SEAL_FILE, seal_files, seal_problems

# the records, the building and the comparing live in their own modules; every name stays
# importable from here
from puzzlekit.quality.golden.build import (
    CAP_BIG,
    CAP_SMALL,
    DENSE_VARIABLES,
    KEEP_BIG,
    MAX_SWAPS,
    QUICK_NODES,
    QUICK_SECONDS,
    REFERENCE,
    SMALL_VARIABLES,
    build_corpora,
    build_entries,
    recorder_of,
)
from puzzlekit.quality.golden.diff import diff_reports
from puzzlekit.quality.golden.entries import (
    CASES,
    GoldenEntry,
    content_digest,
    load_corpus,
    registered_ids,
    schema_id,
    write_corpus,
)

# --- the seal -----------------------------------------------------------------------------------


class CorpusTampered(ValueError):
    """A corpus file changed outside ``regress --update`` (before a check, or by the verifier
    being checked); the message is one line per file."""


def seal_corpora(directory: str | Path) -> Path:
    """Write ``SEAL.json``: the digest of every corpus file of ``directory``. Only
    ``regress --update`` (and building corpora) does this, so any other change shows."""
    import json

    from puzzlekit.core.files import write_text

    directory = Path(directory)
    files = seal_files(directory, [f.name for f in sorted(directory.glob("*.jsonl"))])
    path = directory / SEAL_FILE
    seal = {"sealedBy": "puzzlekit regress --update", "files": files}
    write_text(path, json.dumps(seal, indent=1, sort_keys=True) + "\n")
    return path


def read_seal(directory: str | Path) -> dict[str, str] | None:
    """The sealed digests of ``directory``'s corpora; ``None`` when it has no seal."""
    from puzzlekit.core.reading import ReadError, parse_json

    path = Path(directory) / SEAL_FILE
    if not path.exists():
        return None
    try:
        obj = parse_json(path.read_bytes())
    except ReadError as exc:
        raise CorpusTampered(f"{path}: unreadable seal: {exc}") from None
    files = obj.get("files") if isinstance(obj, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise CorpusTampered(f"{path}: not a seal (no files mapping)")
    return dict(files)


def check_seal(directory: Path, files: Iterable[Path], *, every: bool = True) -> None:
    """Raise :class:`CorpusTampered` if a corpus in ``files`` differs from the seal (or is not
    in it, or, when ``every`` corpus is checked, a sealed one is gone)."""
    sealed = read_seal(directory)
    if sealed is None:
        return
    names = [f.name for f in files]
    scope = sealed if every else {n: d for n, d in sealed.items() if n in names}
    problems = seal_problems(directory, scope, names)
    if problems:
        raise CorpusTampered(
            "; ".join(problems) + " (a corpus changes only through puzzlekit regress --update)"
        )


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
    reformed: dict[str, int] = field(default_factory=dict)  # corpus id -> older-form rewritten
    built: list[str] = field(default_factory=list)  # corpus ids built from nothing
    missing: list[str] = field(default_factory=list)  # registered schemas without a corpus

    @property
    def changed(self) -> list[CaseResult]:
        return [c for c in self.cases if c.changed]

    @property
    def checked(self) -> int:
        """Cases actually compared (not skipped)."""
        return sum(1 for c in self.cases if not c.skipped)

    @property
    def ok(self) -> bool:
        """Nothing changed, and something was checked: an empty corpus, an empty directory or
        every case skipped is a failed check, not a pass."""
        return not self.changed and (self.checked > 0 or bool(self.built))


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
    if not update:
        check_seal(
            directory, files, every=schema is None
        )  # a corpus changed by hand is refused before any check
    present = {f.stem for f in files}
    if schema is None:
        result.missing = sorted(set(known) - present)
    corpora = [(path, load_corpus(path)) for path in files]
    for path, entries in corpora:
        check_corpus_families(path, entries)
    before = {path: path.read_bytes() for path in files}
    pool = _Verifiers(verifier)
    for path, entries in corpora:
        result.corpora.append(path)
        results = [check_entry(path.stem, e, _pool=pool) for e in entries]
        result.cases += results
        if update and path.stem not in result.built:
            changed = [r for r in results if r.changed and r.report is not None]
            older = [r for r in results if r.entry.old_form and not r.changed]
            if changed or older:  # an older-form entry is rewritten in today's form
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
                result.reformed[path.stem] = len(older)
                before[path] = path.read_bytes()
    _restore_rewritten(before, verifier)
    if update:
        seal_corpora(directory)
    return result


def _restore_rewritten(before: Mapping[Path, bytes], verifier: str | None) -> None:
    """A corpus file whose bytes changed while its entries were being verified was rewritten by
    the verifier under check: put the bytes back and raise :class:`CorpusTampered`."""
    rewritten = [path for path, data in before.items() if _bytes_of(path) != data]
    for path in rewritten:
        path.write_bytes(before[path])
    if rewritten:
        who = f"verifier {verifier}" if verifier else "a verifier"
        raise CorpusTampered(
            "; ".join(f"{p}: rewritten by {who} while being checked (restored)" for p in rewritten)
        )


def _bytes_of(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


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
    older = sum(c.entry.old_form for c in result.cases)
    if update:
        n = sum(result.updated.values())
        where = ", ".join(f"{k} ({v})" for k, v in sorted(result.updated.items()) if v)
        lines.append(
            f"regress: {total}; updated {n} entr{'y' if n == 1 else 'ies'}"
            + (f" in {where}" if where else "")
            + (f"; {older} of an older form rewritten in today's form" if older else "")
        )
    else:
        lines.append(f"regress: {total}, {n_changed} changed")
        if older:
            lines.append(f"regress: {older} entries of an older form (--update rewrites them)")
        if result.checked == 0:
            why = "no corpus" if not result.corpora else "no case" if not result.cases else ""
            why = why or "every case was skipped"
            lines.append(f"regress: FAILED: nothing was checked ({why})")
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
    "CAP_BIG",
    "CAP_SMALL",
    "DENSE_VARIABLES",
    "KEEP_BIG",
    "MAX_SWAPS",
    "QUICK_NODES",
    "QUICK_SECONDS",
    "REFERENCE",
    "SMALL_VARIABLES",
    "CASES",
    "CaseResult",
    "CorpusTampered",
    "GoldenCase",
    "GoldenEntry",
    "RegressResult",
    "UnknownCorpusFamily",
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
    "seal_corpora",
    "write_corpus",
]
