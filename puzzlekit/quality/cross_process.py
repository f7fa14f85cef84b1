"""check_family's cross-process step: a fresh Python process (another hash seed) must rebuild the
same sample instances and the same reference report digests from the same seed.

Holdout verifiers run in their own worker process, so a family whose instances depend on
``hash()`` of strings, set iteration or ``id()`` would give the holdout other puzzles than the
filter saw. Not for: checking anything within one process (``family_steps``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import SpecError
from puzzlekit.core.report import VerifierReport
from puzzlekit.families import get_family
from puzzlekit.quality.contract import Checker
from puzzlekit.quality.sampling import Sample, sample_instances
from puzzlekit.quality.verifying import REFERENCE

_CHILD = """
import json, sys
sys.path[:0] = {paths!r}
from puzzlekit.quality.cross_process import fingerprint
print(json.dumps(fingerprint({module!r}, {qualname!r}, {name!r}, {params!r}, {seed!r}, {cap!r})))
"""


def fingerprint(
    module: str, qualname: str, name: str, params: dict[str, Any], seed: int, cap: int
) -> dict[str, Any]:
    """Instance digests of ``sample_instances(n=1)`` and the reference report digest of the first
    two, computed in whatever process calls it (used by the cross-process check)."""
    import importlib

    from puzzlekit.families import register_family
    from puzzlekit.verifiers.registry import get_verifier

    mod = importlib.import_module(module)
    cls: Any = mod
    for part in qualname.split("."):
        cls = getattr(cls, part)
    try:
        fam = get_family(name)
    except SpecError:
        fam = None
    if type(fam) is not cls:
        fam = register_family(cls(), replace=True)
    samples = sample_instances(fam, params, seed=seed, n=1)
    ref = get_verifier(REFERENCE)
    return {
        "instances": [s.instance.digest for s in samples],
        "reports": [ref.verify(s.instance, solution_cap=cap).digest() for s in samples[:2]],
    }


def check_cross_process(
    ck: Checker,
    fam: protocols.Family,
    params: Mapping[str, Any],
    seed: int,
    samples: Sequence[Sample],
    ref_reports: Mapping[str, VerifierReport],
    cap: int,
) -> None:
    cls = type(fam)
    if cls.__module__ == "__main__" or "<locals>" in cls.__qualname__:
        ck.note(
            f"family class {cls.__qualname__} is defined in {cls.__module__!r} or a function, so a "
            "fresh process cannot import it: cross-process digest check skipped"
        )
        return
    mine_samples = [s for s in samples if s.label.startswith(f"seed{seed}.0.")]
    mine = {
        "instances": [s.instance.digest for s in mine_samples],
        "reports": [ref_reports[s.label].digest() for s in mine_samples[:2]],
    }
    code = _CHILD.format(
        paths=[p for p in sys.path if p],
        module=cls.__module__,
        qualname=cls.__qualname__,
        name=fam.info.name,
        params=dict(params),
        seed=seed,
        cap=cap,
    )
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        ck.fail(
            "cross-process",
            f"a fresh Python process could not rebuild the sample instances: {tail[0]}. A family "
            f"must be importable from {cls.__module__} in a new process (holdout verifiers run "
            "in their own worker process).",
        )
        return
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    if theirs["instances"] != mine["instances"]:
        ck.fail(
            "cross-process",
            "a fresh Python process (another hash seed) built instances with other digests from "
            "the same seed; clues_from_solution(), schema() and parse must not depend on set "
            "iteration, id() or hash() of strings.",
        )
    elif theirs["reports"] != mine["reports"]:
        ck.fail(
            "cross-process",
            "a fresh Python process computed other report digests for the same instances; "
            "the report content must not depend on the process (sort what comes from sets).",
        )
