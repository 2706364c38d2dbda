"""Checks and the dry run of ``incanon dialsim run``, apart from the command itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from incanon.cli.options import RunOptions


def check_reference_prompts(folder: Optional[Path], memories: list[str], fmt: str, judge: Optional[str]) -> Optional[str]:
    """``--prompts-from``: every file the settings will read, read now (a missing one fails
    before any run is made); the folder as a string, or None."""
    if folder is None:
        return None
    from incanon.bench.dialsim.refprompts import ReferencePrompts

    prompts = ReferencePrompts(folder)
    for memory in memories:
        prompts.check(fmt, retrieval=memory != "recent", summary="summary" in memory, judge=judge is not None)
    return str(prompts.folder.resolve())


def dry_run(run_options: RunOptions, script: Any, pool: list[Any], memories: list[str], limits: list[float], *,
            fmt: str, seed: int, runs: int, model: str, judge: Optional[str], style: Optional[str],
            context_tokens: Optional[int], json_: bool, protocol: str = "incanon") -> None:
    """Print the calls every setting would make (the question plans computed, no model called)."""
    from incanon.bench.dialsim import SimConfig
    from incanon.bench.dialsim.estimate import estimate_items, setting_lines
    from incanon.bench.dialsim.scale import Scale
    from incanon.runs.estimate import estimate_run
    from incanon.runs.shard import Shard

    epochs = Scale(shard=run_options.shard).epochs(runs)
    config = SimConfig(answer_format=fmt, seed=seed, protocol=protocol)  # type: ignore[arg-type]
    items = estimate_items(script, pool, config, epochs, context_tokens)
    lines = [line for limit in limits for mem in memories
             for line in setting_lines(mem, SimConfig(time_limit=limit, answer_format=fmt, seed=seed),  # type: ignore[arg-type]
                                       model=model, judge=judge, style=style)]
    # The shard already chose the repetitions; items are (session, repetition) pairs, not shard units.
    estimate = estimate_run(items, lines, prices=run_options.prices, shard=Shard(1, 1))
    run_options.show_estimate(estimate, json_=json_)
