"""Seals: the digest of every file a directory holds, so a change made outside the command that
owns the files shows.

A seal is a mapping of file name (relative, ``/``-separated) to ``"sha256:" + hex`` of the
file's bytes. Golden corpora keep theirs in ``SEAL.json`` beside the corpora (written by
``puzzlekit regress --update``); a run directory keeps its in ``manifest.json`` and in the
ledger's ``run-end`` entry (checked by ``puzzlekit report --check``).

Not for: the digest of an instance or a report (content digests, :mod:`puzzlekit.core.model`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

#: the seal file of a golden corpus directory
SEAL_FILE = "SEAL.json"


def file_digest(path: str | Path) -> str:
    """``"sha256:" + hex`` of the file's bytes, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def seal_files(directory: str | Path, names: Iterable[str]) -> dict[str, str]:
    """The seal of ``names`` (relative to ``directory``), sorted by name."""
    root = Path(directory)
    return {name: file_digest(root / name) for name in sorted(names)}


def seal_problems(
    directory: str | Path, sealed: Mapping[str, str], present: Iterable[str] | None = None
) -> list[str]:
    """What differs between ``sealed`` and the files of ``directory``: one line per file that
    changed, is missing, or (among ``present``, when given) is not in the seal. Empty: intact."""
    root = Path(directory)
    problems = []
    for name, digest in sorted(sealed.items()):
        path = root / name
        if not path.is_file():
            problems.append(f"{path}: sealed but missing")
        elif file_digest(path) != digest:
            problems.append(f"{path}: changed since it was sealed")
    for name in sorted(set(present or ()) - set(sealed)):
        problems.append(f"{root / name}: not in the seal")
    return problems
