"""Who answers an item: a ``CharacterAt`` from the canon store, or from the item row alone."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from incanon.agents.base import CharacterAt
from incanon.agents.persona import character_at
from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.published import levels_of, period_position, read_period, series_info
from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import InputError, NotFoundError
from incanon.reading import read_json, read_text


def _name_of(stem: str) -> str:
    # The authors' folder names files ``hermione_granger_personality.txt``.
    stem = stem[: -len("_personality")] if stem.endswith("_personality") else stem
    return stem.replace("_", " ").strip()


def _universal(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_personalities(path: str | Path) -> dict[str, str]:
    """Character → personality text, from a JSON object file or a folder of ``NAME.txt`` files
    (the authors' ``data/personality/`` layout, ``hermione_granger_personality.txt``, works as
    is; names are matched case-insensitively). A file's text is used as it is, surrounding blank
    lines and spaces included, as the authors' ``evaluate.py`` reads it. An empty text file is
    an error."""
    path = Path(path).expanduser()
    if path.is_dir():
        files = sorted(p for p in path.glob("*.txt") if not p.name.startswith("."))
        if not files:
            raise InputError("the folder holds no NAME.txt personality files", source=str(path))
        # As the authors read them (``open(...).read()``): the text as it is, newlines translated.
        return {_name_of(p.stem): _universal(read_text(p, "personality file")) for p in files}
    if not path.exists():
        raise NotFoundError(f"no personality file or folder at {path}")
    data = read_json(path, "personality file")
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise InputError("expected a JSON object of character name → personality text", source=str(path))
    empty = [k for k, v in data.items() if not v.strip()]
    if empty:
        raise InputError(f"empty personality text for {', '.join(empty)}", source=str(path))
    return dict(data)


class CharacterResolver:
    """Turns items into the ``CharacterAt`` an agent plays.

    With a canon store, an item that names its work and position (built by incanon) or whose
    character and time point the store knows gets the store's character and knowledge scope.
    A published row gets its character from the row (series, character, the time point placed
    by ``incanon/data/timechara/periods.json``); with a store holding a chunk index of that
    series (``incanon timechara index``), it also gets a knowledge scope that cuts retrieval at
    the character's position, as the paper's RAG-cutoff does.
    """

    def __init__(
        self,
        store: CanonStore | None = None,
        work: str | None = None,
        personalities: Mapping[str, str] | None = None,
    ) -> None:
        self.store = store
        self.work = work
        self.personalities = {k.lower(): v for k, v in (personalities or {}).items()}
        self._works = {w.id for w in store.works()} if store is not None else set()

    def _personality(self, item: TimeCharaItem, own: str = "") -> str:
        return own or item.personality_label or self.personalities.get(item.character.lower(), "")

    def missing_personalities(self, items: Iterable[TimeCharaItem]) -> list[str]:
        """Characters of published rows that have no personality text (built items carry their
        own): an evaluation refuses to start rather than judge against an empty personality."""
        missing = {i.character for i in items
                   if not i.work and not i.personality_label and i.character.lower() not in self.personalities}
        return sorted(missing)

    def _position(self, item: TimeCharaItem) -> Position:
        if item.character_position:
            return Position.parse(item.character_position)
        position = period_position(item.series, item.character, item.character_period)
        if position is None:
            reason = ""
            try:
                read_period(item.series, item.character, item.character_period)
            except InputError as exc:
                reason = f" ({exc})"
            raise InputError(
                f"cannot place time point {item.character_period!r} of {item.character} on the story "
                f"axis{reason}; add a 'character_position' field (e.g. '2-8') to the item",
                where=f"item {item.id}",
            )
        return position

    def _index_work(self, item: TimeCharaItem) -> str | None:
        """The chunk-index work of a published row's series in the store, if there is one."""
        info = series_info(item.series)
        if info is None:
            return None
        for candidate in (info.slug, self.work):
            if candidate and candidate in self._works:
                return candidate
        return None

    def __call__(self, item: TimeCharaItem) -> CharacterAt:
        """The character of ``item`` at its time point."""
        work = item.work or (None if series_info(item.series) else self.work)
        if self.store is not None and work is not None:
            who = character_at(self.store, work, item.character, self._position(item))
            return who.model_copy(update={
                "personality": self._personality(item, who.personality),
                "time_label": who.time_label or item.character_period,
            })
        position = self._position(item)
        info = series_info(item.series)
        scope = None
        index = self._index_work(item) if self.store is not None else None
        if index is not None:
            scope = self.store.scope(index, None, position)  # type: ignore[union-attr]
        label = item.character_period
        if info is not None:
            try:
                label = read_period(item.series, item.character, item.character_period).moment()
            except InputError:
                pass
        return CharacterAt(
            work_title=info.title if info else item.series,
            author=info.author if info else "",
            character=item.character,
            personality=self._personality(item),
            position=position,
            time_label=label,
            scope=scope,
            levels=list(levels_of(item.series)) if info else [],
            series=info.slug if info else "",
            period=item.character_period,
        )
