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


class EventIndex:
    """The events of a work, for one character at one position (see the module docstring)."""

    def __init__(self, events: Iterable[Event], neutral: frozenset[str] = frozenset()):
        self.events = [e for e in events if e.stems - neutral]
        self.neutral = neutral
        df = Counter(s for e in self.events for s in e.stems)
        n = max(len(self.events), 1)
        self._idf = {s: math.log(1 + n / c) for s, c in df.items()}

    def told(self, sentence_stems: set[str]) -> list[Event]:
        """The events the sentence tells: the best matches sharing at least ``MIN_SHARED``
        content stems with it; [] when none does."""
        words = sentence_stems - self.neutral
        scored: list[tuple[float, Event]] = []
        for e in self.events:
            shared = words & e.stems
            if len(shared) >= MIN_SHARED:
                scored.append((sum(self._idf.get(s, 0.0) for s in shared), e))
        if not scored:
            return []
        best = max(score for score, _ in scored)
        return [e for score, e in scored if score >= best * TIE]

    def unperceived(self, sentence_stems: set[str]) -> list[str]:
        """Ids of the events the sentence tells that the character has not perceived."""
        return [e.id for e in self.told(sentence_stems) if not e.known]


__all__ = ["Event", "EventIndex", "MIN_SHARED"]
