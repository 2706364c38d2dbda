"""Older spellings of ``incanon dialsim run`` options, kept for one release with a deprecation line."""

from __future__ import annotations

from pathlib import Path

from incanon.cli.output import err


def runs_and_repetitions(runs_opt: str | None, run_store: Path | None, repetitions: int) -> tuple[Path | None, int]:
    """``--runs`` names the run store, as in every command. Until the next release the older
    spellings still work, each with a deprecation line: ``--run-store PATH``, and ``--runs N``
    (a number that names no file) as the repetition count, now ``--repetitions N``."""
    if run_store is not None:
        err.print("note: --run-store is deprecated; use --runs PATH (the run store, as in every command)",
                  style="yellow")
    if runs_opt is not None and runs_opt.isdigit() and not Path(runs_opt).exists():
        err.print(f"note: --runs {runs_opt} as the repetition count is deprecated; use --repetitions {runs_opt} "
                  f"(--runs now names the run store, as in every command)", style="yellow")
        if repetitions != 1 and repetitions != int(runs_opt):
            from incanon.errors import ConfigError

            raise ConfigError(f"--runs {runs_opt} and --repetitions {repetitions} disagree; give --repetitions only")
        return run_store, max(1, int(runs_opt))
    store = Path(runs_opt) if runs_opt is not None else run_store
    return store, repetitions
