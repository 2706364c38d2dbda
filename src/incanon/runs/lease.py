"""Run leases: one process at a time on a run.

The run store records the process running a run (pid, host) and when it last wrote; these
rules decide whether that holder is still alive, so a second process waits, refuses or takes
over (see :meth:`incanon.runs.store.RunStore.create_or_resume`).
"""

from __future__ import annotations

import os
import socket
from datetime import datetime

from incanon.errors import ConfigError, IncanonError
from incanon.runs.config import utcnow


def alive(pid: int | None, host: str | None) -> bool:
    # Only processes on this machine can be checked; elsewhere assume the run is alive.
    if pid is None or host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


LEASE_STALE_S = 600.0
"""A run held by a process on another host that wrote nothing for this long is taken over."""


class RunBusyError(IncanonError):
    """Another live process holds the run (its lease)."""


def env_wait() -> float:
    raw = os.environ.get("INCANON_RUN_WAIT", "").strip()
    try:
        return float(raw) if raw else 0.0
    except ValueError:
        raise ConfigError(f"INCANON_RUN_WAIT={raw!r} is not a number of seconds") from None


def holds(pid: int | None, host: str | None, updated: str | None) -> bool:
    """Whether the process recorded on a running run still holds it."""
    if host == socket.gethostname():
        return alive(pid, host)
    try:
        age = (utcnow() - datetime.fromisoformat(updated)).total_seconds() if updated else 0.0
    except ValueError:
        age = 0.0
    return age < LEASE_STALE_S
