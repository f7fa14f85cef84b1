"""Generation at compiled speed: minimization's remove-and-check in one compiled call, the loop
process's batches, and the filter call's integrity check without re-serializing."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import OrderedRemoval
from puzzlekit.families import get_family
from puzzlekit.generators.minimize import minimize, removal_groups
from puzzlekit.loop.attempts import guarded_verify
from puzzlekit.loop.driver import LoopDriver, LoopSpec, loop_seed
from puzzlekit.verifiers.bitmask.minimize import CountingSession
from puzzlekit.verifiers.registry import get_verifier

BITMASK = get_verifier("bitmask")


def _full(family: str, params: dict, seed: int) -> tuple[Instance, dict]:
    """Every clue of a random solution of ``family``: the most a minimization can drop."""
    from puzzlekit.generators.base import sample_solution

    fam = get_family(family)
    schema = fam.schema(params)
    solution = sample_solution(schema, np.random.default_rng(seed))
    clues = fam.clues_from_solution(schema, solution)
    return Instance.make(family, params, clues), solution


@pytest.mark.parametrize("symmetric", [False, True], ids=["plain", "symmetric"])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_compiled_minimization_keeps_what_one_verify_per_removal_keeps(seed, symmetric):
    full, solution = _full("sudoku", {"size": 9}, seed)
    compiled = minimize(full, BITMASK, np.random.default_rng(seed), symmetric=symmetric,
                        solution=solution)  # fmt: skip
    by_verify = minimize(full, BITMASK, np.random.default_rng(seed), symmetric=symmetric)
    assert compiled.instance.digest == by_verify.instance.digest
    assert compiled.calls == by_verify.calls and compiled.removed == by_verify.removed
    assert BITMASK.verify(compiled.instance).verdict.value == "UNIQUE"


def test_the_bitmask_session_runs_a_whole_minimization_in_one_call():
    full, solution = _full("sudoku", {"size": 6, "box": [2, 3]}, 3)
    with BITMASK.uniqueness_session(full, solution) as session:
        assert isinstance(session, OrderedRemoval)
        groups = removal_groups(full, np.random.default_rng(3))
        ids = [c.id for c in full.clues]
        kept = set(session.remove_in_order(groups, ids))
        one_by_one = set(ids)
        for group in groups:
            if session.unique_with(one_by_one - group):
                one_by_one -= group
    assert kept == one_by_one and len(kept) < len(ids)


def test_clues_with_constraints_of_their_own_are_asked_one_question_at_a_time():
    full, solution = _full("sudoku-killer", {"size": 4, "box": [2, 2]}, 4)
    cs_effects = BITMASK._prepare(full)
    session = CountingSession(*cs_effects)
    groups = removal_groups(full, np.random.default_rng(4))
    kept = session.remove_in_order(groups, [c.id for c in full.clues])
    by_verify = minimize(full, BITMASK, np.random.default_rng(4))
    assert set(kept) == {c.id for c in by_verify.instance.clues}
    session.close()
    with pytest.raises(RuntimeError, match="closed"):
        session.unique_with(kept)


def test_the_per_question_session_builds_a_search_only_when_asked(monkeypatch):
    """Clues with constraints of their own (cages): each question builds the search of the clues
    it keeps; opening the session builds none it would not use."""
    from puzzlekit.verifiers.bitmask import search as bitmask_search

    full, _ = _full("sudoku-killer", {"size": 4, "box": [2, 2]}, 4)
    cs_effects = BITMASK._prepare(full)
    built = []
    real = bitmask_search.Search
    monkeypatch.setattr(bitmask_search, "Search", lambda *a: built.append(a) or real(*a))
    session = CountingSession(*cs_effects)
    assert built == []
    assert session.unique_with([c.id for c in full.clues]) and len(built) == 1


def test_an_honest_filter_call_serializes_nothing_afresh(monkeypatch):
    full, _ = _full("sudoku", {"size": 4}, 5)

    def refuse(self):
        raise AssertionError("serialized afresh")

    monkeypatch.setattr(Instance, "fresh_canonical_json", refuse)
    report, _ = guarded_verify(BITMASK, full, 2)
    assert report is not None and report.instance_digest == full.digest


SPEC = LoopSpec("sudoku", {"size": 4}, filter="bitmask", holdout="sat", minimize=True)


def test_the_loop_process_batches_give_the_results_of_one_loop_at_a_time():
    driver = LoopDriver(SPEC)
    assert driver.isolated
    streamed = list(driver.batch(7, range(6)))
    one_by_one = [driver.run(loop_seed(7, i)) for i in range(6)]
    assert [i for i, _ in streamed] == list(range(6))
    for (_, a), b in zip(streamed, one_by_one, strict=True):
        assert (a.status, a.seed, a.instance.digest) == (b.status, b.seed, b.instance.digest)
        assert a.holdout_report.verdict == b.holdout_report.verdict
        assert a.filter_calls == b.filter_calls and a.minimize_calls == b.minimize_calls


def test_a_stream_closed_early_leaves_the_loop_process_answering_the_next_request():
    driver = LoopDriver(SPEC)
    stream = driver.batch(8, range(40))
    first = [next(stream) for _ in range(4)]  # batches of 1, 2, 4 asked: one left unread
    stream.close()
    again = driver.run(loop_seed(8, 0))
    assert again.instance.digest == first[0][1].instance.digest
    taken: list[int] = []  # never more loops asked for than are still wanted
    for i, _ in driver.batch(9, range(40), wanted=lambda: 3 - len(taken)):
        taken.append(i)
    assert taken == [0, 1, 2]


def test_a_long_minimization_says_how_far_it_got_and_keeps_its_result(monkeypatch, capsys):
    import puzzlekit.generators.minimize as minimize_module

    full, solution = _full("sudoku", {"size": 9}, 6)
    whole = minimize(full, BITMASK, np.random.default_rng(6), solution=solution)
    monkeypatch.setattr(minimize_module, "NOTE_EVERY", 0.0)
    noted = minimize(full, BITMASK, np.random.default_rng(6), solution=solution)
    assert noted.instance.digest == whole.instance.digest
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(ln.startswith("puzzlekit: minimizing: ") for ln in lines)
    assert f"{whole.calls} of {whole.calls} removals tried" in lines[-1]


def test_a_batch_answered_for_seeds_not_asked_is_refused(monkeypatch) -> None:
    """The judging process files each outcome under the seed it asked for: a loop process that
    answers more, fewer (without an error), or other seeds than a batch asked is refused."""
    from types import SimpleNamespace

    from puzzlekit.loop import isolation

    monkeypatch.setattr(isolation, "result_from_json", lambda o: SimpleNamespace(seed=o))
    monkeypatch.setattr(isolation, "_spec_json", lambda spec: {})

    class Replies:  # one batch of every seed, answered with ``reply``
        def __init__(self, reply: dict) -> None:
            self.reply = reply

        def stream(self, message, items, wanted=None):
            batch = list(items)
            message(batch)
            yield batch, self.reply

    def run(reply: dict) -> list[int]:
        worker = object.__new__(isolation.LoopWorker)
        worker._channel = Replies(reply)
        return [r.seed for r in worker.run_many(None, [5, 6])]

    assert run({"ok": [5, 6]}) == [5, 6]
    for wrong in ([5, 6, 7], [6, 5], [5]):
        with pytest.raises(isolation.LoopWorkerError, match="did not answer the seeds"):
            run({"ok": wrong})
    got: list[int] = []
    with pytest.raises(ValueError, match="in the loop process"):  # done before an error: kept
        worker = object.__new__(isolation.LoopWorker)
        worker._channel = Replies({"ok": [5], "error": "ValueError: x", "type": "ValueError"})
        got.extend(r.seed for r in worker.run_many(None, [5, 6]))
    assert got == [5]
