"""Open an existing run store and resolve the runs a report command names."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from incanon.errors import ConfigError
from incanon.runs import RunStore

RUNS_HELP = "Run store file (default: $INCANON_HOME/runs.sqlite)."
"""Help of every ``--runs`` option: the one run store of every command."""


def open_runs(path: Path | None) -> RunStore:
    """The run store at ``path`` (default ``INCANON_HOME/runs.sqlite``); ``NotFoundError`` when
    there is none (a report never creates an empty store)."""
    from incanon.paths import default_runs_path

    return RunStore((path or default_runs_path()).expanduser(), create=False, read_only=True)


def resolve_runs(store: RunStore, refs: Sequence[str], benchmark: str | None = None, name: str = "") -> list[str]:
    """The ids of ``refs`` (ids or unique prefixes); with ``benchmark``, a run of another
    benchmark is a ``ConfigError`` (``name``: how to call the benchmark, e.g. "TimeChara")."""
    ids = [store.resolve(ref) for ref in refs]
    if benchmark is not None:
        for run_id in ids:
            kind = store.get_run(run_id).config.benchmark
            if kind != benchmark:
                raise ConfigError(f"run {run_id} is a {kind} run, not a {name or benchmark} run")
    return ids
