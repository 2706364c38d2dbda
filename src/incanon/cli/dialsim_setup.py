"""Checks of ``incanon dialsim run``, apart from the command itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from incanon.errors import ConfigError


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


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def checked_settings(pool: list[Any], questions_path: Path, *, answer_format: str, memory: str, time_limit: str,
                     judge: Optional[str], names: Optional[str], protocol: str, prompts_from: Optional[Path],
                     match: str, prompt_set: str) -> tuple[str, list[str], list[float], Any, Optional[str], str]:
    """Every setting of ``dialsim run`` checked before anything runs: (answer format, memory
    strategies, time limits, adversarial names, reference prompt folder, prompt set). A bad one
    is a ``ConfigError`` naming its option and what it takes."""
    from incanon.bench.dialsim import memory_method
    from incanon.bench.dialsim.formats import check_format
    from incanon.bench.dialsim.names import check_names
    from incanon.bench.dialsim.promptsets import check_prompt_set
    from incanon.bench.dialsim.simulator import PROTOCOLS

    fmt = check_format(answer_format)
    memories = [memory_method(m).removeprefix("dialsim-") for m in _csv(memory)]
    try:
        limits = [float(t) for t in _csv(time_limit)]
    except ValueError:
        raise ConfigError(f"--time-limit takes seconds (comma-separated), got {time_limit!r}") from None
    if fmt != "mc" and not judge:
        raise ConfigError(f"the {fmt} format needs a judge model (--judge SPEC)")
    checked_names = check_names(names)
    if protocol not in PROTOCOLS:
        raise ConfigError(f"--protocol takes {' or '.join(PROTOCOLS)}, got {protocol!r}")
    reference_prompts = check_reference_prompts(prompts_from, memories, fmt, judge)
    if match not in ("strict", "lenient"):
        raise ConfigError(f"--match takes strict or lenient, got {match!r}")
    pset = check_prompt_set(prompt_set)
    if "oracle" in memories:
        blind = [q for q in pool if q.answerable and not q.evidence]
        if blind:
            raise ConfigError(
                f"--memory oracle needs each answerable question's evidence sessions, and {len(blind)} of {len(pool)} "
                f"questions in {questions_path} have none (first: {blind[0].id}); for published data, put the "
                "authors' oracle files (<show>_oracle_tkg.*, <show>_oracle_fan.*) beside the script and ingest again")
    return fmt, memories, limits, checked_names, reference_prompts, pset
