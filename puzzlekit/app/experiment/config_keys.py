"""Config keys whose checking reaches outside the config: ``plugins`` (imported so that what they
register is known to the rest of the check) and ``extras`` (names of report extras). Read by
:mod:`puzzlekit.app.experiment.config` with its reader ``r``."""

from __future__ import annotations

from typing import Any


def plugins(r: Any, top: dict[str, Any]) -> tuple[str, ...]:
    """Import the config's ``plugins`` (module names) so that what they register is known when
    the rest of the config is checked; ConfigError naming the entry that cannot be imported."""
    from puzzlekit.core.plugins import PluginError, use_plugins

    modules = r.strings(top, "plugins", "") if "plugins" in top else ()
    for i, module in enumerate(modules):
        try:
            use_plugins([module])
        except PluginError as exc:
            raise r.fail(f"plugins[{i}]", str(exc)) from None
    return tuple(modules)


def extras(r: Any, top: dict[str, Any]) -> tuple[str, ...]:
    """The report extras the config asks of every filter call (sorted, each known)."""
    from puzzlekit.core.protocols import EXTRAS

    names = r.strings(top, "extras", "") if "extras" in top else ()
    for i, name in enumerate(names):
        if name not in EXTRAS:
            raise r.fail(
                f"extras[{i}]", f"unknown report extra {name!r}; known: {', '.join(sorted(EXTRAS))}"
            )
    return tuple(sorted(set(names)))
