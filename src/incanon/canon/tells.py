"""Which event a sentence tells: a profile sentence is known from the event it tells, not from
whether its words have been met.

By the middle of a novel everyone has met "die", "grief" and "murder", so a word test lets "He
dies of grief soon after his niece's murder" through long before it happens. Here a sentence is
matched to the story's events (scenes, by title and summary, and facts) by the content words
they share, each weighted by how rare it is among the events (inverse document frequency). The
sentence tells the best-matching events; it may be said to a character only when the character
perceived every one of them (witnessed the scene, knows the fact). A sentence that matches no
event strongly enough tells none and is left to the other tests (names, words).
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from incanon.canon.position import Position

if TYPE_CHECKING:
    from incanon.canon.store import CanonStore

MIN_SHARED = 2
"""Content stems a sentence must share with an event to tell it (one shared word is chance)."""
STRICT_SHARED = 3
"""Content stems a sentence shares with an event for the audit to say it tells it."""
TIE = 0.999
"""Events scoring within this fraction of the best all count as told (a tie is not a choice)."""


@dataclass(frozen=True)
class Event:
    """Something that happens in the story, as the sentence matcher sees it."""

    id: str
    """``scene:ID`` or ``fact:ID``."""
    stems: frozenset[str]
    known: bool
    """Perceived by the character at the position (a witnessed scene, a known fact)."""
    position: int | None = None
    """Position key where it happens."""


class EventIndex:
    """The events of a work, for one character at one position (see the module docstring)."""

    def __init__(self, events: Iterable[Event], neutral: frozenset[str] = frozenset()):
        self.events = [e for e in events if e.stems - neutral]
        self.neutral = neutral
        df = Counter(s for e in self.events for s in e.stems)
        n = max(len(self.events), 1)
        self._df = df
        self._idf = {s: math.log(1 + n / c) for s, c in df.items()}

    def told(self, sentence_stems: set[str], *, min_shared: int = MIN_SHARED, rare: bool = False) -> list[Event]:
        """The events the sentence tells: the best matches sharing at least ``min_shared``
        content stems with it; [] when none does. ``rare``: only stems that at most two events
        use count (a label of three words names its event by one telling word)."""
        words = sentence_stems - self.neutral
        if rare:
            words = {w for w in words if self._df.get(w, 0) <= 2}
        scored: list[tuple[float, Event]] = []
        for e in self.events:
            shared = words & e.stems
            if len(shared) >= min_shared:
                scored.append((sum(self._idf.get(s, 0.0) for s in shared), e))
        if not scored:
            return []
        best = max(score for score, _ in scored)
        return [e for score, e in scored if score >= best * TIE]

    def rare_shared(self, sentence_stems: set[str], event: Event) -> set[str]:
        """The content stems the sentence shares with ``event`` that at most two events use."""
        return {w for w in (sentence_stems - self.neutral) & event.stems if self._df.get(w, 0) <= 2}

    def unperceived(self, sentence_stems: set[str], *, strict: bool = False) -> list[str]:
        """Ids of the events the sentence tells that the character has not perceived.
        ``strict`` (the audit, which must not cry wolf): only an event the sentence is mostly
        made of, at least ``STRICT_SHARED`` content stems and more than half of the sentence's."""
        return [e.id for e in self.unperceived_events(sentence_stems, strict=strict)]

    def unperceived_events(self, sentence_stems: set[str], *, strict: bool = False) -> list[Event]:
        """``unperceived``, as events."""
        told = [e for e in self.told(sentence_stems) if not e.known]
        if strict:
            words = sentence_stems - self.neutral
            told = [e for e in told if len(words & e.stems) >= STRICT_SHARED and len(words & e.stems) > len(words) / 2]
        return told

    def naming(self, sentence_stems: set[str]) -> list[Event]:
        """The events whose words hold every content stem of a short text (a label)."""
        words = sentence_stems - self.neutral
        return [e for e in self.events if words and words <= e.stems]

    def all_told(self, sentence_stems: set[str]) -> bool:
        """True when every content stem of the text belongs to some event (a label made only
        of an event's words names that event)."""
        words = sentence_stems - self.neutral
        return bool(words) and all(self._df.get(w, 0) > 0 for w in words)


def story_events(store: "CanonStore", work: str, *, names: bool = False) -> EventIndex:
    """Every scene (title and summary) and fact of ``work`` as an event, all marked known (the
    omniscient reader's index, for dating claims and labels). ``names``: a name's words count
    too (a short label names its event by who and what: "before Ottilie breaks her leg"). Kept
    per store until its content changes."""
    from incanon.canon.horizon import neutral_stems, stems

    kept = _indexes.setdefault(store, {})
    key = (store.data_version(), work, names)
    found = kept.get(key)
    if found is not None:
        return found
    if len(kept) > 16:
        kept.clear()
    events = [Event(f"scene:{s.id}", frozenset(stems(f"{s.title}. {s.summary}")), True, s.position.key)
              for s in store.scenes(work)]
    events += [Event(f"fact:{f.id}", frozenset(stems(f.text)), True, f.position.key) for f in store.facts(work)]
    neutral = neutral_stems()
    if not names:
        named = [n for c in store.characters(work) for n in (c.name, *c.aliases)]
        named += [n for e in store.entities(work) for n in (e.name, *e.aliases)]
        neutral = neutral | frozenset(s for n in named for s in stems(n))
    found = kept[key] = EventIndex(events, neutral)
    return found


def label_names_later(store: "CanonStore", work: str, label: str, at: Position) -> bool:
    """True when ``label`` is made of the words of events that all happen after ``at`` (every
    event holding all its words is later): shown to anyone at ``at``, it names what is to come."""
    from incanon.canon.horizon import stems

    told = story_events(store, work, names=True).naming(stems(label)) if label.strip() else []
    return bool(told) and all(e.position is not None and e.position > at.key for e in told)


_indexes: "weakref.WeakKeyDictionary[CanonStore, dict[tuple[object, ...], EventIndex]]" = weakref.WeakKeyDictionary()


__all__ = ["Event", "EventIndex", "MIN_SHARED", "label_names_later", "story_events"]
