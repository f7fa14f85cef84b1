"""The loop process loads the judge's compiled kernels instead of compiling them again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlekit.loop.sandbox import loop_environment, seed_compiled_cache

ROOT = Path(__file__).resolve().parents[1]


def test_the_loop_environment_keeps_its_kernel_cache_in_its_own_directory(tmp_path):
    env = loop_environment({"NUMBA_CACHE_DIR": "/elsewhere", "PATH": "/bin"}, str(tmp_path))
    assert env["NUMBA_CACHE_DIR"] == os.path.join(str(tmp_path), "numba")


def test_the_judges_compiled_kernels_are_copied_where_the_loop_process_looks(tmp_path):
    from numba.core.caching import UserProvidedCacheLocator

    from puzzlekit.verifiers.bitmask import kernel as bitmask_kernel

    copied = seed_compiled_cache(str(tmp_path))
    impl = bitmask_kernel.search._cache._impl
    there = (
        tmp_path
        / "numba"
        / UserProvidedCacheLocator.get_suitable_cache_subpath(bitmask_kernel.__file__)
    )
    assert (there / (impl.filename_base + ".nbi")).is_file()
    assert any(p.name.startswith(impl.filename_base + ".") for p in there.glob("*.nbc"))
    assert copied == len(list((tmp_path / "numba").rglob("*.nb[ic]")))


@pytest.mark.parametrize("extra", [[], ["--minimize"]], ids=["plain", "minimize"])
def test_a_generate_loads_every_kernel_in_its_loop_process_and_compiles_none(tmp_path, extra):
    """``NUMBA_DEBUG_CACHE`` (passed to the loop process through ``PUZZLEKIT_LOOP_ENV``) makes
    numba say each cache load and save on stderr: the loop process (whose cache is in its
    ``puzzlekit-loop-`` directory) only loads; the judge may compile once into its own cache."""
    env = dict(os.environ, NUMBA_DEBUG_CACHE="1", PUZZLEKIT_LOOP_ENV="NUMBA_DEBUG_CACHE")
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "puzzlekit", "generate", "sudoku", "--params", '{"size": 4}']
    cmd += ["--filter", "bitmask", "--quiet", "--seed", "3", *extra]  # a holdout: a loop process
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    loop_lines = [ln for ln in done.stderr.splitlines() if "puzzlekit-loop-" in ln]
    assert any(ln.startswith("[cache] data loaded") for ln in loop_lines), done.stderr[-2000:]
    assert not [ln for ln in loop_lines if "saved" in ln]


def test_a_stale_compiled_cache_is_compiled_again_before_it_is_copied(monkeypatch):
    """An index saved from an older source of a compiled search (its stamp differs) is what
    numba ignores: the judge compiles again rather than copy files every loop process would
    recompile."""
    import puzzlekit.families as families
    from puzzlekit.loop import sandbox
    from puzzlekit.verifiers.bitmask import gap_draw

    sandbox._compile_default_searches()  # every index fresh now

    class Compiled(Exception):
        pass

    def compiling(name):
        raise Compiled(name)

    monkeypatch.setattr(families, "get_family", compiling)
    sandbox._compile_default_searches()  # fresh: nothing compiled
    index = gap_draw.ranked_gap._cache._cache_file
    monkeypatch.setattr(index, "_source_stamp", ("an older source", 0))
    with pytest.raises(Compiled):
        sandbox._compile_default_searches()
