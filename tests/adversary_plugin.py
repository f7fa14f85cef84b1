"""A plugin module for the isolation tests: a strategy that plays the adversary.

``adversary`` is the adaptive strategy plus a search for the holdout at the start of every loop
(so also for what earlier loops left behind): it walks the call frames (``sys._getframe``),
scans every object ``gc`` tracks, reads every module's globals and every registry's entries,
looking for a holdout object (anything with a ``check`` whose class calls itself a holdout) or
a holdout's report (a report by the ``enumerative`` verifier, the holdout of the tests, or a
loop result carrying one). It queries any holdout it finds with its own candidate. It appends
what it found, with its process id, as one JSON line to the file named by ``PK_ADVERSARY_LOG``.

The tests name this module as a plugin (``plugins = ["tests.adversary_plugin"]`` or
``use_plugins``), so it is registered in whichever process runs the strategy. Not a test module.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from typing import Any

from puzzlekit.core.report import VerifierReport
from puzzlekit.generators import STRATEGIES, register_strategy
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.loop.driver import LoopResult

#: the file the findings go to (one JSON line per search)
LOG_ENV = "PK_ADVERSARY_LOG"
#: the holdout verifier of the tests' configs
HOLDOUT = "enumerative"


def _holdout_like(obj: Any) -> bool:
    try:
        return "Holdout" in type(obj).__name__ and callable(getattr(obj, "check", None))
    except Exception:
        return False


def _holdout_report(obj: Any) -> bool:
    if isinstance(obj, LoopResult):
        return obj.holdout_report is not None
    if isinstance(obj, VerifierReport):
        return obj.source.get("verifier") == HOLDOUT
    return False


def _frames(found: list[str], holdouts: list[Any]) -> None:
    frame = sys._getframe(1)
    while frame is not None:
        for name, value in list(frame.f_locals.items()):
            if _holdout_like(value):
                found.append(f"frame {frame.f_code.co_name}:{name}")
                holdouts.append(value)
            elif _holdout_report(value):
                found.append(f"frame report {frame.f_code.co_name}:{name}")
        frame = frame.f_back


_PLAIN = {dict, list, tuple, set, str, bytes, int, float, type(_holdout_like)}


def _gc(found: list[str], holdouts: list[Any]) -> None:
    for obj in gc.get_objects():
        if type(obj) in _PLAIN:
            continue
        if _holdout_like(obj):
            found.append(f"gc {type(obj).__name__}")
            holdouts.append(obj)
        elif _holdout_report(obj):
            found.append(f"gc report {type(obj).__name__}")


def _globals(found: list[str], holdouts: list[Any]) -> None:
    for mod_name, mod in list(sys.modules.items()):
        try:
            items = list(vars(mod).items())
        except TypeError:
            continue
        for name, value in items:
            values = list(value.values()) if isinstance(value, dict) else [value]
            for v in values:
                if _holdout_like(v):
                    found.append(f"global {mod_name}.{name}")
                    holdouts.append(v)
                elif _holdout_report(v):
                    found.append(f"global report {mod_name}.{name}")


def _registries(found: list[str], holdouts: list[Any]) -> None:
    from puzzlekit.core import plugins

    for registry in plugins._REGISTRIES:
        for name, obj in registry.snapshot():
            if _holdout_like(obj):
                found.append(f"registry {registry.kind}:{name}")
                holdouts.append(obj)


def snoop(instance: Any, where: str) -> dict[str, Any]:
    """Search this process for the holdout and its reports; query what is found."""
    found: list[str] = []
    holdouts: list[Any] = []
    _frames(found, holdouts)
    _gc(found, holdouts)
    _globals(found, holdouts)
    _registries(found, holdouts)
    queried = []
    material = instance.canonical_json()
    for h in {id(h): h for h in holdouts}.values():
        try:
            queried.append(h.check(material, instance.digest, 2).verdict.value)
        except Exception as exc:
            queried.append(f"error {type(exc).__name__}")
    out = {"pid": os.getpid(), "where": where, "found": sorted(set(found)), "queried": queried}
    path = os.environ.get(LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(out) + "\n")
    return out


class Adversary(Adaptive):
    """The adaptive strategy, searching for the holdout as it goes."""

    name = "adversary"

    def start(self, schema: Any, rng: Any) -> Any:
        step = super().start(schema, rng)
        snoop(step.instance, "start")
        return step


if "adversary" not in STRATEGIES:
    register_strategy("adversary", Adversary)


class SurfaceEditor(Adaptive):
    """The adaptive strategy, editing each report it reads behind its read-only surface once it
    has chosen its move (so its moves are adaptive's): ``dict.__setitem__`` on the stats and on
    a solution, ``object.__setattr__`` on the frozen report."""

    name = "surface-editor"

    def propose(self, step: Any, report: Any, rng: Any) -> Any:
        nxt = super().propose(step, report, rng)
        dict.__setitem__(report.stats, "nodes", -1)
        if report.solutions:
            dict.__setitem__(report.solutions[0], next(iter(report.solutions[0])), 99)
        object.__setattr__(report, "solution_count", 77)
        return nxt


if "surface-editor" not in STRATEGIES:
    register_strategy("surface-editor", SurfaceEditor)
