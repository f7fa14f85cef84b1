"""Generation's hot paths on compiled calls and cached work: the ranked gap of a count to two
(``verifiers/bitmask/gap_draw.py``), the sampler's kept search, a fresh grid's initial clues,
the judging process's one reading of a loop outcome, and the cheap forms of ``plain``,
``natural_key`` and ``cache_intact``. Each is pinned against the computation it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlekit.core import protocols
from puzzlekit.core.identity import _natural_key, natural_key
from puzzlekit.core.jsondata import FrozenDict, plain
from puzzlekit.core.model import Instance
from puzzlekit.families import get_family
from puzzlekit.loop.holdout import HoldoutContaminated, InlineHoldout, read_checked
from puzzlekit.verifiers.bitmask.gap_draw import ranked_gap
from puzzlekit.verifiers.registry import get_verifier
from puzzlekit.verifiers.search import STREAM_TIES, digest_permutation


def _reference_gap(bits, tbits, digest):
    """The steps' gap as the adaptive strategy reads it from a full MULTIPLE report (the list
    computation ``ranked_gap`` replaced): cells ranked by the draw, best share offered."""
    differ = np.flatnonzero(bits[0] != bits[1]).tolist()
    draw = digest_permutation(digest, STREAM_TIES, len(differ))
    gap = [differ[i] for i in sorted(range(len(differ)), key=draw.__getitem__)]
    out = (bits[0] != tbits).astype(np.int64) + (bits[1] != tbits)
    shares = [int(out[i]) for i in gap]
    best = max(shares)
    return gap[0], [i for i, s in zip(gap, shares, strict=True) if s == best]


@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_ranked_gap_is_the_reports_gap_and_the_strategys_best_cells(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([16, 81, 256]))
    for _ in range(40):
        bits = np.zeros((2, n), np.int64)
        bits[0] = rng.integers(0, 9, n)
        bits[1] = bits[0]
        moved = rng.choice(n, int(rng.integers(1, min(n, 30))), replace=False)
        bits[1, moved] = (bits[0, moved] + rng.integers(1, 9, moved.size)) % 9
        target = bits[int(rng.integers(2))].copy()  # the strategy's solution: one of them, or
        if rng.random() < 0.5:  # a third that differs from both somewhere
            target[moved[: max(1, moved.size // 3)]] = 99
        raw = rng.integers(0, 256, 32, dtype=np.uint8).tobytes()
        digest = "sha256:" + raw.hex()
        first, offered = ranked_gap(bits, target, np.frombuffer(raw, np.uint8), STREAM_TIES)
        ref_first, ref_offered = _reference_gap(bits, target, digest)
        assert int(first) == ref_first and offered.tolist() == ref_offered


@pytest.mark.parametrize(
    ("family", "params"),
    [("sudoku", {"size": 9}), ("sudoku", {"size": 4}), ("latin", {"size": 5})],
)
def test_a_grids_initial_clues_are_the_familys_default_draws(family, params):
    fam = get_family(family)
    schema = fam.schema(params)
    solution = fam.sample_solution(schema, np.random.default_rng(0))
    if solution is None:
        from puzzlekit.core.solutions import random_solution

        solution = random_solution(schema, np.random.default_rng(0))
    for k in (0, 1, 7, len(schema.names), len(schema.names) + 3):
        a, b = np.random.default_rng(k), np.random.default_rng(k)
        fast = fam.initial_clues(schema, solution, k, a)
        slow = protocols.Family.initial_clues(fam, schema, solution, k, b)
        assert fast == slow and [c.canonical_json() for c in fast] == [
            c.canonical_json() for c in slow
        ]
        assert a.integers(1 << 30) == b.integers(1 << 30)  # the same draws taken


def test_a_family_that_builds_other_clues_keeps_its_own_initial_clues():
    fam = get_family("futoshiki")
    schema = fam.schema({"size": 4})
    from puzzlekit.core.solutions import random_solution

    solution = random_solution(schema, np.random.default_rng(1))
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    assert fam.initial_clues(schema, solution, 6, a) == protocols.pick_in_order(
        fam.clues_from_solution(schema, solution), 6, b
    )


def test_the_sampler_draws_the_same_solution_with_a_kept_search_as_with_a_new_one():
    from puzzlekit.verifiers.bitmask import sample

    schema = get_family("sudoku").schema({"size": 9})
    first = [sample.sample_solution(schema, np.random.default_rng(s)) for s in (1, 2, 3)]
    sample._SEARCHES.clear()  # a new search for the third seed first: the same solution
    assert sample.sample_solution(schema, np.random.default_rng(3)) == first[2]
    assert sample.sample_solution(schema, np.random.default_rng(1)) == first[0]
    assert len({tuple(s.values()) for s in first}) == 3


def test_material_is_checked_once_and_every_reading_keeps_the_verdict():
    inst = get_family("sudoku").parse_text("." * 79 + "12")
    inst = Instance.make(inst.family, inst.params_dict(), inst.clues)
    raw = inst.fresh_canonical_json()
    a, canonical = read_checked(raw)
    b, again = read_checked(raw)
    assert canonical and again and a is not b and a == b == inst
    assert a.canonical_json() == b.canonical_json() == raw and b.cache_intact(raw)
    spaced = raw.replace(b'"clues":', b'"clues": ')  # the same content, not canonical
    c, canonical = read_checked(spaced)
    d, again = read_checked(spaced)
    assert c == inst and not canonical and not again and d.canonical_json() == raw


def test_the_holdout_refuses_material_not_in_canonical_form_on_every_reading():
    holdout = InlineHoldout(get_verifier("sat"))
    clues = get_family("sudoku").parse_text("12" + "." * 14).clues
    raw = Instance.make("sudoku", {"size": 4}, clues)
    spaced = raw.fresh_canonical_json().replace(b'"clues":', b'"clues": ')
    from puzzlekit.core.model import sha256_digest

    for _ in range(2):  # the second reading comes from the remembered content
        with pytest.raises(ValueError, match="canonical form"):
            holdout.check(spaced, sha256_digest(spaced), 2)


def test_a_rewritten_clue_cache_is_caught_and_uncached_clues_are_intact():
    inst = get_family("sudoku").parse_text("1234" + "." * 12)
    inst = Instance.make(inst.family, inst.params_dict(), inst.clues)
    fresh = inst.fresh_canonical_json()
    assert not any("_canonical" in c.__dict__ for c in inst.clues) and inst.cache_intact(fresh)
    clue = inst.clues[1]
    object.__setattr__(clue, "_canonical", clue.canonical_json().replace(b"2", b"3"))
    assert not inst.cache_intact(fresh)


def test_a_verifier_that_rewrites_a_clue_cache_still_contaminates_the_holdout():
    class Rewriting:
        name = "rewriting"

        def __init__(self) -> None:
            self._inner = get_verifier("sat")

        def verify(self, instance, solution_cap=2, **kw):
            report = self._inner.verify(instance, solution_cap=solution_cap, **kw)
            clue = instance.clues[0]
            object.__setattr__(clue, "_canonical", b"{}")
            return report

    inst = get_family("sudoku").parse_text("1234" + "." * 12)
    raw = Instance.make(inst.family, inst.params_dict(), inst.clues).fresh_canonical_json()
    from puzzlekit.core.model import sha256_digest

    with pytest.raises(HoldoutContaminated):
        InlineHoldout(Rewriting()).check(raw, sha256_digest(raw), 2)


@pytest.mark.parametrize("text", ["r1c1", "r10c2", "c01", "c1", "a", "", "x007y08", "r9c9"])
def test_remembered_natural_keys_are_the_computed_ones(text):
    assert natural_key(text) == natural_key(text) == _natural_key(text)

    class Named(str):
        pass

    odd = natural_key(Named(text))
    assert odd == _natural_key(text) and type(odd[1]) is Named  # a subclass is computed afresh


def test_plain_copies_flat_mappings_at_once_as_the_general_path_would():
    flat = {"a": 1, "b": "x", "c": None, "d": 1.5, "e": True}
    for value in (flat, FrozenDict(flat)):
        out = plain(value)
        assert out == flat and type(out) is dict and out is not value
    nested = FrozenDict({"a": (1, 2), "b": FrozenDict({"c": 3})})
    assert plain(nested) == {"a": [1, 2], "b": {"c": 3}}
    assert plain({1: 2, "k": np.int64(3)}) == {"1": 2, "k": 3}
    assert plain({"a": 1}, leaf=lambda v: v + 1) == {"a": 2}


@pytest.mark.parametrize(
    "value",
    [
        {"a": "1.5e3 and 12345678901234567", "b": [1, 2], "c": True},
        {"a": "plain", "b": 1.5},
        {"a": "x", "b": 1234567890123456},
        {"a": "3e", "b": [10, "2E"], "c": 1e20},
        {"r1c1": {"value": 9}, "kind": "given", "coords": [[0, 8]]},
    ],
)
def test_canonical_bytes_skip_no_unsafe_number_inside_or_outside_strings(value):
    import rfc8785

    from puzzlekit.core.jsondata import _dumps_if_canonical, canonical_json

    assert canonical_json(value, keys_are_strings=True) == rfc8785.dumps(value)
    outside = any(type(v) is float or (type(v) is int and v >= 10**15) for v in value.values())
    assert (_dumps_if_canonical(value) is None) == outside
