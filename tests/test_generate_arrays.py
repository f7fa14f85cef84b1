"""Generation on arrays: the adaptive loop's MULTIPLE steps on a givens grid
(``loop/givens_steps.py``), minimization on the 9×9 bitboards, and the judging process reading
each loop outcome once. Each new path is pinned against the path it replaces, seed by seed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from puzzlekit.core.model import Instance
from puzzlekit.families import get_family
from puzzlekit.generators import STRATEGIES
from puzzlekit.generators.minimize import removal_groups
from puzzlekit.loop.budget import LoopBudget
from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed
from puzzlekit.loop.givens_steps import eligible
from puzzlekit.loop.holdout import InlineHoldout, judge, read_material
from puzzlekit.verifiers.bitmask.minimize import CountingSession
from puzzlekit.verifiers.registry import get_verifier

BITMASK = get_verifier("bitmask")


def _results(spec: LoopSpec, seeds: range) -> list:
    driver = LoopDriver(spec)
    return [driver.run(loop_seed(7, i)) for i in seeds]


def _untimed(report) -> dict:
    out = report.to_json_obj()
    out["stats"] = {k: v for k, v in out["stats"].items() if k != "seconds"}
    return out


def _same(a, b) -> None:
    assert a.status == b.status and a.seed == b.seed
    assert (a.instance.digest if a.instance else None) == (
        b.instance.digest if b.instance else None
    )
    assert a.solution == b.solution
    assert a.filter_calls == b.filter_calls and a.minimize_calls == b.minimize_calls
    assert a.start_clues == b.start_clues
    assert (a.filter_report.verdict if a.filter_report else None) == (
        b.filter_report.verdict if b.filter_report else None
    )
    assert [t.to_json_obj() for t in a.trace] == [t.to_json_obj() for t in b.trace]


@pytest.mark.parametrize(
    "params",
    [{"size": 9}, {"size": 4}, {"size": 6, "box": [2, 3]}],
    ids=["9x9", "4x4", "6x6"],
)
def test_array_steps_give_the_loops_and_traces_of_full_reports(params):
    spec = LoopSpec("sudoku", params, filter="bitmask", minimize=True)
    slow = _results(spec, range(12))
    fast = _results(replace(spec, trace_reports=False), range(12))
    for a, b in zip(slow, fast, strict=True):
        _same(a, b)
    # the array steps ran: their trace entries carry no report
    steps = [t for r in fast for t in r.trace]
    assert any(t.report is None for t in steps)
    assert all(t.report is not None for r in slow for t in r.trace)


def test_array_steps_give_latin_squares_and_adaptive_without_minimization_alike():
    spec = LoopSpec("latin", {"size": 5}, filter="bitmask", k=5)
    for a, b in zip(
        _results(spec, range(8)),
        _results(replace(spec, trace_reports=False), range(8)),
        strict=True,
    ):
        _same(a, b)


def test_an_exhausted_loop_ends_on_a_full_report_as_before():
    # two calls from very few clues: the array steps leave the last call to the general path
    spec = LoopSpec("sudoku", {"size": 9}, filter="bitmask", k=5, max_calls=2)
    slow = _results(spec, range(4))
    fast = _results(replace(spec, trace_reports=False), range(4))
    assert all(r.status == "exhausted" for r in fast)
    for a, b in zip(slow, fast, strict=True):
        _same(a, b)
        # the last call's full report, as before (its time aside)
        assert _untimed(b.filter_report) == _untimed(a.filter_report)
        assert b.instance.digest == a.instance.digest  # the step after it, not yet verified


def test_the_array_steps_digest_is_the_instances():
    schema = get_family("sudoku").schema({"size": 9})
    steps = eligible(schema, STRATEGIES.get("adaptive")(24), BITMASK, (), LoopBudget())
    assert steps is not None
    rng = np.random.default_rng(3)
    solution = STRATEGIES.get("adaptive")(30).start(schema, rng).solution
    names = schema.names
    for k in (0, 1, 17, 81):
        cells = {int(i): solution[names[int(i)]] for i in rng.choice(81, k, replace=False)}
        inst = steps.instance(cells)
        assert steps.digest(cells) == inst.digest == inst.fresh_digest()


@pytest.mark.parametrize(
    "change",
    [
        {"strategy": "blind"},
        {"filter": "sat"},
        {"extras": ("forcedCells",)},
        {"cap": 3},
        {"family": "sudoku-killer"},
    ],
    ids=["other-strategy", "other-filter", "forced-cells", "cap-3", "killer"],
)
def test_the_array_steps_take_only_the_loops_they_reproduce(change):
    family = change.get("family", "sudoku")
    params = {"size": 4, "box": [2, 2]} if family == "sudoku-killer" else {"size": 9}
    schema = get_family(family).schema(params)
    strategy = STRATEGIES.get(change.get("strategy", "adaptive"))(24)
    verifier = get_verifier(change.get("filter", "bitmask"))
    budget = LoopBudget(solution_cap=change.get("cap", 2))
    assert eligible(schema, strategy, verifier, change.get("extras", ()), budget) is None
    assert eligible(get_family("sudoku").schema({"size": 9}), STRATEGIES.get("adaptive")(24),
                    BITMASK, (), LoopBudget()) is not None  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_minimization_on_the_9x9_bitboards_keeps_what_the_general_search_keeps(seed):
    from puzzlekit.generators.base import sample_solution

    fam = get_family("sudoku")
    schema = fam.schema({"size": 9})
    solution = sample_solution(schema, np.random.default_rng(seed))
    full = Instance.make("sudoku", {"size": 9}, fam.clues_from_solution(schema, solution))
    ids = [c.id for c in full.clues]
    groups = removal_groups(full, np.random.default_rng(seed), symmetric=seed == 3)
    with BITMASK.uniqueness_session(full, solution) as board:
        assert board._grid9 is not None
        kept9 = board.remove_in_order(groups, ids)
    general = CountingSession(*BITMASK._prepare(full))
    general._grid9 = None
    kept = general.remove_in_order(groups, ids)
    assert kept9 == kept and len(kept) < 40
    assert BITMASK.verify(full.with_clues(c for c in full.clues if c.id in kept)).verdict.value == (
        "UNIQUE"
    )


@pytest.mark.parametrize("value", [1, 9, True, 2.0], ids=["1", "9", "bool", "float"])
def test_a_given_is_the_clue_the_general_constructor_makes(value):
    from puzzlekit.core.model import Clue

    fam = get_family("sudoku")
    schema = fam.schema({"size": 9})
    for var in schema.variables[::10]:
        built = fam.given(schema, var.coord, value)
        made = Clue.make(var.name, "given", {"value": value}, [var.coord])
        assert built == made and built.canonical_json() == made.canonical_json()
        assert type(built.data) is type(made.data) and type(built.data[0][1]) is type(value)


def test_material_read_twice_is_two_objects_of_one_content():
    inst = get_family("sudoku").parse_text("." * 80 + "1")
    inst = Instance.make(inst.family, inst.params_dict(), inst.clues)
    raw = inst.fresh_canonical_json()
    a, b = read_material(raw), read_material(raw)
    assert a is not b and a.clues[0] is not b.clues[0]
    assert a == b == inst and a.fresh_canonical_json() == raw


def test_the_holdout_judges_received_bytes_as_it_judges_a_fresh_serialization():
    holdout = InlineHoldout(get_verifier("sat"))
    driver = LoopDriver(LoopSpec("sudoku", {"size": 9}, filter="bitmask", minimize=True))
    for i in range(4):
        inst = driver.run(loop_seed(2, i)).instance
        fresh, _ = judge(holdout, inst, 2)
        received, _ = judge(holdout, inst, 2, inst.fresh_canonical_json())
        assert fresh.verdict == received.verdict and fresh.solutions == received.solutions
        assert received.instance_digest == inst.digest


def test_plain_clues_read_as_the_general_reading_reads_them(monkeypatch):
    import puzzlekit.core.clues as reading

    lines = [
        '{"family":"sudoku","params":{"size":4},"clues":[{"id":"r1c1","kind":"given",'
        '"data":{"value":1},"coords":[[0,0]]},{"id":"r2c3","kind":"given","data":{"value":4},'
        '"coords":[[1,2]]}]}',
        '{"family":"kenken","params":{"size":4},"clues":[{"id":"c1","kind":"cage",'
        '"data":{"target":3,"op":"+"},"coords":[[0,0],[0,1]]}]}',
    ]
    fast = [Instance.from_json(t) for t in lines]
    monkeypatch.setattr(reading, "_plain_clue", lambda rc: None)
    general = [Instance.from_json(t) for t in lines]
    for a, b in zip(fast, general, strict=True):
        assert a == b and a.fresh_canonical_json() == b.fresh_canonical_json()
        assert [type(c.data) for c in a.clues] == [type(c.data) for c in b.clues]


@pytest.mark.parametrize(
    "data", ['{"value":true}', '{"value":9007199254740993}', '{"value":1.5}'],
    ids=["bool", "beyond-safe", "float"],
)  # fmt: skip
def test_clues_outside_the_plain_shape_still_meet_the_general_reading(data):
    from puzzlekit.core.clues import _plain_clue

    text = (
        '{"family":"sudoku","params":{"size":4},"clues":[{"id":"r1c1","kind":"given",'
        f'"data":{data},"coords":[[0,0]]}}]}}'
    )
    import json

    assert _plain_clue(json.loads(text)["clues"][0]) is None


@pytest.mark.parametrize("kept", [30, 81], ids=["not-unique-at-first", "unique-at-first"])
def test_the_9x9_removals_agree_whether_or_not_the_clues_kept_start_unique(kept):
    from puzzlekit.generators.base import sample_solution

    fam = get_family("sudoku")
    schema = fam.schema({"size": 9})
    solution = sample_solution(schema, np.random.default_rng(11))
    full = Instance.make("sudoku", {"size": 9}, fam.clues_from_solution(schema, solution))
    ids = [c.id for c in full.clues][:kept]
    groups = [g for g in removal_groups(full, np.random.default_rng(5)) if g <= set(ids)]
    board = CountingSession(*BITMASK._prepare(full))
    general = CountingSession(*BITMASK._prepare(full))
    general._grid9 = None
    assert board._grid9 is not None
    assert board.remove_in_order(groups, ids) == general.remove_in_order(groups, ids)
