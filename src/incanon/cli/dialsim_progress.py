"""DialSim's progress on stderr: one bar per repetition of each setting, with a tally of the
question outcomes so far (kept apart from the commands, which only decide when to show it)."""

from __future__ import annotations

from typing import Any

from incanon.cli.output import err


class ProgressBars:
    """One progress bar per repetition of each setting, on stderr (none with --json)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bars: Any = None
        self.tasks: dict[tuple[str, int], Any] = {}
        self.tallies: dict[tuple[str, int], dict[str, int]] = {}

    def __enter__(self) -> "ProgressBars":
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bars = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[tally]}"), TimeElapsedColumn(), console=err)
            self.bars.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bars is not None:
            self.bars.__exit__(*exc)

    def callback(self, label: str):  # noqa: ANN201 - a runs.Progress
        if self.bars is None:
            return None

        def update(epoch: int, runs: int, record: Any, done: int, total: int) -> None:
            key = (label, epoch)
            if key not in self.tasks:
                self.tasks[key] = self.bars.add_task(f"{label} run {epoch + 1}/{runs}", total=total, tally="")
                self.tallies[key] = {}
            if record.question is not None:
                tally = self.tallies[key]
                tally[record.question.status] = tally.get(record.question.status, 0) + 1
            text = " ".join(f"{k} {v}" for k, v in sorted(self.tallies[key].items()))
            self.bars.update(self.tasks[key], completed=done, tally=text)

        return update
