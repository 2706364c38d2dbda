"""Which samples of a run still need running: items coerced, sharded, de-duplicated and checked
against what the store already holds, lazily and in input order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterable, AsyncIterator, Iterable, Mapping, Union

from incanon.errors import InputError
from incanon.models.types import Usage
from incanon.runs.progress import RunProgress
from incanon.runs.records import RunItem, input_hash
from incanon.runs.sample import WorkUnit
from incanon.runs.shard import Shard

Items = Union[Iterable[Any], AsyncIterable[Any]]
"""Run items: any iterable or async iterable of :class:`RunItem` or ``{"id", "input"}`` mappings."""

_MAX_NOTES = 5  # per kind: a dataset that changed wholesale should not print 100k lines


@dataclass
class Tally:
    """What one call of the runner did so far, and the notes it printed."""

    ran: int = 0
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    replaced: int = 0
    duplicates: int = 0
    usage: Usage = field(default_factory=Usage)
    notes: list[str] = field(default_factory=list)
    shown: dict[str, int] = field(default_factory=dict)

    def note(self, kind: str, message: str, reporter: RunProgress) -> None:
        """Keep and show ``message``, at most a few of each ``kind``."""
        count = self.shown.get(kind, 0) + 1
        self.shown[kind] = count
        if count <= _MAX_NOTES:
            self.notes.append(message)
            reporter.note(message)


def coerce_item(raw: Any, position: int) -> RunItem:
    """``raw`` as a :class:`RunItem`; an error names its position in the stream."""
    if isinstance(raw, RunItem):
        return raw
    if isinstance(raw, Mapping) and "id" in raw:
        return RunItem(id=str(raw["id"]), input=dict(raw.get("input") or {}))
    raise InputError(f"item #{position} is a {type(raw).__name__}, expected a RunItem or {{'id', 'input'}}")


async def _aiter(items: Items) -> AsyncIterator[Any]:
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item


def _digest(item: RunItem) -> tuple[str | None, str | None]:
    """The item's input hash, or why it has none (input that is not JSON data)."""
    try:
        return input_hash(item.input), None
    except (TypeError, ValueError) as exc:
        return None, f"item input is not JSON data: {exc}"


async def work_units(
    items: Items,
    epochs: int,
    states: dict[tuple[str, int], tuple[str, str]],
    retry_failed: bool,
    tally: Tally,
    reporter: RunProgress,
    shard: Shard | None = None,
) -> AsyncIterator[WorkUnit]:
    """The samples that still need running, in input order, decided lazily."""
    seen: set[str] = set()
    position = 0
    async for raw in _aiter(items):
        item = coerce_item(raw, position)
        position += 1
        if shard is not None and not shard.contains(item.id):
            continue
        if item.id in seen:
            tally.duplicates += 1
            tally.note("dup", f"item id {item.id!r} appears more than once; only the first is run", reporter)
            continue
        seen.add(item.id)
        digest, problem = _digest(item)
        for epoch in range(epochs):
            state = states.get((item.id, epoch))
            if state is not None:
                status, old_digest = state
                if digest is not None and old_digest != digest:
                    tally.replaced += 1
                    tally.note(
                        "changed",
                        f"item {item.id!r} (epoch {epoch}) changed since it was run; running it "
                        "again and replacing the stored sample",
                        reporter,
                    )
                elif status == "ok" or not retry_failed:
                    tally.skipped += 1
                    continue
            # The item itself when its epoch is already right: no copy per sample.
            unit_item = item if item.epoch == epoch else item.model_copy(update={"epoch": epoch})
            yield WorkUnit(unit_item, digest, problem)


def sized_total(items: Items, epochs: int, shard: Shard | None) -> int | None:
    """Planned samples when the items can be counted without consuming them."""
    if not hasattr(items, "__len__"):
        return None
    if shard is None or shard.count == 1:
        return len(items) * epochs  # type: ignore[arg-type]
    ids: set[str] = set()
    for position, raw in enumerate(items):  # type: ignore[arg-type]
        try:
            ids.add(coerce_item(raw, position).id)
        except InputError:
            continue  # reported when the stream reaches it
    return sum(1 for item_id in ids if shard.contains(item_id)) * epochs
