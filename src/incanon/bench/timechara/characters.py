"""Who answers an item: a ``CharacterAt`` from the canon store, or from the item row alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from incanon.agents.base import CharacterAt
from incanon.agents.persona import character_at
from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.published import period_position, series_info, time_label
from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import InputError, NotFoundError


def load_personalities(path: str | Path) -> dict[str, str]:
    """Character → personality text, from a JSON object file or a folder of ``NAME.txt`` files
    (file stem matched case-insensitively with spaces or underscores)."""
    path = Path(path).expanduser()
    if path.is_dir():
        return {p.stem.replace("_personality", "").replace("_", " "): p.read_text(encoding="utf-8").strip()
                for p in sorted(path.glob("*.txt"))}
    if not path.is_file():
        raise NotFoundError(f"no personality file or folder at {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", source=str(path), where=f"line {exc.lineno}") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise InputError("expected a JSON object of character name → personality text", source=str(path))
    return dict(data)


class CharacterResolver:
    """Turns items into the ``CharacterAt`` an agent plays.

    With a canon store, an item that names its work and position (built by incanon) or whose
    character and time point the store knows gets the store's character and knowledge scope.
    Otherwise (a published row, no store) the character is built from the row: the series, the
    character, and the time point placed by the paper's table; it has no knowledge scope.
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

    def _personality(self, item: TimeCharaItem, own: str = "") -> str:
        return own or item.personality_label or self.personalities.get(item.character.lower(), "")

    def _position(self, item: TimeCharaItem) -> Position:
        if item.character_position:
            return Position.parse(item.character_position)
        position = period_position(item.series, item.character, item.character_period)
        if position is None:
            raise InputError(
                f"cannot place time point {item.character_period!r} of {item.character} on the story "
                "axis; add a 'character_position' field (e.g. '2-8') to the item",
                where=f"item {item.id}",
            )
        return position

    def __call__(self, item: TimeCharaItem) -> CharacterAt:
        """The character of ``item`` at its time point."""
        work = item.work or self.work
        if self.store is not None and work is not None:
            who = character_at(self.store, work, item.character, self._position(item))
            return who.model_copy(update={
                "personality": self._personality(item, who.personality),
                "time_label": who.time_label or item.character_period,
            })
        position = self._position(item)
        info = series_info(item.series)
        return CharacterAt(
            work_title=info.title if info else item.series,
            author=info.author if info else "",
            character=item.character,
            personality=self._personality(item),
            position=position,
            time_label=time_label(item.series, item.character_period, position) if info else item.character_period,
        )
