"""Options renamed for one vocabulary across commands: the older spelling keeps working for one
release, with a deprecation line on stderr."""

from __future__ import annotations

from typing import TypeVar

from incanon.cli.output import err
from incanon.errors import ConfigError

T = TypeVar("T")


def renamed(new: T, old: T | None, *, new_flag: str, old_flag: str, default: T) -> T:
    """The value of ``new_flag``, or of ``old_flag`` when only the older spelling was given
    (said on stderr). Both given with different values is an error, not a silent choice."""
    if old is None:
        return new
    err.print(f"note: {old_flag} is deprecated here; use {new_flag} (the same option under its new name)",
              style="yellow", highlight=False)
    if new != default and new != old:
        raise ConfigError(f"{old_flag} {old} and {new_flag} {new} disagree; give {new_flag} only")
    return old
