"""Generator strategies: how a puzzle starts and what happens after each reject.

:data:`STRATEGIES` is the strategy registry (see :mod:`puzzlekit.core.plugins`): a name maps to a
factory ``factory(k)`` that takes the number of initial clues and returns a strategy
(:class:`puzzlekit.core.protocols.Strategy`). Built-ins: ``blind`` (generate and test, the
baseline), ``adaptive`` (reads the filter's reject detail), ``policy`` (a policy trained in
the generator environment, :mod:`puzzlekit.generators.policy`; ``factory(k, policy=PATH)``) and
``external`` (a program speaking JSON Lines, :mod:`puzzlekit.generators.external`;
``factory(k, cmd=..., cmd_timeout=...)``), and ``pattern`` (adaptive repairs with a map of
where repairs were needed, learned across loops, :mod:`puzzlekit.generators.pattern`).
``blind``, ``adaptive`` and ``pattern`` take ``sampler=NAME``
(:mod:`puzzlekit.generators.samplers`).
Plugins add their own with :func:`register_strategy`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from puzzlekit.core.plugins import Registry

#: the built-in strategies, each imported on its first lookup
BUILTIN: dict[str, str] = {
    "adaptive": "puzzlekit.generators.adaptive:Adaptive",
    "blind": "puzzlekit.generators.blind:Blind",
    "external": "puzzlekit.generators.external:External",
    "pattern": "puzzlekit.generators.pattern:Pattern",
    "policy": "puzzlekit.generators.policy:Policy",
}

#: strategy factories by name: ``factory(k)`` gives a strategy starting from ``k`` clues
STRATEGIES: Registry[Callable[[int], Any]] = Registry("strategy", entries=BUILTIN)


def register_strategy(
    name: str, factory: Callable[[int], Any], *, replace: bool = False
) -> Callable[[int], Any]:
    """Make ``factory(k)`` available as strategy ``name`` (never hides a built-in); TypeError
    when ``factory`` is not callable (a plugin registering ``42`` is told so at import)."""
    if not callable(factory):
        raise TypeError(f"strategy {name!r}: the factory must be callable, got {factory!r}")
    return STRATEGIES.register(name, factory, replace=replace)


def get_strategy(name: str, k: int) -> Any:
    """A new strategy ``name`` starting from ``k`` clues; UnknownName naming the closest."""
    return STRATEGIES.get(name)(k)
