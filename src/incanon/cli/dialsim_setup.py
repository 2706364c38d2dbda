"""Checks of ``incanon dialsim run``, apart from the command itself."""

from __future__ import annotations

from pathlib import Path
from typing import Optional


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
