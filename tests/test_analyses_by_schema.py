"""Analyses that never pool what differs: hypotheses limited to one schema or k, arm names
checked against the config before the first trial, a family that raises k says so, and report
figures drawn per schema (and per k), with words where a panel has nothing to draw."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.experiment import ConfigError, parse_config

ROOT = Path(__file__).resolve().parent.parent
TWO = ROOT / "experiments" / "two_families.toml"


def two_raw() -> dict:
    return tomllib.loads(TWO.read_text())


def test_every_unknown_arm_schema_and_k_is_reported_at_once_with_the_closest_name():
    raw = two_raw()
    h = raw["preregistration"]["hypotheses"]
    h[0]["arms"] = ["kenken5/adaptive", "blnd"]
    h[1]["arms"] = ["filter=sta"]
    h[2]["schema"], h[2]["k"] = "sudoku6", 4
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    lines = str(err.value).splitlines()
    assert lines == [
        "preregistration.hypotheses[0].arms[0]: arm 'kenken5/adaptive' names no strategy or "
        "filter; did you mean 'adaptive' with schema = 'kenken5'?",
        "preregistration.hypotheses[0].arms[1]: arm 'blnd' names no strategy or filter; "
        "did you mean 'blind'?",
        "preregistration.hypotheses[1].arms[0]: no filter 'sta' in the config; "
        "did you mean 'filter=sat'?",
        "preregistration.hypotheses[2].schema: no schema 'sudoku6'; did you mean 'sudoku4'?",
        "preregistration.hypotheses[2].k: no strategy has k = 4; valid: 6, 8",
    ]


def test_a_bad_arm_stops_the_run_before_the_first_trial(tmp_path, capsys):
    from puzzlekit.app.cli import main

    text = TWO.read_text().replace(
        'arms = ["adaptive", "blind"]', 'arms = ["kenken5/adaptive", "blind"]'
    )
    config = tmp_path / "bad.toml"
    config.write_text(text)
    code = main(["run", str(config), "--out", str(tmp_path / "run")])
    assert code == 2 and not (tmp_path / "run").exists()
    assert "arms[0]: arm 'kenken5/adaptive' names no strategy or filter" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("key", "value"), [("schema", 3), ("schema", ""), ("k", -1), ("k", "3"), ("k", True)]
)
def test_a_malformed_schema_or_k_key_names_itself(key, value):
    raw = two_raw()
    raw["preregistration"]["hypotheses"][0][key] = value
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert err.value.path == f"preregistration.hypotheses[0].{key}"


def test_the_config_schema_describes_every_hypothesis_key():
    from puzzlekit.app.experiment.config_jsonschema import config_schema
    from puzzlekit.app.experiment.hypotheses import KEYS

    pre = config_schema()["properties"]["preregistration"]["properties"]
    props = pre["hypotheses"]["items"]["properties"]
    assert sorted(props) == sorted(KEYS)
    assert all(p.get("description") for p in props.values())


def test_schema_and_k_limit_a_hypothesis_rows():
    from puzzlekit.app.plots.hypotheses import judge_all

    puzzles = pd.DataFrame(
        {
            "schema": ["x"] * 20 + ["y"] * 20,
            "strategy": (["a"] * 10 + ["b"] * 10) * 2,
            "k": ([3] * 5 + [6] * 5) * 4,
            "filter": ["sat"] * 40,
            "status": ["accepted"] * 40,
            # a beats b on schema x, loses on y: pooled, the two cancel out
            "filterCalls": [1] * 10 + [9] * 10 + [9] * 10 + [1] * 10,
            "clueCount": [20] * 40,
            "holdoutVerdict": ["UNIQUE"] * 40,
            "holdoutRejected": [False] * 40,
        }
    )
    less = {"metric": "calls_per_accept_mean", "arms": ["a", "b"], "direction": "less"}
    hyps = [less, {**less, "schema": "x"}, {**less, "schema": "y"}, {**less, "schema": "x", "k": 3}]
    manifest = {"config": {"seed": 1}, "preregistration": {"hypotheses": hyps}}
    judged = judge_all(manifest, puzzles)
    assert [j.outcome for j in judged] == ["inconclusive", "held", "not held", "held"]
    assert [j.sizes for j in judged] == [(20, 20), (10, 10), (10, 10), (5, 5)]
    assert judged[0].statistic == 0.0 and judged[1].statistic == -8.0


def test_schema_and_k_keep_a_config_digest_when_absent_and_change_it_when_set():
    base = parse_config(two_raw())
    raw = two_raw()
    raw["preregistration"]["hypotheses"][1]["k"] = 6
    assert parse_config(raw).digest != base.digest
    obj = base.to_json_obj()["preregistration"]["hypotheses"]
    assert obj[0]["schema"] == "kenken5" and "k" not in obj[0] and "schema" not in obj[1]


def test_a_family_that_raises_k_says_so_on_stderr_and_in_the_manifest(two_family_run_and_stderr):
    from puzzlekit.families import get_family

    kenken = get_family("kenken")
    assert kenken.least_k(kenken.schema({"size": 5})) == 7  # 25 cells, cages of at most 4
    assert get_family("sudoku").least_k(get_family("sudoku").schema({"size": 4})) == 0
    run, err = two_family_run_and_stderr
    assert (
        "puzzlekit: kenken5: strategy blind asks for k = 6; the family starts no puzzle with "
        "fewer than 7 clues, so k is raised to at least 7"
    ) in err
    raised = json.loads((run / "manifest.json").read_text())["kRaised"]
    assert raised == [
        {"schema": "kenken5", "strategy": "blind", "k": 6, "least": 7},
        {"schema": "kenken5", "strategy": "adaptive", "k": 6, "least": 7},
    ]
    puzzles = pd.read_parquet(run / "puzzles.parquet")
    kenken_k6 = puzzles[(puzzles["schema"] == "kenken5") & (puzzles["k"] == 6)]
    assert len(kenken_k6) and (kenken_k6["startClues"] >= 7).all()


def test_generate_says_on_stderr_and_in_the_provenance_when_the_family_raises_k(capsys):
    from puzzlekit.app.cli import main

    base = ["generate", "kenken", "--params", '{"size": 5}', "--count", "1", "--seed", "1"]
    assert main([*base, "--clues", "3", "--holdout", "none", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "puzzlekit: kenken: --clues asks for k = 3; the family starts no puzzle with fewer "
        "than 7 clues, so k is raised to at least 7"
    ]
    (rec,) = [json.loads(line) for line in out.splitlines()]
    assert rec["provenance"]["kRaised"] == {"k": 3, "least": 7} and rec["startClues"] >= 7
    assert main([*base, "--clues", "9", "--holdout", "none", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "kRaised" not in json.loads(out)["provenance"]


# --- figures: one panel per schema, words where there is nothing to draw --------------------
# (on the session's ``two_family_run`` of tests/conftest.py, which the notebooks' tests share)


def panel_titles(fig) -> list[str]:
    return [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()]


def words(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


#: the panels of the two-family run: both schemas' arms differ in k (blind has k 6 and 8)
PANELS = ["kenken5 k=6", "kenken5 k=8", "sudoku4 k=6", "sudoku4 k=8"]


def test_each_figure_draws_one_panel_per_schema_and_k(two_family_run, tmp_path):
    from puzzlekit.app.plots import figures, load_run

    attempts, puzzles, _ = load_run(two_family_run)
    drawn = {
        "cdf": figures.plot_calls_cdf(puzzles, tmp_path / "a.png"),
        "scatter": figures.plot_calls_vs_clues(puzzles, tmp_path / "b.png"),
        "cases": figures.plot_reject_cases(attempts, tmp_path / "c.png"),
        "verdicts": figures.plot_verdict_matrix(puzzles, tmp_path / "d.png"),
        "rates": figures.plot_holdout_reject_rate(puzzles, tmp_path / "e.png"),
        "range": figures.plot_expressive_range(puzzles, tmp_path / "f.png"),
        "grades": figures.plot_grade_range(puzzles, tmp_path / "g.png"),
        "settlement": figures.plot_settlement(puzzles, tmp_path / "s.png"),
    }
    for name, fig in drawn.items():
        heads = list(dict.fromkeys(t.split(":")[0] for t in panel_titles(fig)))
        assert heads == PANELS, name
    heatmap = figures.plot_coord_heatmap(attempts, puzzles, tmp_path / "h.png")
    assert [t.split(":")[0] for t in panel_titles(heatmap)] == [p for p in PANELS for _ in "abc"]
    cdf = [ax for ax in drawn["cdf"].axes if ax.get_visible()]
    for ax, panel in zip(cdf, PANELS, strict=True):  # one k a panel: its lines are its arms
        schema, k = panel.split(" k=")
        rows = puzzles[(puzzles["schema"] == schema) & (puzzles["k"] == int(k))]
        lines = [t.get_text() for t in ax.get_legend().get_texts()]
        arms = rows.groupby(["strategy", "filter"]).size()
        assert lines == [f"{s}/{f} (n={n})" for (s, f), n in arms.items()], (panel, lines)
        assert not any("k=" in line for line in lines)
    assert all(line.startswith("blind/") for line in _legend(cdf[1]) + _legend(cdf[3]))


def _legend(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_the_report_tables_keep_each_schema_and_k_apart(two_family_run):
    from puzzlekit.app.plots import (
        ARM,
        calls_table,
        expressive_table,
        grade_table,
        load_run,
        top_coords_table,
    )

    attempts, puzzles, _ = load_run(two_family_run)
    arms = puzzles.groupby(ARM).size()
    calls = calls_table(puzzles)
    assert list(calls.columns[:5]) == [*ARM, "trials"]
    assert calls.set_index(ARM)["trials"].to_dict() == arms.to_dict()
    accepted = puzzles[puzzles["status"] == "accepted"].groupby(ARM).size()
    expressive = expressive_table(puzzles).set_index(ARM)["accepted"]
    assert expressive.to_dict() == accepted.to_dict()
    grades = grade_table(puzzles)
    assert list(grades.columns[:4]) == ARM and grades.groupby(["schema", "k"]).ngroups == 4
    coords = top_coords_table(attempts, puzzles)
    assert set(zip(coords["schema"], coords["k"], strict=True)) <= {
        (p.split(" k=")[0], int(p.split(" k=")[1])) for p in PANELS
    }
    assert coords.groupby(["schema", "k"]).ngroups == 4


def test_a_heatmap_without_holdout_rejects_says_so_instead_of_a_flat_grid(two_family_run, tmp_path):
    from puzzlekit.app.plots import load_run, plot_coord_heatmap

    attempts, puzzles, manifest = load_run(two_family_run)
    none_rejected = puzzles.assign(holdoutRejected=False)
    fig = plot_coord_heatmap(attempts, none_rejected, tmp_path / "h.png")
    assert words(fig).count("no holdout rejects in this run") == 4  # one per schema and k
    holdout_panels = [ax for ax in fig.axes if "holdout rejects" in ax.get_title()]
    assert len(holdout_panels) == 4 and not any(ax.images for ax in holdout_panels)
    assert not any(ax.axison for ax in holdout_panels)
    # with rejects a sudoku panel is a grid of the schema's size
    fig = plot_coord_heatmap(attempts, puzzles, tmp_path / "h2.png", {"sudoku4": (4, 4)})
    sudoku = [ax for ax in fig.axes if ax.get_title().startswith("sudoku4 k=6: holdout")]
    assert sudoku[0].images and sudoku[0].images[0].get_array().shape == (4, 4)


def test_one_bar_reject_case_and_settlement_charts_say_so_in_words(two_family_run, tmp_path):
    from puzzlekit.app.plots import load_run, plot_reject_cases, plot_settlement

    attempts, puzzles, _ = load_run(two_family_run)
    arm = (attempts["schema"] == "sudoku4") & (attempts["strategy"] == "adaptive")
    one = attempts[arm & (attempts["filter"] == "sat")]
    one = one[(one["side"] == "holdout") | (one["rejectCase"] == "MULTIPLE")]
    fig = plot_reject_cases(one, tmp_path / "c.png")
    n = int(((one["side"] == "filter") & one["rejectCase"].notna()).sum())
    assert n and words(fig) == [f"every filter reject of adaptive is MULTIPLE ({n} rejects)"]
    rows = puzzles[(puzzles["schema"] == "kenken5") & (puzzles["filter"] == "sat")]
    fig = plot_settlement(rows, tmp_path / "s.png")
    said = words(fig)
    for k, whose in ((6, "every arm"), (8, "blind")):  # a panel each; k = 8 is blind's alone
        n = int((rows["k"] == k).sum())
        assert f"escalation targets: every loop of {whose} is none ({n})" in said
    assert not any(ax.patches for ax in fig.axes if ax.get_title().endswith("escalation targets"))


def test_report_figure_format_writes_and_links_each_figure_in_it(two_family_run, capsys):
    from puzzlekit.app.cli import main
    from puzzlekit.app.commands.run import FIGURE_FORMATS
    from puzzlekit.app.plots import FIGURES
    from puzzlekit.app.plots.panels import FIGURE_FORMATS as DRAWN

    assert FIGURE_FORMATS == DRAWN
    assert main(["report", str(two_family_run), "--figure-format", "svg"]) == 0
    out = two_family_run / "report"
    text = (out / "report.md").read_text()
    for name in FIGURES:
        svg = Path(name).with_suffix(".svg").name
        assert (out / svg).read_text().lstrip().startswith("<?xml")
        assert f"]({svg})" in text and f"]({name})" not in text
    assert main(["report", str(two_family_run), "--figure-format", "pdf"]) == 0
    assert (out / "calls_cdf.pdf").read_bytes().startswith(b"%PDF")
    capsys.readouterr()
    assert main(["report", str(two_family_run), "--figure-format", "gif"]) == 2
    assert "--figure-format: invalid choice: 'gif'" in capsys.readouterr().err


def test_the_report_summary_names_each_arm_whose_family_raised_k(two_family_run):
    from puzzlekit.app.plots import load_run
    from puzzlekit.app.plots.report import summary_lines

    attempts, puzzles, manifest = load_run(two_family_run)
    lines = summary_lines(two_family_run, attempts, puzzles, manifest)
    raised = [line for line in lines if line.startswith("- **k raised**")]
    assert raised == [
        "- **k raised** (the family starts no puzzle with fewer clues): kenken5 blind k = 6 to "
        "at least 7; kenken5 adaptive k = 6 to at least 7"
    ]
    manifest = {**manifest, "kRaised": []}
    assert not any(
        "k raised" in line for line in summary_lines(two_family_run, attempts, puzzles, manifest)
    )
