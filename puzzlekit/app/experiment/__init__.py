"""Experiments: a pre-registered TOML config, split into independent seeded tasks, run anywhere.

- :mod:`~puzzlekit.app.experiment.config`: :func:`load_config` / :func:`parse_config` read and
  check a config (errors name the key's path);
- :mod:`~puzzlekit.app.experiment.tasks`: :func:`plan` splits it into :class:`Task` s (one arm ×
  batch of trials each), :func:`run_task` runs one through the one loop driver and builds its
  rows with :mod:`puzzlekit.loop.rows`;
- :mod:`~puzzlekit.app.experiment.runner`: :func:`run_experiment` runs every task on an
  executor into a run directory (manifest, ledger, Parquet rows, report) and resumes one;
- :mod:`~puzzlekit.app.experiment.manifest` and :mod:`~puzzlekit.app.experiment.store`: the
  manifest and the run directory's files.

The run directory's columns are documented in ``docs/data.md``.

Not for: the command line (:mod:`puzzlekit.app.commands.run`) or plots (:mod:`puzzlekit.app.plots`).
"""

from puzzlekit.app.experiment.config import (
    EXECUTORS,
    ConfigError,
    ExperimentConfig,
    HoldoutSpec,
    SchemaSpec,
    StrategySpec,
    VerifierSpec,
    load_config,
    parse_config,
)
from puzzlekit.app.experiment.config_keys import METRICS, Preregistration
from puzzlekit.app.experiment.manifest import RunError, git_revision, verifier_ids, versions
from puzzlekit.app.experiment.runner import execute, run_experiment
from puzzlekit.app.experiment.store import save_task, task_done
from puzzlekit.app.experiment.tasks import SETTLED_AT, Task, TaskResult, plan, run_task

__all__ = [
    "EXECUTORS",
    "METRICS",
    "SETTLED_AT",
    "ConfigError",
    "ExperimentConfig",
    "HoldoutSpec",
    "Preregistration",
    "RunError",
    "SchemaSpec",
    "StrategySpec",
    "Task",
    "TaskResult",
    "VerifierSpec",
    "execute",
    "git_revision",
    "load_config",
    "parse_config",
    "plan",
    "run_experiment",
    "run_task",
    "save_task",
    "task_done",
    "verifier_ids",
    "versions",
]
