"""check_family's identity step: an instance read back from any of its forms has its digest.

For every instance checked (the sampled ones, then the generated ones), under ``code``
(``identity``, ``identity-generated``):

- its one-line text (``format_text``, when the family has one) read back with ``parse_text``;
- its JSON with the clues shuffled (a seeded shuffle, so a failure is reproducible) read back
  with ``Instance.from_json``

give the instance's digest. Clues are held in one canonical order by id
(:mod:`puzzlekit.core.identity`), so a mismatch means the family names one clue differently on
two paths (an id from the place a clue was read at, a suffix added on one path only), or reads
a clue's data or coordinates back otherwise than it wrote them.

Not for: the round trip of the clues themselves (``round-trip``, which names the clues lost or
gained) or symmetry classes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from puzzlekit.core import protocols
from puzzlekit.core.model import Instance
from puzzlekit.quality.contract import Checker, describe, where
from puzzlekit.quality.sampling import Sample


def shuffled_json(instance: Instance, rng: np.random.Generator) -> str:
    """``instance``'s JSON with its clues in an order drawn from ``rng``."""
    obj = instance.to_json_obj()
    clues = obj["clues"]
    obj["clues"] = [clues[i] for i in rng.permutation(len(clues))]
    return json.dumps(obj)


def read_back_digests(
    fam: protocols.Family, instance: Instance, rng: np.random.Generator
) -> dict[str, str | Exception]:
    """The digest of ``instance`` read back from each of its forms (``text`` when the family
    has a text format, ``json`` with shuffled clues); an exception when reading one raised."""
    out: dict[str, str | Exception] = {}
    try:
        text = fam.format_text(instance)
    except NotImplementedError:
        text = None
    except Exception as exc:
        out["text"] = exc
        text = None
    if text is not None:
        try:
            out["text"] = fam.parse_text(text, instance.params_dict()).digest
        except Exception as exc:
            out["text"] = exc
    try:
        out["json"] = Instance.from_json(shuffled_json(instance, rng)).digest
    except Exception as exc:
        out["json"] = exc
    return out


def check_identity(
    ck: Checker, fam: protocols.Family, samples: Sequence[Sample], seed: int, code: str = "identity"
) -> None:
    """Every sample's text and shuffled JSON read back to its digest (the module docstring)."""
    rng = np.random.default_rng([seed, 27])
    for s in samples:
        inst = s.instance
        for form, got in read_back_digests(fam, inst, rng).items():
            if got == inst.digest:
                continue
            what = "its text line" if form == "text" else "its JSON with the clues shuffled"
            if isinstance(got, Exception):
                said = f"reading {what} back raised {type(got).__name__}: {got}{where(got)}"
            else:
                said = f"{what} reads back to {got[:19]}…"
            ck.fail(
                code,
                f"{describe(inst, s.label)}: {said}; one puzzle must have one digest whatever "
                "form it is read from. Give every clue an id that names what it says (r3c5, "
                "cage-r1c1, row4), the same on every path, and read data and coordinates back "
                "as written.",
            )
