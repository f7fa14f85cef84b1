"""One registry mechanism for everything a user can name: families, verifiers, strategies, tools.

A :class:`Registry` maps names to objects of one kind. Each floor that owns a kind keeps one
(``puzzlekit.families.FAMILIES``, ``puzzlekit.verifiers.VERIFIERS``,
``puzzlekit.generators.STRATEGIES``, ``puzzlekit.families.tools.TOOLS``) and says how its
built-ins load (a function run once, on the first lookup). Plugins add to the same registries:

- installed packages declare an entry point in the group ``puzzlekit.plugins`` whose value is a
  module; importing the module registers its families, verifiers, strategies and tools;
- a module can also be named per use (``--plugin MODULE`` on the command line, ``plugins = [...]``
  in an experiment config): :func:`use_plugins`.

Built-ins load before plugins, and registering a name that is already taken raises
:class:`DuplicateName` (pass ``replace=True`` to mean it, in a test or a session of one's own),
so a plugin never hides a built-in by accident. A plugin never replaces a name, even meaning it:
``replace=True`` from a plugin's code (while it is imported, or from any frame of a plugin module
later) raises :class:`ReplaceRefused`, naming the plugin and the name (docs/security.md). An
unknown name raises :class:`UnknownName`, whose message is one line naming the kind, the name
and the closest known names: every command prints it and exits 2.

A judging process (:func:`judge_without_plugins`: ``generate``, ``run``) imports no plugin
module at all: the modules are only named there, for its loop process, until
:func:`admit_plugins` lets them in for a holdout or family only a plugin provides.

Not for: deciding which verifier suits which family (``puzzlekit.verifiers``), or loading
anything but Python modules.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

#: the entry-point group third-party packages register in
ENTRY_POINT_GROUP = "puzzlekit.plugins"

T = TypeVar("T")


class UnknownName(LookupError):
    """A name no registry of its kind holds. ``str()`` is the one-line message a user sees."""

    def __init__(self, kind: str, name: object, known: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        super().__init__(unknown_message(kind, name, self.known))

    def __str__(self) -> str:  # KeyError-style quoting would wrap the sentence in quotes
        return unknown_message(self.kind, self.name, self.known)


class DuplicateName(ValueError):
    """A name registered twice (without ``replace=True``)."""


class ReplaceRefused(DuplicateName):
    """A plugin's code asked to replace a registered name: a plugin adds names, never replaces."""


class PluginError(ImportError):
    """A plugin module that cannot be imported; the message names it and the reason."""


def closest_names(name: object, known: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` known names closest to ``name`` (by ``difflib``), best first."""
    import difflib

    return difflib.get_close_matches(str(name), list(known), n=n, cutoff=0.5)


def unknown_message(kind: str, name: object, known: Iterable[str]) -> str:
    """``unknown family 'sudok'; closest: sudoku, sudoku-killer`` (or the known names)."""
    known = sorted(known)
    close = closest_names(name, known)
    if close:
        tail = f"closest: {', '.join(close)}"
    elif known:
        shown = known if len(known) <= 12 else [*known[:12], "..."]
        tail = f"known: {', '.join(shown)}"
    else:
        tail = f"no {kind} is registered"
    return f"unknown {kind} {name!r}; {tail}"


@dataclass(frozen=True)
class PluginRecord:
    """A plugin module that was loaded: where it came from and its distribution's version."""

    module: str
    source: str  # "entry-point" or "per-use"
    distribution: str | None = None
    version: str | None = None

    def to_json_obj(self) -> dict[str, str | None]:
        return {
            "module": self.module,
            "source": self.source,
            "distribution": self.distribution,
            "version": self.version,
        }


_LOCK = threading.RLock()
_LOADED: dict[str, PluginRecord] = {}
_ENTRY_POINTS_DONE = False
_ENTRY_POINT_ERRORS: list[str] = []
#: the plugin modules being imported now (innermost last)
_IMPORTING: list[str] = []
#: a judging process (:func:`judge_without_plugins`): the modules named but kept out, in order
_KEPT_OUT: list[str] | None = None
#: why plugins were let into a judging process after all (:func:`admit_plugins`), or None
_ADMITTED: list[str] = []


def _import_plugin(
    module: str, source: str, distribution: str | None = None, version: str | None = None
) -> PluginRecord:
    if module in _LOADED:
        return _LOADED[module]
    _IMPORTING.append(module)
    try:
        importlib.import_module(module)
    except Exception as exc:  # an import error, or whatever the module raised while registering
        raise PluginError(f"plugin {module!r} could not be loaded: {exc}") from exc
    except SystemExit as exc:  # a plugin's import code never decides the command's exit code
        raise PluginError(
            f"plugin {module!r} could not be loaded: it called sys.exit({exc.code!r}) on import"
        ) from None
    finally:
        _IMPORTING.pop()
    if distribution is None:
        distribution = _distribution_of(module)
    if distribution is not None and version is None:
        from importlib import metadata

        try:
            version = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            version = None
    record = PluginRecord(module, source, distribution, version)
    _LOADED[module] = record
    return record


def _distribution_of(module: str) -> str | None:
    from importlib import metadata

    top = module.split(".", 1)[0]
    names = metadata.packages_distributions().get(top)
    return names[0] if names else None


def load_entry_points() -> None:
    """Import every module declared in the entry-point group ``puzzlekit.plugins`` (once).

    A module that fails to import does not stop the others; its message is kept
    (:func:`entry_point_errors`) and printed once on stderr.
    """
    global _ENTRY_POINTS_DONE
    from importlib import metadata

    with _LOCK:
        if _ENTRY_POINTS_DONE or _KEPT_OUT is not None:  # a judging process loads none
            return
        _ENTRY_POINTS_DONE = True
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            dist, version = (ep.dist.name, ep.dist.version) if ep.dist is not None else (None, None)
            try:
                _import_plugin(ep.value.split(":", 1)[0], "entry-point", dist, version)
            except PluginError as exc:
                _ENTRY_POINT_ERRORS.append(str(exc))
                print(f"puzzlekit: {exc}", file=sys.stderr)


def entry_points_declared(*, outside: bool = False) -> bool:
    """Whether an installed package declares a module in the group ``puzzlekit.plugins``
    (``outside``: one not of puzzlekit's own, its ``example_tools`` aside); read from the
    installed metadata, nothing is imported."""
    from importlib import metadata

    eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    return any(not (outside and ep.value.startswith("puzzlekit.")) for ep in eps)


def entry_point_errors() -> list[str]:
    """Messages of entry-point plugins that failed to load."""
    return list(_ENTRY_POINT_ERRORS)


def use_plugins(modules: Iterable[str]) -> list[PluginRecord]:
    """Import each named module (``--plugin``, ``plugins = [...]``); PluginError if one fails.
    In a judging process (:func:`judge_without_plugins`) the modules are only named: they are
    handed to the loop process, never imported here."""
    with _LOCK:
        if _KEPT_OUT is not None:
            _KEPT_OUT.extend(str(m) for m in modules if str(m) not in _KEPT_OUT)
            return []
        return [_import_plugin(str(m), "per-use") for m in modules]


def judge_without_plugins(modules: Iterable[str] = ()) -> None:
    """Make this process a judging process (docs/security.md): no per-use or entry-point plugin
    module is imported in it from now on (``modules`` and later :func:`use_plugins` are only
    named, for the loop process), unless :func:`admit_plugins` lets them in. Call it before any
    plugin loads; PluginError if one already has."""
    global _KEPT_OUT
    with _LOCK:
        if _LOADED:
            raise PluginError(
                f"plugin {next(iter(_LOADED))!r} was loaded before the holdout was set up"
            )
        if _KEPT_OUT is None:
            _KEPT_OUT = []
        _KEPT_OUT.extend(str(m) for m in modules if str(m) not in _KEPT_OUT)


def end_judging() -> None:
    """This process is a judging process no longer (the end of a command run in-process, e.g.
    ``puzzlekit.app.cli.main`` from a test): the named modules are forgotten, none imported."""
    global _KEPT_OUT
    with _LOCK:
        _KEPT_OUT = None
        _ADMITTED.clear()


def unname(module: str) -> None:
    """Forget a module a judging process named (one its loop process could not import), so
    that later requests to the loop process do not fail on it again."""
    with _LOCK:
        if _KEPT_OUT is not None and module in _KEPT_OUT:
            _KEPT_OUT.remove(module)


def judging() -> bool:
    """True in a judging process that keeps plugins out (:func:`judge_without_plugins`)."""
    return _KEPT_OUT is not None


def kept_out() -> list[str]:
    """The plugin modules named in this judging process and not imported here ([] elsewhere)."""
    return list(_KEPT_OUT or ())


def admit_plugins(reason: str) -> bool:
    """Let the named plugins (and the entry points) into this judging process, because the
    holdout needs one (``reason``: what the user named that only a plugin provides). False
    when this is no judging process or no plugin is named, so nothing is let in; the reason is
    kept (:func:`admitted`) for the run's record."""
    global _KEPT_OUT
    with _LOCK:
        if _KEPT_OUT is None:
            return False
        modules, _KEPT_OUT = _KEPT_OUT, None
        _ADMITTED.append(reason)
        use_plugins(modules)
        load_entry_points()
        return True


def admitted() -> list[str]:
    """Why plugins were let into this judging process ([]: none was; see admit_plugins)."""
    return list(_ADMITTED)


def loaded_plugins() -> list[PluginRecord]:
    """Every plugin module loaded in this process, in the order loaded."""
    return list(_LOADED.values())


def per_use_modules() -> list[str]:
    """The modules loaded per use in this process, in order: what a worker process must load
    (:func:`use_plugins`) to see what this one sees (entry points it loads by itself)."""
    loaded = [r.module for r in _LOADED.values() if r.source == "per-use"]
    return [*loaded, *(m for m in kept_out() if m not in loaded)]


class Registry(Generic[T]):
    """Names to objects of one ``kind``: lazy entries, built-ins from ``load_builtins``, then
    plugins.

    ``entries`` maps built-in names to ``"module:attr"`` (Gymnasium's entry-point strings): the
    module is imported on the first lookup of that name, so looking up one name imports one
    module (a Sudoku never imports the games). A plugin adds its own the same way
    (:meth:`register_lazy`). ``load_builtins``, when given, runs once, on the first lookup of a
    name that no entry holds, or on a listing. The entry-point plugins load on the same
    occasions: a name already held (a built-in, or one registered) needs no plugin, since no
    plugin may replace it.
    """

    def __init__(
        self,
        kind: str,
        load_builtins: Callable[[], None] | None = None,
        entries: Mapping[str, str] | None = None,
    ) -> None:
        self.kind = kind
        self._load_builtins = load_builtins
        self._builtins_state = "pending"  # "loading", "done"
        self._items: dict[str, T] = {}
        self._origin: dict[str, str] = {}
        self._lazy: dict[str, str] = {}
        for name, target in (entries or {}).items():
            self._add_lazy(name, target, "puzzlekit")
        _REGISTRIES.append(self)

    def _add_lazy(self, name: str, target: str, origin: str) -> None:
        module, sep, attr = target.partition(":")
        if not sep or not module or not attr:
            raise ValueError(f"{self.kind} {name!r}: a lazy entry is 'module:attr', got {target!r}")
        self._lazy[name] = target
        self._origin[name] = origin

    def register_lazy(self, name: str, target: str, *, replace: bool = False) -> None:
        """Register ``name`` as ``"module:attr"``, imported on its first lookup (DuplicateName
        if taken, unless ``replace``). The module may register ``name`` itself on import."""
        with _LOCK:
            self._ensure_builtins()
            self._check_free(name, replace)
            self._items.pop(name, None)
            self._add_lazy(name, target, _caller_module())

    def _check_free(self, name: str, replace: bool, obj: object = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {self.kind} name must be a non-empty string, got {name!r}")
        taken = name in self._lazy or (name in self._items and self._items[name] is not obj)
        if taken and replace:
            plugin = _plugin_on_stack()
            if plugin is not None:
                raise ReplaceRefused(
                    f"plugin {plugin!r} may not replace {self.kind} {name!r} (registered "
                    f"by {self._origin[name]}): a plugin adds names, it never replaces one"
                )
        if taken and not replace:
            raise DuplicateName(
                f"{self.kind} {name!r} is already registered (by {self._origin[name]}); "
                "pass replace=True to replace it"
            )

    def _resolve(self, name: str) -> None:
        """Import the module of the lazy entry ``name`` and bind the name to its object."""
        target = self._lazy.get(name)
        if target is None:
            return
        module, _, attr = target.partition(":")
        # outside the lock: a module that registers on import, in another thread, must not wait
        # for a lock held by a thread waiting for that import
        mod = importlib.import_module(module)
        with _LOCK:
            if self._lazy.get(name) != target:  # registered meanwhile (by the module itself)
                return
            obj = mod
            for part in attr.split("."):
                obj = getattr(obj, part)
            del self._lazy[name]
            self._items[name] = obj  # type: ignore[assignment]

    def _ensure_builtins(self) -> None:
        with _LOCK:
            if self._builtins_state != "pending":
                return
            self._builtins_state = "loading"
            try:
                if self._load_builtins is not None:
                    self._load_builtins()
            finally:
                self._builtins_state = "done"

    def _ensure_all(self) -> None:
        self._ensure_builtins()
        load_entry_points()

    def _resolve_all(self) -> None:
        self._ensure_all()
        for name in list(self._lazy):
            self._resolve(name)

    def register(self, name: str, obj: T, *, replace: bool = False) -> T:
        """Register ``obj`` as ``name``; DuplicateName if taken (unless ``replace``). The module
        a lazy entry names may register that name itself (on the import the lookup makes)."""
        with _LOCK:
            loading = self._builtins_state == "loading"
            self._ensure_builtins()
            caller = "puzzlekit" if loading else _caller_module()
            target = self._lazy.get(name)
            own = target is not None and target.partition(":")[0] == caller
            if own:
                caller = self._origin[name]
                del self._lazy[name]
            else:
                self._check_free(name, replace, obj)
                self._lazy.pop(name, None)
            self._items[name] = obj
            self._origin[name] = caller
        return obj

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests and interactive sessions)."""
        with _LOCK:
            self._items.pop(name, None)
            self._lazy.pop(name, None)
            self._origin.pop(name, None)

    def bound(self, name: str) -> T | None:
        """The object ``name`` is bound to now, without importing or loading anything (None
        where it is not bound yet, or not registered): what a cache checks to know that a name
        still means the object it saw."""
        return self._items.get(name)

    def _held(self, name: object) -> bool:
        try:
            return name in self._items or name in self._lazy
        except TypeError:  # an unhashable name (a list read from JSON) is no name
            return False

    def get(self, name: str) -> T:
        """The object registered as ``name`` (its module imported on its first lookup);
        :class:`UnknownName` otherwise."""
        if not self._held(name):
            self._ensure_all()
        if self._held(name):
            self._resolve(name)
        try:
            return self._items[name]
        except (KeyError, TypeError):
            raise UnknownName(self.kind, name, self.names()) from None

    def origin(self, name: str) -> str:
        """``puzzlekit`` for a built-in, else the module that registered ``name``."""
        self.get(name)
        return self._origin[name]

    def names(self) -> list[str]:
        """Every name, built-ins and plugins, without importing what lazy entries name."""
        self._ensure_all()
        return sorted({*self._items, *self._lazy})

    def items(self) -> list[tuple[str, T]]:
        self._resolve_all()
        return [(k, self._items[k]) for k in sorted(self._items)]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if not self._held(name):
            self._ensure_all()
        return self._held(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def snapshot(self) -> tuple[tuple[str, T], ...]:
        """What is bound now, without loading anything: ``(name, object)`` pairs (lazy entries
        not yet imported are left out)."""
        with _LOCK:
            return tuple(sorted(self._items.items(), key=lambda kv: kv[0]))

    def __len__(self) -> int:
        return len(self.names())


#: every registry made, so that an evaluation can be checked for changing any of them
_REGISTRIES: list[Registry] = []


def registries_state() -> dict[tuple[str, str], int]:
    """Which object each name of each registry is bound to now (by identity). An evaluation
    keeps it when every binding it found is still there afterwards (lazy loading only adds)."""
    return {(r.kind, n): id(o) for r in _REGISTRIES for n, o in list(r._items.items())}


def _plugin_on_stack() -> str | None:
    """The plugin whose code is running now: one being imported, or a plugin module (or one of
    its submodules) in a frame of the call stack."""
    if _IMPORTING:
        return _IMPORTING[-1]
    plugins = [m for m in _LOADED]
    frame = sys._getframe(1)
    while frame is not None:
        mod = str(frame.f_globals.get("__name__", ""))
        for plugin in plugins:
            if mod == plugin or mod.startswith(plugin + "."):
                return plugin
        frame = frame.f_back
    return None


def _caller_module() -> str:
    """The first module outside this one and the registries' own wrappers on the call stack."""
    frame = sys._getframe(2)
    while frame is not None:
        mod = frame.f_globals.get("__name__", "?")
        if mod != __name__ and not frame.f_code.co_name.startswith("register"):
            return mod
        frame = frame.f_back
    return "?"
