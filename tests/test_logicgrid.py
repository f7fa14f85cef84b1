"""logicgrid: Einstein's puzzle on both exact backends, clue kinds, English, repairs, generation."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.protocols import Step
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.families.logicgrid.family import (
    CLUE_KINDS,
    clue_text,
    einstein_instance,
    einstein_solution,
    grid_of,
    holds,
    solution_json,
)
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.loop.batch import GenerateConfig, generate
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

SMALL = {"size": 4, "categories": 3}


@pytest.mark.parametrize("backend", ["enumerative", "sat"])
def test_einstein_puzzle_is_unique_with_its_known_solution(backend: str) -> None:
    inst = einstein_instance()
    rep = get_verifier(backend).verify(inst)
    assert rep.verdict is Verdict.UNIQUE
    assert dict(rep.solutions[0]) == einstein_solution()
    schema = get_family("logicgrid").schema({"preset": "einstein"})
    houses = solution_json(schema, rep.solutions[0])
    assert next(h for h in houses if h["pet"] == "fish")["nationality"] == "German"


def test_einstein_clues_read_as_english() -> None:
    inst = einstein_instance()
    schema = get_family("logicgrid").schema({"preset": "einstein"})
    texts = [clue_text(schema, c) for c in inst.clues]
    assert texts[0] == "The Brit lives in the red house."
    assert texts[3] == (
        "The owner of the green house lives directly to the left of the owner of the white house."
    )
    assert texts[8] == "The person in house 1 is the Norwegian."


def test_einstein_without_the_milk_clue_has_several_solutions() -> None:
    inst = einstein_instance()
    loose = inst.with_clues(c for c in inst.clues if c.id != "c8")
    rep = get_verifier("sat").verify(loose, solution_cap=10)
    assert rep.verdict is Verdict.MULTIPLE
    assert rep.reject_detail.discriminative_gap


@parametrize_with_checks([("logicgrid", SMALL)])
def test_family_keeps_the_contract(family, check) -> None:
    check(family)


def test_every_clue_kind_is_revealed_and_holds_in_its_solution() -> None:
    fam = get_family("logicgrid")
    schema = fam.schema(SMALL)
    sol = fam.sample_solution(schema, np.random.default_rng(3))
    clues = fam.clues_from_solution(schema, sol)
    assert {c.kind for c in clues} == set(CLUE_KINDS)
    problem = resolve(Instance.make("logicgrid", SMALL, clues))
    assert problem.check(sol)
    for clue in clues:
        assert clue_text(schema, clue).endswith(".")
        back = Clue.make(clue.id, clue.kind, clue.data_dict(), clue.coords)
        assert back == clue


def test_text_format_is_one_json_line_and_sentences_are_drawn() -> None:
    fam = get_family("logicgrid")
    inst = einstein_instance()
    text = fam.format_text(inst)
    assert "\n" not in text and fam.parse_text(text) == inst
    assert "The Dane drinks tea." in fam.render_ascii(inst)
    # the JSON line followed by its sentences as comments still reads back
    assert fam.parse_text(text + "\n# The Dane drinks tea.\n") == inst


@pytest.mark.parametrize(
    ("kind", "data", "violation"),
    [
        ("is", {"entity": 9, "category": "pet", "value": "cat"}, "out-of-domain"),
        ("is", {"entity": 0, "category": "pet", "value": "unicorn"}, "out-of-domain"),
        ("same-entity", {"a": ["pet", "cat"], "b": ["mood", "x"]}, "malformed"),
        ("either-or", {"subject": ["pet", "cat"], "either": ["pet", "dog"]}, "malformed"),
    ],
)
def test_bad_clues_are_invalid_spec(kind: str, data: dict, violation: str) -> None:
    clue = Clue.make("x", kind, data, [(0, 2)])
    rep = get_verifier("enumerative").verify(Instance.make("logicgrid", SMALL, [clue]))
    assert rep.verdict is Verdict.INVALID_SPEC
    assert rep.reject_detail.violations[0].violation_type == violation


def test_position_relations_need_an_ordered_category() -> None:
    cats = [
        {"name": "person", "values": ["A", "B"]},
        {"name": "pet", "values": ["cat", "dog"]},
    ]
    params = {"categories": cats}
    clue = Clue.make("x", "left-of", {"a": ["pet", "cat"], "b": ["pet", "dog"]}, [(0, 1), (1, 1)])
    rep = get_verifier("sat").verify(Instance.make("logicgrid", params, [clue]))
    assert rep.verdict is Verdict.INVALID_SPEC
    ok = Clue.make(
        "y", "same-entity", {"a": ["person", "A"], "b": ["pet", "dog"]}, [(0, 1), (1, 1)]
    )
    assert get_verifier("sat").verify(Instance.make("logicgrid", params, [ok])).accepted


def test_repairs_at_a_discriminative_cell_add_true_clues_touching_it() -> None:
    fam = get_family("logicgrid")
    schema = fam.schema(SMALL)
    sol = fam.sample_solution(schema, np.random.default_rng(5))
    inst = Instance.make("logicgrid", SMALL, [])
    rep = get_verifier("sat").verify(inst, solution_cap=6)
    coord = tuple(rep.reject_detail.discriminative_gap[0].coord)
    moves = fam.repair_moves(schema, inst, sol, coord)
    assert moves and moves[0].action == "reveal"
    for move in moves:
        new = move.apply(inst)
        assert resolve(new).check(sol)
        assert all(coord in c.coords for c in move.add)
    pinned = get_verifier("sat").verify(moves[0].apply(inst), solution_cap=100)
    grid = grid_of(schema)
    name = grid.var(*_entity_name(coord, grid))
    assert {s[name] for s in pinned.solutions} == {sol[name]}


def _entity_name(coord: tuple, grid) -> tuple[int, str]:
    return coord[0], grid.categories[coord[1]].name


def test_adaptive_generation_is_accepted_by_the_holdout() -> None:
    cfg = GenerateConfig(
        "logicgrid", SMALL, count=5, filter="sat", holdout="enumerative", holdout_in_process=True
    )
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in recs)


def _ruled_out_by_constraints(schema, clue: Clue, solutions) -> int:
    constraints = get_family("logicgrid").clue_constraints(schema, clue)
    return sum(1 for s in solutions if not all(c.holds(s) for c in constraints))


@pytest.mark.parametrize("params", [SMALL, {"size": 5, "categories": 4}, {"preset": "einstein"}])
def test_holds_reads_a_clue_as_its_constraints_do(params: dict) -> None:
    fam = get_family("logicgrid")
    schema = fam.schema(params)
    grid = grid_of(schema)
    rng = np.random.default_rng(3)
    for _ in range(5):
        a, b = fam.sample_solution(schema, rng), fam.sample_solution(schema, rng)
        for clue in fam.clues_from_solution(schema, a):
            assert holds(grid, clue, a)
            assert holds(grid, clue, b) == (_ruled_out_by_constraints(schema, clue, [b]) == 0)


def test_repairs_with_found_solutions_offer_the_clues_ruling_out_the_most() -> None:
    fam = get_family("logicgrid")
    schema = fam.schema(SMALL)
    sat = get_verifier("sat")
    filtered = 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        sol = fam.sample_solution(schema, rng)
        inst = Instance.make("logicgrid", SMALL, fam.initial_clues(schema, sol, 2, rng))
        rep = sat.verify(inst, solution_cap=4)
        assert rep.verdict is Verdict.MULTIPLE
        alternatives = [s for s in rep.solutions if s != sol]
        for gap in rep.reject_detail.discriminative_gap:
            coord = tuple(gap.coord)
            ranked = fam.repair_moves(schema, inst, sol, coord, found=rep.solutions)
            plain = fam.repair_moves(schema, inst, sol, coord)
            assert ranked and plain and plain[0].action == "reveal"
            best = ranked[0].rules_out
            assert best and best > 0
            for m in ranked:
                assert m.rules_out == best
                assert _ruled_out_by_constraints(schema, m.add[0], alternatives) == best
                assert resolve(m.apply(inst)).check(sol)  # still a true clue
            for m in plain:  # the unranked candidates rule out no more
                assert _ruled_out_by_constraints(schema, m.add[0], alternatives) <= best
            filtered += {m.add for m in plain} != {m.add for m in ranked}
    assert filtered  # the ranking left candidates out somewhere


def _top_case(fam, schema, seed: int):
    """A fresh puzzle whose top gap coordinates differ in what their best clue rules out."""
    rng = np.random.default_rng(seed)
    sol = fam.sample_solution(schema, rng)
    inst = Instance.make("logicgrid", SMALL, fam.initial_clues(schema, sol, 2, rng))
    rep = get_verifier("sat").verify(inst, solution_cap=4)
    if rep.verdict is not Verdict.MULTIPLE:
        return None
    alternatives = [s for s in rep.solutions if s != sol]
    top = rep.reject_detail.discriminative_gap[0].tie_group
    coords = [tuple(g.coord) for g in rep.reject_detail.discriminative_gap if g.tie_group == top]
    per_coord = [
        max(
            (
                _ruled_out_by_constraints(schema, m.add[0], alternatives)
                for m in fam.repair_moves(schema, inst, sol, c, found=rep.solutions)
            ),
            default=0,
        )
        for c in coords
    ]
    if len(set(per_coord)) < 2:
        return None
    return sol, inst, rep, alternatives, per_coord


def test_adaptive_adds_a_clue_ruling_out_the_most_found_alternatives() -> None:
    fam = get_family("logicgrid")
    schema = fam.schema(SMALL)
    # the first seed whose tied top coordinates' best clues rule out different numbers
    case = next(c for seed in range(200) if (c := _top_case(fam, schema, seed)) is not None)
    sol, inst, rep, alternatives, per_coord = case
    for seed in range(10):
        step = Adaptive(2).propose(
            Step(inst, "start", None, sol, schema), rep, np.random.default_rng(seed)
        )
        (added,) = [c for c in step.instance.clues if c not in inst.clues]
        assert _ruled_out_by_constraints(schema, added, alternatives) == max(per_coord)
