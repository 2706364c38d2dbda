"""In-context examples drawn from the canon of the same work (for the few-shot method).

One example per TimeChara data type (future, past-absence, past-presence, past-only), taken
from the store's probes, or, when a type has no usable probe, written from a scene with the
``few_shot_synthetic`` template. Choice is deterministic.

Two rules keep the examples honest:

* the scene being asked about never appears (the turn's ``about`` id, a probe with the same or
  a near-identical question, a scene whose summary the question quotes);
* an example never brings the future into the prompt: its character's moment and its event both
  lie at or before the asking character's position. A type with no such example is left out
  (``allow_spoilers=True`` takes the nearest one instead, as a fixed-example baseline would).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from incanon.canon.position import Position
from incanon.canon.records import CharacterRecord, ProbeRecord, SceneRecord
from incanon.canon.store import CanonStore
from incanon.templates import PromptLibrary

DATA_TYPES = ("future", "past-absence", "past-presence", "past-only")


@dataclass(frozen=True)
class Example:
    """One worked example: a character at a moment, a question, and an in-canon answer."""

    data_type: str
    character: str
    when: str
    question: str
    answer: str
    event: str
    """Scene (or fact) id the question is about."""
    source: str
    """``probe`` or ``scene`` (written from a scene by template)."""
    spoils: bool = False
    """True when it reaches past the asking character's position (only with allow_spoilers)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)


_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset("a an the and or of to in on at by for with was were is are did do you your "
                  "what who when where why how that this it as from".split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _similar(a: str, b: str, threshold: float = 0.6) -> bool:
    wa, wb = _words(a), _words(b)
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= threshold


class _Canon:
    """What example picking reads from one work, loaded once."""

    def __init__(self, store: CanonStore, work: str) -> None:
        self.probes: list[ProbeRecord] = sorted(
            store.probes(work), key=lambda p: (p.at.key, p.character, p.data_type, p.question))
        self.scenes: list[SceneRecord] = store.scenes(work)
        self.characters: list[CharacterRecord] = store.characters(work)
        self.positions: dict[str, Position] = {s.id: s.position for s in self.scenes}
        self.positions.update({f.id: f.position for f in store.facts(work) if f.id not in self.positions})

    def label(self, name: str, at: Position) -> str:
        for c in self.characters:
            if c.name == name:
                for tp in c.time_points:
                    if tp.position == at and tp.label:
                        return tp.label
        return f"story position {at}"


class ExamplePicker:
    """Picks the four examples for a character at a position; caches each work's canon."""

    def __init__(self, store: CanonStore, prompts: PromptLibrary, *, allow_spoilers: bool = False) -> None:
        self.store = store
        self.prompts = prompts
        self.allow_spoilers = allow_spoilers
        self._canon: dict[str, _Canon] = {}

    def _load(self, work: str) -> _Canon:
        if work not in self._canon:
            self._canon[work] = _Canon(self.store, work)
        return self._canon[work]

    def excluded_events(self, work: str, question: str, about: str | None = None) -> set[str]:
        """Scene/fact ids the question is (or may be) about."""
        canon = self._load(work)
        out = {about} if about else set()
        asked = _norm(question)
        out |= {p.event for p in canon.probes if _norm(p.question) == asked or _similar(p.question, question)}
        out |= {s.id for s in canon.scenes if len(_norm(s.summary).split()) >= 4 and _norm(s.summary) in asked}
        return out

    def pick(self, work: str, at: Position, question: str, about: str | None = None) -> list[Example]:
        """Up to one example per data type, in ``DATA_TYPES`` order."""
        canon = self._load(work)
        banned = self.excluded_events(work, question, about)
        chosen: list[Example] = []
        for data_type in DATA_TYPES:
            # Prefer an event no earlier example used, so four examples show four scenes.
            used = banned | {e.event for e in chosen}
            found = None
            for avoid in (used, banned):
                found = self._from_probes(canon, data_type, at, avoid, spoiling=False) \
                    or self._from_scenes(canon, data_type, at, avoid)
                if found is not None:
                    break
            if found is None and self.allow_spoilers:
                found = self._from_probes(canon, data_type, at, banned, spoiling=True)
            if found is not None:
                chosen.append(found)
        return chosen

    def _from_probes(self, canon: _Canon, data_type: str, at: Position, banned: set[str],
                     spoiling: bool) -> Example | None:
        candidates = []
        for p in canon.probes:
            if p.data_type != data_type or p.event in banned or p.at.axis is not at.axis:
                continue
            event_at = canon.positions.get(p.event)
            spoils = event_at is None or event_at > at or p.at > at
            if spoils and not spoiling:
                continue
            reach = max(p.at.key, event_at.key if event_at is not None else p.at.key)
            candidates.append((reach, p, spoils))
        if not candidates:
            return None
        # Without spoilers: probe order. With them: the one reaching least far into the future.
        _, p, spoils = min(candidates, key=lambda c: c[0]) if spoiling else candidates[0]
        return Example(data_type, p.character, canon.label(p.character, p.at), p.question,
                       p.gold_response, p.event, "probe", spoils)

    def _from_scenes(self, canon: _Canon, data_type: str, at: Position, banned: set[str]) -> Example | None:
        scenes = [s for s in canon.scenes if s.summary.strip() and s.id not in banned
                  and s.position.axis is at.axis and s.position <= at]
        for character in canon.characters:
            for tp in character.time_points:
                if tp.position.axis is not at.axis or tp.position > at:
                    continue
                for s in scenes:
                    if _fits(data_type, s, character, tp.position):
                        return self._synthetic(data_type, s, character.name, tp.label or f"story position {tp.position}")
        return None

    def _synthetic(self, data_type: str, scene: SceneRecord, character: str, when: str) -> Example:
        def part(name: str) -> str:
            return self.prompts.render("few_shot_synthetic", part=name, data_type=data_type,
                                       summary=scene.summary.strip(), character=character)

        return Example(data_type, character, when, part("question"), part("answer"), scene.id, "scene")


def _fits(data_type: str, scene: SceneRecord, character: CharacterRecord, tp_at: Position) -> bool:
    present = character.name in scene.participants
    if data_type == "future":
        return scene.position > tp_at
    if scene.position > tp_at:
        return False
    if data_type == "past-presence":
        return present
    if data_type == "past-absence":
        first = character.first_position
        return not present and (first is None or first <= scene.position)
    return True
