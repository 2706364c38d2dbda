"""How a command's runs ended, so that no command reports success for a run that produced nothing.

A run whose every sample failed (no model answered, every item raised) is recorded as ``failed``;
the runner notes it here, and the CLI ends the command with a non-zero exit and one line naming
the run, whatever the command, after the command has printed what it has (the error rows).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from incanon.errors import IncanonError


@dataclass(frozen=True)
class FailedRun:
    """A run whose every sample of this session failed."""

    run_id: str
    failed: int
    first_error: str | None = None


class RunFailedError(IncanonError):
    """Every sample of a run failed: the command ran but produced nothing."""


_lock = threading.Lock()
_failed: list[FailedRun] = []


def note_failed_run(run: FailedRun) -> None:
    """Record that ``run`` ended with every sample failed."""
    with _lock:
        _failed.append(run)


def reset() -> None:
    """Forget the runs noted so far (the start of a command)."""
    with _lock:
        _failed.clear()


def failed_runs() -> list[FailedRun]:
    """The runs noted since the last :func:`reset`."""
    with _lock:
        return list(_failed)


def failure_error() -> RunFailedError | None:
    """The one-line error for the noted runs, or None when every run produced something."""
    runs = failed_runs()
    if not runs:
        return None
    first = runs[0]
    cause = f"; first error: {first.first_error[:300]}" if first.first_error else ""
    names = ", ".join(r.run_id for r in runs)
    noun = "run" if len(runs) == 1 else "runs"
    return RunFailedError(f"every sample of {noun} {names} failed ({sum(r.failed for r in runs)} in all){cause}; "
                          f"the {noun} {'is' if len(runs) == 1 else 'are'} recorded as failed (see `incanon runs show "
                          f"{first.run_id}`) and resume{'s' if len(runs) == 1 else ''} when run again")
