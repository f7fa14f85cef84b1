"""Checkpoints of a ledger: ``(seq, entry_hash)`` held apart from the ledger to compare later.

A checkpoint file is small JSON (``format``, ``v``, ``seq``, ``entry_hash``, and the informative
``ledger`` and ``exported_at``); :func:`read_checkpoint` reads it through the reading boundary
(size bounded, UTF-8, nesting and integers checked) and checks every field.

Not for: the chain itself (:mod:`puzzlekit.audit.ledger`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from puzzlekit.core.files import write_text
from puzzlekit.core.reading import ReadError, load_json_file

FORMAT_VERSION = 1
GENESIS = "sha256:" + "0" * 64
CHECKPOINT_FORMAT = "puzzlekit-ledger-checkpoint"
_HASH_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
#: a checkpoint is a few hundred bytes; a file far larger is not one (``/dev/zero`` included)
MAX_CHECKPOINT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Checkpoint:
    """A position in a chain, ``(seq, entry_hash)``, held apart from the ledger to compare later.

    Seq 0 with :data:`GENESIS` is the checkpoint of an empty ledger.
    """

    seq: int
    entry_hash: str

    def __post_init__(self) -> None:
        if isinstance(self.seq, bool) or not isinstance(self.seq, int) or self.seq < 0:
            raise ValueError(f"checkpoint seq must be a non-negative integer, got {self.seq!r}")
        if not isinstance(self.entry_hash, str) or not _HASH_RE.match(self.entry_hash):
            raise ValueError(
                f"checkpoint entry_hash must be sha256:<64 hex>, got {self.entry_hash!r}"
            )

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "format": CHECKPOINT_FORMAT,
            "v": FORMAT_VERSION,
            "seq": self.seq,
            "entry_hash": self.entry_hash,
        }

    @classmethod
    def from_json_obj(cls, obj: Any) -> Checkpoint:
        """A checkpoint as :meth:`to_json_obj` (and :func:`write_checkpoint`) write it: every
        field checked, ``format`` and ``v`` these of this version, ``ledger`` and ``exported_at``
        strings if present, no other field."""
        if not isinstance(obj, Mapping) or "seq" not in obj or "entry_hash" not in obj:
            raise ValueError("a checkpoint is a JSON object with seq and entry_hash")
        if obj.get("format", CHECKPOINT_FORMAT) != CHECKPOINT_FORMAT:
            raise ValueError(
                f"checkpoint format must be {CHECKPOINT_FORMAT!r}, got {obj['format']!r}"
            )
        version = obj.get("v", FORMAT_VERSION)
        if isinstance(version, bool) or version != FORMAT_VERSION:
            raise ValueError(f"checkpoint v must be {FORMAT_VERSION}, got {version!r}")
        for key in ("ledger", "exported_at"):
            if key in obj and not isinstance(obj[key], str):
                raise ValueError(f"checkpoint {key} must be a string, got {obj[key]!r}")
        unknown = sorted(set(obj) - _CHECKPOINT_FIELDS)
        if unknown:
            raise ValueError(f"checkpoint field {unknown[0]!r} is not one of a checkpoint")
        return cls(obj["seq"], obj["entry_hash"])


_CHECKPOINT_FIELDS = frozenset({"format", "v", "seq", "entry_hash", "ledger", "exported_at"})


# --- checkpoint files -----------------------------------------------------------------------


def write_checkpoint(path: str | os.PathLike[str], checkpoint: Checkpoint, **extra: Any) -> None:
    """Write ``checkpoint`` as a small JSON file (``extra`` adds informative fields)."""
    obj = {**checkpoint.to_json_obj(), **extra}
    write_text(path, json.dumps(obj, indent=2) + "\n")


def read_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a checkpoint file; raises ``OSError`` or ``ValueError`` saying what is wrong."""
    try:
        obj = load_json_file(path, MAX_CHECKPOINT_BYTES)
    except ReadError as exc:
        raise ValueError(f"{path}: {exc.detail}") from None
    try:
        return Checkpoint.from_json_obj(obj)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
