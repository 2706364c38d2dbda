"""The helper model as ``canon build`` calls it: the machine's errors stop the build.

Each stage reads a helper answer it cannot use as a failed step and goes on (a chapter kept
whole, a profile left out): right for a model's bad JSON, wrong for a full disk. When the
response cache cannot be written (no space, a file size limit, a read-only or damaged file),
every later answer would be paid for and lost, and the stages would report the build's own
machine as the helper's failures ("profiles: 0 of 7 written"). :class:`BuildHelper` remembers
the first such error, refuses every later call with it (no call is paid for that the cache
cannot keep), and :meth:`BuildHelper.check` raises it after each stage.

It also counts answered calls into the stage's :class:`~incanon.canonbuild.progress.Progress`.
"""

from __future__ import annotations

from collections.abc import Sequence

from incanon.canonbuild.progress import Progress
from incanon.errors import IncanonError, NoSpaceError, WriteError
from incanon.models.types import ChatModel, Completion, GenerationParams, Message
from incanon.sqlitedb import DamagedStoreError

#: Errors of the machine or of a store file, never of the helper's answer.
MACHINE_ERRORS: tuple[type[IncanonError], ...] = (NoSpaceError, WriteError, DamagedStoreError)


class BuildHelper:
    """Wraps the build's helper (outside the cache): machine errors are fatal, calls counted."""

    def __init__(self, inner: ChatModel):
        self.inner = inner
        self.fatal: IncanonError | None = None
        """The first machine error a call met; every later call raises it."""
        self.progress: Progress | None = None
        """The running stage's progress, advanced by one per answered call."""

    @property
    def name(self) -> str:
        return self.inner.name

    def __repr__(self) -> str:
        return f"BuildHelper({self.inner!r})"

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        """The wrapped call; a machine error is remembered and raised again on every later call."""
        if self.fatal is not None:
            raise self.fatal
        try:
            completion = await self.inner.generate(messages, params)
        except MACHINE_ERRORS as exc:
            self.fatal = exc
            raise
        if self.progress is not None:
            self.progress.advance()
        return completion

    def check(self) -> None:
        """Raise the machine error a call met, if any (after a stage that may have swallowed it)."""
        if self.fatal is not None:
            raise self.fatal


__all__ = ["MACHINE_ERRORS", "BuildHelper"]
