"""Pieces of ``incanon timechara`` that are not argument parsing."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from incanon.bench.timechara.authors import read_authors_output
from incanon.bench.timechara.evaluate import PROTOCOLS
from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.loader import load_items
from incanon.bench.timechara.recorded import RecordedAnswers
from incanon.bench.timechara.report import TimeCharaReport
from incanon.errors import ConfigError, IncanonError


def setup_persona(protocol: str, persona: str | None) -> str:
    """The persona a protocol (and an explicit ``--persona``) selects."""
    if protocol not in PROTOCOLS:
        raise ConfigError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
    return persona or PROTOCOLS[protocol]


def recorded_answers(path: Path, items: Sequence[TimeCharaItem], dataset: Path, split: str | None,
                     label: str, *, sampled: bool) -> RecordedAnswers:
    """The answers of the authors' ``generated.json`` (rows joined on ``data_idx`` with the
    whole dataset file, before any sampling), keyed by item id."""
    full = load_items(dataset, split=split) if sampled else list(items)
    rows = read_authors_output(path, len(full))
    return RecordedAnswers(label, {item.id: row.response for item, row in zip(full, rows)},
                           {item.id: row.thought for item, row in zip(full, rows)})


class NothingJudged(IncanonError):
    """Every item of the evaluation failed: there is no result to report."""


def fail_if_nothing_judged(report: TimeCharaReport) -> None:
    """Exit non-zero (code 2) when the runs produced no judged item at all."""
    if report.items == 0:
        failed = report.failed
        first = next((r.first_error for r in report.runs if r.first_error), None)
        raise NothingJudged(
            f"no item was judged: {failed} of {failed} items failed" + (f"; first error: {first}" if first else "")
            if failed else "no item was judged (no items, or every judge verdict was unreadable)")
