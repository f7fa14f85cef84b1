"""The holdout side of the loop, set up in one place: a verifier that receives only an accepted
instance's canonical JSON and its digest, and whose reports never reach the strategy.

:func:`shared_holdout` is the one set-up every loop driver uses: one holdout per verifier,
settings and thread, started on first use and reused by every loop of the process after (a fresh
Python process with numpy and python-sat costs hundreds of milliseconds, so it is started once
per run, not once per puzzle). The loop driver asks for it in its own process
(``process=False``: an :class:`InlineHoldout`), because it runs the strategy and the filter in
a loop process of their own (:mod:`puzzlekit.loop.isolation`); a :class:`WorkerHoldout` (a
long-lived process of its own) is there for callers that run a loop beside the holdout. Either
one sees only bytes and a digest, checks the digest before verifying and checks that the
verifier left its input, its cached bytes and the registries unchanged.

Not for: running loops (:mod:`puzzlekit.loop.driver`) or choosing backends
(:mod:`puzzlekit.verifiers.registry`).
"""

from __future__ import annotations

import atexit
import json
import multiprocessing as mp
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from puzzlekit.core.model import Clue, Instance, sha256_digest
from puzzlekit.core.report import VerifierReport


def instance_state(instance: Instance) -> str:
    """The instance's content, serialized afresh: no cached bytes, so a mutation shows."""
    return json.dumps(instance.to_json_obj(), sort_keys=True, default=repr)


def registry_state() -> dict[Any, Any]:
    """What an evaluation must leave as it found it: which object every name of every registry
    is bound to, and the content of every registered tool's input schema. Compare two with
    :func:`registry_kept` (names loaded meanwhile are allowed, nothing else)."""
    from puzzlekit.core.plugins import registries_state
    from puzzlekit.families.tools import tools_state

    return {**registries_state(), **{("tool-schema", k): v for k, v in tools_state().items()}}


def registry_kept(before: Mapping[Any, Any], after: Mapping[Any, Any]) -> bool:
    """True when every binding of ``before`` is in ``after`` unchanged."""
    return all(after.get(k, _MISSING) == v for k, v in before.items())


_MISSING = object()


#: the status of a loop whose holdout changed its input or a registry: no holdout verdict
CONTAMINATED_HOLDOUT = "contaminated-holdout"


class HoldoutContaminated(Exception):
    """The holdout verifier changed its input or a registry while judging: its verdict is void.
    The loop driver records the loop as ``contaminated-holdout`` and the run goes on."""


#: the content of material read lately, by its bytes, and whether the bytes are that content's
#: fresh serialization (:func:`read_material`)
_READ: dict[bytes, tuple[tuple[str, tuple[tuple[str, Any], ...], tuple[Any, ...]], bool]] = {}


def read_material(canonical: bytes) -> Instance:
    """The instance of canonical JSON bytes, a new object each time: the bytes are read through
    the reading boundary (:meth:`Instance.from_json`) once and their content remembered, so
    that the same bytes read again in this process (the loop outcome, then the holdout's
    material) cost no second reading. Content is immutable (frozen tuples all the way down),
    so sharing it shares nothing a verifier could change; every object is new (no cache)."""
    return read_checked(canonical)[0]


def read_checked(canonical: bytes) -> tuple[Instance, bool]:
    """:func:`read_material`, and whether ``canonical`` is the instance's fresh canonical
    serialization (:meth:`~puzzlekit.core.model.Instance.fresh_canonical_json`), computed from
    the content on the first reading only: the content is immutable, so the answer holds for
    every object made from it. Where it does, the new object keeps the bytes as its canonical
    bytes (:meth:`~puzzlekit.core.model.Instance.keep_fresh`)."""
    canonical = bytes(canonical)
    known = _READ.get(canonical)
    if known is None:
        instance = Instance.from_json(canonical)
        content = instance.content()
        same = instance.fresh_canonical_json() == canonical
        if len(_READ) >= 256:
            _READ.clear()
        _READ[canonical] = (content, same)
    else:
        (family, params, clues), same = known
        instance = Instance(family, params, tuple(Clue(*c) for c in clues))
    if same:
        instance.keep_fresh(canonical)
    return instance, same


def _check_material(verifier: Any, canonical: bytes, digest: str, cap: int) -> dict[str, Any]:
    if sha256_digest(canonical) != digest:
        raise ValueError(f"holdout material does not match its digest {digest}")
    instance, canonical_form = read_checked(canonical)
    if not canonical_form:
        raise ValueError(f"holdout material {digest} is not in canonical form")
    before = canonical
    content = instance.content()
    registries = registry_state()
    report = verifier.verify(instance, solution_cap=cap)
    same = instance.content() == content
    # the content as it was: its fresh bytes are those computed before the call
    fresh = before if same else instance.fresh_canonical_json()
    if (
        not same
        or sha256_digest(fresh) != digest
        or not instance.cache_intact(fresh)
        or report.instance_digest != digest
        or not registry_kept(registries, registry_state())
    ):
        raise HoldoutContaminated(f"holdout verifier changed its input or a registry on {digest}")
    return report.to_json_obj()


_WARNED: set[str] = set()


def judge(
    holdout: Any, instance: Instance, cap: int, material: bytes | None = None
) -> tuple[VerifierReport | None, float]:
    """The holdout's report on ``instance`` and its wall time; ``None`` when the holdout
    changed its input or a registry (one line on stderr names it; the run goes on). The material
    handed over is serialized afresh from the content, never from a cache; ``material``: those
    bytes, when the caller has just checked them against a fresh serialization (a loop
    outcome read at the process boundary, :attr:`~puzzlekit.loop.driver.LoopResult.received`)."""
    if material is None:
        material = instance.fresh_canonical_json()
    h0 = time.perf_counter()
    try:
        report: VerifierReport | None = holdout.check(material, sha256_digest(material), cap)
    except HoldoutContaminated as exc:
        name = str(getattr(holdout, "name", "holdout"))
        if name not in _WARNED:  # one line per holdout; every such loop is in the rows
            _WARNED.add(name)
            print(
                f"puzzlekit: holdout {name}: {exc}; the loop is recorded as "
                f"{CONTAMINATED_HOLDOUT} (so is every later one) and the run goes on",
                file=sys.stderr,
            )
        report = None
    return report, time.perf_counter() - h0


class InlineHoldout:
    """A holdout in this process (tests, debugging); it still sees only bytes and a digest."""

    def __init__(self, verifier: Any) -> None:
        self._verifier = verifier
        self.name = getattr(verifier, "name", "holdout")

    def check(self, canonical: bytes, digest: str, solution_cap: int) -> VerifierReport:
        return VerifierReport.from_json_obj(
            _check_material(self._verifier, bytes(canonical), digest, solution_cap)
        )

    def close(self) -> None:
        return None


def _worker_main(
    conn: Any,
    factory: Callable[[], Any],
    plugins: Sequence[str] = (),
    parent: Any = None,
    keep_out: bool = False,
) -> None:
    from puzzlekit.core.lifeline import follow_parent
    from puzzlekit.core.plugins import PluginError, judge_without_plugins, use_plugins
    from puzzlekit.loop.sandbox import not_dumpable

    if parent is not None:
        follow_parent(parent)  # ends with the loop's process, leaves Ctrl-C to it
    not_dumpable()  # its memory, environment and descriptors closed to the loop process
    if keep_out:  # its judging process keeps plugins out: so does it (entry points too)
        judge_without_plugins()
    failed = None
    try:
        use_plugins(plugins)  # before the factory: it may name a plugin's verifier
    except PluginError as exc:
        failed = str(exc)
    verifier = factory() if failed is None else None
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the loop's process closed its end or died
            return
        if msg is None:
            break
        out: tuple[str, Any] = ("error", failed)
        if failed is None:
            canonical, digest, cap = msg
            try:
                out = ("ok", _check_material(verifier, canonical, digest, cap))
            except HoldoutContaminated as exc:
                out = ("contaminated", str(exc))
            except Exception as exc:  # reported to the parent, which raises it there
                out = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(out)
        except OSError:  # the loop's process is gone
            return
    conn.close()


class WorkerHoldout:
    """A holdout verifier in its own long-lived process, started once and reused.

    ``factory`` must be picklable (a module-level function or ``functools.partial``); it builds
    the verifier inside the worker, so no verifier object is shared with the loop's process.
    ``plugins``: modules the worker imports first (default: the ones loaded per use in this
    process, never those a judging process keeps out), so a plugin's verifier, family or tool
    is seen there too.
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        name: str = "holdout",
        plugins: Sequence[str] | None = None,
    ) -> None:
        from puzzlekit.core.lifeline import in_lasting_thread, parent_token, sigint_ignored
        from puzzlekit.core.plugins import judging, loaded_plugins

        self.name = name
        loaded = [r.module for r in loaded_plugins() if r.source == "per-use"]
        modules = tuple(loaded if plugins is None else plugins)
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        keep_out = judging()

        def launch() -> Any:  # from a thread that lasts as long as this process
            args = (child, factory, modules, parent_token(), keep_out)
            proc = ctx.Process(target=_worker_main, args=args, daemon=True)
            with sigint_ignored():
                proc.start()
            return proc

        self._proc = in_lasting_thread(launch)
        child.close()

    def check(self, canonical: bytes, digest: str, solution_cap: int) -> VerifierReport:
        self._conn.send((bytes(canonical), digest, solution_cap))
        status, payload = self._conn.recv()
        if status == "contaminated":
            raise HoldoutContaminated(payload)
        if status != "ok":
            raise RuntimeError(f"holdout worker failed: {payload}")
        return VerifierReport.from_json_obj(payload)

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def close(self) -> None:
        if self._proc.is_alive():
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            self._proc.join(timeout=5)
            if self._proc.is_alive():  # past its time: it and everything under it
                from puzzlekit.core.lifeline import end_tree

                end_tree(self._proc.pid)
                self._proc.join(timeout=5)

    def __enter__(self) -> WorkerHoldout:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def build_verifier(name: str, settings: Mapping[str, Any]) -> Any:
    """The verifier ``name`` with ``settings``, built where it is called (inside the worker)."""
    from puzzlekit.verifiers.registry import get_verifier

    return get_verifier(name, **settings)


_SHARED: dict[str, Any] = {}
_AT_EXIT: list[bool] = []


def close_holdouts() -> None:
    """Close every shared holdout of this process (also done at exit)."""
    for holdout in _SHARED.values():
        holdout.close()
    _SHARED.clear()


def shared_holdout(
    name: str, settings: Mapping[str, Any] | None = None, process: bool = True
) -> Any:
    """This process's (and thread's) holdout ``name`` with ``settings``: started on first use,
    reused after; see the module docstring for where it runs."""
    settings = dict(settings or {})
    # one per thread too: a holdout's pipe serves one caller at a time (threaded Dask workers)
    ident = [name, settings, process, threading.get_ident()]
    key = json.dumps(ident, sort_keys=True, default=repr)
    holdout = _SHARED.get(key)
    if holdout is None:
        factory = partial(build_verifier, name, settings)
        if process and not mp.current_process().daemon:
            holdout = WorkerHoldout(factory, name)
        else:
            holdout = InlineHoldout(factory())
        if not _AT_EXIT:
            atexit.register(close_holdouts)
            _AT_EXIT.append(True)
        _SHARED[key] = holdout
    return holdout
