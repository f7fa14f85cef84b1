"""The row schema: a run keeps what analysis needs (the whole gap, the conflict's clue ids, the
accepted instance and its text, both sides' reject details), documented per field, versioned in
the manifest, and built in one place for every producer, through the one loop driver."""

from __future__ import annotations

import ast
import json
import tomllib
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import puzzlekit as pk
from puzzlekit.app.experiment import parse_config, plan, run_experiment, run_task
from puzzlekit.core.report import GapItem, Verdict
from puzzlekit.loop import rows as R
from puzzlekit.loop.driver import LoopDriver
from puzzlekit.loop.row_schema import (
    ATTEMPT_SCHEMA,
    LEGACY_NAMES,
    PUZZLE_SCHEMA,
    TIMINGS,
    columns_markdown,
    frame_table,
    rows_frame,
)
from puzzlekit.verifiers.registry import get_verifier

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "experiments" / "smoke.toml"


def smoke_raw(**overrides) -> dict:
    raw = tomllib.loads(SMOKE.read_text())
    raw.update(overrides)
    return raw


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "smoke"
    return run_experiment(
        parse_config(smoke_raw()), out, executor="serial", quiet=True, report=False
    )


@pytest.fixture(scope="module")
def frames(run) -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.read_parquet(run / "attempts.parquet"), pd.read_parquet(run / "puzzles.parquet")


def _filter_verifier(manifest: dict, label: str):
    (ident,) = [f for f in manifest["verifiers"]["filters"] if f["label"] == label]
    return get_verifier(ident["verifier"], **ident["settings"])


# --- the manifest and the field metadata ----------------------------------------------------


def test_the_manifest_records_the_row_schema_version(run):
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["rowSchemaVersion"] == R.ROW_SCHEMA_VERSION == 3


@pytest.mark.parametrize(
    "name,schema", [("attempts.parquet", ATTEMPT_SCHEMA), ("puzzles.parquet", PUZZLE_SCHEMA)]
)
def test_every_parquet_field_carries_a_description(run, name, schema):
    read = pq.read_schema(run / name)
    assert read.metadata[b"puzzlekit.rowSchemaVersion"] == str(R.ROW_SCHEMA_VERSION).encode()
    assert read.names == schema.names

    def check(field: pa.Field, where: str) -> None:
        desc = (field.metadata or {}).get(b"description", b"")
        assert len(desc) > 8, f"{where}{field.name} has no description"
        t = field.type
        if pa.types.is_list(t):
            t = t.value_type
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                check(t.field(i), f"{where}{field.name}.")

    for field in read:
        assert field.type.equals(schema.field(field.name).type), field.name
        check(field, "")
    if "discriminativeGap" in read.names:
        gap = read.field("discriminativeGap").type.value_type
    else:
        gap = read.field("holdoutRejectDetail").type.field("discriminativeGap").type.value_type
    assert {gap.field(i).name for i in range(gap.num_fields)} == {
        "coord",
        "fieldName",
        "valuesInSolutions",
        "discriminativePower",
        "tieGroup",
    }


def test_docs_data_md_lists_every_column_with_its_description():
    text = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    assert columns_markdown(ATTEMPT_SCHEMA) in text
    assert columns_markdown(PUZZLE_SCHEMA) in text
    assert f"row schema version {R.ROW_SCHEMA_VERSION}" in text
    for old, new in LEGACY_NAMES.items():
        assert f"`{old}` | `{new}`" in text  # the glossary names what each column was


def test_a_row_that_is_not_of_the_schema_is_refused():
    row = {("filter_calls" if c == "filterCalls" else c): None for c in R.PUZZLE_COLUMNS}
    with pytest.raises(ValueError, match=r"unknown \['filter_calls'\].*missing \['filterCalls'\]"):
        rows_frame([row], PUZZLE_SCHEMA)
    df = rows_frame([], ATTEMPT_SCHEMA)
    with pytest.raises(ValueError, match=r"missing \['seconds'\]"):
        frame_table(df.drop(columns=["seconds"]), ATTEMPT_SCHEMA)


# --- what the rows keep -------------------------------------------------------------------


def test_accepted_instances_reverify_to_the_recorded_verdicts(run, frames):
    _, puzzles = frames
    manifest = json.loads((run / "manifest.json").read_text())
    holdout = get_verifier(manifest["verifiers"]["holdout"]["verifier"])
    accepted = puzzles[puzzles["status"] == "accepted"]
    assert len(accepted) == len(puzzles) and accepted["holdoutRejected"].any()
    for row in accepted.itertuples():
        inst = pk.Instance.from_json(row.instance)
        assert inst.digest == row.instanceDigest and len(inst.clues) == row.clueCount
        assert pk.parse("sudoku", row.text, {"size": 4}).digest == inst.digest
        filt = _filter_verifier(manifest, row.filter)
        assert filt.verify(inst, solution_cap=2).verdict.value == row.filterVerdict == "UNIQUE"
        again = holdout.verify(inst, solution_cap=2)
        assert again.verdict.value == row.holdoutVerdict
        assert R.reject_detail_from_value(row.holdoutRejectDetail) == again.reject_detail


def test_holdout_conflicts_name_clue_ids_and_coordinates_of_the_instance(frames):
    attempts, puzzles = frames
    hold = attempts[(attempts["side"] == "holdout") & (attempts["rejectCase"] == "UNSOLVABLE")]
    assert len(hold)
    for row in hold.itertuples():
        (puzzle,) = puzzles[
            (puzzles["filter"] == row.filter)
            & (puzzles["strategy"] == row.strategy)
            & (puzzles["k"] == row.k)
            & (puzzles["trial"] == row.trial)
        ].itertuples()
        clues = {c.id: c for c in pk.Instance.from_json(puzzle.instance).clues}
        conflict = row.conflict
        ids = [c["clueId"] for c in conflict["clues"]]
        assert len(ids) >= 2 and set(ids) <= set(clues)
        for c in conflict["clues"]:
            assert [list(x) for x in c["coords"]] == [list(x) for x in clues[c["clueId"]].coords]
            assert json.loads(c["data"]) == clues[c["clueId"]].data_dict()
        assert row.topCoord.tolist() == conflict["clues"][0]["coord"].tolist()
        assert row.discriminativeGap is None and row.culprits is None
        detail = R.reject_detail_from_value(puzzle.holdoutRejectDetail)
        assert detail.conflict.clue_ids == tuple(ids)
        assert _lists(puzzle.holdoutCoords) == [c["coord"].tolist() for c in conflict["clues"]]


def test_attempt_rows_hold_the_whole_gap_of_each_report(frames):
    attempts, _ = frames
    task = next(t for t in plan(parse_config(smoke_raw())) if t.strategy == "adaptive")
    trial, seed = task.trials[0], task.seeds[0]
    result = LoopDriver(task.loop_spec()).run(seed)
    rows = attempts[
        (attempts["filter"] == task.filter.label)
        & (attempts["strategy"] == "adaptive")
        & (attempts["trial"] == trial)
        & (attempts["side"] == "filter")
    ]
    assert len(rows) == len(result.trace) > 1
    longest = 0
    for row, a in zip(rows.itertuples(), result.trace, strict=True):
        if a.verdict != "MULTIPLE":
            assert row.discriminativeGap is None
            continue
        gap = tuple(GapItem.from_json_obj(R._plain(g)) for g in row.discriminativeGap)
        assert gap == a.report.reject_detail.discriminative_gap
        assert row.topCoord.tolist() == list(gap[0].coord)
        assert row.actionCoord is None or len(row.actionCoord) == 2
        longest = max(longest, len(gap))
    assert longest > 1  # the whole gap, not only its top


def test_reject_details_of_every_case_survive_parquet(tmp_path):
    from puzzlekit.core.protocols import SearchBudget
    from tests.helpers import given

    mid = {"tool": "shipping-rate", "expectedVerdict": "mid", "fixedInput": {"note": ""}}
    zone = pk.Clue.make("zone", "given", {"field": "zone", "value": "world"}, [(0,)])
    service = pk.Clue.make("service", "given", {"field": "service", "value": "express"}, [(2,)])
    enum = get_verifier("enumerative")
    reports = [
        get_verifier("oracle").verify(pk.Instance.make("toolcall", mid, [zone, service])),
        enum.verify(pk.Instance.make("sudoku", {"size": 4}, [given(0, 0, 1), given(1, 1, 9)])),
        enum.verify(pk.Instance.make("sudoku", {"size": 9}, []), budget=SearchBudget(nodes=5)),
        enum.verify(pk.Instance.make("sudoku", {"size": 4}, [given(0, 0, 1)])),
    ]
    assert [r.verdict for r in reports] == [
        Verdict.UNSOLVABLE,
        Verdict.INVALID_SPEC,
        Verdict.UNDECIDED,
        Verdict.MULTIPLE,
    ]
    field = PUZZLE_SCHEMA.field("holdoutRejectDetail")
    values = [R.reject_detail_value(r.reject_detail) for r in reports]
    pq.write_table(pa.table({"d": pa.array(values, type=field.type)}), tmp_path / "d.parquet")
    back = pd.read_parquet(tmp_path / "d.parquet")["d"]
    for report, value in zip(reports, back, strict=True):
        assert R.reject_detail_from_value(value) == report.reject_detail


# --- one driver, one row builder ------------------------------------------------------------


def test_generate_and_run_give_the_same_loops_for_one_spec_and_seed():
    from puzzlekit.loop.batch import GenerateConfig, generate

    config = parse_config(smoke_raw(trials=3, batch=3))
    (task,) = [t for t in plan(config) if t.strategy == "adaptive" and t.filter.verifier == "sat"]
    rows = run_task(task).puzzles
    gen = GenerateConfig(
        family="sudoku",
        params={"size": 4},
        count=3,
        strategy="adaptive",
        clues=task.k,
        filter="sat",
        holdout="enumerative",
        seed=config.seed,
        max_calls=config.max_calls,
        extras=config.extras,
    )
    # the same loop; generate keeps no trace reports (its records have no trace)
    assert not gen.loop_spec().trace_reports and task.loop_spec().trace_reports
    assert replace(gen.loop_spec(), trace_reports=True) == task.loop_spec()
    records = list(generate(gen))
    assert [r["seed"] for r in records] == list(task.seeds)
    keys = ("instanceDigest", "clueCount", "startClues", "filterCalls", "holdoutVerdict", "text")
    for rec, row in zip(records, rows, strict=True):
        assert {k: rec[k] for k in keys} == {k: row[k] for k in keys}
        assert (
            pk.Instance.from_json_obj(rec["instance"]).canonical_json().decode() == row["instance"]
        )


def test_every_producer_runs_its_loops_through_the_one_driver(monkeypatch, tmp_path):
    from benchmarks import gradebench, loopbench
    from puzzlekit.app.experiment import publish_gate
    from puzzlekit.loop.batch import GenerateConfig, generate

    seen: list[str] = []
    real = LoopDriver.run

    def counted(self, seed):
        seen.append(self.spec.strategy)
        return real(self, seed)

    real_batch = LoopDriver.batch

    def counted_batch(self, seed, indices, wanted=None):
        for item in real_batch(self, seed, indices, wanted):
            seen.append(self.spec.strategy)
            yield item

    monkeypatch.setattr(LoopDriver, "run", counted)
    monkeypatch.setattr(LoopDriver, "batch", counted_batch)
    producers = {
        "generate": lambda: list(generate(GenerateConfig("sudoku", {"size": 4}, holdout=None))),
        "run": lambda: run_task(plan(parse_config(smoke_raw(trials=1, batch=1)))[0]),
        "publish gate": lambda: publish_gate.run_arm(
            "sudoku", {"size": 4}, 1, filter_name="sat", holdout_name="enumerative"
        ),
        "loopbench curve": lambda: loopbench.calls_curve([60], 1, 5, 0),
        "loopbench holdout": lambda: loopbench.holdout_rejects("sudoku", {"size": 4}, 1, 4, 0),
        "gradebench": lambda: gradebench.run_strategy(
            "adaptive", 0, 1, 0, float("inf"), gradebench.Counter()
        ),
    }
    for name, produce in producers.items():
        before = len(seen)
        produce()
        assert len(seen) > before, f"{name} ran no loop through LoopDriver"


def test_only_the_driver_runs_loops_and_only_the_holdout_module_builds_holdouts():
    """No second loop driver or holdout set-up creeps back into the package or the scripts.

    check_family's generation step calls the loop kernel itself: it puts a watcher between the
    strategy and the loop (every clue a strategy adds is checked), which a spec by name cannot."""
    allowed = {"run_loop": {"puzzlekit/loop/driver.py", "puzzlekit/quality/generation.py"}}
    for cls in ("InlineHoldout", "WorkerHoldout"):
        allowed[cls] = {"puzzlekit/loop/holdout.py"}
    files = [*(ROOT / "puzzlekit").rglob("*.py"), *(ROOT / "experiments").glob("*.py")]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                if name in allowed:
                    assert rel in allowed[name], f"{rel}:{node.lineno} calls {name}"


def test_rows_are_the_same_with_the_holdout_inline_or_in_its_own_process():
    config = parse_config(smoke_raw(trials=2, batch=2))
    task = next(t for t in plan(config) if t.filter.verifier == "faulty")
    inline = parse_config(
        smoke_raw(trials=2, batch=2, holdout={"verifier": "enumerative", "process": False})
    )
    task_inline = next(t for t in plan(inline) if t.id == task.id)
    assert task.holdout.process and not task_inline.holdout.process
    for kind in ("attempts", "puzzles"):
        schema = ATTEMPT_SCHEMA if kind == "attempts" else PUZZLE_SCHEMA
        a = rows_frame(getattr(run_task(task), kind), schema)
        b = rows_frame(getattr(run_task(task_inline), kind), schema)
        drop = [c for c in TIMINGS if c in a]
        ta = frame_table(a, schema).drop_columns(drop)
        tb = frame_table(b, schema).drop_columns(drop)
        assert ta.equals(tb), kind


# --- older runs ------------------------------------------------------------------------------


def test_a_run_of_row_schema_1_is_still_reported_under_todays_names(run, tmp_path):
    from puzzlekit.app.cli import main
    from puzzlekit.app.plots import load_run

    old = tmp_path / "old"
    old.mkdir()
    back = {new: legacy for legacy, new in LEGACY_NAMES.items()}
    back["uniquenessVerdict"] = "verdict"
    for name, coords in (
        ("attempts", ["topCoord"]),
        ("puzzles", ["holdoutTopCoord", "holdoutCoords"]),
    ):
        df = pd.read_parquet(run / f"{name}.parquet")
        keep = [
            c
            for c in df.columns
            if c in back
            or c in R.KEY_COLUMNS
            or c
            in (
                "side",
                "attempt",
                "action",
                "status",
                "holdout",
                "level",
                "technique",
                "seconds",
            )
        ]
        df = df[keep].copy()
        for c in coords:
            df[c] = [
                None if v is None else json.dumps(_lists(v), separators=(",", ":")) for v in df[c]
            ]
        df.rename(columns=back).to_parquet(old / f"{name}.parquet", index=False)
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["rowSchemaVersion"]
    (old / "manifest.json").write_text(json.dumps(manifest))
    attempts, puzzles, _ = load_run(old)
    assert "filterCalls" in puzzles and "stopKind" in puzzles and "topCoord" in attempts
    assert "uniquenessVerdict" in attempts and "verdict" not in attempts
    assert isinstance(attempts["topCoord"].dropna().iloc[0], list)
    assert main(["report", str(old)]) == 0
    assert "Holdout rejects: " in (old / "report" / "report.md").read_text()


def test_a_run_of_row_schema_2_reads_its_verdict_column_as_uniqueness_verdict(run, tmp_path):
    """Row schema 2 called an attempt's verdict ``verdict``; ``load_run`` (and so the report)
    gives it ``verify``'s name, every value kept."""
    import shutil

    from puzzlekit.app.cli import main
    from puzzlekit.app.plots import load_run

    old = tmp_path / "v2"
    shutil.copytree(run, old)
    today = pd.read_parquet(run / "attempts.parquet")
    today.rename(columns={"uniquenessVerdict": "verdict"}).to_parquet(
        old / "attempts.parquet", index=False
    )
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["rowSchemaVersion"] = 2
    (old / "manifest.json").write_text(json.dumps(manifest))
    attempts, _, got = load_run(old)
    assert got["rowSchemaVersion"] == 2 and "verdict" not in attempts
    assert list(attempts["uniquenessVerdict"]) == list(today["uniquenessVerdict"])
    assert {"UNIQUE", "MULTIPLE"} <= set(attempts["uniquenessVerdict"])
    assert main(["report", str(old)]) == 0


def _lists(value):
    if hasattr(value, "tolist"):
        value = value.tolist()
    return [_lists(v) for v in value] if isinstance(value, list) else value


def test_resume_refuses_a_run_of_another_row_schema(run, tmp_path):
    import shutil

    from puzzlekit.app.experiment import RunError

    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["rowSchemaVersion"] = 1
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunError, match="row schema 1"):
        run_experiment(parse_config(smoke_raw()), copy, executor="serial", resume=True, quiet=True)
