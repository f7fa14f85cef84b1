"""The loop's instances kept as grid lines (``loop/givens_steps.py``, minimization, the guarded
replay) and the loop outcome's wire: each pinned against the clue objects' path it replaces."""

from __future__ import annotations

import json

import numpy as np
import pytest

from puzzlekit.core.model import Instance
from puzzlekit.families import get_family
from puzzlekit.families.grid import GridLine
from puzzlekit.generators import STRATEGIES
from puzzlekit.generators.minimize import minimize
from puzzlekit.loop.attempts import guarded_verify
from puzzlekit.loop.budget import LoopBudget
from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed
from puzzlekit.loop.givens_steps import eligible
from puzzlekit.loop.isolation import (
    FIRST_SOLUTION,
    LoopWorkerError,
    result_from_json,
    result_to_json,
)
from puzzlekit.verifiers.bitmask.backend import BitmaskVerifier
from puzzlekit.verifiers.registry import get_verifier

BITMASK = get_verifier("bitmask")
#: a 9×9 puzzle with one solution (25 givens) and that solution
LINE = "....27354.....58..........6.1.438...93............27..6........58.1...6..798....5"


def _as_line(inst: Instance) -> bool:
    return type(inst.clue_source) is GridLine and "clues" not in inst.__dict__


def _made(inst: Instance) -> Instance:
    """The same instance built from clue objects."""
    return Instance.make(inst.family, inst.params_dict(), inst.clues)


def _untimed(report) -> dict:
    out = report.to_json_obj()
    out["stats"] = {k: v for k, v in out["stats"].items() if k != "seconds"}
    return out


@pytest.mark.parametrize(
    ("family", "params"),
    [("sudoku", {"size": 9}), ("sudoku", {"size": 4}), ("latin", {"size": 5})],
    ids=["9x9", "4x4", "latin5"],
)
def test_the_steps_start_is_the_strategys_start_kept_as_a_grid_line(family, params):
    schema = get_family(family).schema(params)
    strategy = STRATEGIES.get("adaptive")(7)
    steps = eligible(schema, strategy, BITMASK, (), LoopBudget())
    assert steps is not None
    for seed in range(6):
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        a = strategy.start(schema, rng_a)
        b = steps.start(strategy, schema, rng_b)
        assert _as_line(b.instance) and not _as_line(a.instance)
        assert b.instance.canonical_json() == a.instance.canonical_json()
        assert b.instance.digest == a.instance.digest == b.instance.fresh_digest()
        assert steps.clue_count(b.instance) == len(a.instance.clues)
        assert b.solution == a.solution and (b.action, b.coord) == (a.action, a.coord)
        assert rng_a.integers(1 << 62) == rng_b.integers(1 << 62)  # the same draws taken
        assert b.instance == a.instance  # equal (the clues built once read)


@pytest.mark.parametrize("symmetric", [False, True], ids=["plain", "symmetric"])
def test_a_minimized_grid_line_keeps_its_form_and_the_clue_objects_result(symmetric):
    line = get_family("sudoku").parse_text(LINE)
    solution = BITMASK.verify(line).solutions[0]
    made = _made(line)
    for seed in range(3):
        a = minimize(made, BITMASK, np.random.default_rng(seed), symmetric=symmetric,
                     solution=solution)  # fmt: skip
        b = minimize(line, BITMASK, np.random.default_rng(seed), symmetric=symmetric,
                     solution=solution)  # fmt: skip
        assert _as_line(b.instance) and not _as_line(a.instance)
        assert (b.calls, b.removed) == (a.calls, a.removed)
        assert b.instance.digest == a.instance.digest == b.instance.fresh_digest()
        assert b.instance == a.instance


def test_the_guard_reads_a_grid_line_from_its_values_as_it_reads_clue_objects():
    line = get_family("sudoku").parse_text(LINE)
    made = _made(get_family("sudoku").parse_text(LINE))
    fast, _ = guarded_verify(BITMASK, line, 2)
    slow, _ = guarded_verify(BITMASK, made, 2)
    assert fast is not None and slow is not None
    assert _untimed(fast) == _untimed(slow)
    assert _as_line(line)  # read from its values: no clue object built


def _changing(monkeypatch, change) -> None:
    """The built-in verifier's verify, followed by ``change(instance)``."""
    verify = BitmaskVerifier.verify

    def changed(self, instance, **kwargs):
        report = verify(self, instance, **kwargs)
        change(instance)
        return report

    monkeypatch.setattr(BitmaskVerifier, "verify", changed)


@pytest.mark.parametrize(
    "change",
    [
        lambda inst: object.__setattr__(inst.clue_source, "values", b"\x01" + LINE_VALUES[1:]),
        lambda inst: object.__setattr__(inst, "_canonical", b"{}"),
        lambda inst: object.__setattr__(inst, "_digest", "sha256:" + "0" * 64),
        lambda inst: object.__setattr__(inst.clue_source, "_givens", ((0, 1),)),
    ],
    ids=["values", "bytes", "digest", "givens"],
)
def test_the_guard_catches_a_grid_line_changed_by_its_verifier(monkeypatch, change):
    line = get_family("sudoku").parse_text(LINE)
    line.digest  # noqa: B018 - cached before the call, as the loop has it
    _changing(monkeypatch, change)
    report, _ = guarded_verify(get_verifier("bitmask"), line, 2)
    assert report is None


def test_the_guard_accepts_a_grid_line_whose_clues_were_only_read(monkeypatch):
    line = get_family("sudoku").parse_text(LINE)
    _changing(monkeypatch, lambda inst: inst.clues)
    report, _ = guarded_verify(get_verifier("bitmask"), line, 2)
    assert report is not None and report.instance_digest == line.fresh_digest()


def test_an_accepted_loops_solution_crosses_once_in_its_filter_report():
    spec = LoopSpec("sudoku", {"size": 9}, filter="bitmask", minimize=True, trace_reports=False)
    driver = LoopDriver(spec)
    for i in range(3):
        result = driver.run(loop_seed(5, i))
        assert result.accepted
        wire = result_to_json(result, trace_reports=False)
        assert wire["solution"] == FIRST_SOLUTION
        back = result_from_json(json.loads(json.dumps(wire)))
        assert back.solution == result.solution
        assert list(back.solution) == list(result.solution)  # the same order


def test_a_wire_solution_naming_a_report_it_lacks_is_refused():
    spec = LoopSpec("sudoku", {"size": 9}, filter="bitmask", k=5, max_calls=1)
    result = LoopDriver(spec).run(loop_seed(5, 0))
    wire = result_to_json(result, trace_reports=False)
    wire.update(status="exhausted", filterReport=None, solution=FIRST_SOLUTION)
    with pytest.raises(LoopWorkerError, match="solution"):
        result_from_json(wire)


LINE_VALUES = get_family("sudoku").parse_text(LINE).clue_source.values


def _generic(inst: Instance) -> bytes:
    from puzzlekit.core.jsondata import canonical_json

    return canonical_json(inst.to_json_obj(), keys_are_strings=True)


@pytest.mark.parametrize(
    ("family", "params"),
    [("sudoku", {"size": 9}), ("sudoku", {"size": 16}), ("latin", {"size": 5})],
    ids=["9x9", "16x16", "latin5"],
)
def test_plain_givens_are_written_field_by_field_as_canonical_json_writes_them(family, params):
    fam = get_family(family)
    schema = fam.schema(params)
    rng = np.random.default_rng(4)
    for k in (1, 7, len(schema.variables)):
        cells = rng.choice(len(schema.variables), k, replace=False).tolist()
        clues = []
        for i in cells:
            var = schema.variables[i]
            clues.append(
                fam.given(schema, var.coord, var.domain[int(rng.integers(len(var.domain)))])
            )
        inst = Instance.make(family, params, clues)
        assert inst.fresh_canonical_json() == _generic(inst)


@pytest.mark.parametrize(
    ("cid", "data", "coord"),
    [
        ("r1c1", {"value": True}, (0, 0)),
        ("r1c1", {"value": -3}, (0, 0)),
        ('r"1', {"value": 1}, (0, 0)),
        ("r\u00e91", {"value": 1}, (0, 0)),
        ("r1c1", {"value": 10**15}, (0, 0)),
        ("r1c1", {"value": 1, "b": 2}, (0, 0)),
        ("r1c1", {"value": 1}, (0, 0, 0)),
        ("r1c1", {"value": 1.5}, (0, 0)),
        ("r1c1", {"value": 1}, ("x", 0)),
        ("r1c1", {"value": 1}, (3, -1)),
    ],
    ids=["bool", "negative", "quote", "non-ascii", "long", "more-data", "3d", "float", "name",
         "negative-coord"],
)  # fmt: skip
def test_clues_off_the_plain_given_shape_are_written_the_general_way(cid, data, coord):
    from puzzlekit.core.model import Clue

    odd = Clue.make(cid, "given", data, [coord])
    inst = Instance.make(
        "sudoku", {"size": 9}, [odd, Clue.make("r9c9", "given", {"value": 1}, [(8, 8)])]
    )
    assert inst.fresh_canonical_json() == _generic(inst)
