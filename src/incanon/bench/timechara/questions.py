"""Fact-based structured questions: fixed templates around an event summary.

They ask about the character's own experience of the event: feelings, what it was like, what
they saw, what they heard, and whether they were there. Asked of a character who was present
they test recall; of one who was absent, whether the agent invents a presence. The wording is
incanon's own; the paper uses 18 such templates, here are 20 in the same five kinds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from incanon.bench.timechara.labels import event_clause


@dataclass(frozen=True)
class QuestionTemplate:
    """One structured question; ``{event}`` is replaced by the event as a clause."""

    kind: str
    """``feelings``, ``experience``, ``saw``, ``heard`` or ``presence``."""
    text: str

    def render(self, event_summary: str) -> str:
        """The question about ``event_summary``."""
        return self.text.format(event=event_clause(event_summary))


STRUCTURED_TEMPLATES: tuple[QuestionTemplate, ...] = tuple(
    QuestionTemplate(kind, text) for kind, text in (
        ("feelings", "How did you feel when {event}?"),
        ("feelings", "What were your honest feelings when {event}?"),
        ("feelings", "Tell me what went through your heart when {event}."),
        ("feelings", "Describe the emotions you had when {event}."),
        ("feelings", "What was going through your mind when {event}?"),
        ("experience", "Can you walk me through your experience when {event}?"),
        ("experience", "What was it like for you when {event}?"),
        ("experience", "Share your own experience of the time when {event}."),
        ("saw", "Did you witness the moment when {event}?"),
        ("saw", "What did you see with your own eyes when {event}?"),
        ("saw", "What caught your eye as {event}?"),
        ("saw", "Did you watch it happen when {event}?"),
        ("heard", "What did you hear when {event}?"),
        ("heard", "What words did you catch as {event}?"),
        ("heard", "Which voices and sounds do you remember from when {event}?"),
        ("presence", "Were you there when {event}?"),
        ("presence", "Were you present at the moment {event}?"),
        ("presence", "Is it true that you were on the spot when {event}?"),
        ("presence", "Were you among those present when {event}?"),
        ("presence", "Where were you at the moment {event}?"),
    )
)


def structured_question(event_summary: str, rng: random.Random) -> str:
    """A structured question about the event, the template drawn with ``rng``."""
    return rng.choice(STRUCTURED_TEMPLATES).render(event_summary)
