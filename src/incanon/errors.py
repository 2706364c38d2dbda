"""Errors that reach users.

Every error a user can cause (bad spec, bad file, unknown character) is an ``IncanonError``:
the CLI prints its one-line message and exits with code 2. Anything else is a bug and gets a
traceback.
"""

from __future__ import annotations


class IncanonError(Exception):
    """A problem the user can fix; ``str(err)`` is one clear line naming what was wrong."""

    exit_code: int = 2


class ConfigError(IncanonError):
    """A model spec, option or configuration value is invalid."""


class InputError(IncanonError):
    """An input file or record is malformed.

    The message names the file, and the line or field, and what was expected.
    """

    def __init__(self, message: str, *, source: str | None = None, where: str | None = None):
        self.source = source
        self.where = where
        prefix = ""
        if source:
            prefix = f"{source}"
            if where:
                prefix += f" ({where})"
            prefix += ": "
        super().__init__(prefix + message)


class NotFoundError(IncanonError):
    """A named thing (character, position, run, work, file) does not exist."""


class NoSpaceError(IncanonError):
    """The disk (or a file size limit) ran out while writing: ``no space left on DIR``."""


class WriteError(IncanonError):
    """A file or folder cannot be written (read-only, no permission); the message names it."""


class ModelError(IncanonError):
    """A model backend failed for good (after retries) or cannot be loaded."""
