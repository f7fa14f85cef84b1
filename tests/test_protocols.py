"""The protocols of puzzlekit.core.protocols: every optional hook has its default, built-ins
satisfy the protocols, verifiers declare their holdout, and each protocol has one import path."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import puzzlekit as pk
import puzzlekit.families as families_mod
from puzzlekit.core import protocols
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.protocols import (
    Family,
    FamilyInfo,
    Holdout,
    Repair,
    Strategy,
    UniquenessSession,
    Verifier,
    pick_in_order,
)
from puzzlekit.core.report import Verdict
from puzzlekit.families import register_family
from puzzlekit.families.latin import Latin
from puzzlekit.generators import STRATEGIES
from puzzlekit.generators.minimize import minimize
from puzzlekit.loop.driver import InlineHoldout
from puzzlekit.quality.checks import check_family, check_verifier
from puzzlekit.verifiers.registry import (
    VERIFIERS,
    default_holdout_name,
    get_verifier,
    register_verifier,
    verifier_names,
)

LATIN = Latin()


class Minimal(Family):
    """A family with the four required hooks only (a Latin square under another name)."""

    info = FamilyInfo(name="minimal-latin")

    def normalize_params(self, params):
        return LATIN.normalize_params(params)

    def build_schema(self, params):
        return dataclasses.replace(LATIN.build_schema(params), family=self.info.name)

    def clue_constraints(self, schema, clue):
        return LATIN.clue_constraints(schema, clue)

    def clues_from_solution(self, schema, solution):
        return LATIN.clues_from_solution(schema, solution)


@pytest.fixture
def minimal() -> Iterator[Minimal]:
    fam = register_family(Minimal(), replace=True)
    yield fam
    families_mod.FAMILIES.unregister(fam.info.name)


def _solution(fam: Family) -> tuple[Any, dict[str, int]]:
    from puzzlekit.core.solutions import random_solution

    schema = fam.schema({"size": 4})
    return schema, random_solution(schema, np.random.default_rng(0))


def test_a_family_without_optional_hooks_gets_their_defaults(minimal: Minimal) -> None:
    schema, sol = _solution(minimal)
    truth = minimal.clues_from_solution(schema, sol)
    assert minimal.sample_solution(schema, np.random.default_rng(0)) is None
    got = minimal.initial_clues(schema, sol, 5, np.random.default_rng(1))
    assert got == pick_in_order(truth, 5, np.random.default_rng(1))
    empty = Instance.make(minimal.info.name, {"size": 4}, [])
    (move,) = minimal.repair_moves(schema, empty, sol, (1, 2), found=[sol])
    assert move == Repair("reveal", (1, 2), add=(truth[6],))
    assert minimal.schema_id({"size": 4}) == "minimal-latin-4x4"
    assert minimal.golden_instances({"size": 4}) is None
    assert minimal.place_of(truth[0]) is None
    assert minimal.render_ascii(empty) == empty.to_json()
    assert minimal.format_text(empty) == empty.to_json()  # the one-line default: its JSON
    assert minimal.parse_text(minimal.format_text(empty)) == empty
    with pytest.raises(SpecError):
        minimal.parse_text("1234")
    with pytest.raises(NotImplementedError):
        minimal.render_mpl(empty)


def test_a_family_with_the_required_hooks_only_passes_check_family(minimal: Minimal) -> None:
    summary = check_family(minimal, {"size": 4}, cross_process=False)
    assert not any("no text format" in n for n in summary.notes)  # the JSON line round-trips
    assert any("no matplotlib rendering" in n for n in summary.notes)


class Delegating(Verifier):
    """A verifier that declares only what is required: name, version, exact and verify."""

    name, version, exact = "delegating", "1", True

    def __init__(self) -> None:
        self.inner = get_verifier("enumerative")
        self.calls = 0

    def verify(self, instance, *, solution_cap=100, budget=None, extras=()):
        self.calls += 1
        return self.inner.verify(instance, solution_cap=solution_cap, budget=budget)


def test_a_verifier_subclassing_the_protocol_gets_the_optional_hooks() -> None:
    v = Delegating()
    schema = LATIN.schema({"size": 4})
    assert isinstance(v, Verifier)
    assert v.holdout_name == "enumerative"
    assert v.believed_schema(schema) is schema
    assert v.uniqueness_session(Instance.make("latin", {"size": 4}, []), {}) is None


def test_minimize_calls_verify_when_the_verifier_gives_no_uniqueness_session() -> None:
    schema, sol = _solution(LATIN)
    full = Instance.make("latin", {"size": 4}, LATIN.clues_from_solution(schema, sol))
    v = Delegating()
    result = minimize(full, v, np.random.default_rng(0), solution=sol)
    assert v.calls == result.calls > 0
    assert get_verifier("sat").verify(result.instance).verdict is Verdict.UNIQUE


def test_the_sat_verifier_gives_a_uniqueness_session() -> None:
    schema, sol = _solution(LATIN)
    full = Instance.make("latin", {"size": 4}, LATIN.clues_from_solution(schema, sol))
    with get_verifier("sat").uniqueness_session(full, sol) as session:
        assert isinstance(session, UniquenessSession)
        assert session.unique_with([c.id for c in full.clues])


class Structural:
    """Has what the protocol required before it declared its optional hooks."""

    name, version, exact = "structural", "1", True

    def verify(self, instance, **kw):
        return get_verifier("enumerative").verify(instance, **kw)


def test_a_verifier_lacking_an_optional_hook_is_named_by_check_verifier() -> None:
    assert not isinstance(Structural(), Verifier)
    with pytest.raises(AssertionError) as err:
        check_verifier(Structural(), [("latin", {"size": 4})], n=1)
    assert err.value.codes == {"protocol"}
    text = str(err.value)
    assert "holdout_name, accepts, believed_schema, uniqueness_session" in text
    assert "subclass puzzlekit.core.protocols.Verifier" in text


@pytest.mark.parametrize("name", verifier_names())
def test_every_registered_verifier_satisfies_the_protocol(name: str) -> None:
    assert isinstance(get_verifier(name), Verifier)


@pytest.mark.parametrize(
    ("filter_name", "holdout"),
    [
        ("sat", "enumerative"),
        ("enumerative", "sat"),
        ("gametree", "minimax"),
        ("minimax", "gametree"),
        ("oracle", "oracle-plain"),
        ("oracle-plain", "oracle"),
        ("faulty", "enumerative"),
        ("no-such-filter", "enumerative"),
    ],
)
def test_the_default_holdout_is_the_one_the_filter_declares(filter_name, holdout) -> None:
    assert default_holdout_name(filter_name) == holdout


def test_a_plugin_verifier_names_its_own_holdout() -> None:
    class Plugin(Delegating):
        name = "plugin-exact"
        holdout_name = "sat"

    register_verifier("plugin-exact", Plugin)
    try:
        assert default_holdout_name("plugin-exact") == "sat"
    finally:
        VERIFIERS.unregister("plugin-exact")


@pytest.mark.parametrize("name", ["adaptive", "blind"])
def test_builtin_strategies_satisfy_the_protocol(name: str) -> None:
    assert isinstance(STRATEGIES.get(name)(3), Strategy)


def test_a_holdout_subclass_gets_a_close_that_does_nothing() -> None:
    class Echo(Holdout):
        name = "echo"

        def check(self, canonical, digest, solution_cap):
            return get_verifier("enumerative").verify(Instance.from_json(canonical))

    assert isinstance(Echo(), Holdout) and Echo().close() is None
    assert isinstance(InlineHoldout(get_verifier("sat")), Holdout)


def test_protocol_members_list_required_and_optional_hooks() -> None:
    members = protocols.protocol_members(Verifier)
    assert {"name", "version", "exact", "holdout_name", "verify", "believed_schema"} <= set(members)
    assert {"normalize_params", "repair_moves", "schema_id", "render_mpl"} <= set(
        protocols.protocol_members(Family)
    )


def test_extras_are_checked_by_name_and_reach_the_verifier() -> None:
    from puzzlekit.core.protocols import report_extras

    instance = Instance.make("latin", {"size": 4}, [])
    assert report_extras(["forcedCells", "forcedCells"]) == frozenset({"forcedCells"})
    with pytest.raises(ValueError, match="unknown report extra 'forcedcells'"):
        report_extras(("forcedcells",))
    with pytest.raises(ValueError, match="unknown report extra"):
        pk.verify(instance, verifier="sat", extras=("forcedcells",))
    asked = pk.verify(instance, verifier="sat", solution_cap=2, extras=("forcedCells",))
    assert "forcedCells" in asked.stats


def test_a_loop_passes_extras_to_every_filter_call() -> None:
    from puzzlekit.generators.adaptive import Adaptive
    from puzzlekit.loop.budget import LoopBudget
    from puzzlekit.loop.driver import run_loop

    class Recording(Delegating):
        seen: list[Any] = []

        def verify(self, instance, *, solution_cap=100, budget=None, extras=()):
            self.seen.append(extras)
            return super().verify(instance, solution_cap=solution_cap, budget=budget)

    schema = LATIN.schema({"size": 4})
    run_loop(schema, Adaptive(2), Recording(), None, LoopBudget(max_calls=4), seed=0)
    assert Recording.seen and all(e == frozenset(Adaptive.extras) for e in Recording.seen)


def test_the_loop_asks_the_filter_for_the_extras_its_run_names_and_no_more() -> None:
    from puzzlekit.loop.driver import LoopDriver, LoopSpec

    def multiple_attempts(extras: tuple[str, ...]) -> list[Any]:
        spec = LoopSpec("sudoku", {"size": 4}, k=2, filter="sat", extras=extras)
        result = LoopDriver(spec).run(7)
        return [a.report for a in result.trace if a.verdict == "MULTIPLE"]

    plain, asked = multiple_attempts(()), multiple_attempts(("forcedCells",))
    assert plain and all("forcedCells" not in r.stats for r in plain)
    assert all("forcedCells" in r.stats for r in asked)
    assert [r.solutions for r in plain] == [r.solutions for r in asked]


def test_check_verifier_names_a_verify_without_extras() -> None:
    class NoExtras(Verifier):
        name, version, exact = "no-extras", "1", True

        def verify(self, instance, *, solution_cap=100, budget=None):
            return get_verifier("enumerative").verify(instance, solution_cap=solution_cap)

    with pytest.raises(AssertionError) as err:
        check_verifier(NoExtras(), [("latin", {"size": 4})], n=1)
    assert err.value.codes == {"protocol"}
    assert "must take the keyword extras" in str(err.value)
