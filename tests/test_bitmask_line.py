"""A grid line verified from its values (``verifiers/bitmask/line.py``) gives the report the
general path gives the same puzzle with its clue objects built: verdict, solutions, reject
detail, digest and every other field (``stats.seconds`` aside), on the shared 9×9 sets, puzzles
with several solutions and none, every size the Sudoku and Latin families list, and the grid
families read through clue objects; a line that does not read is the same INVALID_SPEC report
on ``pk.verify_many`` as ``puzzlekit verify`` prints."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import puzzlekit as pk
from puzzlekit.core.model import Instance, SpecError, sha256_digest
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import get_family
from puzzlekit.families.grid import SYMBOLS
from puzzlekit.verifiers.bitmask.backend import BitmaskVerifier
from puzzlekit.verifiers.bitmask.line import line_plan
from puzzlekit.verifiers.reports import invalid_report, source

DATA = Path(__file__).parent / "data"
BITMASK = BitmaskVerifier()


def _content(rep: pk.VerifierReport) -> dict:
    obj = rep.to_json_obj()
    obj["stats"].pop("seconds", None)
    obj["stats"].pop("conflictSeconds", None)
    spent = (obj.get("rejectDetail") or {}).get("budget")
    if spent:
        spent.pop("seconds", None)
    return obj


def _general(inst: Instance) -> Instance:
    """The same puzzle with its clue objects built (the general path verifies it)."""
    return Instance.make(inst.family, inst.params_dict(), inst.clues)


def _lines(n: int, count: int, seed: int, family: str = "sudoku") -> list[str]:
    """Random clue subsets of random solutions of an ``n``×``n`` grid (some with a wrong given
    added, so UNSOLVABLE, UNIQUE and MULTIPLE all occur)."""
    fam = get_family(family)
    schema = fam.schema({"size": n})
    rng = random.Random(seed)
    out = []
    for k in range(count):
        sol = random_solution(schema, np.random.default_rng(rng.randrange(2**32)))
        cells = [SYMBOLS[sol[v.name] - 1] for v in schema.variables]
        keep = rng.uniform(0.2, 0.7)
        line = [c if rng.random() < keep else "." for c in cells]
        if k % 5 == 4:  # a wrong value at a blank cell
            at = line.index(".")
            line[at] = SYMBOLS[(SYMBOLS.index(cells[at]) + 1) % n]
        out.append("".join(line))
    return out


def _shared(name: str, count: int) -> list[str]:
    return (DATA / f"sudoku9_{name}_sample.txt").read_text().split()[:count]


def _cases() -> list[tuple[str, str, int]]:
    cases = [("sudoku", line, 9) for name in ("17clue", "top1465") for line in _shared(name, 15)]
    seventeen = _shared("17clue", 6)
    for line in seventeen:  # a given gone (MULTIPLE) and a clash added (UNSOLVABLE)
        at = next(i for i, ch in enumerate(line) if ch != ".")
        cases.append(("sudoku", line[:at] + "." + line[at + 1 :], 9))
        blank = line.index(".")
        cases.append(("sudoku", line[:blank] + line[at] + line[blank + 1 :], 9))
    for n in (4, 6, 9):
        cases += [("sudoku", line, n) for line in _lines(n, 10, n)]
    # 12×12: a plan that reads its masks as lines bring them (bitmask_line.EAGER_PAIRS)
    cases += [("sudoku", line, 12) for line in _lines(12, 5, 12)]
    for n in (4, 5, 9):
        cases += [("latin", line, n) for line in _lines(n, 10, 100 + n, "latin")]
    return cases


@pytest.mark.parametrize("cap", [2, 100])
def test_a_grid_line_reports_as_its_clue_objects_do(cap: int) -> None:
    for family, line, n in _cases():
        fast = pk.parse(family, line)
        assert line_plan(fast) is not None, (family, line)  # the fast path takes it
        got = BITMASK.verify(fast, solution_cap=cap)
        if got.verdict.value != "UNSOLVABLE":  # a conflict names clues: built for it
            assert "clues" not in fast.__dict__
        want = BITMASK.verify(_general(fast), solution_cap=cap)
        assert _content(got) == _content(want), (family, n, line)
        assert got.instance_digest == _general(fast).fresh_digest()


def test_pk_verify_and_verify_many_agree_with_the_general_path() -> None:
    lines = [line for _, line, n in _cases() if n == 9][:40]
    general = [_content(pk.verify(_general(pk.parse("sudoku", line)))) for line in lines]
    assert [_content(pk.verify(pk.parse("sudoku", line))) for line in lines] == general
    assert [_content(r) for r in pk.verify_many(lines, "sudoku")] == general


def test_a_node_budget_ends_a_grid_line_as_it_ends_the_general_path() -> None:
    line = _shared("top1465", 1)[0]
    budget = SearchBudget(nodes=3)
    got = BITMASK.verify(pk.parse("sudoku", line), budget=budget)
    want = BITMASK.verify(_general(pk.parse("sudoku", line)), budget=budget)
    assert got.verdict.value == "UNDECIDED"
    assert _content(got) == _content(want)


@pytest.mark.parametrize(
    "line",
    [
        "12",  # too short for any grid
        "x" * 81,  # not a digit
        "1" * 80,  # 80 characters
        "." * 80 + "é",  # outside the table
        "." * 15 + "5",  # 4x4 with a value over 4
    ],
)
def test_a_line_that_does_not_read_is_the_clis_invalid_spec_report(line: str) -> None:
    with pytest.raises(SpecError) as exc:
        pk.parse("sudoku", line)
    want = invalid_report(
        sha256_digest(line.encode("utf-8")), exc.value.violations, source("input", "1"), 100
    )
    good = _shared("17clue", 2)
    got = pk.verify_many([good[0], line, good[1]], "sudoku")
    assert _content(got[1]) == _content(want)
    assert got[1].verdict.value == "INVALID_SPEC"
    assert [_content(got[0]), _content(got[2])] == [
        _content(pk.verify(_general(pk.parse("sudoku", g)))) for g in good
    ]


def test_families_read_through_clue_objects_keep_the_general_path() -> None:
    from puzzlekit.families import resolve

    for family in ("sudoku-jigsaw", "sudoku-killer", "kenken", "futoshiki"):
        fam = get_family(family)
        params = fam.info.listed_params[0] if fam.info.listed_params else {}
        schema = fam.schema(dict(params))
        sol = random_solution(schema, np.random.default_rng(7))
        inst = Instance.make(family, schema.params_dict(), fam.clues_from_solution(schema, sol))
        assert line_plan(inst) is None
        assert BITMASK.verify(inst).verdict.value == "UNIQUE"
        assert resolve(inst) is not None


def test_verify_many_groups_lines_of_several_schemas_as_pk_verify_reports_them() -> None:
    lines = [line for _, line, n in _cases() if n in (4, 6)][:16] + _shared("17clue", 4)
    random.Random(3).shuffle(lines)
    want = [_content(pk.verify(_general(pk.parse("sudoku", line)))) for line in lines]
    assert [_content(r) for r in pk.verify_many(lines, "sudoku")] == want
    assert [_content(r) for r in pk.verify_many(lines, "sudoku", solution_cap=2)] == [
        _content(pk.verify(_general(pk.parse("sudoku", line)), solution_cap=2)) for line in lines
    ]


def test_the_backend_choice_of_a_grid_line_is_kept_per_schema_and_follows_the_registry() -> None:
    from puzzlekit.verifiers import registry

    line = _shared("17clue", 1)[0]
    assert registry.default_verifier_name(pk.parse("sudoku", line)) == "bitmask"
    assert pk.verify(pk.parse("sudoku", line)).source["verifier"] == "bitmask"
    kept = [k for k in registry._BY_SCHEMA if k[2] == pk.parse("sudoku", line).params_key()]
    assert kept  # the second grid line of the schema is answered from the kept choice

    class Declining(BitmaskVerifier):
        def accepts(self, instance: Instance) -> bool:
            return False

    real = registry.VERIFIERS.get("bitmask")
    origin = registry.VERIFIERS.origin("bitmask")
    registry.VERIFIERS.register("bitmask", Declining, replace=True)
    try:  # another factory under the name: asked again, not answered from the kept choice
        assert registry.default_verifier_name(pk.parse("sudoku", line)) == "sat"
        assert pk.verify(pk.parse("sudoku", line)).source["verifier"] == "sat"  # pk.verify's too
    finally:
        registry.VERIFIERS.register("bitmask", real, replace=True)
        registry.VERIFIERS._origin["bitmask"] = origin  # the built-in's, as the registry had it
    assert registry.default_verifier_name(pk.parse("sudoku", line)) == "bitmask"
    assert pk.verify(pk.parse("sudoku", line)).source["verifier"] == "bitmask"


def test_grid_lines_verified_from_several_threads_give_the_sequential_reports() -> None:
    from concurrent.futures import ThreadPoolExecutor

    lines = [line for _, line, n in _cases() if n == 9][:24]
    want = [_content(pk.verify(_general(pk.parse("sudoku", line)))) for line in lines]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda line: _content(pk.verify(pk.parse("sudoku", line))), lines))
        many = list(pool.map(lambda k: pk.verify_many(lines[k::3], "sudoku"), range(3)))
    assert got == want
    for k, reps in enumerate(many):
        assert [_content(r) for r in reps] == want[k::3]


def test_a_rewritten_canonical_bytes_table_is_caught_by_cache_intact() -> None:
    """The per-schema table a grid line's bytes are joined from is what the digest reads:
    ``Instance.cache_intact`` compares it with the content."""
    from puzzlekit.families._kit.gridline import _table

    inst = pk.parse("sudoku", "1234............")
    assert inst.cache_intact()
    flat = _table(inst.family, inst.params).flat[4]
    k = 0 * 5 + 1  # cell 0, value 1
    kept = flat[k]
    flat[k] = kept.replace(b'"r1c1"', b'"r1c2"')
    try:
        assert not pk.parse("sudoku", "1234............").cache_intact()
    finally:
        flat[k] = kept
    assert pk.parse("sudoku", "1234............").cache_intact()


def test_a_9x9_line_read_for_its_verdict_is_never_hashed() -> None:
    """The band search reads no search order: a report whose verdict alone is read hashes
    nothing, and its digest, read later, is the instance's (pk.verify and verify_many alike)."""
    lines = _shared("17clue", 3)
    single = pk.parse("sudoku", lines[0])
    rep = pk.verify(single)
    batch = [pk.parse("sudoku", line) for line in lines[1:]]
    reps = pk.verify_many(batch)
    assert [rep.verdict.value] + [r.verdict.value for r in reps] == ["UNIQUE"] * 3
    for inst in [single, *batch]:
        assert "_digest" not in inst.__dict__ and "_canonical" not in inst.__dict__
    for got, inst in zip([rep, *reps], [single, *batch], strict=True):
        assert got.instance_digest == _general(inst).fresh_digest() == inst.digest
        assert _content(got) == _content(pk.verify(_general(inst)))


def test_verify_many_starts_grid_lines_from_their_values(monkeypatch) -> None:
    """Lines of a givens grid go through neither clue objects nor clue effects, and read
    together into the instances parse_text gives."""
    from puzzlekit.families.linechunk import read_lines
    from puzzlekit.verifiers.bitmask import batch

    def refuse(*args: object) -> None:
        raise AssertionError("a grid line went through its clue effects")

    lines = [line for _, line, n in _cases() if n in (4, 9)][:30]
    want = [_content(pk.verify(_general(pk.parse("sudoku", line)))) for line in lines]
    monkeypatch.setattr(batch, "_prepared", refuse)
    got = pk.verify_many(lines, "sudoku")
    assert [_content(r) for r in got] == want
    nine = [line for line in lines if len(line) == 81]
    read = read_lines(get_family("sudoku"), nine, None)
    assert [i.digest for i in read] == [pk.parse("sudoku", line).digest for line in nine]
    assert read_lines(get_family("sudoku"), [nine[0], "x" * 81], None) is None
    assert read_lines(get_family("sudoku"), [nine[0], "1" * 16], None) is None


@pytest.mark.parametrize("cap", [2, 100])
def test_a_chunk_of_9x9_lines_reports_as_pk_verify_from_its_values(cap: int) -> None:
    """A chunk of 9×9 text lines (UNIQUE, MULTIPLE past the cap, UNSOLVABLE) searched from
    its cell values: each report is pk.verify's, its digest read when first asked."""
    lines = [line for _, line, n in _cases() if n == 9 and len(line) == 81][:40]
    reps = pk.verify_many(lines, "sudoku", solution_cap=cap)
    want = [pk.verify(_general(pk.parse("sudoku", line)), solution_cap=cap) for line in lines]
    assert {r.verdict.value for r in reps} == {"UNIQUE", "MULTIPLE", "UNSOLVABLE"}
    assert [_content(r) for r in reps] == [_content(w) for w in want]
    assert [r.instance_digest for r in reps] == [w.instance_digest for w in want]


def test_unique_reports_of_one_chunk_keep_their_own_cartesian_size_and_nodes() -> None:
    """A chunk of UNIQUE 9×9 lines with different numbers of givens (each 17-clue puzzle with
    0 to 8 cells of its solution added): every report has its own row's Cartesian size and
    search nodes, as pk.verify gives them, whatever the row that came before."""
    lines = []
    for k, line in enumerate(_shared("17clue", 18)):
        solved = pk.verify(pk.parse("sudoku", line)).solutions[0]
        cells = [SYMBOLS[v - 1] for v in solved.values()]  # r1c1 ... r9c9, row by row
        blanks = [i for i, ch in enumerate(line) if ch == "."]
        chars = list(line)
        for i in random.Random(k).sample(blanks, k % 9):
            chars[i] = cells[i]
        lines.append("".join(chars))
    reps = pk.verify_many(lines, "sudoku")
    want = [pk.verify(_general(pk.parse("sudoku", line))) for line in lines]
    assert {r.verdict.value for r in reps} == {"UNIQUE"}
    assert len({r.cartesian_size for r in reps}) == 9
    assert [_content(r) for r in reps] == [_content(w) for w in want]
    assert [r.stats["nodes"] for r in reps] == [w.stats["nodes"] for w in want]


def test_a_chunk_of_9x9_lines_past_its_budget_and_pickled_is_pk_verifys() -> None:
    """Rows that need more nodes than the budget are UNDECIDED as pk.verify says; a chunk's
    report pickles to the eager report of the same fields."""
    import pickle

    lines = _shared("top1465", 6)
    budget = SearchBudget(nodes=3)
    reps = pk.verify_many(lines, "sudoku", budget=budget)
    want = [pk.verify(_general(pk.parse("sudoku", line)), budget=budget) for line in lines]
    assert {r.verdict.value for r in reps} == {"UNDECIDED"}
    assert [_content(r) for r in reps] == [_content(w) for w in want]
    fresh = pk.verify_many(_shared("17clue", 4), "sudoku")
    back = [pickle.loads(pickle.dumps(r)) for r in fresh]
    assert [type(b).__name__ for b in back] == ["VerifierReport"] * 4
    assert back == fresh and [b.digest() for b in back] == [r.digest() for r in fresh]


def test_verify_many_leaves_a_subclass_of_the_backend_to_its_own_methods() -> None:
    """The chunk of 9×9 lines searched from their values is the built-in backend's own path: a
    subclass registered under its name is asked through its methods (which may change what a
    report says), never bypassed."""
    from puzzlekit.verifiers import registry

    calls: list[str] = []

    class Counting(BitmaskVerifier):
        def verify(self, instance: Instance, **settings: Any) -> Any:
            calls.append("verify")
            return super().verify(instance, **settings)

        def verify_batch(self, instances: Any, **settings: Any) -> Any:
            calls.append("verify_batch")
            return super().verify_batch(instances, **settings)

    lines = [line for _, line, n in _cases() if n == 9][:6]
    want = [_content(pk.verify(pk.parse("sudoku", line))) for line in lines]
    real = registry.VERIFIERS.get("bitmask")
    origin = registry.VERIFIERS.origin("bitmask")
    registry.VERIFIERS.register("bitmask", Counting, replace=True)
    try:
        got = [_content(r) for r in pk.verify_many(lines, "sudoku")]
    finally:
        registry.VERIFIERS.register("bitmask", real, replace=True)
        registry.VERIFIERS._origin["bitmask"] = origin
    assert calls  # the subclass was asked
    assert got == want
