"""Puzzle families: the protocol every family module fills in, and the registry of families.

A family knows one kind of puzzle: its schema for given params, its clue kinds, how a clue turns
into constraints, the true clues of a solution, its customary text format and its renderings.
This package is part of the ground floor: it imports only :mod:`puzzlekit.core.model`.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from puzzlekit.core.model import (
    Clue,
    Constraint,
    Instance,
    Problem,
    Schema,
    Solution,
    SpecError,
    Violation,
    freeze,
)
from puzzlekit.core.plugins import Registry, UnknownName


@dataclass(frozen=True)
class Repair:
    """One clue edit a family proposes at a coordinate: clues to add, clue ids to remove.

    ``rules_out``: when the family ranked the move against the filter's found solutions (see
    :meth:`Family.repair_moves`), how many of the found alternatives it rules out; None when
    not ranked.
    """

    action: str  # "reveal", "split", "merge", "add-inequality", "reshape", "change", ...
    coord: tuple
    add: tuple[Clue, ...] = ()
    remove: tuple[str, ...] = ()
    rules_out: int | None = None

    def apply(self, instance: Instance) -> Instance:
        kept = [c for c in instance.clues if c.id not in set(self.remove)]
        return instance.with_clues([*kept, *self.add])


T = TypeVar("T")


def pick_in_order(items: Sequence[T], k: int, rng: Any) -> list[T]:
    """``k`` of ``items`` (clamped to 0..len) drawn without replacement by the numpy Generator
    ``rng``, kept in their order: how a fresh puzzle takes its random clues."""
    k = max(0, min(k, len(items)))
    picked = sorted(int(i) for i in rng.choice(len(items), size=k, replace=False))
    return [items[i] for i in picked]


class Family:
    """Base class of a puzzle family. Subclasses set the class attributes and fill in the methods.

    Methods that read input (:meth:`normalize_params`, :meth:`clue_constraints`,
    :meth:`parse_text`) raise :class:`~puzzlekit.core.model.SpecError` with violations, never
    another
    exception, so a verifier can turn bad input into an ``INVALID_SPEC`` report.
    """

    name: str = ""
    description: str = ""
    #: the verifier that suits this family best (None: ``sat`` where encodable, else
    #: ``enumerative``); games name ``gametree``, tool-call puzzles ``oracle``
    default_verifier: str | None = None
    clue_kinds: tuple[str, ...] = ()
    #: params listed by ``puzzlekit schemas`` (each becomes one registered schema)
    listed_params: tuple[Mapping[str, Any], ...] = ()

    # -- schema ---------------------------------------------------------------------------
    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Complete ``params`` with defaults and check them; raise SpecError if unusable."""
        raise NotImplementedError

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        """The schema for normalized params."""
        raise NotImplementedError

    def schema(self, params: Mapping[str, Any] | None = None) -> Schema:
        """The (cached) schema for ``params``; raises SpecError for unusable params."""
        norm = self.normalize_params(dict(params or {}))
        return _cached_schema(self, freeze(norm))

    # -- clues ----------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        """The constraints that ``clue`` adds; raise SpecError if the clue is malformed."""
        raise NotImplementedError

    #: clues of this kind fix the value of their one cell outright (see :meth:`given_values`)
    value_clue_kind: str | None = None
    #: what two clues with the same :meth:`place_of` are said to give, in a violation
    place_name: str = "place"

    def place_of(self, clue: Clue) -> Any:
        """Where a clue speaks (a cell, a line, ...): two clues of one place are duplicates.

        None (the default) means the clue is not checked for duplicates.
        """
        return None

    def validate_clues(self, schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
        """Violations that involve several clues together: a clue id used twice, and two
        clues of one :meth:`place_of`. Override to extend."""
        out = []
        seen_ids: set[str] = set()
        seen: dict[Any, str] = {}
        for clue in clues:
            if clue.id in seen_ids:
                out.append(
                    Violation("duplicate-clue", None, f"clue {clue.id}", "clue id used twice")
                )
            seen_ids.add(clue.id)
            key = self.place_of(clue)
            if key is None:
                continue
            if key in seen:
                out.append(
                    Violation(
                        "duplicate-clue",
                        clue.coords[0] if clue.coords else None,
                        f"clue {clue.id}",
                        f"clues {seen[key]} and {clue.id} give the same {self.place_name}",
                    )
                )
            else:
                seen[key] = clue.id
        return out

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        """Every true clue a generator may reveal about ``solution``."""
        raise NotImplementedError

    # -- golden corpora (puzzlekit.quality.golden)
    # ------------------------------------------------------
    #: the exact verifier that records this family's golden corpora
    golden_verifier: str = "enumerative"

    def golden_instances(
        self, params: Mapping[str, Any], *, seed: int = 0
    ) -> dict[str, tuple[str, Instance, int]] | None:
        """The family's own regression cases for ``params``: each name of
        ``puzzlekit.quality.golden.CASES`` mapped to (note, instance, solution cap). None (the
        default):
        ``puzzlekit.quality.golden`` builds them from :meth:`clues_from_solution`. Games override
        it (a
        position is one clue, so dropping clues makes no case)."""
        return None

    # -- generation hooks (used by generators/, which stay family-agnostic) -------------------
    def sample_solution(self, schema: Schema, rng: Any) -> Solution | None:
        """A seeded random full solution, or None to use the generic randomized search."""
        return None

    def initial_clues(self, schema: Schema, solution: Solution, k: int, rng: Any) -> list[Clue]:
        """The clues of a fresh puzzle for ``solution``, drawn with the numpy Generator ``rng``.

        Default: ``k`` random clues of :meth:`clues_from_solution`, kept in that order. Families
        whose puzzles are layouts (cages, regions) override this to grow a random layout.
        """
        return pick_in_order(self.clues_from_solution(schema, solution), k, rng)

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        """Clue edits touching ``coord`` that keep every clue true of ``solution``.

        Default: reveal the clue of :meth:`clues_from_solution` at ``coord`` if it is not
        present. Families override to split or merge a cage, add an inequality, reshape a
        region, ...; the adaptive strategy picks among the moves with its seeded rng.

        ``found``: the solutions the filter's report holds (a MULTIPLE report's, up to its cap),
        for families that rank their moves by how many alternatives each rules out (logicgrid);
        the default ignores it. The adaptive strategy passes it only to an override that
        declares the keyword, so overrides without it keep working. A move whose action is
        ``"change"`` replaces a clue that is false of ``solution`` by the true one; the adaptive
        strategy asks for such moves at the clues of an UNSOLVABLE conflict.
        """
        present = {c.id for c in instance.clues}
        coord = tuple(coord)
        for clue in self.clues_from_solution(schema, solution):
            if coord in clue.coords and clue.id not in present:
                return [Repair("reveal", coord, add=(clue,))]
        return []

    def given_values(self, problem: Problem) -> dict[str, int]:
        """Variables fixed by clues outright: each :attr:`value_clue_kind` clue's cell."""
        out: dict[str, int] = {}
        if self.value_clue_kind is None:
            return out
        for clue in problem.clues:
            if clue.kind == self.value_clue_kind and len(clue.coords) == 1:
                var = problem.schema.var_at(clue.coords[0])
                if var is not None:
                    out[var.name] = clue.data_dict()["value"]
        return out

    # -- text and rendering ---------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        raise SpecError(
            [Violation("malformed", None, "text", f"family {self.name} has no text format")]
        )

    def format_text(self, instance: Instance) -> str:
        raise NotImplementedError(f"family {self.name} has no text format")

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        return instance.to_json()

    #: colours of the marks drawn by :meth:`render`
    MARK_COLORS = {"?": "tab:orange", "!": "tab:red", "*": "tab:purple"}

    def mark_center(self, instance: Instance, coord: tuple) -> tuple[float, float] | None:
        """Where :meth:`render_mpl` draws the cell ``coord``: by default unit cells with row 0 at
        the top of ``rows`` (or ``size``) rows. Families that draw otherwise override this."""
        params = instance.params_dict()
        height = params.get("rows", params.get("size"))
        if not isinstance(height, int) or len(coord) != 2:
            return None
        r, c = coord
        return (c + 0.5, height - r - 0.5)

    def render(
        self,
        instance: Instance,
        *,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
        ax: Any = None,
    ) -> Any:
        """The matplotlib drawing with reject coordinates outlined (see ``RejectDetail.marks``:
        ``?`` orange, ``!`` red, ``*`` purple). Returns the axes."""
        import matplotlib.patches as patches

        ax = self.render_mpl(instance, ax=ax, solution=solution)
        for coord, mark in (marks or {}).items():
            center = self.mark_center(instance, tuple(coord))
            if center is None:
                continue
            x, y = center
            color = self.MARK_COLORS.get(mark, "tab:gray")
            ax.add_patch(
                patches.Rectangle((x - 0.45, y - 0.45), 0.9, 0.9, fill=False, lw=2, ec=color)
            )
            ax.text(x + 0.38, y + 0.3, mark, color=color, fontsize=7, ha="right", va="center")
        return ax

    def render_mpl(self, instance: Instance, ax: Any = None, solution: Solution | None = None):
        raise NotImplementedError(f"family {self.name} has no matplotlib rendering")

    def describe(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """One row of ``puzzlekit schemas``."""
        schema = self.schema(params)
        return {
            "family": self.name,
            "params": schema.params_dict(),
            "clueKinds": list(self.clue_kinds),
            "variables": len(schema.variables),
            "domainSize": schema.domain_size(),
            "description": self.description,
        }


@functools.lru_cache(maxsize=256)
def _cached_schema(family: Family, frozen_params: Any) -> Schema:
    from puzzlekit.core.model import _thaw

    return family.build_schema({k: _thaw(v) for k, v in frozen_params})


def _load_builtin() -> None:
    # every public module of this package (and of its subpackages) registers its family on import
    import puzzlekit.families as pkg

    for info in pkgutil.walk_packages(pkg.__path__, prefix="puzzlekit.families."):
        if not info.name.rsplit(".", 1)[1].startswith("_"):
            importlib.import_module(info.name)


#: the registered families by name (built-ins, then plugins)
FAMILIES: Registry[Family] = Registry("family", _load_builtin)


def register_family(family: Family, *, replace: bool = False) -> Family:
    """Register a family under its name (third parties call this for their own families).

    A name already registered raises :class:`~puzzlekit.core.plugins.DuplicateName` unless
    ``replace``: a plugin never hides a built-in by accident."""
    return FAMILIES.register(family.name, family, replace=replace)


def get_family(name: str) -> Family:
    """The registered family ``name``; raises SpecError (``unknown-family``) otherwise, whose
    detail names the closest known families."""
    try:
        return FAMILIES.get(name)
    except UnknownName as exc:
        raise SpecError([Violation("unknown-family", None, "family", str(exc))]) from None


def families() -> list[Family]:
    """Every registered family, by name."""
    return [fam for _, fam in FAMILIES.items()]


def registered_schemas() -> list[dict[str, Any]]:
    """One row per registered schema: family, params, clue kinds, variables, domain size."""
    return [fam.describe(params) for fam in families() for params in fam.listed_params]


def resolve(instance: Instance) -> Problem:
    """Check an instance against its family and turn its clues into constraints.

    Raises SpecError listing every violation found (not only the first).
    """
    family = get_family(instance.family)
    schema = family.schema(instance.params_dict())
    violations = list(family.validate_clues(schema, instance.clues))
    pairs = []
    for clue in instance.clues:
        try:
            pairs.append((clue.id, tuple(family.clue_constraints(schema, clue))))
        except SpecError as exc:
            violations.extend(exc.violations)
    if violations:
        raise SpecError(violations)
    return Problem(instance, schema, tuple(pairs))


def schema_of(instance: Instance) -> Schema:
    return get_family(instance.family).schema(instance.params_dict())
