"""The plug points of puzzlekit, each declared in one place with every hook it has: their one
import path.

Like the ``const game`` table of Simon Tatham's puzzle collection, each class below lists every
slot of its kind, required and optional, and says what it is for, when it is called and its
default. The framework calls every hook directly; nothing is discovered by ``getattr``. Import
each from here (``from puzzlekit.core.protocols import Family, FamilyInfo``); no other module of
puzzlekit offers them (``tests/test_protocols.py``).

- :class:`Family`: a base class. Subclass it, declare what the family is in one
  :class:`FamilyInfo` record (``info = FamilyInfo(name=..., ...)``) and fill in the four required
  methods; every optional hook is defined with its neutral default.
- :class:`Verifier`, :class:`Strategy`, :class:`Holdout`: ``typing.Protocol`` classes. Subclass
  one to inherit the defaults of its optional hooks (the built-ins do), or implement every member
  yourself; either way ``isinstance(obj, Verifier)`` holds.
- :class:`Game`: OpenSpiel's State API (``legal_actions``, ``apply_action``, ``is_terminal``,
  ``returns``, ...) in its functional form, described by a :class:`GameInfo` record;
  :class:`GameState` is its object form (``clone``).
- The records the hooks exchange: :class:`SearchBudget` (what a verifier may spend),
  :class:`Repair` (a clue edit a family proposes), :class:`Step` (what a strategy did),
  :class:`UniquenessSession` (a verifier's fast uniqueness question) and
  :class:`OrderedRemoval` (a session that runs a whole remove-and-check in one call).

Not for: implementations (``families/``, ``verifiers/``, ``generators/``, ``loop/`` hold them)
or registries (:mod:`puzzlekit.core.plugins`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from puzzlekit.core import family as family_defaults
from puzzlekit.core.identity import duplicate_clues
from puzzlekit.core.model import (
    Clue,
    Constraint,
    Coord,
    Instance,
    Problem,
    Schema,
    Solution,
    SpecError,
    Violation,
    freeze,
    typed_key,
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
        if klass.__module__ == __name__:
            for n in [*vars(klass).get("__annotations__", {}), *vars(klass)]:
                if n not in names and not n.startswith("_"):
                    names.append(n)
    return tuple(names)


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
    picked = sorted(rng.choice(len(items), size=k, replace=False).tolist())
    return [items[i] for i in picked]


# --- Family ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FamilyInfo:
    """What a family declares about itself, in one record (as OpenSpiel's ``GameType``): read by
    the core, the registries and the commands, never inferred from a family's name. A family
    sets it as the class attribute ``info = FamilyInfo(name=..., ...)``; only ``name`` is
    required, every other field has the default below. Its behaviour is in the hooks of
    :class:`Family`, never here."""

    #: the registered name; instances name their family by it
    name: str
    #: one line for ``puzzlekit schemas``
    description: str = ""
    #: the clue kinds :meth:`Family.clue_constraints` reads
    clue_kinds: tuple[str, ...] = ()
    #: params listed by ``puzzlekit schemas`` (each becomes one registered schema)
    listed_params: tuple[Mapping[str, Any], ...] = ()
    #: the backend this family names as its own (games ``gametree``, tool-call puzzles
    #: ``oracle``); None: the first of the registry's preference order that accepts an
    #: instance (``puzzlekit.verifiers.registry.PREFERENCE``: ``bitmask`` for all-different
    #: rules that compile, else ``sat`` where encodable, else ``enumerative``)
    default_verifier: str | None = None
    #: the exact verifier that records this family's golden corpora
    golden_verifier: str = "enumerative"
    #: declared size limits, checked before any other work on params (:meth:`Family.schema`)
    #: and listed by ``puzzlekit schemas``: param -> the largest integer value, or the largest
    #: length of a list or string value (a layout's rows); a key that is not a param names a
    #: measure the family checks itself
    size_limits: Mapping[str, int] = field(default_factory=dict)
    #: clues of this kind fix the value of their one cell outright (:meth:`Family.given_values`)
    value_clue_kind: str | None = None
    #: value -> the kind of a data-less clue that fixes one cell to it
    #: (:meth:`Family.placement_clue`; star battle: ``{1: "star", 0: "empty"}``); None: a
    #: :attr:`value_clue_kind` clue
    placement_kinds: Mapping[int, str] | None = None
    #: what two clues with the same :meth:`Family.place_of` are said to give, in a violation
    place_name: str = "place"
    #: the symmetry group :meth:`Family.canonical_instance` divides out, in words (empty: none)
    symmetry_group: str = ""
    #: the rules in plain words for a prompt (:meth:`Family.prompt`); ``{key}`` fields are
    #: filled from the normalized params (``{size}``, ``{box[0]}``); empty: the
    #: :attr:`description`
    rules_text: str = ""
    #: prompt templates by style (``plain``, ``brief``, ``json``, or a new one), each a
    #: :class:`string.Template` over ``$family``, ``$rules``, ``$puzzle``, ``$answer_format``;
    #: a style named here replaces the default template of that name
    prompt_templates: Mapping[str, str] = field(default_factory=dict)
    #: how the answer to a 0/1 grid writes each value (nonogram: ``{1: "#", 0: "-"}``); None:
    #: digits
    answer_symbols: Mapping[int, str] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"FamilyInfo.name: a non-empty string, got {self.name!r}")
        for key in ("clue_kinds", "listed_params"):
            value = getattr(self, key)
            if isinstance(value, str | bytes) or not isinstance(value, Sequence):
                raise TypeError(f"FamilyInfo.{key} of {self.name}: a tuple, got {value!r}")
            object.__setattr__(self, key, tuple(value))
        if not all(isinstance(kind, str) for kind in self.clue_kinds):
            raise TypeError(f"FamilyInfo.clue_kinds of {self.name}: strings, got {self.clue_kinds}")

    def replace(self, **changes: Any) -> FamilyInfo:
        """This record with ``changes`` (a family built on another one's record)."""
        return dataclasses.replace(self, **changes)


#: the fields of :class:`FamilyInfo`: a family that sets one of them as its own attribute (as
#: families did before the record) is refused with :func:`outside_info_message`
INFO_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(FamilyInfo))

#: colours of the marks drawn by :meth:`Family.render`
MARK_COLORS = {"?": "tab:orange", "!": "tab:red", "*": "tab:purple"}


def declared_outside_info(family: object) -> list[str]:
    """The :class:`FamilyInfo` fields ``family`` (a family class or object) sets as its own
    attributes instead of in its ``info``, in the record's order."""
    return [name for name in INFO_FIELDS if hasattr(family, name)]


def outside_info_message(owner: str, names: Sequence[str]) -> str:
    """One line telling the author of family ``owner`` what to change."""
    listed = ", ".join(names)
    fields = ", ".join(f"{n}=..." for n in names if n != "name")
    record = f"name=...{', ' + fields if fields else ''}"
    return (
        f"family {owner} sets {listed} as attributes of its own; a family declares them in one "
        "record: "
        f"info = FamilyInfo({record}) (from puzzlekit.core.protocols import FamilyInfo)"
    )


# --- Family ------------------------------------------------------------------------------------


class Family:
    """Base class of a puzzle family: the table of every hook a family has.

    **Declared** in one record, the class attribute ``info = FamilyInfo(name=..., ...)``
    (:class:`FamilyInfo`: name, description, clue kinds, listed params, backends, size limits,
    symmetry group, prompt text); a family that sets one of its fields as an attribute of its
    own is refused when its class is made, with a message saying what to write instead.
    **Required** hooks (raise ``NotImplementedError`` here): :meth:`normalize_params`,
    :meth:`build_schema`, :meth:`clue_constraints`, :meth:`clues_from_solution`. **Optional**,
    each with its default below: the text format (:meth:`parse_text`, :meth:`format_text`),
    renderings (:meth:`render_ascii`, :meth:`render_mpl`, :meth:`mark_center`), duplicate
    detection (:meth:`place_of`, :meth:`validate_clues`), generation (:meth:`sample_solution`,
    :meth:`initial_clues`, :meth:`least_k`, :meth:`repair_moves`), answers
    (:meth:`placement_clue`), golden corpora (:meth:`schema_id`, :meth:`golden_instances`) and
    the schema listing (:meth:`describe`).

    Methods that read input (:meth:`normalize_params`, :meth:`clue_constraints`,
    :meth:`parse_text`) raise :class:`~puzzlekit.core.model.SpecError` with violations, never
    another exception, so a verifier can turn bad input into an ``INVALID_SPEC`` report.
    ``puzzlekit.quality.checks.check_family`` checks every hook.
    """

    #: what the family declares about itself (required): name, description, clue kinds, listed
    #: params, backends, limits, symmetry group, prompt text, ... (:class:`FamilyInfo`)
    info: FamilyInfo

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        old = declared_outside_info(cls)
        if old:
            raise TypeError(outside_info_message(cls.__qualname__, old))

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
        family_defaults.check_size_limits(self, params)
        norm = self.normalize_params(params)
        frozen_params = freeze(norm)
        return family_defaults.cached_schema(self, typed_key(frozen_params), frozen_params)

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
                detail = f"clue {clue.id} does not name one {self.info.place_name}"
                out.append(Violation("malformed", None, f"clue {clue.id}", detail))
                continue
            if key in seen:
                out.append(
                    Violation(
                        "duplicate-clue",
                        clue.coords[0] if clue.coords else None,
                        f"clue {clue.id}",
                        f"clues {seen[key]} and {clue.id} give the same {self.info.place_name}",
                    )
                )
            else:
                seen[key] = clue.id
        return out

    def placement_clue(self, schema: Schema, name: str, value: int) -> Clue | None:
        """The clue that fixes variable ``name`` to ``value``: how a partly filled answer
        becomes a puzzle whose completions a verifier can look for (``puzzlekit check
        --partial``). Called once per placed cell. Default: a
        :attr:`FamilyInfo.value_clue_kind` clue ``{"value": value}`` at the variable's cell, id
        ``placed-<name>`` (a :attr:`FamilyInfo.placement_kinds` clue without data where the
        family names them); None (no partial checks) when it has neither."""
        var = schema.var(name)
        if self.info.placement_kinds is not None:
            kind = self.info.placement_kinds.get(value)
            return None if kind is None else Clue.make(f"placed-{name}", kind, {}, [var.coord])
        if self.info.value_clue_kind is None:
            return None
        return Clue.make(f"placed-{name}", self.info.value_clue_kind, {"value": value}, [var.coord])

    def given_values(self, problem: Problem) -> dict[str, int]:
        """Variables fixed by clues outright, read by backends to narrow domains. Default: each
        :attr:`FamilyInfo.value_clue_kind` clue's cell (nothing when that is None)."""
        out: dict[str, int] = {}
        if self.info.value_clue_kind is None:
            return out
        for clue in problem.clues:
            if clue.kind == self.info.value_clue_kind and len(clue.coords) == 1:
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
        words (:attr:`FamilyInfo.rules_text`), the puzzle (:meth:`prompt_puzzle`) and the
        answer format expected (``plain``; ``brief`` leaves out the rules; ``json`` asks for a
        JSON object cell name -> value). ``template``: a :class:`string.Template` replacing
        the style's (see :attr:`FamilyInfo.prompt_templates`). Not a hook: override the parts
        instead."""
        return family_defaults.answers_hook("render_prompt")(self, instance, style, template)

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
        return family_defaults.answers_hook("format_answer")(self, instance, solution, style)

    def parse_answer(self, text: str, instance: Instance) -> dict[str, int | None]:
        """The values a solver's answer to ``instance`` gives, cell name -> value (None:
        unfilled), read as ``pk.check_answer`` reads text (the last grid in a completion, JSON,
        the family's text line; for a game, the last move). Raises
        :class:`puzzlekit.answers.Unreadable` with the reason when nothing can be read.
        ``check_answer`` reads text answers through this hook when a family overrides it."""
        return family_defaults.answers_hook("parse_answer")(self, instance, text)

    def canonical_instance(self, instance: Instance) -> Instance:
        """One representative of ``instance``'s class under :attr:`FamilyInfo.symmetry_group`
        (the same instance for every member of the class, a different one for every other
        class): what
        :meth:`Instance.canonical_digest` digests, for deduplication and disjoint dataset
        splits. Default: the instance itself (no group)."""
        return instance

    # -- golden corpora (puzzlekit.quality.golden.corpus) ------------------------------------------
    def schema_id(self, params: Mapping[str, Any]) -> str:
        """The stable name of the schema of normalized ``params``: its golden corpus file name
        (without ``.jsonl``) and its id in ``puzzlekit regress --schema``. Called by
        :func:`puzzlekit.quality.golden.corpus.schema_id`. Default: the family name, then ``NxN``
        for an integer ``size``, then ``key`` + value of every param that differs from what the
        size alone gives (lists joined by ``x``)."""
        parts = [self.info.name]
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
            parts.append(f"{key}{family_defaults.id_part(params[key])}")
        return "-".join(parts)

    def golden_instances(
        self, params: Mapping[str, Any], *, seed: int = 0
    ) -> dict[str, tuple[str, Instance, int]] | None:
        """The family's own regression cases for ``params``: each name of
        ``puzzlekit.quality.golden.corpus.CASES`` mapped to (note, instance, solution cap). Called
        when a golden corpus is built. Default: None, and the builder makes them from
        :meth:`clues_from_solution`. Games override it (a position is one clue, so dropping
        clues makes no case)."""
        return None

    # -- text and rendering -------------------------------------------------------------------
    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        """The instance written in the family's one-line text format; raise SpecError with
        violations for text it cannot read. Called by input reading (CLI, MCP). Default: the
        line is the instance's JSON (what the default :meth:`format_text` writes)."""
        inst = Instance.from_json(text.strip())
        if inst.family != self.info.name:
            raise SpecError(
                [Violation("malformed", None, "family", f"not a {self.info.name} instance")]
            )
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
        raise NotImplementedError(f"family {self.info.name} has no matplotlib rendering")

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
            color = MARK_COLORS.get(mark, "tab:gray")
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
            "family": self.info.name,
            "params": schema.params_dict(),
            "clueKinds": list(self.info.clue_kinds),
            "variables": len(schema.variables),
            "domainSize": schema.domain_size(),
            "description": self.info.description,
            "limits": dict(self.info.size_limits),
        }


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


# --- Game --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameInfo:
    """What kind of game this is (OpenSpiel's ``GameType``): the core reads it, never the name."""

    name: str
    description: str
    players: int = 2
    dynamics: str = "sequential"
    information: str = "perfect"
    utility: str = "zero-sum"
    chance: str = "deterministic"
    draws: bool = True


class Game:
    """A two-player game of perfect information: OpenSpiel's State API, which every game fills in.

    **The protocol** (required, in this order): :meth:`initial`, :meth:`current_player`,
    :meth:`legal_actions`, :meth:`apply_action`, :meth:`is_terminal`, :meth:`returns`, and the
    record :attr:`info`. They are OpenSpiel's ``State`` methods in their functional form: each
    takes the state, an immutable hashable value (so an exact solver keeps states in tables), and
    :meth:`apply_action` returns the next state instead of changing it. :meth:`new_initial_state`
    gives the object form, a :class:`GameState` with OpenSpiel's methods (``apply_action``
    changes it, ``clone`` copies it). Players are ``1`` (moves first; ``x`` on boards) and
    ``2`` (``o``). An action is a move; the only-winning-move family's helpers (move
    coordinates, text, the position clue, a compiled solver) are declared by
    :class:`puzzlekit.families.games.PuzzleGame`, which the built-in games subclass.

    A game object is built from its params and compares equal by them (solvers cache by game).
    """

    #: what kind of game this is (required)
    info: GameInfo

    def __init__(self, **params: Any) -> None:
        self.params = dict(params)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.params.items()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.params})"

    def initial(self) -> Hashable:
        """Required. The state a game starts from."""
        raise NotImplementedError

    def current_player(self, state: Hashable) -> int:
        """Required. The player to move (1 or 2); after the end, the one who would move next."""
        raise NotImplementedError

    def legal_actions(self, state: Hashable) -> list[Hashable]:
        """Required. The actions (moves) of the player to move, in a fixed order; empty when the
        game is over."""
        raise NotImplementedError

    def apply_action(self, state: Hashable, action: Hashable) -> Hashable:
        """Required. The state after ``action`` (one of :meth:`legal_actions`); ``state`` is
        left as it is."""
        raise NotImplementedError

    def is_terminal(self, state: Hashable) -> bool:
        """Required. Whether the game is over (a win, or no action left)."""
        raise NotImplementedError

    def returns(self, state: Hashable) -> tuple[float, float]:
        """Required. What each player (1, then 2) gets: ``1.0`` for a win, ``-1.0`` for a loss,
        ``0.0`` for a draw and for both while the game goes on."""
        raise NotImplementedError

    def new_initial_state(self) -> GameState:
        """The initial state in OpenSpiel's object form. Not a hook."""
        return GameState(self, self.initial())


class GameState:
    """OpenSpiel's ``State`` object over a :class:`Game`: ``legal_actions()``,
    ``apply_action(action)`` (changes this object), ``is_terminal()``, ``returns()``,
    ``clone()`` and ``current_player()``; ``state`` is the game's immutable state value. For
    playing a game through the uniform API (an agent, a test); the solvers use the functional
    form."""

    __slots__ = ("game", "state")

    def __init__(self, game: Game, state: Hashable) -> None:
        self.game = game
        self.state = state

    def current_player(self) -> int:
        return self.game.current_player(self.state)

    def legal_actions(self) -> list[Hashable]:
        return self.game.legal_actions(self.state)

    def apply_action(self, action: Hashable) -> None:
        """Play ``action``; ValueError when it is not legal here."""
        if action not in self.game.legal_actions(self.state):
            raise ValueError(f"{action!r} is not a legal action of {self.game!r} here")
        self.state = self.game.apply_action(self.state, action)

    def is_terminal(self) -> bool:
        return self.game.is_terminal(self.state)

    def returns(self) -> tuple[float, float]:
        return self.game.returns(self.state)

    def clone(self) -> GameState:
        return GameState(self.game, self.state)
