"""Run the ``incanon`` console entry point in-process, as a shell would, for tests."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def run_main(argv: Sequence[str]) -> int:
    """Run ``incanon ARGV`` through :func:`incanon.cli.main.main` (its error handling, exit codes
    and clean-up of what a failed command created included) and return the exit code. Output goes
    to the process's stdout and stderr (capture it with pytest's ``capsys``)."""
    from incanon.cli.main import main

    old, sys.argv = sys.argv, ["incanon", *argv]
    try:
        main()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old
    return 0


__all__ = ["run_main"]
