"""Each constraint kind's SAT encoding has exactly the solutions brute force finds on tiny schemas.

A small test family (``satprobe``) holds three or four variables with small domains (negative
values included) and one rule chosen by name; ``linear`` clues exercise clue selectors.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pytest

from puzzlekit.core.model import (
    AllDifferent,
    Automaton,
    Clue,
    Compare,
    Constraint,
    Count,
    Instance,
    Linear,
    Origin,
    Predicate,
    Regular,
    Schema,
    SpecError,
    Table,
    Variable,
    Violation,
)
from puzzlekit.core.protocols import Family, FamilyInfo, SearchBudget
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, register_family
from puzzlekit.verifiers.enumerative import EnumerativeVerifier
from puzzlekit.verifiers.sat.backend import NotEncodable, SatVerifier, _Cnf, encodable

R = Origin("rule", "probe")
X = ("x", "y", "z")
# a line of four cells in {0, 1} whose filled runs are "2 1" (a nonogram clue)
RUNS_2_1 = Automaton(
    start=0,
    accepting=frozenset({4, 5}),
    transitions=(
        (0, 0, 0),
        (0, 1, 1),
        (1, 1, 2),
        (2, 0, 3),
        (3, 0, 3),
        (3, 1, 4),
        (4, 0, 5),
        (5, 0, 5),
    ),
)
LINE = ("a", "b", "c", "d")
DOM = (-1, 0, 1, 2)
#: every (x, y, z) but those summing to 2: 12 forbidden tuples of 64
FEW_FORBIDDEN = frozenset(t for t in itertools.product(DOM, repeat=3) if sum(t) != 2)

CASES: dict[str, tuple[Constraint, ...]] = {
    **{
        f"linear{op}": (Linear(X, (2, -3, 1), op, 1, R),)
        for op in ("==", "!=", "<", "<=", ">", ">=")
    },
    "linear-repeated": (Linear(("x", "x", "y"), (1, 1, -1), "==", 2, R),),
    "linear-empty": (Linear(X, (1, 1, 1), "==", 99, R),),
    **{f"compare{op}": (Compare("x", op, "y", R),) for op in ("==", "!=", "<", "<=", ">", ">=")},
    "table": (Table(X, frozenset({(-1, 0, 2), (2, 2, 2), (0, 0, 0), (9, 9, 9)}), R),),
    # forbids fewer tuples than it allows: one clause per forbidden tuple
    "table-forbids-few": (Table(X, FEW_FORBIDDEN, R),),
    "table-forbids-few-pair": (
        Table(("x", "y"), frozenset(itertools.product(DOM, DOM)) - {(0, 1), (2, -1)}, R),
    ),
    **{f"count{op}": (Count(X, 0, op, 1, R),) for op in ("==", "!=", "<", "<=", ">", ">=")},
    "count-repeated": (Count(("x", "x", "y"), 2, ">=", 2, R),),
    "count-impossible": (Count(X, 0, ">", 5, R),),
    "regular": (Regular(LINE, RUNS_2_1, R),),
    "alldifferent": (AllDifferent(X, R),),
    "alldifferent-pigeonhole": (AllDifferent(LINE, R),),
    "mixed": (
        AllDifferent(X, R),
        Linear(("x", "y"), (1, 1), ">=", 1, Origin("rule", "sum")),
        Compare("z", "<", "x", Origin("rule", "order")),
    ),
}


class Probe(Family):
    info = FamilyInfo(name="satprobe", clue_kinds=("given", "linear"))

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        if params.get("case") not in CASES:
            raise SpecError([Violation("malformed", None, "params.case", "unknown case")])
        return {"case": params["case"]}

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        rules = CASES[params["case"]]
        if any(set(r.vars) & set(LINE) for r in rules):
            variables = tuple(Variable((i,), n, (0, 1)) for i, n in enumerate(LINE))
        else:
            variables = tuple(Variable((i,), n, (-1, 0, 1, 2)) for i, n in enumerate(X))
        return Schema(
            self.info.name, tuple(sorted(params.items())), variables, rules, self.info.clue_kinds
        )

    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        d = clue.data_dict()
        origin = Origin("clue", clue.id, clue.coords)
        if clue.kind == "given":
            return (Linear((d["var"],), (1,), "==", d["value"], origin),)
        return (Linear(tuple(d["vars"]), tuple(d["coeffs"]), d["op"], d["rhs"], origin),)


get_family("sudoku")  # load the built-in families first: registering one earlier hides them
PROBE = register_family(Probe())


def brute_force(schema: Schema, extra: tuple[Constraint, ...] = ()) -> set[tuple]:
    names = schema.names
    out = set()
    for values in itertools.product(*(v.domain for v in schema.variables)):
        sol = dict(zip(names, values, strict=True))
        if all(c.holds(sol) for c in (*schema.rules, *extra)):
            out.add(tuple(sorted(sol.items())))
    return out


def sat_solutions(instance: Instance, verifier: SatVerifier | None = None) -> set[tuple]:
    rep = (verifier or SatVerifier()).verify(instance, solution_cap=10_000)
    assert not rep.solution_count_is_lower_bound
    return {tuple(sorted(s.items())) for s in rep.solutions}


@pytest.mark.parametrize("case", sorted(CASES))
def test_encoding_has_exactly_the_brute_force_solutions(case: str) -> None:
    instance = Instance.make("satprobe", {"case": case}, [])
    assert sat_solutions(instance) == brute_force(PROBE.schema({"case": case}))


@pytest.mark.parametrize("solver", ["cadical153", "cadical195", "glucose4", "minisat22"])
def test_every_supported_solver_gives_the_same_solutions(solver: str) -> None:
    instance = Instance.make("satprobe", {"case": "mixed"}, [])
    expected = brute_force(PROBE.schema({"case": "mixed"}))
    assert sat_solutions(instance, SatVerifier(solver=solver)) == expected


def linear_clue(cid: str, coeffs: tuple[int, int], op: str, rhs: int) -> Clue:
    data = {"vars": ["x", "z"], "coeffs": list(coeffs), "op": op, "rhs": rhs}
    return Clue.make(cid, "linear", data, [(0,), (2,)])


def test_non_unary_clues_under_selectors_are_reused_across_instances() -> None:
    verifier = SatVerifier()
    schema = PROBE.schema({"case": "alldifferent"})
    for coeffs, op, rhs in [((1, -2), ">=", 0), ((1, -2), ">=", 0), ((-1, 1), "==", 3)]:
        clue = linear_clue("c1", coeffs, op, rhs)
        instance = Instance.make("satprobe", {"case": "alldifferent"}, [clue])
        constraints = PROBE.clue_constraints(schema, clue)
        assert sat_solutions(instance, verifier) == brute_force(schema, constraints)


def test_unsolvable_clue_conflict_matches_enumerative() -> None:
    clues = [
        Clue.make("g1", "given", {"var": "y", "value": 1}, [(1,)]),
        linear_clue("c1", (1, 1), "==", 4),  # x + z == 4 with x != z in -1..2: impossible
        Clue.make("g2", "given", {"var": "x", "value": 0}, [(0,)]),
    ]
    instance = Instance.make("satprobe", {"case": "alldifferent"}, clues)
    a = SatVerifier().verify(instance)
    b = EnumerativeVerifier().verify(instance)
    assert a.verdict is b.verdict is Verdict.UNSOLVABLE
    assert a.reject_detail.conflict == b.reject_detail.conflict
    assert a.reject_detail.conflict.clue_ids == ("c1",)


def test_predicate_is_not_encodable_and_sat_says_to_use_enumerative() -> None:
    CASES["predicate"] = (Predicate(X, lambda x, y, z: x < y < z, R),)
    instance = Instance.make("satprobe", {"case": "predicate"}, [])
    assert not encodable(instance)
    with pytest.raises(NotEncodable, match="enumerative"):
        SatVerifier().verify(instance)
    assert EnumerativeVerifier().verify(instance).verdict is Verdict.MULTIPLE


def test_encodable_for_vocabulary_and_invalid_instances() -> None:
    assert encodable(Instance.make("satprobe", {"case": "regular"}, []))
    assert encodable(Instance.make("no-such-family", {}, []))


def test_capped_report_does_not_depend_on_what_the_solver_saw_before() -> None:
    empty = Instance.make("sudoku", {"size": 4}, [])
    fresh = SatVerifier().verify(empty, solution_cap=5)
    used = SatVerifier()
    for k in range(1, 4):
        used.verify(Instance.make("sudoku", {"size": 4}, [_given(0, k, 1)]), solution_cap=3)
    again = used.verify(empty, solution_cap=5)
    assert fresh.digest() == again.digest()
    assert fresh.solution_count_is_lower_bound


def _given(r: int, c: int, v: int) -> Clue:
    return Clue.make(f"r{r + 1}c{c + 1}", "given", {"value": v}, [(r, c)])


def test_forced_cells_are_the_cells_equal_in_every_solution() -> None:
    clues = [_given(0, 0, 1), _given(0, 1, 2), _given(1, 0, 3)]
    instance = Instance.make("sudoku", {"size": 4}, clues)
    rep = SatVerifier().verify(instance, solution_cap=1000)
    assert rep.verdict is Verdict.MULTIPLE and not rep.solution_count_is_lower_bound
    names = list(rep.solutions[0])
    expected = [n for n in names if len({s[n] for s in rep.solutions}) == 1]
    capped = SatVerifier().verify(instance, solution_cap=2, extras={"forcedCells"})
    assert [f["fieldName"] for f in capped.stats["forcedCells"]] == expected
    assert capped.stats["forcedCellsComplete"]
    always = SatVerifier(forced_cells=True).verify(instance, solution_cap=2)
    assert always.stats["forcedCells"] == capped.stats["forcedCells"]


def test_extras_are_computed_only_when_asked_and_change_nothing_else() -> None:
    instance = Instance.make("sudoku", {"size": 4}, [_given(0, 0, 1), _given(0, 1, 2)])
    sat = SatVerifier()
    plain = sat.verify(instance, solution_cap=3)
    asked = sat.verify(instance, solution_cap=3, extras=("forcedCells",))
    assert "forcedCells" not in plain.stats and "forcedCellsComplete" not in plain.stats
    assert "forcedCells" in asked.stats
    assert asked.verdict is plain.verdict is Verdict.MULTIPLE
    assert asked.solutions == plain.solutions
    assert asked.reject_detail == plain.reject_detail


def test_the_backbone_stops_when_the_time_budget_is_spent_and_says_it_is_incomplete() -> None:
    from puzzlekit.verifiers.sat.session import _backbone, _Run

    instance = Instance.make("sudoku", {"size": 4}, [_given(0, 0, 1)])
    sat = SatVerifier()
    rep = sat.verify(instance, solution_cap=2)
    engine, clue_lits = sat._prepare(instance)
    assumptions = sorted({lit for _, lits in clue_lits for lit in lits})
    spent = _Run(SearchBudget(seconds=1e-9))  # the deadline passes before the first check
    forced, complete = _backbone(engine, assumptions, rep.solutions, spent)
    assert not complete
    assert spent.calls == 0
    assert {f["fieldName"] for f in forced} <= {"r1c1"}


def test_domain_too_large_and_undecided_match_enumerative_shape() -> None:
    instance = Instance.make("sudoku", {"size": 9}, [_given(0, 0, 1)])
    a = SatVerifier(max_cartesian_log10=10).verify(instance)
    b = EnumerativeVerifier(max_cartesian_log10=10).verify(instance)
    assert a.verdict is Verdict.DOMAIN_TOO_LARGE
    assert a.digest() == b.digest()
    hardest = "..............1..2.13.4..5....6....7..8.9.....65..3.9..341...6..5..3....8....4..5"
    hard = get_family("sudoku").parse_text(hardest)
    rep = SatVerifier().verify(hard, budget=SearchBudget(nodes=1))
    assert rep.verdict is Verdict.UNDECIDED
    assert rep.reject_detail.budget.resource == "nodes"
    assert rep.reject_detail.culprits


def test_verify_does_not_mutate_the_instance() -> None:
    instance = Instance.make("sudoku", {"size": 4}, [_given(0, 0, 1), _given(0, 1, 1)])
    before = instance.canonical_json()
    SatVerifier().verify(instance)
    assert instance.canonical_json() == before


def test_a_table_forbidding_few_tuples_is_clauses_without_new_variables() -> None:
    # the logicgrid family's position clues are tables forbidding one pair each: a Boolean per
    # allowed tuple made every clue hundreds of variables and every solver call slow
    schema = PROBE.schema({"case": "table-forbids-few"})
    cnf = _Cnf(schema)
    top = cnf.top
    cnf.encode(schema.rules[0], None)
    forbidden = 4**3 - len(FEW_FORBIDDEN)
    assert cnf.top == top
    assert len(cnf.clauses) == forbidden
    assert all(len(clause) == 3 and all(lit < 0 for lit in clause) for clause in cnf.clauses)


def test_a_schema_solver_outgrown_by_clue_encodings_is_rebuilt_but_not_under_a_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import puzzlekit.verifiers.sat.backend as sat

    monkeypatch.setattr(sat, "REBUILD_MIN_VARS", 1)
    monkeypatch.setattr(sat, "REBUILD_FACTOR", 0)
    verifier = SatVerifier()
    schema = PROBE.schema({"case": "alldifferent"})

    def check(rhs: int) -> None:  # a new clue each time: a new selector and its encoding
        clue = linear_clue("c1", (1, -1), "<=", rhs)
        instance = Instance.make("satprobe", {"case": "alldifferent"}, [clue])
        constraints = PROBE.clue_constraints(schema, clue)
        assert sat_solutions(instance, verifier) == brute_force(schema, constraints)

    check(0)
    assert not verifier._engines  # outgrown by one clue: dropped, the next call builds afresh
    known = Instance.make("satprobe", {"case": "alldifferent"}, [])
    solution = {"x": -1, "y": 0, "z": 1}
    with verifier.uniqueness_session(known, solution) as session:
        (engine,) = verifier._engines.values()
        check(1)
        check(2)
        assert list(verifier._engines.values()) == [engine]  # kept while the session is open
        assert session.unique_with([]) is False
    assert not verifier._engines  # dropped once the session closed
    monkeypatch.setattr(sat, "REBUILD_MIN_VARS", 10_000)
    check(3)
    (engine,) = verifier._engines.values()
    check(4)
    assert list(verifier._engines.values()) == [engine]  # below the threshold: reused


def instance_schema(instance: Instance):
    from puzzlekit.families import get_family

    return get_family(instance.family).schema(instance.params_dict())


@pytest.mark.parametrize("cap", [2, 3, 7, 30])
def test_at_the_cap_the_solutions_are_the_lexicographically_first(cap: int) -> None:
    instance = Instance.make("sudoku", {"size": 4}, [_given(1, 2, 1)])
    sat = SatVerifier()
    everything = sat.verify(instance, solution_cap=1000)
    assert not everything.solution_count_is_lower_bound and everything.solution_count > 2 * cap
    from puzzlekit.verifiers.search import search_order

    names = [v.name for v in instance_schema(instance).variables]
    order = search_order(names, instance.digest)  # the instance's own order, not reading order
    ordered = sorted(everything.solutions, key=lambda s: [s[n] for n in order])
    capped = sat.verify(instance, solution_cap=cap)
    assert capped.solution_count_is_lower_bound
    assert list(capped.solutions) == ordered[:cap]


@pytest.mark.parametrize("amo", ["pairwise", "seqcounter", "bitwise", "ladder"])
def test_every_at_most_one_encoding_gives_the_same_report(amo: str) -> None:
    open_grid = Instance.make("sudoku", {"size": 6}, [_given(0, 0, 1), _given(1, 3, 2)])
    clash = Instance.make("sudoku", {"size": 6}, [_given(0, 0, 1), _given(0, 4, 1)])
    for instance in (open_grid, clash):
        mine = SatVerifier(amo=amo).verify(instance, solution_cap=5)
        assert mine.digest() == SatVerifier().verify(instance, solution_cap=5).digest()
    with pytest.raises(ValueError, match="amo must be one of"):
        SatVerifier(amo="product")
