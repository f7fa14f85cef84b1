"""The bitmask backend agrees with sat and enumerative, and keeps the verifier contract.

Agreement on verdict and capped solution count (and below the cap, the solutions): every golden
corpus of the families it covers (against the recorded reference report), the Tatham-generated
puzzles in tests/data/tatham (against sat), and property-based instances (random clue subsets of
random solutions, some with a wrong given added, against sat and enumerative).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import get_family
from puzzlekit.generators.minimize import minimize
from puzzlekit.io.inputs import iter_items
from puzzlekit.quality.golden.entries import load_corpus
from puzzlekit.verifiers.bitmask.backend import BitmaskVerifier, NotCompilable, compilable
from puzzlekit.verifiers.registry import (
    default_filter_name,
    default_holdout_name,
    default_verifier_name,
    get_verifier,
)

ROOT = Path(__file__).parent
#: the built-in families whose default backend is this one (tests/test_backend_choice.py)
FAMILIES = ("sudoku", "sudoku-jigsaw", "sudoku-killer", "latin", "kenken", "futoshiki")
BITMASK = BitmaskVerifier()
SAT = get_verifier("sat")
ENUM = get_verifier("enumerative")
GOLDEN = sorted(
    p
    for p in (ROOT / "golden").glob("*.jsonl")
    if any(p.name.startswith(f + "-") for f in FAMILIES)
)
GOLDEN = [p for p in GOLDEN if not p.name.startswith(("sudoku-jigsaw", "sudoku-killer"))] + [
    p for p in GOLDEN if p.name.startswith(("sudoku-jigsaw", "sudoku-killer"))
]


def _same(a, b, cap: int) -> None:
    assert a.verdict is b.verdict, (a.verdict, b.verdict)
    assert a.solution_count == b.solution_count
    if a.verdict is not Verdict.UNDECIDED and a.solution_count < cap:
        assert [dict(s) for s in a.solutions] == [dict(s) for s in b.solutions]


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_corpora_agree_with_the_recorded_reference(path: Path) -> None:
    for entry in load_corpus(path):
        rep = BITMASK.verify(entry.instance, solution_cap=entry.cap)
        recorded = entry.report
        assert rep.verdict.value == recorded["uniquenessVerdict"], (path.name, entry.case)
        assert rep.solution_count == recorded["solutionCount"], (path.name, entry.case)
        if rep.solution_count < entry.cap:
            assert [dict(s) for s in rep.solutions] == recorded["solutions"], entry.case
        if rep.verdict is Verdict.UNSOLVABLE:  # sat's shrinking names the reference's clues
            wire = rep.to_json_obj()["rejectDetail"]["conflict"]
            assert wire == recorded["rejectDetail"]["conflict"], entry.case


def test_tatham_generated_puzzles_agree_with_sat() -> None:
    seen = set()
    for name in ("solo.txt", "keen.txt", "unequal.txt"):
        text = (ROOT / "data" / "tatham" / name).read_text()
        for item in iter_items(text, input_format="tatham"):
            assert item.instance is not None, item.violations
            seen.add(item.instance.family)
            _same(
                BITMASK.verify(item.instance, solution_cap=4),
                SAT.verify(item.instance, solution_cap=4),
                4,
            )
    assert seen == {"sudoku", "sudoku-jigsaw", "sudoku-killer", "kenken", "futoshiki"}


PROPERTY_SCHEMAS = [
    ("sudoku", {"size": 4, "box": [2, 2]}),
    ("sudoku", {"size": 6, "box": [2, 3]}),
    ("sudoku-jigsaw", {"size": 5}),
    ("latin", {"size": 5}),
    ("sudoku-killer", {"size": 4, "box": [2, 2]}),
    ("kenken", {"size": 4}),
    ("futoshiki", {"size": 4}),
]


def _random_instance(family: str, params: dict, seed: int, keep: float, wrong: bool) -> Instance:
    fam = get_family(family)
    schema = fam.schema(params)
    rng = np.random.default_rng(seed)
    solution = fam.sample_solution(schema, rng) or random_solution(schema, rng)
    if family in ("sudoku-killer", "kenken"):
        clues = fam.initial_clues(schema, solution, max(1, int(keep * 8)), rng)
    else:
        clues = [c for c in fam.clues_from_solution(schema, solution) if rng.random() < keep]
    if wrong:  # a given that contradicts the solution: often unsolvable, sometimes not
        var = schema.variables[int(rng.integers(len(schema.variables)))]
        if all(var.coord not in c.coords for c in clues):
            value = 1 + (solution[var.name] % len(var.domain))
            clues.append(Clue.make(var.name, "given", {"value": value}, [var.coord]))
    return Instance.make(family, schema.params_dict(), clues)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    schema=st.sampled_from(PROPERTY_SCHEMAS),
    seed=st.integers(0, 2**32 - 1),
    keep=st.floats(0.1, 0.9),
    wrong=st.booleans(),
)
def test_property_instances_agree_with_sat_and_enumerative(schema, seed, keep, wrong) -> None:
    family, params = schema
    inst = _random_instance(family, params, seed, keep, wrong)
    budget = SearchBudget(nodes=2_000_000, seconds=60.0)
    rep = BITMASK.verify(inst, solution_cap=3, budget=budget)
    _same(rep, SAT.verify(inst, solution_cap=3, budget=budget), 3)
    _same(rep, ENUM.verify(inst, solution_cap=3, budget=budget), 3)


def test_reported_solutions_do_not_depend_on_what_was_verified_before() -> None:
    inst = _random_instance("sudoku", {"size": 6, "box": [2, 3]}, 7, 0.2, False)
    first = BitmaskVerifier().verify(inst, solution_cap=5)
    busy = BitmaskVerifier()
    for seed in range(5):
        busy.verify(_random_instance("sudoku", {"size": 6, "box": [2, 3]}, seed, 0.3, False))
    again = busy.verify(inst, solution_cap=5)
    assert first.verdict is Verdict.MULTIPLE and first.solution_count == 5
    assert first.to_json_obj() | {"stats": None} == again.to_json_obj() | {"stats": None}


def test_forced_cells_extra_matches_sat_and_is_computed_only_when_asked() -> None:
    inst = _random_instance("sudoku", {"size": 4, "box": [2, 2]}, 3, 0.3, False)
    for cap in (2, 100):
        sat = SAT.verify(inst, solution_cap=cap, extras=("forcedCells",))
        assert sat.verdict is Verdict.MULTIPLE
        plain = BITMASK.verify(inst, solution_cap=cap)
        asked = BITMASK.verify(inst, solution_cap=cap, extras=("forcedCells", "unknownExtra"))
        assert "forcedCells" not in plain.stats
        assert asked.stats["forcedCells"] == sat.stats["forcedCells"]
        assert asked.stats["forcedCellsComplete"] is True


def test_budget_runs_out_as_undecided_with_what_ran_out() -> None:
    inst = _random_instance("sudoku", {"size": 9, "box": [3, 3]}, 1, 0.05, False)
    rep = BITMASK.verify(inst, solution_cap=100, budget=SearchBudget(nodes=50, seconds=None))
    assert rep.verdict is Verdict.UNDECIDED
    assert rep.reject_detail.budget.resource == "nodes"
    assert rep.stats["nodes"] == 50


def test_uncovered_constraints_are_declined_by_name_and_never_defaulted() -> None:
    inst = load_corpus(ROOT / "golden" / "nonogram-5x5.jsonl")[0].instance
    assert not compilable(inst)
    with pytest.raises(NotCompilable, match="Regular"):
        BITMASK.verify(inst)
    assert default_verifier_name(inst) != "bitmask"


@pytest.mark.parametrize("family", FAMILIES)
def test_bitmask_is_the_default_with_an_independent_exact_holdout(family: str) -> None:
    assert default_filter_name(family) == "bitmask"
    assert default_holdout_name("bitmask") == "sat"
    assert get_verifier("sat").exact
    fam = get_family(family)
    inst = Instance.make(family, fam.schema(dict(fam.info.listed_params[0])).params_dict(), [])
    assert default_verifier_name(inst) == "bitmask"


@pytest.mark.parametrize(
    "family, params", [("sudoku", {"size": 6}), ("sudoku-killer", {"size": 4})]
)
def test_uniqueness_session_minimizes_like_plain_verification(family: str, params: dict) -> None:
    fam = get_family(family)
    schema = fam.schema(params)
    rng = np.random.default_rng(5)
    solution = fam.sample_solution(schema, rng) or random_solution(schema, rng)
    inst = Instance.make(family, schema.params_dict(), fam.clues_from_solution(schema, solution))

    class _NoSession(BitmaskVerifier):
        def uniqueness_session(self, instance, solution):  # type: ignore[override]
            return None

    fast = minimize(inst, BITMASK, np.random.default_rng(1), solution=solution)
    slow = minimize(inst, _NoSession(), np.random.default_rng(1), solution=solution)
    assert fast.instance.digest == slow.instance.digest
    assert fast.removed > 0
    assert SAT.verify(fast.instance, solution_cap=2).verdict is Verdict.UNIQUE


def test_the_benchmarks_pure_python_checker_counts_as_the_verifiers_do() -> None:
    from benchmarks.pybitmask import PySudoku

    py = PySudoku(9, 3, 3)
    fam = get_family("sudoku")
    for line in (ROOT / "data" / "sudoku9_17clue_sample.txt").read_text().split()[:5]:
        first = line.replace(next(ch for ch in line if ch != "."), ".", 1)  # 16 clues: MULTIPLE
        for text in (line, first):
            grid = [0 if ch == "." else int(ch) for ch in text]
            verdict = BITMASK.verify(fam.parse_text(text), solution_cap=2).verdict
            assert ["UNSOLVABLE", "UNIQUE", "MULTIPLE"][py.count(grid, 2)] == verdict.value


# -- the compiled solution sampler ---------------------------------------------------------------


@pytest.mark.parametrize(
    "family,params",
    [
        ("sudoku", {"size": 9}),
        ("sudoku", {"size": 16}),
        ("latin", {"size": 6}),
        ("kenken", {"size": 5}),
        ("sudoku-killer", {"size": 6}),
        ("kakuro", {"rows": 6, "cols": 6, "seed": 3}),
    ],
)
def test_the_compiled_sampler_draws_valid_varied_solutions_one_per_rng_state(family, params):
    from puzzlekit.verifiers.bitmask.backend import sample_solution

    schema = get_family(family).schema(params)
    draws = [sample_solution(schema, np.random.default_rng(seed)) for seed in range(12)]
    assert all(d is not None for d in draws)
    for d in draws:
        assert set(d) == set(schema.names)
        assert all(rule.holds(d) for rule in schema.rules)
    assert len({tuple(sorted(d.items())) for d in draws}) == len(draws)  # the rng decides
    again = sample_solution(schema, np.random.default_rng(5))
    assert again == draws[5]


def test_the_compiled_sampler_leaves_other_schemas_to_the_generic_search():
    from puzzlekit.verifiers.approximate import FaultyVerifier
    from puzzlekit.verifiers.bitmask.backend import sample_solution

    rng = np.random.default_rng(0)
    stars = get_family("starbattle").schema({"size": 5, "stars": 1})
    assert sample_solution(stars, rng) is None  # Count rules: not compilable
    sudoku = get_family("sudoku").schema({"size": 4})
    believed = FaultyVerifier().believed_schema(sudoku)  # the boxes dropped
    assert believed != sudoku and sample_solution(believed, rng) is None
    from puzzlekit.generators.base import sample_solution as loop_sample

    loose = loop_sample(believed, rng)  # the generic search, under the believed rules only
    assert all(rule.holds(loose) for rule in believed.rules)
