"""The verifier registry: backends by name, and which backend suits which instance.

Built-ins register here on the first lookup; third parties register their own with
:func:`register_verifier`, from their own package (entry point ``puzzlekit.plugins``) or a module
named per use (``--plugin``), see :mod:`puzzlekit.core.plugins`. The CLI, experiments and the loop
name a backend by its registered name (``"enumerative"``, ``"sat"``, ...).

:func:`get_verifier` builds a new verifier; :func:`kept_verifier` lends one kept for the life of
the process per name and settings (``pk.verify``, the CLI, the MCP worker), so that a one-shot
verification does not rebuild what a verifier keeps (the sat backend's per-schema solver).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from puzzlekit.core import deadline, protocols
from puzzlekit.core.deadline import BudgetExceeded
from puzzlekit.core.jsondata import freeze
from puzzlekit.core.model import Instance
from puzzlekit.core.plugins import Registry
from puzzlekit.families import FAMILIES, get_family
from puzzlekit.families.grid import GridLine

#: the built-in backends, each imported on its first lookup (a Sudoku never imports pysat)
BUILTIN: dict[str, str] = {
    "enumerative": "puzzlekit.verifiers.enumerative:EnumerativeVerifier",
    "sat": "puzzlekit.verifiers.sat.backend:SatVerifier",
    "bitmask": "puzzlekit.verifiers.bitmask.backend:BitmaskVerifier",
    "sampling": "puzzlekit.verifiers.approximate:SamplingVerifier",
    "budgeted": "puzzlekit.verifiers.approximate:BudgetedVerifier",
    "faulty": "puzzlekit.verifiers.approximate:FaultyVerifier",
    "gametree": "puzzlekit.verifiers.gametree:GameTreeVerifier",
    "minimax": "puzzlekit.verifiers.gametree:MinimaxVerifier",
    "alphabeta": "puzzlekit.verifiers.gametree:AlphaBetaVerifier",
    "oracle": "puzzlekit.verifiers.oracle:OracleVerifier",
    "oracle-plain": "puzzlekit.verifiers.oracle_plain:PlainOracleVerifier",
}

#: verifier factories by name: ``factory(**settings)`` gives a new verifier
VERIFIERS: Registry[Callable[..., protocols.Verifier]] = Registry("verifier", entries=BUILTIN)


def register_verifier(
    name: str, factory: Callable[..., protocols.Verifier], *, replace: bool = False
) -> Callable[..., protocols.Verifier]:
    """Make ``factory(**settings)`` available as verifier ``name`` (never hides a built-in);
    TypeError when ``factory`` is not callable."""
    if not callable(factory):
        raise TypeError(f"verifier {name!r}: the factory must be callable, got {factory!r}")
    return VERIFIERS.register(name, factory, replace=replace)


def verifier_names() -> list[str]:
    """Every registered verifier, built-ins and plugins."""
    return VERIFIERS.names()


def get_verifier(name: str, **settings: Any) -> protocols.Verifier:
    """A new verifier ``name`` with ``settings``; :class:`~puzzlekit.core.plugins.UnknownName`
    (a LookupError naming the closest known names) otherwise."""
    return VERIFIERS.get(name)(**settings)


#: how many (name, settings) the process keeps verifiers for; the least recently used is dropped
KEPT_KEYS = 16
#: idle verifiers kept per (name, settings): as many threads can verify at once without building
KEPT_IDLE = 4

_kept_lock = threading.Lock()
_NO_SETTINGS = freeze({})
_kept: OrderedDict[Any, list[protocols.Verifier]] = OrderedDict()


class kept_verifier:  # noqa: N801 - a context manager called as a function
    """Lend a verifier ``name`` with ``settings`` kept for the life of the process
    (``with kept_verifier(name) as verifier: ...``).

    A verifier is used by one thread at a time (the sat backend is not thread-safe): each
    borrower takes an idle one, or a new one when all are lent out, and gives it back after.
    Kept: up to :data:`KEPT_IDLE` idle verifiers per (name, factory, settings) and
    :data:`KEPT_KEYS` keys, least recently used dropped (memory stays bounded). The factory is
    part of the key, so a name registered again (``replace=True``) gets new verifiers; settings
    that cannot be hashed get a verifier that is not kept. (A class rather than a generator:
    ``pk.verify`` borrows one per call.)
    """

    __slots__ = ("_key", "_name", "_settings", "_verifier")

    def __init__(self, name: str, **settings: Any) -> None:
        self._name = name
        self._settings = settings

    def __enter__(self) -> protocols.Verifier:
        settings = self._settings
        factory = VERIFIERS.get(self._name)
        try:
            key: Any = (self._name, factory, freeze(settings) if settings else _NO_SETTINGS)
            hash(key)
        except TypeError:
            key = None
        verifier = None
        if key is not None:
            with _kept_lock:
                idle = _kept.get(key)
                if idle:
                    verifier = idle.pop()
        if verifier is None:
            verifier = factory(**settings)
        self._key, self._verifier = key, verifier
        return verifier

    def __exit__(self, *exc: object) -> None:
        key = self._key
        if key is not None:
            with _kept_lock:
                idle = _kept.setdefault(key, [])
                _kept.move_to_end(key)
                if len(idle) < KEPT_IDLE:
                    idle.append(self._verifier)
                while len(_kept) > KEPT_KEYS:
                    _kept.popitem(last=False)


def drop_kept() -> None:
    """Forget every kept verifier (tests; a process that wants the memory back)."""
    with _kept_lock:
        _kept.clear()
        _LINE_CHOICE.clear()  # its entries lend from the pools just dropped


#: The general exact backends the default choice asks, most preferred first; the first whose
#: ``accepts`` takes the instance verifies it. ``bitmask``: the compiled search, for rules made
#: of all-different units and what compiles beside them (measured faster than ``sat`` on the
#: built-in families it takes, README "Performance"); ``sat``: CDCL, every constraint but
#: ``Predicate``; ``enumerative``: the reference, every constraint. A family that names its own
#: backend (:attr:`~puzzlekit.core.protocols.Family.default_verifier`: games ``gametree``, tool
#: calls ``oracle``) is not asked about; a plugin's verifier is never a default choice (name
#: it). This order is the only place the default backend is decided.
PREFERENCE: tuple[str, ...] = ("bitmask", "sat", "enumerative")

#: one verifier per (name, factory) whose ``accepts`` the choice asks (never used to verify)
_judges: dict[tuple[str, Any], protocols.Verifier] = {}


def _declared(family: str) -> str | None:
    """The backend ``family`` names as its own (None: none, or an unknown family)."""
    from puzzlekit.core.model import SpecError

    try:
        own = get_family(family).info.default_verifier
    except SpecError:
        return None
    return own if own in VERIFIERS else None


def _accepts(name: str, instance: Instance) -> bool:
    factory = VERIFIERS.get(name)
    judge = _judges.get((name, factory))
    if judge is None:
        judge = _judges.setdefault((name, factory), factory())
    return bool(judge.accepts(instance))


def default_verifier_name(instance: Instance, seconds: float | None = None) -> str:
    """The backend that verifies ``instance`` unless one is named: the family's own
    ``default_verifier`` if it names one, else the first backend of :data:`PREFERENCE` that
    accepts the instance (``bitmask`` where its rules are all-different units and its rules
    and clues compile, else ``sat`` where encodable, else ``enumerative``). Choosing reads the
    clues (a large KenKen cage's tuples, a table compiled): given ``seconds``
    (:func:`choice_seconds` of the verification's budget) a choice that takes longer is
    ``enumerative``, which takes every constraint and stops on its own budget."""
    own = _declared(instance.family)
    if own is not None:
        return own
    key = _by_schema_key(instance)
    if key is not None:
        found = _BY_SCHEMA.get(key)
        if found is not None and found[1] is VERIFIERS.get(found[0]):
            return found[0]  # type: ignore[no-any-return]
    ends = None if seconds is None else time.perf_counter() + seconds
    try:
        with deadline.within(ends, seconds):
            for name in PREFERENCE[:-1]:
                if _accepts(name, instance):
                    if key is not None and name == "bitmask":
                        if len(_BY_SCHEMA) > 1024:
                            _BY_SCHEMA.clear()
                        _BY_SCHEMA[key] = (name, VERIFIERS.get(name))
                    return name
    except BudgetExceeded:  # reading the clues to choose took the time given to choosing
        pass
    return PREFERENCE[-1]


def default_verifier_names(
    instances: Iterable[Instance], seconds: float | None = None
) -> list[str]:
    """:func:`default_verifier_name` of each instance, asked once for the grid lines that share
    a family and params object when their schema alone decided it (the lines of one file)."""
    memo: dict[tuple[str, int], str] = {}
    out = []
    for inst in instances:
        lined = isinstance(inst.clue_source, GridLine) and "clues" not in inst.__dict__
        key = (inst.family, id(inst.params))
        name = memo.get(key) if lined else None
        if name is None and lined:
            name = line_verifier_name(inst, seconds)
        if name is None:
            name = default_verifier_name(inst, seconds)
            if lined and name == "bitmask" and _by_schema_key(inst) is not None:
                memo[key] = name  # the params object is held by the instances: its id stays
        out.append(name)
    return out


#: :func:`verify_line`'s choice per params object of grid lines, by its id: (the params object,
#: family name, family object, verifier name, factory, idle verifiers)
_LINE_CHOICE: dict[int, tuple[Any, str, Any, str, Any, list[protocols.Verifier]]] = {}


def verify_line(instance: Instance, cap: int, budget: Any) -> Any:
    """``pk.verify(instance)`` with the default choice and no extras, for a grid line whose
    schema alone decides the choice (:func:`_by_schema_key`): the choice asked once per params
    object (the lines of one schema share it) and checked against the registries on every call
    (a family or backend registered again is asked again), the verifier lent from the pool
    :class:`kept_verifier` keeps for the name. None for any other instance (the general path
    verifies it)."""
    lent = lend_line_verifier(instance, choice_seconds(budget))
    if lent is None:
        return None
    try:
        return lent[1].verify(instance, solution_cap=cap, budget=budget)
    finally:
        give_back(lent)


def lend_line_verifier(instance: Instance, seconds: float | None = None) -> Any:
    """The pool and a verifier lent from it (give it back with :func:`give_back`) of
    :func:`line_verifier_name`'s choice for ``instance`` (the pool :class:`kept_verifier` lends
    from for the name; no lock, no settings to freeze), or None where the schema alone does not
    decide the choice."""
    entry = _line_entry(instance, seconds)
    if entry is None:
        return None
    pool = entry[5]
    try:
        verifier = pool.pop()  # atomic: each borrower gets its own
    except IndexError:
        verifier = entry[4]()
    return pool, verifier


def give_back(lent: Any) -> None:
    """Return a verifier :func:`lend_line_verifier` lent to its pool (kept while it has room)."""
    pool, verifier = lent
    if len(pool) < KEPT_IDLE:
        pool.append(verifier)


def line_verifier_name(instance: Instance, seconds: float | None = None) -> str | None:
    """:func:`default_verifier_name` of ``instance`` where it is a grid line whose schema alone
    decides it (asked once per params object, as :func:`verify_line` asks it), else None."""
    entry = _line_entry(instance, seconds)
    return None if entry is None else entry[3]  # type: ignore[no-any-return]


def _line_entry(instance: Instance, seconds: float | None) -> Any:
    """The :data:`_LINE_CHOICE` entry of ``instance``, checked against the registries (made
    where missing or stale), or None."""
    grid = instance.__dict__.get("_source")
    if type(grid) is not GridLine or "clues" in instance.__dict__:
        return None
    params = grid.params
    entry = _LINE_CHOICE.get(id(params))
    if (
        entry is None
        or entry[0] is not params
        or entry[1] != instance.family
        or FAMILIES.bound(entry[1]) is not entry[2]
        or VERIFIERS.bound(entry[3]) is not entry[4]
    ):
        entry = _line_choice(instance, seconds)
    return entry


def _line_choice(instance: Instance, seconds: float | None) -> Any:
    """The :data:`_LINE_CHOICE` entry of ``instance``'s params object, or None where its
    schema alone does not decide the choice."""
    name = default_verifier_name(instance, seconds)
    family = FAMILIES.bound(instance.family)
    if name != "bitmask" or family is None or _by_schema_key(instance) is None:
        return None
    factory = VERIFIERS.get(name)
    key = (name, factory, _NO_SETTINGS)
    with _kept_lock:  # the pool kept_verifier lends from for this name
        pool = _kept.setdefault(key, [])
        _kept.move_to_end(key)
        while len(_kept) > KEPT_KEYS:
            _kept.popitem(last=False)
    params = instance.__dict__["_source"].params
    entry = (params, instance.family, family, name, factory, pool)
    if len(_LINE_CHOICE) > 256:
        _LINE_CHOICE.clear()
    _LINE_CHOICE[id(params)] = entry  # holds the params object: its id is not reused
    return entry


#: the choice for grid lines whose schema alone decides it, by family object and params key:
#: (name, the factory that accepted them)
_BY_SCHEMA: dict[tuple[Any, ...], tuple[str, Any]] = {}


def _by_schema_key(instance: Instance) -> tuple[Any, ...] | None:
    """The key under which ``instance``'s choice is its schema's: a grid line of givens that the
    bitmask backend reads from its values (whose ``accepts`` then asks the schema alone); None
    for any other instance. Asks the compiled schema only, never the compiled search (numba)."""
    grid = instance.clue_source
    if not isinstance(grid, GridLine) or "clues" in instance.__dict__:
        return None
    from puzzlekit.verifiers.bitmask.compile import grid_line_schema

    got = grid_line_schema(instance, grid.size)
    return (instance.family, id(got[1]), instance.params_key()) if got is not None else None


def choice_seconds(budget: Any) -> float | None:
    """The seconds the backend choice for a verification under ``budget`` (a SearchBudget;
    None: the default one) may take: half its seconds, so that choosing and verifying stay
    within 1.5 times the budget."""
    seconds = (budget if budget is not None else _DEFAULT_BUDGET).seconds
    return None if seconds is None else seconds / 2


_DEFAULT_BUDGET = protocols.SearchBudget()  # frozen: made once


def default_filter_name(family: str, params: Mapping[str, Any] | None = None) -> str:
    """The filter a loop of ``family`` uses unless told otherwise (``puzzlekit generate``, the
    environments): :func:`default_verifier_name` of an instance of ``params`` (None: the
    family's defaults) without clues, so chosen by the family's declaration and its rules
    alone. A family whose rules compile but some of whose clues do not names ``sat`` as its
    own (``check_family`` fails with ``default-filter-declines`` otherwise)."""
    return default_verifier_name(
        Instance.make(get_family(family).info.name, dict(params or {}), [])
    )


def default_holdout_name(filter_name: str) -> str:
    """An exact backend independent of ``filter_name``: the ``holdout_name`` the filter declares
    (:class:`~puzzlekit.core.protocols.Verifier`; ``enumerative`` unless it names another).
    An unknown filter name gives ``enumerative`` (the caller reports the unknown name)."""
    if filter_name not in VERIFIERS:
        return "enumerative"
    return get_verifier(filter_name).holdout_name


def registry_verify_fn(instance_json: str, verifier_name: str, budget_seconds: float | None) -> Any:
    """A ``verify_fn`` for :mod:`puzzlekit.audit.escalation.targets` over this registry: the
    report's wire form.

    A budget larger than the verifiers' default wall time scales their node budget by the same
    factor, so that "a larger budget" is larger in both resources.
    """
    budget = None
    if budget_seconds is not None:
        default = protocols.SearchBudget()
        scale = max(1.0, budget_seconds / default.seconds) if default.seconds else 1.0
        nodes = round(default.nodes * scale) if default.nodes is not None else None
        budget = protocols.SearchBudget(nodes=nodes, seconds=budget_seconds)
    verifier = get_verifier(verifier_name)
    return verifier.verify(Instance.from_json(instance_json), budget=budget).to_json_obj()


def verify_or_decline(
    verifier: protocols.Verifier,
    instance: Instance,
    *,
    solution_cap: int,
    budget: Any = None,
    extras: Collection[str] = (),
) -> Any:
    """``verifier.verify(instance)`` asking for ``extras``
    (:func:`~puzzlekit.core.protocols.report_extras`); a backend that declines the
    instance's family (raises ``NotImplementedError``, or ``NotEncodable`` for SAT) gives an
    INVALID_SPEC report naming the verifier and why, so that a named ``--verifier`` never ends
    a run with a traceback."""
    from puzzlekit.core.model import Violation
    from puzzlekit.core.protocols import report_extras
    from puzzlekit.verifiers.reports import NotEncodable, invalid_report, source

    try:
        asked = report_extras(extras)
        return verifier.verify(instance, solution_cap=solution_cap, budget=budget, extras=asked)
    except (NotImplementedError, NotEncodable) as exc:
        name = str(getattr(verifier, "name", type(verifier).__name__))
        why = f"the {name} verifier cannot verify a {instance.family} instance: {exc}"
        v = Violation("not-enumerable", None, "verifier", why)
        src = source(name, str(getattr(verifier, "version", "")))
        return invalid_report(instance, (v,), src, solution_cap)
