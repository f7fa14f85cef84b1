"""The top-floor registry: verifier backends by name, and the list of registered schemas.

Families register themselves (:mod:`puzzlekit.families`); verifiers register here, so that the
CLI, experiments and the loop can name a backend in a config (``"enumerative"``, ``"sat"``, ...).
Third parties add their own with :func:`register_verifier`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from puzzlekit.families import families
from puzzlekit.model import Instance
from verifiers.base import Verifier

_VERIFIERS: dict[str, Callable[..., Verifier]] = {}


def register_verifier(name: str, factory: Callable[..., Verifier]) -> None:
    """Make ``factory(**settings)`` available as verifier ``name``."""
    _VERIFIERS[name] = factory


def _load_builtin() -> None:
    if _VERIFIERS:
        return
    from verifiers.enumerative import EnumerativeVerifier

    register_verifier("enumerative", EnumerativeVerifier)
    try:
        from verifiers.sat import SatVerifier
    except ImportError:
        pass
    else:
        register_verifier("sat", SatVerifier)
    try:
        from verifiers import approximate
    except ImportError:
        pass
    else:
        for name, factory in approximate.FACTORIES.items():
            register_verifier(name, factory)
    from verifiers.gametree import GameTreeVerifier, MinimaxVerifier

    register_verifier("gametree", GameTreeVerifier)
    register_verifier("minimax", MinimaxVerifier)
    from verifiers.oracle import OracleVerifier, PlainOracleVerifier

    register_verifier("oracle", OracleVerifier)
    register_verifier("oracle-plain", PlainOracleVerifier)


def verifier_names() -> list[str]:
    _load_builtin()
    return sorted(_VERIFIERS)


def get_verifier(name: str, **settings: Any) -> Verifier:
    """A new verifier ``name`` with ``settings``; KeyError naming the known ones otherwise."""
    _load_builtin()
    try:
        factory = _VERIFIERS[name]
    except KeyError:
        raise KeyError(f"no verifier {name!r}; known: {', '.join(sorted(_VERIFIERS))}") from None
    return factory(**settings)


def default_verifier_name(instance: Instance | None = None) -> str:
    """The family's ``default_verifier`` if it names one (games: ``gametree``), else ``sat``
    where the instance's schema is encodable in it, ``enumerative`` otherwise."""
    _load_builtin()
    if instance is not None:
        from puzzlekit.families import get_family
        from puzzlekit.model import SpecError

        try:
            own = getattr(get_family(instance.family), "default_verifier", None)
        except SpecError:
            own = None
        if own in _VERIFIERS:
            return own
    if "sat" in _VERIFIERS:
        from verifiers.sat import encodable

        if instance is None or encodable(instance):
            return "sat"
    return "enumerative"


#: the independent exact backend to hold out against each filter backend
_HOLDOUT_FOR = {
    "sat": "enumerative",
    "enumerative": "sat",
    "gametree": "minimax",
    "minimax": "gametree",
    "oracle": "oracle-plain",
    "oracle-plain": "oracle",
}


def default_filter_name(family: str) -> str:
    """The filter ``puzzlekit generate`` uses for ``family`` unless told otherwise."""
    from puzzlekit.families import get_family

    _load_builtin()
    own = getattr(get_family(family), "default_verifier", None)
    return own if own in _VERIFIERS else default_verifier_name(None)


def default_holdout_name(filter_name: str) -> str:
    """An exact backend independent of ``filter_name`` (approximate filters: ``enumerative``)."""
    return _HOLDOUT_FOR.get(filter_name, "enumerative")


def registered_schemas() -> list[dict[str, Any]]:
    """One row per registered schema: family, params, clue kinds, variables, domain size."""
    return [fam.describe(params) for fam in families() for params in fam.listed_params]


def registry_verify_fn(instance_json: str, verifier_name: str, budget_seconds: float | None) -> Any:
    """A ``verify_fn`` for :mod:`puzzlekit.escalation` over this registry: the report's wire form.

    A budget larger than the verifiers' default wall time scales their node budget by the same
    factor, so that "a larger budget" is larger in both resources.
    """
    from verifiers.base import SearchBudget

    budget = None
    if budget_seconds is not None:
        default = SearchBudget()
        scale = max(1.0, budget_seconds / default.seconds) if default.seconds else 1.0
        nodes = round(default.nodes * scale) if default.nodes is not None else None
        budget = SearchBudget(nodes=nodes, seconds=budget_seconds)
    verifier = get_verifier(verifier_name)
    return verifier.verify(Instance.from_json(instance_json), budget=budget).to_json_obj()
