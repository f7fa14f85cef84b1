"""The Family protocol: a base class whose every hook, required and optional, is declared here.

Subclass :class:`Family`, set its class attributes and fill in the four required methods; every
optional hook has its neutral default below. Also the records a family's hooks return
(:class:`Repair`) and :func:`pick_in_order`, how a fresh puzzle takes its random clues. Part of
:mod:`puzzlekit.core.protocols`, which re-exports everything here.

Not for: any particular family (``puzzlekit/families/``) or the family registry.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from puzzlekit.core.identity import duplicate_clues
from puzzlekit.core.model import (
    Clue,
    Constraint,
    Instance,
    Problem,
    Schema,
    Solution,
    SpecError,
    Violation,
    _thaw,
    freeze,
    typed_key,
)


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


# --- Family ------------------------------------------------------------------------------------


class Family:
    """Base class of a puzzle family: the table of every hook a family has.

    **Required** (raise ``NotImplementedError`` here): :meth:`normalize_params`,
    :meth:`build_schema`, :meth:`clue_constraints`, :meth:`clues_from_solution`, and the class
    attribute :attr:`name`. **Optional**, each with its default below: the text format
    (:meth:`parse_text`, :meth:`format_text`), renderings (:meth:`render_ascii`,
    :meth:`render_mpl`, :meth:`mark_center`), duplicate detection (:meth:`place_of`,
    :meth:`validate_clues`), generation (:meth:`sample_solution`, :meth:`initial_clues`,
    :meth:`least_k`, :meth:`repair_moves`), answers (:meth:`placement_clue`), golden corpora
    (:meth:`schema_id`, :meth:`golden_instances`, :attr:`golden_verifier`), the backend
    (:attr:`default_verifier`)
    and the schema listing (:attr:`listed_params`, :meth:`describe`).

    Methods that read input (:meth:`normalize_params`, :meth:`clue_constraints`,
    :meth:`parse_text`) raise :class:`~puzzlekit.core.model.SpecError` with violations, never
    another exception, so a verifier can turn bad input into an ``INVALID_SPEC`` report.
    ``puzzlekit.quality.checks.check_family`` checks every hook.
    """

    #: the registered name (required); instances name their family by it
    name: str = ""
    #: one line for ``puzzlekit schemas``
    description: str = ""
    #: the backend this family names as its own (games ``gametree``, tool-call puzzles
    #: ``oracle``); None: the first of the registry's preference order that accepts an
    #: instance (``puzzlekit.verifiers.registry.PREFERENCE``: ``bitmask`` for all-different
    #: rules that compile, else ``sat`` where encodable, else ``enumerative``)
    default_verifier: str | None = None
    #: the clue kinds :meth:`clue_constraints` reads
    clue_kinds: tuple[str, ...] = ()
    #: params listed by ``puzzlekit schemas`` (each becomes one registered schema)
    listed_params: tuple[Mapping[str, Any], ...] = ()
    #: clues of this kind fix the value of their one cell outright (see :meth:`given_values`)
    value_clue_kind: str | None = None
    #: value -> the kind of a data-less clue that fixes one cell to it (:meth:`placement_clue`;
    #: star battle: ``{1: "star", 0: "empty"}``); None: a :attr:`value_clue_kind` clue
    placement_kinds: Mapping[int, str] | None = None
    #: what two clues with the same :meth:`place_of` are said to give, in a violation
    place_name: str = "place"
    #: the exact verifier that records this family's golden corpora
    golden_verifier: str = "enumerative"
    #: declared size limits, checked before any other work on params (:meth:`schema`) and
    #: listed by ``puzzlekit schemas``: param -> the largest integer value, or the largest
    #: length of a list or string value (a layout's rows); a key that is not a param names a
    #: measure the family checks itself
    size_limits: Mapping[str, int] = {}
    #: the rules in plain words for a prompt (:meth:`prompt`); ``{key}`` fields are filled from
    #: the normalized params (``{size}``, ``{box[0]}``); empty: the :attr:`description`
    rules_text: str = ""
    #: prompt templates by style (``plain``, ``brief``, ``json``, or a new one), each a
    #: :class:`string.Template` over ``$family``, ``$rules``, ``$puzzle``, ``$answer_format``;
    #: a style named here replaces the default template of that name
    prompt_templates: Mapping[str, str] = {}
    #: how the answer to a 0/1 grid writes each value (nonogram: ``{1: "#", 0: "-"}``); None:
    #: digits
    answer_symbols: Mapping[int, str] | None = None
    #: the symmetry group :meth:`canonical_instance` divides out, in words (empty: none)
    symmetry_group: str = ""
    #: colours of the marks drawn by :meth:`render`
    MARK_COLORS = {"?": "tab:orange", "!": "tab:red", "*": "tab:purple"}

    # -- schema (required) ----------------------------------------------------------------------
    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Required. Complete ``params`` with defaults and check them; raise SpecError if
        unusable. Called by :meth:`schema` on every lookup (the result keys the cache)."""
        raise NotImplementedError

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        """Required. The schema (variables, domains, rules) for normalized params. Called once
        per params (:meth:`schema` caches it)."""
        raise NotImplementedError

    def schema(self, params: Mapping[str, Any] | None = None) -> Schema:
        """The (cached) schema for ``params``; raises SpecError for unusable params. Not a hook:
        override :meth:`normalize_params` and :meth:`build_schema` instead."""
        params = dict(params or {})
        check_size_limits(self, params)
        norm = self.normalize_params(params)
        frozen_params = freeze(norm)
        return _cached_schema(self, typed_key(frozen_params), frozen_params)

    # -- clues --------------------------------------------------------------------------------
    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        """Required. The constraints ``clue`` adds; raise SpecError if it is malformed. Called
        for every clue whenever an instance is resolved (every verification)."""
        raise NotImplementedError

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        """Required. Every true clue a generator may reveal about ``solution``, in a fixed
        order. Called by the default :meth:`initial_clues` and :meth:`repair_moves`, by the
        golden-corpus builder and by ``check_family``."""
        raise NotImplementedError

    def place_of(self, clue: Clue) -> Any:
        """Where a clue speaks (a cell, a line, ...): two clues of one place are duplicates.
        Called by the default :meth:`validate_clues`. Default: None, the clue is not checked
        for duplicates."""
        return None

    def validate_clues(self, schema: Schema, clues: Sequence[Clue]) -> list[Violation]:
        """Violations that involve several clues together. Called once per resolved instance,
        before :meth:`clue_constraints`. Default: a clue id used twice, and two clues of one
        :meth:`place_of`; override to extend (and call it: ``families.resolve`` checks clue ids
        again when an override does not)."""
        out = duplicate_clues(clues)
        seen_ids: set[str] = set()
        seen: dict[Any, str] = {}
        for clue in clues:
            if clue.id in seen_ids:  # reported as a duplicate id already
                continue
            seen_ids.add(clue.id)
            key = self.place_of(clue)
            if key is None:
                continue
            try:
                hash(key)
            except TypeError:  # a list or object where a value belongs in the clue's data
                detail = f"clue {clue.id} does not name one {self.place_name}"
                out.append(Violation("malformed", None, f"clue {clue.id}", detail))
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

    def placement_clue(self, schema: Schema, name: str, value: int) -> Clue | None:
        """The clue that fixes variable ``name`` to ``value``: how a partly filled answer
        becomes a puzzle whose completions a verifier can look for (``puzzlekit check
        --partial``). Called once per placed cell. Default: a :attr:`value_clue_kind` clue
        ``{"value": value}`` at the variable's cell, id ``placed-<name>`` (a
        :attr:`placement_kinds` clue without data where the family names them); None (no
        partial checks) when it has neither."""
        var = schema.var(name)
        if self.placement_kinds is not None:
            kind = self.placement_kinds.get(value)
            return None if kind is None else Clue.make(f"placed-{name}", kind, {}, [var.coord])
        if self.value_clue_kind is None:
            return None
        return Clue.make(f"placed-{name}", self.value_clue_kind, {"value": value}, [var.coord])

    def given_values(self, problem: Problem) -> dict[str, int]:
        """Variables fixed by clues outright, read by backends to narrow domains. Default: each
        :attr:`value_clue_kind` clue's cell (nothing when that is None)."""
        out: dict[str, int] = {}
        if self.value_clue_kind is None:
            return out
        for clue in problem.clues:
            if clue.kind == self.value_clue_kind and len(clue.coords) == 1:
                var = problem.schema.var_at(clue.coords[0])
                if var is not None:
                    out[var.name] = clue.data_dict()["value"]
        return out

    # -- generation (called by generators/, which stay family-agnostic) -----------------------
    def sample_solution(self, schema: Schema, rng: np.random.Generator) -> Solution | None:
        """A seeded random full solution. Called once per fresh puzzle of a strategy. Default:
        None, which means the generic randomized search
        (:func:`puzzlekit.core.solutions.random_solution`)."""
        return None

    def initial_clues(
        self, schema: Schema, solution: Solution, k: int, rng: np.random.Generator
    ) -> list[Clue]:
        """The clues of a fresh puzzle for ``solution`` (each must hold in it), drawn with
        ``rng``. Called once per fresh puzzle of a strategy. Default: ``k`` random clues of
        :meth:`clues_from_solution`, kept in that order; families whose puzzles are layouts
        (cages, regions) override it to grow a random layout."""
        return pick_in_order(self.clues_from_solution(schema, solution), k, rng)

    def least_k(self, schema: Schema) -> int:
        """The fewest clues :meth:`initial_clues` can start a puzzle with: a ``k`` below it is
        raised to at least it (the experiment runner says so on stderr and in the manifest's
        ``kRaised``). Default: 0, every ``k`` is honoured."""
        return 0

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        """Clue edits touching ``coord`` after which every clue is true of ``solution``.

        Called by the adaptive strategy at each coordinate a reject detail points to (the top
        ``discriminativeGap`` cells, the culprits, the coordinates of conflict clues); it picks
        among the moves with its seeded rng. ``found`` always comes: the solutions of the
        filter's report (a MULTIPLE report's, up to its cap; empty otherwise), for families
        that rank their moves by how many alternatives each rules out (logicgrid sets
        :attr:`Repair.rules_out`). An override must accept ``found``, even to ignore it. A move
        whose action is ``"change"`` replaces a clue that is false of ``solution`` by the true
        one; the strategy asks for such moves at the clues of an UNSOLVABLE conflict.

        Default: reveal the clue of :meth:`clues_from_solution` at ``coord`` if it is not
        present (families override it to split or merge a cage, add an inequality, reshape a
        region, ...).
        """
        present = {c.id for c in instance.clues}
        coord = tuple(coord)
        for clue in self.clues_from_solution(schema, solution):
            if coord in clue.coords and clue.id not in present:
                return [Repair("reveal", coord, add=(clue,))]
        return []

    # -- prompts and answers (rendered and read by puzzlekit.answers.prompts) -------------------
    def prompt(
        self, instance: Instance, *, style: str = "plain", template: str | None = None
    ) -> str:
        """The puzzle rendered for a solver, a language model included: the rules in plain
        words (:attr:`rules_text`), the puzzle (:meth:`prompt_puzzle`) and the answer format
        expected (``plain``; ``brief`` leaves out the rules; ``json`` asks for a JSON object
        cell name -> value). ``template``: a :class:`string.Template` replacing the style's
        (see :attr:`prompt_templates`). Not a hook: override the parts instead."""
        return _answers_hook("render_prompt")(self, instance, style, template)

    def prompt_puzzle(self, instance: Instance) -> str:
        """The puzzle as a prompt shows it. Default: the family's drawing
        (:meth:`render_ascii`) when it has one, else its text line (:meth:`format_text`)."""
        if type(self).render_ascii is not Family.render_ascii:
            return self.render_ascii(instance)
        try:
            return self.format_text(instance)
        except NotImplementedError:
            return instance.to_json()

    def answer_values(self, schema: Schema) -> Mapping[str, Mapping[int, Any]] | None:
        """Variable name -> {value: its label}, where an answer names
        values rather than numbers them (logicgrid: ``red``; toolcall: the JSON value). The
        answer is then a JSON object of labels. Default: None, values are written as they are."""
        return None

    def format_answer(self, instance: Instance, solution: Solution, *, style: str = "plain") -> str:
        """``solution`` written in the answer format :meth:`prompt` asks for (``style``
        ``json``: a JSON object); :meth:`parse_answer` reads it back."""
        return _answers_hook("format_answer")(self, instance, solution, style)

    def parse_answer(self, text: str, instance: Instance) -> dict[str, int | None]:
        """The values a solver's answer to ``instance`` gives, cell name -> value (None:
        unfilled), read as ``pk.check_answer`` reads text (the last grid in a completion, JSON,
        the family's text line; for a game, the last move). Raises
        :class:`puzzlekit.answers.Unreadable` with the reason when nothing can be read.
        ``check_answer`` reads text answers through this hook when a family overrides it."""
        return _answers_hook("parse_answer")(self, instance, text)

    def canonical_instance(self, instance: Instance) -> Instance:
        """One representative of ``instance``'s class under :attr:`symmetry_group` (the same
        instance for every member of the class, a different one for every other class): what
        :meth:`Instance.canonical_digest` digests, for deduplication and disjoint dataset
        splits. Default: the instance itself (no group)."""
        return instance

    # -- golden corpora (puzzlekit.quality.golden) ----------------------------------------------
    def schema_id(self, params: Mapping[str, Any]) -> str:
        """The stable name of the schema of normalized ``params``: its golden corpus file name
        (without ``.jsonl``) and its id in ``puzzlekit regress --schema``. Called by
        :func:`puzzlekit.quality.golden.schema_id`. Default: the family name, then ``NxN`` for
        an integer ``size``, then ``key`` + value of every param that differs from what the
        size alone gives (lists joined by ``x``)."""
        parts = [self.name]
        size = params.get("size")
        derived: Mapping[str, Any] = {}
        if isinstance(size, int) and not isinstance(size, bool):
            parts.append(f"{size}x{size}")
            try:
                derived = self.normalize_params({"size": size})
            except SpecError:
                derived = {}
        for key in sorted(params):
            if key == "size" or derived.get(key) == params[key]:
                continue
            parts.append(f"{key}{_id_part(params[key])}")
        return "-".join(parts)

    def golden_instances(
        self, params: Mapping[str, Any], *, seed: int = 0
    ) -> dict[str, tuple[str, Instance, int]] | None:
        """The family's own regression cases for ``params``: each name of
        ``puzzlekit.quality.golden.CASES`` mapped to (note, instance, solution cap). Called when
        a golden corpus is built. Default: None, and the builder makes them from
        :meth:`clues_from_solution`. Games override it (a position is one clue, so dropping
        clues makes no case)."""
        return None

    # -- text and rendering -------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        """The instance written in the family's one-line text format; raise SpecError with
        violations for text it cannot read. Called by input reading (CLI, MCP). Default: the
        line is the instance's JSON (what the default :meth:`format_text` writes)."""
        inst = Instance.from_json(text.strip())
        if inst.family != self.name:
            raise SpecError([Violation("malformed", None, "family", f"not a {self.name} instance")])
        return inst

    def format_text(self, instance: Instance) -> str:
        """The instance in the family's one-line text format (no newline);
        :meth:`parse_text` must read it back. Called by ``puzzlekit generate``, experiment rows
        and text output; multi-line drawings belong in :meth:`render_ascii`. Default: the
        instance's canonical JSON on one line. Raise ``NotImplementedError`` for a family with
        no text format at all (``check_family`` then skips the round trip with a note)."""
        return instance.to_json()

    def render_ascii(
        self,
        instance: Instance,
        solution: Solution | None = None,
        marks: Mapping[tuple, str] | None = None,
    ) -> str:
        """A plain-text drawing of ``instance`` (with ``solution`` filled in and ``marks`` at
        coordinates, where given). Called by text output. Default: the instance's JSON."""
        return instance.to_json()

    def render_mpl(
        self, instance: Instance, ax: Any = None, solution: Solution | None = None
    ) -> Any:
        """Draw ``instance`` on the matplotlib axes ``ax`` (new axes when None) and return them.
        Called by :meth:`render`. Default: ``NotImplementedError``, no matplotlib drawing."""
        raise NotImplementedError(f"family {self.name} has no matplotlib rendering")

    def mark_center(self, instance: Instance, coord: tuple) -> tuple[float, float] | None:
        """Where :meth:`render_mpl` draws the cell ``coord`` (None: nowhere). Called by
        :meth:`render` for each mark. Default: unit cells, row 0 at the top of ``rows`` (or
        ``size``) rows; families that draw otherwise override it."""
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
        ``?`` orange, ``!`` red, ``*`` purple). Returns the axes. Called by notebooks and plots;
        not a hook: override :meth:`render_mpl` and :meth:`mark_center`."""
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

    def describe(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """One row of ``puzzlekit schemas``. Default: family, params, clue kinds, variables,
        domain size and description."""
        schema = self.schema(params)
        return {
            "family": self.name,
            "params": schema.params_dict(),
            "clueKinds": list(self.clue_kinds),
            "variables": len(schema.variables),
            "domainSize": schema.domain_size(),
            "description": self.description,
            "limits": dict(self.size_limits),
        }


#: where the default prompt and answer hooks live: ``puzzlekit.answers`` sits floors above the
#: families, so it is named (``"module:attr"``, as the registries name entries) and loaded on
#: first use
ANSWERS_HOOKS = "puzzlekit.answers.prompts"


def _answers_hook(attr: str) -> Any:
    import importlib

    return getattr(importlib.import_module(ANSWERS_HOOKS), attr)


def check_size_limits(family: Family, params: Mapping[str, Any]) -> None:
    """Refuse params beyond ``family.size_limits`` (SpecError, ``out-of-domain``) before a
    family spends time or memory on them."""
    for key, limit in family.size_limits.items():
        value = params.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > limit:
            size = value
        elif isinstance(value, list | tuple | str) and len(value) > limit:
            size = len(value)
        else:
            continue
        detail = f"{size} is beyond {family.name}'s declared limit of {limit}"
        raise SpecError([Violation("out-of-domain", None, f"params.{key}", detail)])


def _id_part(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "x".join(_id_part(v) for v in value)
    return str(value).replace(" ", "").replace("/", "_")


@functools.lru_cache(maxsize=256)
def _cached_schema(family: Family, key: str, frozen_params: Any) -> Schema:
    """``key``: :func:`~puzzlekit.core.jsondata.typed_key` of the params, so that params Python
    compares equal but JSON does not (``true`` and ``1``) never share a schema."""
    return family.build_schema({k: _thaw(v) for k, v in frozen_params})
