"""Material no evaluator can change, and every attempt to change it caught.

The four attacks of issue 20, each a test: a strategy that edits the report it was handed; a
verifier that rewrites an instance's cached canonical bytes and digest; a filter that changes
the shared tool registry; a report that lies about the verifier that wrote it (the publish gate
goes by the run's own record). Plus the hand-off: the holdout judges bytes serialized afresh
from the instance's content.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from puzzlekit.core.jsondata import FrozenDict
from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import VerifierReport
from puzzlekit.families import get_family
from puzzlekit.families.tools import SHIPPING_SCHEMA, TOOLS, register_tool, shipping_rate
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.loop.driver import (
    CONTAMINATED,
    InlineHoldout,
    LoopBudget,
    guarded_verify,
    judged,
    run_loop,
)
from puzzlekit.loop.publish import derive_request
from puzzlekit.loop.settle import settle
from puzzlekit.verifiers.registry import get_verifier

S4 = get_family("sudoku").schema({"size": 4})
SAT = get_verifier("sat")
AT = "2026-01-01T00:00:00Z"


# --- 1. a strategy edits the report it is handed ----------------------------------------------

EDITS = {
    "solutions": lambda r: r.solutions[0].__setitem__("r1c1", 9),
    "solutions-tuple": lambda r: r.solutions.__setitem__(0, {}),
    "stats": lambda r: r.stats.__setitem__("nodes", -1),
    "stats-pop": lambda r: r.stats.pop("nodes"),
    "source": lambda r: r.source.update(verifier="enumerative"),
    "diagnostics": lambda r: r.diagnostics.append("x"),
    "gap-values": lambda r: r.reject_detail.discriminative_gap[0].values_in_solutions.append(0),
    "field": lambda r: setattr(r, "solution_count", 1),
}


class Editor(Adaptive):
    """The adaptive strategy, trying every edit on each report it reads first."""

    name = "editor"

    def __init__(self, k: int) -> None:
        super().__init__(k)
        self.edited: list[str] = []

    def propose(self, step, report, rng):
        for name, edit in EDITS.items():
            if report.reject_detail is None or not report.reject_detail.discriminative_gap:
                break
            try:
                edit(report)
            except (TypeError, AttributeError):
                continue
            self.edited.append(name)
        return super().propose(step, report, rng)


def test_a_strategy_cannot_change_the_reports_the_loop_recorded():
    editor = Editor(4)
    got = run_loop(S4, editor, SAT, None, LoopBudget(), seed=3)
    clean = run_loop(S4, Adaptive(4), SAT, None, LoopBudget(), seed=3)
    assert editor.edited == []
    assert len(got.trace) > 1, "the strategy read no report"
    assert [a.report.content_json_obj() for a in got.trace if a.report] == [
        a.report.content_json_obj() for a in clean.trace if a.report
    ]


def test_reports_are_immutable_all_the_way_down_and_still_read_as_json():
    params = {"tool": "shipping-rate", "expectedVerdict": "mid", "fixedInput": {"note": ""}}
    inst = Instance.make("toolcall", params, [])
    rep = get_verifier("oracle").verify(inst, solution_cap=3)
    dist = rep.reject_detail.verdict_distribution
    assert isinstance(dist, FrozenDict) and isinstance(rep.stats, FrozenDict)
    with pytest.raises(TypeError):
        dist["mid"] = 0
    with pytest.raises(TypeError):
        rep.solutions[0]["zone"] = "nowhere"
    again = VerifierReport.from_json(rep.to_json())
    assert again == rep and again.to_json_obj() == rep.to_json_obj()


# --- 2. a verifier rewrites the instance's cached bytes and digest ----------------------------


class CacheRewriter:
    """Verifies like its inner verifier, then makes the instance's cached bytes and digest (or a
    clue's cached bytes) those of another puzzle, so that a cache-trusting holdout would judge
    that one."""

    name = "cache-rewriter"

    def __init__(self, inner, decoy: Instance, part: str = "instance") -> None:
        self.inner, self.decoy, self.part = inner, decoy, part

    def believed_schema(self, schema):
        return schema

    def verify(self, instance, *, solution_cap=2, **kw):
        report = self.inner.verify(instance, solution_cap=solution_cap)
        if self.part == "instance":
            object.__setattr__(instance, "_canonical", self.decoy.canonical_json())
            object.__setattr__(instance, "_digest", self.decoy.digest)
        else:
            clue = instance.clues[0]
            other = Clue.make(clue.id, clue.kind, {"value": 99}, clue.coords)
            object.__setattr__(clue, "_canonical", other.canonical_json())
        return report


def _decoy() -> Instance:
    """A UNIQUE 4×4 puzzle: what a cache-trusting holdout would judge instead."""
    res = run_loop(S4, Adaptive(4), SAT, None, LoopBudget(), seed=1)
    assert res.accepted
    return res.instance


@pytest.mark.parametrize("part", ["instance", "clue"])
def test_a_verifier_that_rewrites_cached_bytes_is_a_contaminated_evaluation(part):
    faulty = get_verifier("faulty", ignore="box")
    rewriter = CacheRewriter(faulty, _decoy(), part)
    hold = InlineHoldout(SAT)
    results = [
        run_loop(S4, Adaptive(3), rewriter, hold, LoopBudget(max_calls=6), s) for s in (0, 1)
    ]
    for res in results:
        assert {a.verdict for a in res.trace} == {CONTAMINATED}
        assert not res.accepted and res.holdout_report is None


def test_the_holdout_judges_fresh_bytes_whatever_the_cache_says():
    decoy = _decoy()
    res = run_loop(S4, Adaptive(3), SAT, None, LoopBudget(), seed=4)
    assert res.accepted and res.instance.digest != decoy.digest
    inst = Instance(res.instance.family, res.instance.params, res.instance.clues)
    object.__setattr__(inst, "_canonical", decoy.canonical_json())
    object.__setattr__(inst, "_digest", decoy.digest)
    seen = []

    class Recorder(InlineHoldout):
        def check(self, canonical, digest, solution_cap):
            seen.append((canonical, digest))
            return super().check(canonical, digest, solution_cap)

    judged(replace(res, instance=inst), Recorder(SAT), 2)
    assert seen == [(res.instance.fresh_canonical_json(), res.instance.fresh_digest())]
    assert not inst.cache_intact()


# --- 3. a filter changes the shared tool registry ---------------------------------------------

TOOL = "pk-test-shipping"


@pytest.fixture
def tool():
    register_tool(TOOL, SHIPPING_SCHEMA, shipping_rate, replace=True)
    yield TOOLS.get(TOOL)
    TOOLS.unregister(TOOL)


def _tool_instance() -> Instance:
    params = {"tool": TOOL, "expectedVerdict": "mid", "fixedInput": {"note": ""}}
    clue = Clue.make("zone", "given", {"field": "zone", "value": "eu"}, [(0,)])
    return Instance.make("toolcall", params, [clue])


def _drop_world_in_place(tool) -> None:
    """Past the read-only surface: ``dict`` methods on the frozen schema itself."""
    zone = tool.input_schema["properties"]["zone"]
    dict.__setitem__(zone, "enum", tuple(v for v in zone["enum"] if v != "world"))


def _replace_the_tool(tool) -> None:
    props = {k: dict(v) for k, v in tool.input_schema["properties"].items()}
    props["zone"]["enum"] = ["domestic", "eu"]
    register_tool(TOOL, {**tool.input_schema, "properties": props}, tool.oracle, replace=True)


class RegistryTamperer:
    """An oracle filter that changes the tool registry while it verifies."""

    name = "registry-tamperer"

    def __init__(self, how) -> None:
        self.how, self.inner = how, get_verifier("oracle")

    def verify(self, instance, *, solution_cap=2, **kw):
        self.how(TOOLS.get(TOOL))
        return self.inner.verify(instance, solution_cap=solution_cap)


def test_a_tool_schema_cannot_be_changed_through_its_mapping(tool):
    enum = tool.input_schema["properties"]["zone"]["enum"]
    with pytest.raises((TypeError, AttributeError)):
        enum.remove("world")
    with pytest.raises(TypeError):
        del tool.input_schema["properties"]["zone"]
    assert tool.input_schema["properties"]["zone"]["enum"] == ("domestic", "eu", "world")


@pytest.mark.parametrize("how", [_drop_world_in_place, _replace_the_tool], ids=["in-place", "swap"])
def test_a_filter_that_changes_the_tool_registry_is_a_contaminated_evaluation(tool, how):
    inst = _tool_instance()
    honest, _ = guarded_verify(get_verifier("oracle"), inst, 100)
    assert honest is not None
    report, _ = guarded_verify(RegistryTamperer(how), inst, 100)
    assert report is None


# --- 4. a report lies about its verifier ------------------------------------------------------


class Liar:
    """The sampling filter (inexact), whose reports say the exact sat verifier wrote them."""

    name = "liar"

    def __init__(self) -> None:
        self.inner = get_verifier("sampling", k=3)

    def believed_schema(self, schema):
        return self.inner.believed_schema(schema)

    def verify(self, instance, *, solution_cap=2, **kw):
        report = self.inner.verify(instance, solution_cap=solution_cap)
        return replace(report, source={**report.source, "verifier": "sat"})


def _evidence(derived, side):
    items = derived.request["evidence_state"]["items"]
    return next(i for i in items if i["evidence_id"].startswith(f"ev.{side}."))


def test_the_publish_gate_takes_the_verifier_from_the_runs_record_not_the_report():
    res = run_loop(
        S4, Adaptive(4), SAT, InlineHoldout(get_verifier("enumerative")), LoopBudget(), 3
    )
    fr, hr, digest = res.filter_report, res.holdout_report, res.instance.fresh_digest()
    lying = replace(fr, source={**fr.source, "verifier": "sat"})
    trusted = derive_request(digest, lying, hr, observed_at=AT, verifiers=("sat", "enumerative"))
    caught = derive_request(digest, lying, hr, observed_at=AT, verifiers=("faulty", "enumerative"))
    assert _evidence(trusted, "filter")["assurance"] == "bounded_checked"
    assert _evidence(caught, "filter")["assurance"] == "runtime_observed"
    assert _evidence(caught, "filter")["produced_by"].startswith("faulty@")
    assert caught.request["action"]["risk"]["uncertainty"] == 1.0
    doubts = caught.provenance_of("action.risk.uncertainty").rule
    assert "filter report declares sat, the loop called faulty" in doubts


def test_settle_reads_the_filter_from_the_loop_result_not_its_reports():
    hold = InlineHoldout(get_verifier("enumerative"))
    res = run_loop(S4, Adaptive(4), Liar(), hold, LoopBudget(), 3)
    assert res.accepted and res.filter_report.source["verifier"] == "sat"
    assert res.holdout_report.verdict.value == "UNIQUE"
    recorded = replace(res, filter_name="sampling", holdout_name="enumerative")
    settled = settle(recorded, filter=Liar(), holdout_name="enumerative", computed_at=AT)
    believed = settle(
        replace(res, filter_name="sat", holdout_name="enumerative"),
        filter=SAT,
        holdout_name="enumerative",
        computed_at=AT,
    )
    assert believed.kernel_outcome == "auto_apply"
    assert settled.request is not None and settled.kernel_outcome != "auto_apply"
    evidence = _evidence(settled.request, "filter")
    assert evidence["produced_by"].startswith("sampling@")
    assert evidence["assurance"] == "statistically_supported"


# --- 5. a holdout that changes its input -------------------------------------------------------


def test_a_holdout_that_changes_its_input_is_a_recorded_outcome_not_a_traceback(tmp_path):
    """The loop outcome is ``contaminated-holdout`` in every record, stderr says so in one line
    (plus the count line), and the run goes on to its loop limit (20 loops for one puzzle)
    instead of ending."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    fixture = Path(__file__).parent / "plugin_fixture"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(fixture), env.get("PYTHONPATH", "")])
    args = ["generate", "sudoku", "--params", '{"size":4}', "--count", "1", "--seed", "3"]
    args += ["--plugin", "pk_tamper_holdout", "--holdout", "pktamper"]
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlekit", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1, proc.stderr  # none accepted: the count line, exit 1
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(records) == 20  # the loop limit of one puzzle (GenerateConfig)
    assert {r["status"] for r in records} == {"contaminated-holdout"}
    assert all(r["holdoutVerdict"] is None for r in records)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2, lines
    assert "holdout pktamper" in lines[0] and "contaminated-holdout" in lines[0]
    assert lines[1] == "puzzlekit: 0 of 1 accepted"
