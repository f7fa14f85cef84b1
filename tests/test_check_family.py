"""check_family on every registered family, check_verifier on the exact backends, and
check_family catching families that break the contract (each with the code it must report)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from puzzlekit.core.model import Clue, Instance, Linear, Origin
from puzzlekit.core.protocols import Verifier
from puzzlekit.families import families
from puzzlekit.families.latin import Latin
from puzzlekit.families.sudoku import Sudoku
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.quality.checks import (
    ContractError,
    check_family,
    check_verifier,
    malformed_instances,
    sample_instances,
)
from puzzlekit.verifiers.registry import get_verifier

FAST_SCHEMAS = [
    ("sudoku", {"size": 4, "box": [2, 2]}),
    ("sudoku", {"size": 6, "box": [2, 3]}),
    ("sudoku", {"size": 9, "box": [3, 3]}),
    ("latin", {"size": 4}),
    ("latin", {"size": 5}),
]


@parametrize_with_checks(FAST_SCHEMAS)
def test_registered_schema_passes_check_family(family, check) -> None:
    summary = check(family)
    assert summary.instances >= 8
    if check.args[0] == "verifiers":
        assert {"enumerative", "sat"} <= set(summary.reports)


def test_every_builtin_family_is_checked() -> None:
    # other test modules may register families of their own; the project's are in its package.
    # The core families are checked here; every other one in its own test module, which must
    # run parametrize_with_checks on it (one pytest id per check).
    from pathlib import Path

    builtin = {
        f.info.name for f in families() if type(f).__module__.startswith("puzzlekit.families.")
    }
    here = {f for f, _ in FAST_SCHEMAS}
    texts = [p.read_text() for p in Path(__file__).parent.glob("test_*.py")]
    elsewhere = {
        name
        for name in builtin - here
        if any("@parametrize_with_checks(" in t and f'"{name}"' in t for t in texts)
    }
    assert builtin - here - elsewhere == set(), "families no test runs check_family on"


def test_check_family_defaults_to_first_listed_params() -> None:
    summary = check_family("latin", cross_process=False)
    assert summary.subject.startswith("check_family('latin', {\"size\": 4}")


def test_samples_are_seeded() -> None:
    a = [s.instance.digest for s in sample_instances("sudoku", {"size": 4}, seed=3)]
    b = [s.instance.digest for s in sample_instances("sudoku", {"size": 4}, seed=3)]
    c = [s.instance.digest for s in sample_instances("sudoku", {"size": 4}, seed=4)]
    assert a == b != c


def test_malformed_instances_cover_the_issue_list() -> None:
    kinds = {what for what, _, _ in malformed_instances("sudoku", {"size": 4})}
    assert {"clue outside the grid", "value out of domain", "unknown clue kind"} <= kinds


@pytest.mark.parametrize("name", ["enumerative", "sat", "bitmask"])
def test_exact_backend_passes_check_verifier(name: str) -> None:
    check_verifier(get_verifier(name), [("sudoku", {"size": 4}), ("latin", {"size": 5})])


def test_check_verifier_catches_reports_of_non_solutions() -> None:
    # the fault-injected filter ignores a rule class on purpose
    with pytest.raises(ContractError) as err:
        check_verifier(get_verifier("faulty"), [("sudoku", {"size": 4})])
    assert "wrong-solution" in err.value.codes


class _Mutating(Verifier):
    name, version, exact = "mutating", "0", True

    def __init__(self) -> None:
        self.inner = get_verifier("enumerative")

    def verify(self, instance: Instance, **kw: Any):
        rep = self.inner.verify(instance, **kw)
        object.__setattr__(instance, "clues", instance.clues[1:])
        return rep


def test_check_verifier_catches_a_verifier_that_mutates_its_input() -> None:
    with pytest.raises(ContractError) as err:
        check_verifier(_Mutating(), [("latin", {"size": 4})], n=1)
    assert "input-mutated" in err.value.codes
    assert "must never mutate its input" in str(err.value)


class _Lying(Verifier):
    """Says UNIQUE for everything that is MULTIPLE."""

    name, version, exact = "lying", "0", True

    def __init__(self) -> None:
        self.inner = get_verifier("enumerative")

    def verify(self, instance: Instance, **kw: Any):
        import dataclasses

        from puzzlekit.core.report import Verdict

        rep = self.inner.verify(instance, **kw)
        if rep.verdict is Verdict.MULTIPLE:
            return dataclasses.replace(
                rep,
                verdict=Verdict.UNIQUE,
                solutions=rep.solutions[:1],
                solution_count=1,
                reject_detail=None,
            )
        return rep


def test_check_verifier_catches_disagreement_with_the_reference() -> None:
    with pytest.raises(ContractError) as err:
        check_verifier(_Lying(), [("sudoku", {"size": 4})])
    assert "backends-disagree" in err.value.codes
    assert "reference says MULTIPLE" in str(err.value)


# --- broken families --------------------------------------------------------------------------


class LyingClues(Latin):
    """clues_from_solution reveals one wrong value."""

    info = Latin.info.replace(name="broken-lying-clues")

    def clues_from_solution(self, schema, solution):
        clues = super().clues_from_solution(schema, solution)
        first = clues[0]
        n = schema.params_dict()["size"]
        wrong = solution[schema.variables[0].name] % n + 1
        return [self.given(schema, first.coords[0], wrong), *clues[1:]]


class LossyFormat(Sudoku):
    """format_text drops the last given."""

    info = Sudoku.info.replace(name="broken-lossy-format")

    def format_text(self, instance):
        text = super().format_text(instance)
        last = max(i for i, ch in enumerate(text) if ch != ".") if text.strip(".") else None
        return text if last is None else text[:last] + "." + text[last + 1 :]


class RaisingClues(Latin):
    """clue_constraints raises KeyError instead of SpecError for a value out of the domain."""

    info = Latin.info.replace(name="broken-raising-clues")

    def clue_constraints(self, schema, clue):
        value = clue.data_dict().get("value")
        table = {v: v for v in range(1, schema.params_dict()["size"] + 1)}
        checked = table[value]  # KeyError for a bad value: the bug
        (var,) = [schema.var_at(clue.coords[0])]
        return (Linear((var.name,), (1,), "==", checked, Origin("clue", clue.id, clue.coords)),)


class RaisingVerifyFamily(Latin):
    """Every clue raises RuntimeError when a verifier resolves it."""

    info = Latin.info.replace(name="broken-verify-raises")

    def clue_constraints(self, schema, clue):
        raise RuntimeError("clue encoder not written yet")


class SetOrderClues(Latin):
    """clues_from_solution orders clues by hash() of their names: differs between processes."""

    info = Latin.info.replace(name="broken-set-order")

    def clues_from_solution(self, schema, solution):
        clues = super().clues_from_solution(schema, solution)
        return sorted(clues, key=lambda c: hash(c.id))


class AcceptsGarbage(Latin):
    """parse_text raises IndexError for an empty line."""

    info = Latin.info.replace(name="broken-parse")

    def parse_text(self, text, params=None):
        if not text.strip():
            return [][0]
        return super().parse_text(text, params)


class MisnamedSchema(Latin):
    info = Latin.info.replace(name="broken-misnamed")

    def build_schema(self, params):
        schema = super().build_schema(params)
        import dataclasses

        return dataclasses.replace(schema, family="latin")


BROKEN = [
    (LyingClues, "clues-hold", "clues_from_solution() must reveal only true facts"),
    (LossyFormat, "round-trip", "the round trip lost"),
    (RaisingClues, "verifier-raised", "must raise SpecError"),
    (RaisingVerifyFamily, "clues-hold", "clue_constraints() must turn a valid clue"),
    (SetOrderClues, "cross-process", "must not depend on set iteration"),
    (AcceptsGarbage, "malformed", "parse_text('') raised IndexError"),
    (MisnamedSchema, "schema", "build the Schema with family=self.info.name"),
]


@pytest.mark.parametrize(("cls", "code", "advice"), BROKEN, ids=[c.info.name for c, _, _ in BROKEN])
def test_check_family_catches_broken_family(registered, cls, code, advice) -> None:
    fam = registered(cls())
    params = {"size": 4, "box": [2, 2]} if isinstance(fam, Sudoku) else {"size": 4}
    with pytest.raises(ContractError) as err:
        check_family(fam, params)
    assert code in err.value.codes, str(err.value)
    assert advice in str(err.value)


def test_check_family_names_the_lying_clue(registered) -> None:
    fam = registered(LyingClues())
    with pytest.raises(AssertionError, match=r"claims clue r1c1 \(given"):
        check_family(fam, {"size": 4})


def test_check_family_requires_registration() -> None:
    class Unregistered(Latin):
        info = Latin.info.replace(name="never-registered")

    with pytest.raises(ContractError) as err:
        check_family(Unregistered(), {"size": 4})
    assert "not-registered" in err.value.codes
    assert "register_family" in str(err.value)


def test_family_without_text_format_is_skipped_with_a_note(registered) -> None:
    class NoText(Latin):
        info = Latin.info.replace(name="no-text-format")

        def format_text(self, instance):
            raise NotImplementedError

    fam = registered(NoText())
    summary = check_family(fam, {"size": 4}, cross_process=False)
    assert any("no text format" in n for n in summary.notes)


def test_local_family_skips_the_cross_process_check_with_a_note(registered) -> None:
    class Local(Latin):
        info = Latin.info.replace(name="local-latin")

    summary = check_family(registered(Local()), {"size": 4})
    assert any("cross-process digest check skipped" in n for n in summary.notes)


def test_contract_error_is_an_assertion_error_listing_every_problem() -> None:
    from puzzlekit.quality.checks import ContractProblem

    err = ContractError(
        "subject", [ContractProblem("a", "fix a"), ContractProblem("b", "fix b")], []
    )
    assert isinstance(err, AssertionError)
    assert "2 problem(s)" in str(err) and "[a] fix a" in str(err) and "[b] fix b" in str(err)


def test_clue_helper_round_trips() -> None:
    clue = Clue.make("r1c1", "given", {"value": 1}, [(0, 0)])
    assert clue.data_dict() == {"value": 1}


# --- broken families: the protocol and the generation step ---------------------------------------


class RepairLies(Latin):
    """repair_moves reveals a wrong digit."""

    info = Latin.info.replace(name="broken-repair-lies")

    def repair_moves(self, schema, instance, solution, coord, *, found=()):
        moves = super().repair_moves(schema, instance, solution, coord, found=found)
        n = schema.params_dict()["size"]
        return [
            type(m)(
                m.action,
                m.coord,
                add=tuple(self.given(schema, m.coord, _wrong(c, n)) for c in m.add),
            )
            for m in moves
        ]


def _wrong(clue: Clue, n: int) -> int:
    return clue.data_dict()["value"] % n + 1


class InitialLies(Latin):
    """initial_clues gives one wrong digit (clues_from_solution stays right)."""

    info = Latin.info.replace(name="broken-initial-lies")

    def initial_clues(self, schema, solution, k, rng):
        clues = super().initial_clues(schema, solution, k, rng)
        n = schema.params_dict()["size"]
        first = clues[0]
        return [self.given(schema, first.coords[0], _wrong(first, n)), *clues[1:]]


class RaisingSampler(Latin):
    """sample_solution raises instead of returning None."""

    info = Latin.info.replace(name="broken-raising-sampler")

    def sample_solution(self, schema, rng):
        raise RuntimeError("sampler not written yet")


class NoAscii(Latin):
    """render_ascii returns None."""

    info = Latin.info.replace(name="broken-no-ascii")

    def render_ascii(self, instance, solution=None, marks=None):
        return None


class RaisingRender(Latin):
    """render_mpl raises ValueError."""

    info = Latin.info.replace(name="broken-raising-render")

    def render_mpl(self, instance, ax=None, solution=None):
        raise ValueError("no such colour 'gridline'")


class HintedRepairs(Latin):
    """repair_moves add a ``hint`` to their givens, which the text format cannot carry."""

    info = Latin.info.replace(name="broken-hinted-repairs")

    def repair_moves(self, schema, instance, solution, coord, *, found=()):
        moves = super().repair_moves(schema, instance, solution, coord, found=found)
        return [
            type(m)(
                m.action,
                m.coord,
                add=tuple(
                    Clue.make(c.id, c.kind, {**c.data_dict(), "hint": True}, c.coords)
                    for c in m.add
                ),
            )
            for m in moves
        ]


class NoFound(Latin):
    """A repair_moves override that does not accept ``found``."""

    info = Latin.info.replace(name="broken-no-found")

    def repair_moves(self, schema, instance, solution, coord):
        return super().repair_moves(schema, instance, solution, coord)


GENERATION_BROKEN = [
    (RepairLies, "repair-true", "A repair must add only clues true of the solution"),
    (InitialLies, "initial-clues", "initial_clues() only clues true of it"),
    (RaisingSampler, "generate-raised", "RuntimeError: sampler not written yet"),
    (NoAscii, "render-ascii", "it must return the drawing as non-empty text"),
    (RaisingRender, "render", "must draw on the axes it is given"),
    (HintedRepairs, "round-trip-generated", "format_text() must write every clue"),
    (NoFound, "repair-found", "add `*, found: Sequence[Solution] = ()`"),
]


@pytest.mark.parametrize(
    ("cls", "code", "advice"), GENERATION_BROKEN, ids=[c.info.name for c, _, _ in GENERATION_BROKEN]
)
def test_check_family_catches_broken_generation_hooks(registered, cls, code, advice) -> None:
    fam = registered(cls())
    with pytest.raises(ContractError) as err:
        check_family(fam, {"size": 4}, cross_process=False)
    assert code in err.value.codes, str(err.value)
    assert advice in str(err.value)


def test_check_family_names_the_false_repair_and_where_it_was_made(registered) -> None:
    fam = registered(RepairLies())
    with pytest.raises(ContractError) as err:
        check_family(fam, {"size": 4}, cross_process=False)
    text = str(err.value)
    assert re.search(r"repair_moves\(\) \(action 'reveal' at \(\d, \d\)\) added clue r\dc\d", text)
    assert "does not hold" in text


class NotAFamily:
    """Has the four required methods of a family, none of the optional hooks."""

    name = "not-a-family"

    def __init__(self) -> None:
        self.inner = Latin()

    def normalize_params(self, params):
        return self.inner.normalize_params(params)

    def build_schema(self, params):
        return self.inner.build_schema(params)

    def clue_constraints(self, schema, clue):
        return self.inner.clue_constraints(schema, clue)

    def clues_from_solution(self, schema, solution):
        return self.inner.clues_from_solution(schema, solution)


def test_check_family_names_the_hooks_an_object_lacks() -> None:
    with pytest.raises(ContractError) as err:
        check_family(NotAFamily(), {"size": 4})
    assert err.value.codes == {"family-protocol"}
    assert "lacks" in str(err.value) and "repair_moves" in str(err.value)
    assert "subclass puzzlekit.core.protocols.Family" in str(err.value)
    assert "NotAFamily sets name as attributes of its own" in str(err.value)
    assert "info = FamilyInfo(name=...)" in str(err.value)


def test_the_generation_step_is_skipped_on_request(registered) -> None:
    fam = registered(RaisingSampler())
    summary = check_family(fam, {"size": 4}, cross_process=False, generate=False)
    assert summary.instances >= 8
