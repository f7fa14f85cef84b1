"""The four plug points of puzzlekit, each declared in one place with every hook it has.

Like the ``const game`` table of Simon Tatham's puzzle collection, each class below lists every
slot of its kind, required and optional, and says what it is for, when it is called and its
default. The framework calls every hook directly; nothing is discovered by ``getattr``.

- ``Family``: a base class, whose one home is :mod:`puzzlekit.core.family` (``from
  puzzlekit.core.family import Family``; it is too large to sit here under the module size
  rule, and this module does not re-export it). Subclass it, set the class attributes and fill
  in the four required methods; every optional hook is defined there with its neutral default.
- :class:`Verifier`, :class:`Strategy`, :class:`Holdout`: ``typing.Protocol`` classes. Subclass
  one to inherit the defaults of its optional hooks (the built-ins do), or implement every member
  yourself; either way ``isinstance(obj, Verifier)`` holds.
- The records the hooks exchange: :class:`SearchBudget` (what a verifier may spend),
  ``Repair`` (a clue edit a family proposes, beside ``Family``), :class:`Step` (what a strategy
  did), :class:`UniquenessSession` (a verifier's fast uniqueness question) and
  :class:`OrderedRemoval` (a session that runs a whole remove-and-check in one call).

Not for: implementations (``families/``, ``verifiers/``, ``generators/``, ``loop/`` hold them)
or registries (:mod:`puzzlekit.core.plugins`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from puzzlekit.core.model import (
    Coord,
    Instance,
    Schema,
)
from puzzlekit.core.report import VerifierReport

#: the solution cap of a verification when the caller names none
DEFAULT_CAP = 100

#: report extra: the backbone of a MULTIPLE instance, ``stats["forcedCells"]`` (the cells with
#: one value in every solution) and ``stats["forcedCellsComplete"]`` (False when the budget, or
#: the per-cell limit, left some cells undecided)
FORCED_CELLS = "forcedCells"
#: report extra of oracle families (``oracle``): ``stats["fieldVerdicts"]``, the verdict
#: distribution broken down by hidden field and value, over every completion enumerated:
#: ``{"expectedVerdict": v, "fields": [{"field", "coord", "value", "domainValue", "verdicts":
#: {verdict: n}}]}`` (``value`` the JSON value, ``domainValue`` the variable's value for it).
#: ``verdicts[expectedVerdict]`` counts the solutions with that value, all of them (the
#: discriminative gap sees only the capped solutions)
FIELD_VERDICTS = "fieldVerdicts"
#: report extras are the costly parts of a report computed only on request: every one a caller
#: may ask of :meth:`Verifier.verify` (``extras=``), each under its name in the report's ``stats``
EXTRAS: frozenset[str] = frozenset({FORCED_CELLS, FIELD_VERDICTS})

# --- records the hooks exchange ----------------------------------------------------------------


@dataclass(frozen=True)
class SearchBudget:
    """What one verification may spend: search ``nodes`` (deterministic) and wall-time
    ``seconds``; None means no limit. A verifier that runs out reports UNDECIDED, with what ran
    out in ``rejectDetail.budget`` (:class:`~puzzlekit.core.report.BudgetSpent`)."""

    nodes: int | None = 5_000_000
    seconds: float | None = 120.0

    def __post_init__(self) -> None:
        nodes, seconds = self.nodes, self.seconds
        if nodes is not None and (
            not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1
        ):
            raise ValueError(f"a node budget is a positive integer (or None), got {nodes!r}")
        if seconds is not None and (
            not isinstance(seconds, int | float)
            or isinstance(seconds, bool)
            or not math.isfinite(seconds)
            or seconds <= 0
        ):
            raise ValueError(
                f"a seconds budget is a positive finite number (or None), got {seconds!r}"
            )


@dataclass(frozen=True)
class Step:
    """What a strategy did: the next instance, the action's name and the coordinate it touched."""

    instance: Instance
    action: str  # "start", "restart", "reveal", "drop", "repair", "give-up", a Repair's action
    coord: Coord | None = None
    #: the solution the strategy builds towards (every clue it adds must hold in it)
    solution: Mapping[str, int] | None = None
    #: the schema the generator works in (a filter's believed schema may differ from the real one)
    schema: Schema | None = None

    def then(self, instance: Instance, action: str, coord: Coord | None = None) -> Step:
        """The next step on the same solution and schema."""
        return Step(instance, action, coord, self.solution, self.schema)


def protocol_members(cls: type) -> tuple[str, ...]:
    """The public members (attributes and hooks) ``cls`` declares, in declaration order: what an
    object must have to stand for it (used by ``check_family``/``check_verifier`` to name what is
    missing)."""
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        if klass.__module__ in (__name__, "puzzlekit.core.family"):
            for n in [*vars(klass).get("__annotations__", {}), *vars(klass)]:
                if n not in names and not n.startswith("_"):
                    names.append(n)
    return tuple(names)


# --- Verifier ----------------------------------------------------------------------------------


@runtime_checkable
class UniquenessSession(Protocol):
    """A verifier's fast uniqueness question about one instance and its known solution (see
    :meth:`Verifier.uniqueness_session`); closed when done (also as a context manager)."""

    def unique_with(self, clue_ids: Iterable[str]) -> bool:
        """True when the known solution is the only one of the clues ``clue_ids``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the session holds; asking again after this is an error."""

    def __enter__(self) -> UniquenessSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@runtime_checkable
class OrderedRemoval(Protocol):
    """A uniqueness session that also runs a whole remove-and-check in one call (the bitmask
    verifier's: one compiled loop). Minimization uses it when a session has it, and asks
    :meth:`UniquenessSession.unique_with` once per group otherwise; the answers are the same."""

    def remove_in_order(
        self, groups: Sequence[Sequence[str]], kept: Iterable[str]
    ) -> tuple[str, ...]:
        """The clues of ``kept`` left after trying each group of ``groups`` in turn: a group is
        dropped when the solution stays the only one of the clues left without it."""
        raise NotImplementedError


@runtime_checkable
class Verifier(Protocol):
    """A verifier backend: one verb, :meth:`verify`; settings are given at construction
    (scikit-learn style). Register a factory with
    :func:`puzzlekit.verifiers.registry.register_verifier`; check one with
    ``puzzlekit.quality.checks.check_verifier``."""

    #: its id in reports (``source.verifierId``) and in experiment rows (required)
    name: str
    #: its version in reports (required)
    version: str
    #: whether its verdicts are proofs (required); only exact verifiers may be holdouts, and
    #: ``check_family`` compares every exact backend with the reference
    exact: bool
    #: the registered name of an exact backend independent of this one, against which the loop
    #: holds out what this one accepts when no holdout is named (``puzzlekit generate``).
    #: Default: the reference, ``enumerative``; the reference itself names ``sat``.
    holdout_name: str = "enumerative"

    def verify(
        self,
        instance: Instance,
        *,
        solution_cap: int = DEFAULT_CAP,
        budget: SearchBudget | None = None,
        extras: Collection[str] = (),
    ) -> VerifierReport:
        """Required. The report on ``instance``: the verdict, up to ``solution_cap`` solutions
        and the reject detail, within ``budget`` (None: the default :class:`SearchBudget`).
        Never mutates ``instance``; bad input is an ``INVALID_SPEC`` report, not an exception.
        Called for every filter call of the loop, every holdout check and every CLI verify.

        ``extras``: the names of the report extras (:data:`EXTRAS`) the caller wants; the
        verdict, the solutions and the reject detail never depend on it. A verifier computes the
        extras it knows only when asked (a setting may ask for them always) and ignores the
        names it does not know: an extra not computed is absent from ``stats``. The loop passes it
        on every call (checked by :func:`report_extras`; empty when nothing is asked), so
        ``verify`` must take it."""
        raise NotImplementedError

    def accepts(self, instance: Instance) -> bool:
        """Whether this backend takes ``instance``: its rules and clues (an instance without
        clues asks about its schema alone). The default backend choice
        (:func:`puzzlekit.verifiers.registry.default_verifier_name`) asks the backends of its
        preference order and takes the first that accepts; ``check_family`` compares only the
        backends that accept a family's instances. An instance that does not resolve is
        accepted when the family's own schemas are (the report is ``INVALID_SPEC``). Must be
        cheap, safe from several threads and never mutate ``instance``. Default: True, every
        instance (``verify`` may still decline one by raising ``NotImplementedError``)."""
        return True

    def believed_schema(self, schema: Schema) -> Schema:
        """The schema as this verifier believes it. Called by the loop before a strategy
        starts: the generator samples solutions under the filter's rules. Default: ``schema``
        itself; a fault-injected filter (``faulty``) drops the rule class it ignores."""
        return schema

    def uniqueness_session(
        self, instance: Instance, solution: Mapping[str, int]
    ) -> UniquenessSession | None:
        """A session answering "is ``solution`` still the only one with these clues?" faster
        than :meth:`verify`. Called by minimization once per accepted puzzle, which then asks
        one question per clue it tries to drop. Default: None, and minimization calls
        :meth:`verify` for each; ``sat`` answers with one incremental solver call, ``bitmask``
        runs the whole remove-and-check in one compiled call (:class:`OrderedRemoval`)."""
        return None


def report_extras(extras: Collection[str]) -> frozenset[str]:
    """``extras`` as the frozenset every caller passes to ``verify(..., extras=...)``; raises
    ValueError for a name not in :data:`EXTRAS` (a misspelt extra is a mistake to name, not a
    request to ignore)."""
    unknown = sorted(set(extras) - EXTRAS)
    if unknown:
        raise ValueError(f"unknown report extra {unknown[0]!r}; known: {', '.join(sorted(EXTRAS))}")
    return frozenset(extras)


# --- Strategy ----------------------------------------------------------------------------------


class StrategyFailed(Exception):
    """A strategy could not give its next step: the program behind it crashed, hung past its
    per-call limit, wrote garbage or proposed an impossible edit. ``kind`` names which
    (``crashed``, ``hung``, ``garbage``, ``impossible-edit``); the message says what it did.
    The loop driver ends that loop with the outcome ``strategy-failed`` and the run goes on."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def strategy_hook(strategy: Any, name: str) -> Any:
    """The optional member ``name`` of ``strategy`` (``end_loop``, ``state``), or None: looked
    up rather than called, so a strategy that does not subclass :class:`Strategy` may leave
    them out."""
    found = getattr(strategy, name, None)
    return found if callable(found) else None


@runtime_checkable
class Strategy(Protocol):
    """A generator strategy: how a puzzle starts and what happens after each reject. It sees
    only the filter's reports, never the holdout's. Register a factory ``factory(k)`` (``k``:
    the initial clue count) with :func:`puzzlekit.generators.register_strategy`."""

    #: its name in results and experiment rows (required)
    name: str
    #: the report extras (:data:`EXTRAS`) its :meth:`propose` reads; the loop asks the filter for
    #: these (and those the run names) and for nothing else. Default: none (the built-in
    #: strategies read the verdict, the solutions and the reject detail only)
    extras: Collection[str] = ()

    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        """Required. The first step of a loop: a fresh instance of ``schema`` and the solution
        it builds towards, drawn with ``rng``. Called once per loop, and again after a
        contaminated evaluation."""
        raise NotImplementedError

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        """Required. The next step after the filter rejected ``step.instance`` with ``report``
        (a repair, or a fresh start). Called after every filter reject, until the budget runs
        out."""
        raise NotImplementedError


# --- Holdout -----------------------------------------------------------------------------------


@runtime_checkable
class Holdout(Protocol):
    """The holdout side of the loop: an independent verifier that receives only serialized
    material addressed by digest, and whose reports never reach the strategy
    (``puzzlekit.loop.driver`` has an in-process and a worker-process one)."""

    #: the holdout verifier's name in results (required)
    name: str

    def check(self, canonical: bytes, digest: str, solution_cap: int) -> VerifierReport:
        """Required. The report on the instance whose canonical JSON is ``canonical``; the
        material must match ``digest``, and the verifier must not change it. Called once per
        filter-accepted puzzle."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the holdout (stop its worker process). Called once when a run ends. Default:
        nothing to release."""
        return None
