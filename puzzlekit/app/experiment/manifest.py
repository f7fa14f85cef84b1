"""A run's ``manifest.json``: what ran, with which versions, and how its rows are laid out.

The manifest holds the config and its digest, package versions, the git revision, the trial
seeds, the verifiers' ids, the row-schema version (``rowSchemaVersion``, see
:mod:`puzzlekit.loop.rows`), start and end times, the resumes, and ``kRaised``: every arm whose
family cannot start a puzzle with as few clues as its ``k`` (:func:`k_raised`; KenKen's cages
hold at most four cells, so a 5×5 grid has at least seven). :func:`resumed_manifest`
refuses to resume a run of another config or another row schema, since their parts would not
merge.

Not for: writing rows (:mod:`puzzlekit.app.experiment.store`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from puzzlekit.app.experiment.config import ExperimentConfig
from puzzlekit.core.jsondata import plain

FORMAT_VERSION = 1


class RunError(Exception):
    """A run directory that cannot be written or resumed as asked."""


def k_raised(config: ExperimentConfig) -> list[dict[str, Any]]:
    """Every (schema, strategy, k) whose ``k`` is below the family's
    :meth:`~puzzlekit.core.protocols.Family.least_k`: its puzzles start with at least ``least``
    clues, not ``k``. Known before the first trial."""
    from puzzlekit.families import get_family

    out = []
    for spec in config.schemas:
        family = get_family(spec.family)
        least = family.least_k(family.schema(spec.params))
        for strategy in config.strategies:
            for k in strategy.clues:
                if k < least:
                    out.append(
                        {"schema": spec.label, "strategy": strategy.arm, "k": k, "least": least}
                    )
    return out


def k_raised_line(entry: Mapping[str, Any]) -> str:
    """One stderr line for a :func:`k_raised` entry."""
    return (
        f"puzzlekit: {entry['schema']}: strategy {entry['strategy']} asks for k = {entry['k']}; "
        f"the family starts no puzzle with fewer than {entry['least']} clues, so k is raised "
        f"to at least {entry['least']}"
    )


def now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def versions() -> dict[str, str | None]:
    """Versions of the packages that decide a run's results."""
    import platform
    from importlib import metadata

    out: dict[str, str | None] = {"python": platform.python_version()}
    for dist in ("puzzlekit", "numpy", "python-sat", "python-constraint2", "pandas", "pyarrow"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def git_revision() -> dict[str, Any]:
    """The source tree's git revision and whether it had local changes, where git can tell."""
    import subprocess

    root = Path(__file__).resolve().parents[3]
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if rev.returncode != 0:
            return {"gitRevision": None, "gitDirty": None}
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return {"gitRevision": rev.stdout.strip(), "gitDirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"gitRevision": None, "gitDirty": None}


def verifier_ids(config: ExperimentConfig) -> dict[str, Any]:
    from puzzlekit.app.judging import verifier_version

    def ident(verifier: str, settings: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "verifier": verifier,
            "version": verifier_version(verifier, settings),
            "settings": plain(settings),
        }

    return {
        "filters": [{"label": f.label, **ident(f.verifier, f.settings)} for f in config.filters],
        "holdout": ident(config.holdout.verifier, config.holdout.settings)
        if config.holdout
        else None,
    }


def trust_record() -> dict[str, Any]:
    """Where plugins ran (docs/security.md): ``judge`` says whether the judging process kept
    them out (``kept-out``) or let them in (``admitted``, with ``reasons``: what the judging
    needed of a plugin, the holdout among them); ``loopPlugins``: the modules imported only in
    the loop process."""
    from puzzlekit.core.plugins import admitted, judging, kept_out

    if judging():
        return {"judge": "kept-out", "loopPlugins": kept_out(), "reasons": []}
    reasons = admitted()
    return {"judge": "admitted" if reasons else "in-process", "loopPlugins": [], "reasons": reasons}


def new_manifest(config: ExperimentConfig, config_path: str | None) -> dict[str, Any]:
    """The manifest of a run that starts now."""
    from puzzlekit.core.plugins import loaded_plugins
    from puzzlekit.loop.rows import ROW_SCHEMA_VERSION

    return {
        "format": "puzzlekit-run",
        "formatVersion": FORMAT_VERSION,
        "rowSchemaVersion": ROW_SCHEMA_VERSION,
        "name": config.name,
        "description": config.description,
        "configPath": config_path,
        "configDigest": config.digest,
        "config": config.to_json_obj(),
        "preregistration": config.to_json_obj()["preregistration"],
        "versions": versions(),
        **git_revision(),
        "seed": config.seed,
        "trialSeeds": config.trial_seeds(),
        "verifiers": verifier_ids(config),
        "plugins": [p.to_json_obj() for p in loaded_plugins()],
        "trust": trust_record(),
        "kRaised": k_raised(config),
        "start": now(),
        "end": None,
        "resumes": [],
    }


def check_manifest(manifest: Any, path: Path) -> dict[str, Any]:
    """``manifest`` if it is a run's manifest whose config still hashes to its ``configDigest``
    (with the pre-registration the config holds, and list- and object-valued fields of their
    kinds); :class:`puzzlekit.core.files.DamagedFile` naming ``path`` otherwise. What a report
    or a resume reads of the config is then what ran."""
    from puzzlekit.core.files import DamagedFile
    from puzzlekit.core.jsondata import canonical_json, sha256_digest

    if not isinstance(manifest, dict):
        raise DamagedFile(path, "not a manifest (a JSON object)")
    config = manifest.get("config")
    try:
        digest = sha256_digest(canonical_json(config)) if isinstance(config, dict) else None
    except (TypeError, ValueError):
        digest = None
    if digest is None or digest != manifest.get("configDigest"):
        raise DamagedFile(path, "its config does not hash to its configDigest (edited?)")
    if manifest.get("preregistration", config.get("preregistration")) != config.get(
        "preregistration"
    ):
        raise DamagedFile(path, "its preregistration is not its config's")
    kinds = {"kRaised": list, "resumes": list, "plugins": list, "verifiers": dict}
    for key, kind in kinds.items():
        if key in manifest and manifest[key] is not None and not isinstance(manifest[key], kind):
            raise DamagedFile(path, f"{key} is not a JSON {'array' if kind is list else 'object'}")
    for entry in manifest.get("kRaised") or []:
        if not isinstance(entry, dict):
            raise DamagedFile(path, "kRaised holds an entry that is not an object")
    return manifest


def resumed_manifest(run: Path, config: ExperimentConfig) -> dict[str, Any]:
    """The manifest of the run in ``run``, marked resumed; :class:`RunError` if it cannot be."""
    from puzzlekit.core.files import read_json
    from puzzlekit.loop.rows import ROW_SCHEMA_VERSION

    old = check_manifest(read_json(run / "manifest.json"), run / "manifest.json")
    if old.get("configDigest") != config.digest:
        raise RunError(
            f"{run} holds a run of another config ({old.get('configDigest')}); use another --out"
        )
    version = old.get("rowSchemaVersion", 1)
    if version != ROW_SCHEMA_VERSION:
        raise RunError(
            f"{run} holds rows of row schema {version}; this puzzlekit writes "
            f"{ROW_SCHEMA_VERSION}, so its parts cannot be merged; use another --out"
        )
    _load_manifest_plugins(old, run)
    old.setdefault("resumes", []).append(now())
    old["end"] = None
    return old


def _load_manifest_plugins(manifest: dict[str, Any], run: Path) -> None:
    """Import every plugin a run's manifest records (resuming it); RunError if one is gone."""
    from puzzlekit.core.plugins import PluginError, use_plugins

    modules = [p["module"] for p in manifest.get("plugins", []) if isinstance(p, dict)]
    try:
        use_plugins(modules)
    except PluginError as exc:
        raise RunError(f"cannot resume {run}: {exc}") from None
