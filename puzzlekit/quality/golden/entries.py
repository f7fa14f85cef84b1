"""Golden corpora, the records: schema ids, :class:`GoldenEntry` and the ``.jsonl`` files.

See :mod:`puzzlekit.quality.golden.corpus` for what a corpus is and how schema ids are formed; every
name here is importable from there too.

Not for: building cases (:mod:`puzzlekit.quality.golden.build`) or re-verifying them
(:mod:`puzzlekit.quality.golden.corpus`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance, SpecError, canonical_json, sha256_digest
from puzzlekit.core.reading import ReadError, loads
from puzzlekit.core.report import VerifierReport
from puzzlekit.families import get_family

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


def schema_id(family: protocols.Family | str, params: Mapping[str, Any] | None = None) -> str:
    """The stable file name (without ``.jsonl``) of a schema's corpus: the family's
    ``schema_id`` of its normalized params (``Family.schema_id``)."""
    fam = get_family(family) if isinstance(family, str) else family
    return str(fam.schema_id(fam.normalize_params(dict(params or {}))))


def registered_ids() -> dict[str, tuple[protocols.Family, dict[str, Any]]]:
    """Every registered schema by its id, with its family and params."""
    from puzzlekit.families import families

    return {
        schema_id(fam, params): (fam, dict(params))
        for fam in families()
        for params in fam.info.listed_params
    }


# --- entries ------------------------------------------------------------------------------------


#: The keys a line of the current form has beside the report's own: an entry written before
#: the verdict was named as ``verify`` names it (``uniquenessVerdict``) said ``verdict``.
CURRENT_FORM_KEYS = frozenset({"uniquenessVerdict"})


@dataclass(frozen=True)
class GoldenEntry:
    """One recorded case: an instance and the report content it must keep giving.

    ``old_form`` marks an entry read from a line of an older form (its verdict under
    ``verdict``); it reads and checks as any other, and ``regress --update`` rewrites it."""

    case: str
    note: str
    instance: Instance
    verifier: str
    cap: int
    report: Mapping[str, Any]
    report_digest: str
    old_form: bool = field(default=False, compare=False)

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
            "uniquenessVerdict": self.verdict,
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
                old_form=not CURRENT_FORM_KEYS <= obj.keys(),
            )
        except (KeyError, TypeError, SpecError) as exc:
            raise ValueError(f"{where}: not a golden entry ({exc})") from None
        recorded = obj.get("instanceDigest", instance.digest)
        if recorded != instance.digest and recorded != written_digest(obj["instance"]):
            raise ValueError(f"{where}: instanceDigest does not match the instance")
        if (
            not isinstance(entry.report, Mapping)
            or content_digest(entry.report) != entry.report_digest
        ):
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


def written_digest(instance: Any) -> str:
    """The digest of an instance's JSON with its clues in the order written: what corpora
    recorded before clues were held in one canonical order (:mod:`puzzlekit.core.identity`). Such
    an entry is still read; its report's ``instanceDigest`` then differs from the canonical one,
    so ``regress`` shows it changed and ``regress --update`` rewrites it."""
    try:
        return sha256_digest(canonical_json(instance))
    except (TypeError, ValueError):
        return ""


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
            obj = loads(line)
        except ReadError as exc:
            at = "" if exc.field == "$" else f"{exc.field}: "
            raise ValueError(f"{where}: {at}{exc.detail}") from None
        out.append(GoldenEntry.from_json_obj(obj, where))
    return out


def write_corpus(path: str | Path, entries: Iterable[GoldenEntry]) -> None:
    """Write entries as JSON Lines (keys sorted, so rewrites give small diffs), atomically."""
    from puzzlekit.core.files import write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(e.to_json_obj(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        for e in entries
    ]
    write_text(path, "\n".join(lines) + "\n")  # atomic: a killed rebuild leaves the old corpus
