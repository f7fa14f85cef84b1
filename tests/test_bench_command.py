"""``puzzlekit bench`` runs a small config end to end and writes its CSV and markdown tables."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from puzzlekit.app.cli import main

LINES = [  # the first three 17-clue puzzles of the shared set
    ".................1..2.34........524..1.6.....7...........81.9....5....2..6..7....",
    "..............1..2.34....5......2.......3..4...6...57....35....12......89........",
    "........1.......23..4.56......2.......7...8...5..........32..5...6...4..8..7.....",
]


def test_bench_writes_tables_for_three_instances(tmp_path: Path) -> None:
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "three.txt").write_text("\n".join(LINES) + "\n")
    config = tmp_path / "experiments" / "bench.toml"
    config.parent.mkdir()
    config.write_text(
        'seed = 1\n[[sets]]\nname = "three"\npath = "sets/three.txt"\n'
        '[[checkers]]\nname = "sat"\n[[checkers]]\nname = "enumerative"\ntime_limit = 5.0\n'
    )
    assert main(["bench", str(config), "--out", str(tmp_path / "out")]) == 0
    rows = list(csv.DictReader((tmp_path / "out" / "results.csv").open()))
    assert [(r["checker"], r["checks"]) for r in rows] == [("sat", "3"), ("enumerative", "3")]
    assert rows[0]["verdicts"] == "UNIQUE:3"
    assert "| three | sat | 3 |" in (tmp_path / "out" / "results.md").read_text()


def test_bench_without_a_config_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["bench", str(tmp_path / "missing.toml")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_bench_outside_a_clone_is_one_line_naming_the_missing_folder(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """The benchmarks are a clone's ``benchmarks/`` folder, found beside the package the command
    runs, not any ``benchmarks`` on the path (the suite has this clone's on its path)."""
    from puzzlekit.app.commands import bench

    config = tmp_path / "bench.toml"
    config.write_text('study = "bench_fast"\n')
    monkeypatch.setattr(bench, "clone_root", lambda: tmp_path / "site-packages")
    assert main(["bench", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no benchmarks/ folder in" in err and "site-packages" in err


def test_the_speed_benchmark_times_the_generation_loop_with_and_without_a_holdout() -> None:
    from benchmarks.bench_fast import loop_rate

    for holdout in ("sat", None):
        row = loop_rate(3, "bitmask", holdout, seed=7)
        assert row["puzzles"] == 3 and row["per_second"] > 0
        assert 0 < row["filter_share"] < 1  # the filter's time, measured inside the loop


def test_the_speed_benchmark_compares_kept_checkers_on_sizes_and_families() -> None:
    from benchmarks.bench_fast import bench_family, bench_size

    size = bench_size({"size": 4, "box": [2, 2], "count": 3}, 1)
    assert size["checks"] == 3 and sum(size["verdicts"].values()) == 3
    fam = bench_family({"family": "latin", "params": {"size": 5}, "count": 2}, 1)
    assert fam["checks"] == 4 and set(fam["median_us"]) == {"bitmask", "sat"}


def test_the_user_path_benchmark_times_single_batched_and_cli_checks(tmp_path: Path) -> None:
    """``study = "user_path"``: fresh copies (relabelled digits: same verdicts, new digests) of
    each puzzle through pk.verify, the search alone and verify_many, and a file through the
    CLI."""
    import json

    import puzzlekit as pk
    from benchmarks.bench_userpath import relabelled

    copies = relabelled(LINES, 7)
    assert len({pk.parse("sudoku", line).digest for line in [*LINES, *copies]}) == 6
    assert [pk.verify(pk.parse("sudoku", line)).verdict.value for line in copies] == ["UNIQUE"] * 3
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "three.txt").write_text("\n".join(LINES) + "\n")
    config = tmp_path / "experiments" / "user.toml"
    config.parent.mkdir()
    config.write_text(
        'study = "user_path"\nseed = 1\n[[sets]]\nname = "three"\npath = "sets/three.txt"\n'
        '[cli]\nlines = 7\n[reference]\ncommand = ["ref.sh", "5"]\n'
    )
    ref = tmp_path / "ref.sh"  # an external checker: its time per line in µs, then its count
    ref.write_text('#!/bin/sh\nwhile read -r line; do echo "2.5 1"; done\n')
    ref.chmod(0o755)
    assert main(["bench", str(config), "--out", str(tmp_path / "out")]) == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    row = results["sets"][0]
    assert row["verdicts"] == {"UNIQUE": 3}
    assert row["pk_verify_us"] > 0 and row["search_alone_us"] > 0 and row["verify_many_mean_us"] > 0
    assert results["cli"]["lines"] == 7 and results["cli"]["lines_per_s"] > 0
    assert row["reference_us"] == 2.5 and row["pk_verify_cpu_us"] > 0
    assert row["verify_many_cpu_mean_us"] > 0  # CPU beside wall: a loaded machine waits
    # both figures are rounded to a tenth on their own: the ratio of the printed median may
    # differ from the printed ratio by the two roundings (0.05 / 2.5 + 0.05)
    assert row["pk_verify_over_reference"] == pytest.approx(row["pk_verify_us"] / 2.5, abs=0.08)
    assert "| three | 3 |" in (tmp_path / "out" / "results.md").read_text()


def test_the_generation_benchmark_times_generate_commands_with_cpu_beside_wall(
    tmp_path: Path,
) -> None:
    """``study = "generate"``: each run is a ``puzzlekit generate`` command in a fresh process."""
    config = tmp_path / "gen.toml"
    config.write_text(
        'study = "generate"\nseed = 3\n[[runs]]\nname = "4x4"\n'
        'args = ["sudoku", "--params", "{\\"size\\": 4}", "--minimize", "--count", "2", '
        '"--holdout", "none"]\ngoal_per_second = 1\n'
    )
    assert main(["bench", str(config), "--out", str(tmp_path / "out")]) == 0
    rows = json.loads((tmp_path / "out" / "results.json").read_text())["rows"]
    assert [(r["exit"], r["puzzles"]) for r in rows] == [(0, 2)]
    assert rows[0]["wall_s"] > 0 and rows[0]["cpu_s"] > 0
    assert rows[0]["command"].endswith("--holdout none --seed 3")
    table = (tmp_path / "out" / "results.md").read_text()
    assert "| 4x4 | 2 |" in table and "≥ 1/s" in table
