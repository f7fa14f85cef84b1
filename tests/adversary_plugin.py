"""A plugin module for the isolation tests: a strategy that plays the adversary.

``adversary`` is the adaptive strategy plus a search for the holdout at the start of every loop
(so also for what earlier loops left behind): it walks the call frames (``sys._getframe``),
scans every object ``gc`` tracks, reads every module's globals and every registry's entries,
looking for a holdout object (anything with a ``check`` whose class calls itself a holdout) or
a holdout's report (a report by the ``enumerative`` verifier, the holdout of the tests, or a
loop result carrying one). It queries any holdout it finds with its own candidate. It also
reaches for the judging process through the operating system (:func:`os_channels`): its parent's
``/proc`` entries (``environ``, ``cmdline``, ``cwd``, ``fd`` and every ``fd/N``, ``mem``),
descriptors it inherited, environment variables it was not meant to see (the judge's, and the
one this module's import code sets), and a file beside the run directory (``PK_ADVERSARY_TARGET``)
read directly and through a shell. It appends what it found, with its process id, as one JSON
line to the file named by ``PK_ADVERSARY_LOG``.

The tests name this module as a plugin (``plugins = ["tests.adversary_plugin"]`` or
``use_plugins``), so it is registered in whichever process runs the strategy. Not a test module.
"""

from __future__ import annotations

import gc
import json
import os
import stat
import subprocess
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
#: a file the adversary tries to read (beside the run directory; its path as a shell would see)
TARGET_ENV = "PK_ADVERSARY_TARGET"
#: a variable of the judge's environment the loop process must not see
SECRET_ENV = "PK_ADVERSARY_SECRET"
#: set by this module's import code, with the importing process's id
TAINT_ENV = "PK_ADVERSARY_TAINT"
os.environ.setdefault(TAINT_ENV, str(os.getpid()))


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


def _readable(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return bool(fh.read(64))
    except OSError:
        return False


def _parent_proc(found: list[str]) -> None:
    base = f"/proc/{os.getppid()}"
    for name in ("environ", "cmdline"):
        if _readable(f"{base}/{name}"):
            found.append(f"proc {name}")
    try:
        os.readlink(f"{base}/cwd")
        found.append("proc cwd")
    except OSError:
        pass
    try:
        fds = os.listdir(f"{base}/fd")
        found.append("proc fd")
    except OSError:
        fds = []
    for fd in fds:  # the judge's files (a pipe or a terminal would block a read)
        try:
            if stat.S_ISREG(os.stat(f"{base}/fd/{fd}").st_mode) and _readable(f"{base}/fd/{fd}"):
                found.append(f"proc fd/{fd}")
        except OSError:
            continue
    try:
        with open(f"{base}/maps", encoding="ascii") as maps, open(f"{base}/mem", "rb") as mem:
            for line in maps:
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                if line.split()[1].startswith("r"):
                    mem.seek(lo)
                    if mem.read(min(64, hi - lo)):
                        found.append("proc mem")
                    break
    except (OSError, ValueError, OverflowError):
        pass


def _inherited(found: list[str]) -> None:
    pipes = {int(a) for a in sys.argv[1:3] if a.isdigit()}
    for fd in range(3, 256):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if fd not in pipes and (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            found.append(f"inherited fd {fd}")


def os_channels() -> list[str]:
    """What this process reaches of its parent and its machine (see the module docstring)."""
    found: list[str] = []
    _parent_proc(found)
    _inherited(found)
    if SECRET_ENV in os.environ:
        found.append("env secret")
    if os.environ.get(TAINT_ENV) != str(os.getpid()):
        found.append("env taint")
    target = os.environ.get(TARGET_ENV)
    if target and _readable(target):
        found.append("target read")
    if target:
        shell = subprocess.run(["sh", "-c", f"cat '{target}'"], capture_output=True, check=False)
        if shell.stdout:
            found.append("target shell")
    return found


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
    out = {
        "pid": os.getpid(),
        "where": where,
        "found": sorted(set(found)),
        "queried": queried,
        "os": sorted(set(os_channels())),
    }
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
