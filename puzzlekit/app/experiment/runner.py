"""Running an experiment: its tasks on an executor, into a run directory that can resume.

:func:`run_experiment` writes the manifest and the pre-registration (the config digest, into the
run's ledger) before the first trial, runs the pending tasks on an executor (:func:`execute`:
``serial``, a local process pool, or Dask), saves each task's rows as soon as it finishes, merges
them at the end and draws the report. The same config and seeds give the same rows under every
executor (timings aside).

Crashes: the manifest is written first and every file atomically (:mod:`puzzlekit.core.files`),
so a run killed at any point resumes (``--resume``) to the rows of an uninterrupted run; pool
workers end with the run (:mod:`puzzlekit.core.lifeline`) and are stopped at once on Ctrl-C.
``PUZZLEKIT_TEST_KILL_AT`` names a point where the run kills itself, for the tests
(:func:`puzzlekit.app.experiment.store.kill_point`).

Not for: what a task computes (:mod:`puzzlekit.app.experiment.tasks`) or plots
(:mod:`puzzlekit.app.plots`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from puzzlekit.app.experiment.config import ExperimentConfig
from puzzlekit.app.experiment.manifest import (
    RunError,
    k_raised_line,
    new_manifest,
    now,
    resumed_manifest,
)
from puzzlekit.app.experiment.store import (
    kill_point,
    merge_parts,
    save_task,
    task_done,
    write_json,
)
from puzzlekit.app.experiment.tasks import Task, TaskResult, plan, run_task
from puzzlekit.core.files import is_temporary, remove_temporaries
from puzzlekit.core.model import canonical_json


def execute(
    tasks: Sequence[Task],
    executor: str,
    workers: int,
    scheduler: str | None = None,
    *,
    dask_processes: bool = True,
) -> Iterator[TaskResult]:
    """Yield a :class:`TaskResult` per task as it finishes (in any order)."""
    if executor == "serial" or not tasks:
        for task in tasks:
            yield run_task(task)
        return
    if executor == "local":
        yield from _execute_local(tasks, workers)
        return
    if executor == "dask":
        yield from _execute_dask(tasks, workers, scheduler, dask_processes)
        return
    raise RunError(f"unknown executor {executor!r}")


def _execute_local(tasks: Sequence[Task], workers: int) -> Iterator[TaskResult]:
    """The tasks on a pool of spawned processes that end with this one (:mod:`puzzlekit.core.
    lifeline`); stopped at once, running tasks and all, when the caller stops early (Ctrl-C)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from puzzlekit.core.lifeline import follow_parent, parent_token, sigint_ignored

    ctx = mp.get_context("spawn")
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=follow_parent, initargs=(parent_token(),)
    )
    finished = False
    try:
        with sigint_ignored():  # the pool starts its processes as tasks are submitted
            futures = [pool.submit(run_task, t) for t in tasks]
        for fut in as_completed(futures):
            yield fut.result()
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            stop_pool(pool)


def stop_pool(pool: Any) -> None:
    """Stop a process pool now: pending tasks cancelled, running ones killed with their worker and
    everything under it (``shutdown`` alone waits for the running ones, which may take minutes)."""
    # the pool keeps its processes in a private dict; no public call kills them before 3.14
    from puzzlekit.core.lifeline import end_tree

    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:  # each with its loop process and what that started
        end_tree(proc.pid)
    for proc in procs:
        proc.join(timeout=10)


def _execute_dask(
    tasks: Sequence[Task], workers: int, scheduler: str | None, processes: bool
) -> Iterator[TaskResult]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise RunError(
            "--executor dask needs dask[distributed]: pip install 'puzzlekit[dask]'"
        ) from None
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=None,
        )
        client = Client(cluster)
    try:
        futures = client.map(run_task, list(tasks), pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _open_run(
    run: Path, config: ExperimentConfig, resume: bool, config_path: str | None, **settings: Any
) -> dict[str, Any]:
    """The run's manifest (new or resumed, with ``settings``) and its ledger's first entries.

    The manifest is written first, atomically: from then on the directory is a run that
    ``--resume`` takes up, whatever point a kill stops it at (an empty ledger gets its
    pre-registration on resume). Temporary files a killed write left behind are removed.
    """
    from puzzlekit.audit.ledger import Ledger

    if run.exists() and not run.is_dir():
        raise RunError(f"{run} exists and is not a directory; use another --out")
    if (run / "manifest.json").exists():
        if not resume:
            raise RunError(f"{run} already holds a run; pass --resume or another --out")
        manifest = resumed_manifest(run, config)
    else:
        if run.exists() and any(not _scratch(p.name) for p in run.iterdir()):
            raise RunError(f"{run} exists and is not a run directory; use another --out")
        manifest = new_manifest(config, config_path)
    manifest.update(settings)
    run.mkdir(parents=True, exist_ok=True)
    remove_temporaries(run)
    write_json(manifest, run / "manifest.json")
    kill_point("manifest")
    (run / "parts").mkdir(exist_ok=True)
    remove_temporaries(run / "parts")
    with Ledger(run / "ledger.db") as ledger:
        if len(ledger) == 0:
            ledger.append(
                {
                    "kind": "preregistration",
                    "configDigest": config.digest,
                    "name": config.name,
                    # the ledger holds no floats: a checkable hypothesis as its canonical JSON
                    "hypotheses": [
                        h.claim if not h.checkable else canonical_json(h.to_json_obj()).decode()
                        for h in config.preregistration.hypotheses
                    ],
                    "metrics": list(config.preregistration.metrics),
                }
            )
        elif resume:
            ledger.append({"kind": "resume", "configDigest": config.digest, "at": now()})
    kill_point("ledger")
    return manifest


def _scratch(name: str) -> bool:
    """A file a fresh run directory may hold: a killed write's temporary file or the lock."""
    from puzzlekit.core.files import LOCK_NAME

    return is_temporary(name) or name == LOCK_NAME


def run_experiment(
    config: ExperimentConfig,
    out: str | Path,
    *,
    executor: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    quiet: bool = False,
    config_path: str | None = None,
    report: bool = True,
    dask_processes: bool = True,
    overrides: Sequence[str] = (),
) -> Path:
    """Run every task of ``config`` into the run directory ``out``; returns its path.

    The config digest goes into the ledger (``out/ledger.db``) before the first trial. Each task's
    rows are written atomically as soon as it finishes, so a killed run loses at most the tasks
    in flight; ``resume=True`` skips the finished ones. At the end the parts are merged, sorted,
    into ``attempts.parquet`` and ``puzzles.parquet``, and the report is drawn.
    """
    from puzzlekit.core.files import Locked, file_lock

    run = Path(out)
    if run.exists() and not run.is_dir():
        raise RunError(f"{run} exists and is not a directory; use another --out")
    run.mkdir(parents=True, exist_ok=True)
    try:
        with file_lock(run, "puzzlekit run"):  # two --resume of one directory never both run
            _run_locked(
                config,
                run,
                executor=executor,
                workers=workers,
                scheduler=scheduler,
                resume=resume,
                quiet=quiet,
                config_path=config_path,
                dask_processes=dask_processes,
                overrides=overrides,
            )
    except Locked as exc:
        raise RunError(str(exc)) from None
    if report:
        from puzzlekit.app.plots import write_report

        write_report(run)
    return run


def _run_locked(
    config: ExperimentConfig,
    run: Path,
    *,
    executor: str | None,
    workers: int | None,
    scheduler: str | None,
    resume: bool,
    quiet: bool,
    config_path: str | None,
    dask_processes: bool,
    overrides: Sequence[str],
) -> None:
    """:func:`run_experiment`'s work while it holds the run directory's lock."""
    from puzzlekit.app.progress import progress

    executor = executor or config.executor
    workers = workers or config.workers
    scheduler = scheduler or config.scheduler
    manifest = _open_run(
        run,
        config,
        resume,
        config_path,
        executor=executor,
        workers=workers,
        scheduler=scheduler,
        overrides=list(overrides),  # ``run --set key=value``, applied to the config
    )

    for entry in manifest.get("kRaised", []):  # before the first trial
        print(k_raised_line(entry), file=sys.stderr)
    tasks = plan(config)
    pending = [t for t in tasks if not task_done(run, t.id)]
    total = sum(len(t.trials) for t in tasks)
    done = total - sum(len(t.trials) for t in pending)
    saved = 0
    with progress(f"run {config.name}", total, "trial", quiet=quiet, initial=done) as bar:
        results = execute(pending, executor, workers, scheduler, dask_processes=dask_processes)
        with closing(results):  # on Ctrl-C the pool stops here, before the caller's message
            for result in results:
                save_task(run, result)
                bar.update(len(result.puzzles))
                saved += 1
                kill_point(f"task:{saved}")

    attempts, puzzles = merge_parts(run, [t.id for t in tasks])
    kill_point("merged")
    _seal_and_end(run, config, manifest, attempts, puzzles, len(tasks))


def _seal_and_end(
    run: Path,
    config: ExperimentConfig,
    manifest: dict[str, Any],
    attempts: Any,
    puzzles: Any,
    tasks: int,
) -> None:
    """Write the manifest's end, row counts and file seal, then the ledger's run-end entry
    (which also holds the manifest's digest)."""
    from puzzlekit.app.experiment.run_check import seal_run
    from puzzlekit.audit.ledger import Ledger
    from puzzlekit.core.seal import file_digest

    manifest["end"] = now()
    manifest["rows"] = {"attempts": len(attempts), "puzzles": len(puzzles), "tasks": tasks}
    manifest["files"] = seal_run(run)  # checked by puzzlekit report --check
    write_json(manifest, run / "manifest.json")
    kill_point("end")
    with Ledger(run / "ledger.db") as ledger:
        ledger.append(
            {
                "kind": "run-end",
                "configDigest": config.digest,
                "files": manifest["files"],
                "manifestDigest": file_digest(run / "manifest.json"),
                "attempts": len(attempts),
                "puzzles": len(puzzles),
                "accepted": int((puzzles["status"] == "accepted").sum()) if len(puzzles) else 0,
            }
        )
    kill_point("run-end")
