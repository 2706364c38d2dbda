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
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

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


__all__ = ["Event", "EventIndex", "MIN_SHARED"]
