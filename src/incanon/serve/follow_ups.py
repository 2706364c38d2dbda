"""Follow-up suggestions a reader would ask of a character at its point of the story.

Open WebUI asks for follow-ups after each reply. Taking the reply's most used word as a topic
gave "Tell me more about Right."; these come from what the character may know there, read
through its horizon (the scoped builder's): the people it knows who were just named (else those
it was with last), and the place of the last scene it witnessed. Every name it may use is one a
reader at the point has read, so a suggestion tells nothing later. No model is called.
"""

from __future__ import annotations

import re
from typing import Any

from incanon.canon.names import norm
from incanon.canon.persona import horizon_at

#: At most this many suggestions (Open WebUI shows three to five).
COUNT = 3


def _named(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def follow_ups(session: Any, history: list[tuple[str, str]]) -> list[str]:
    """Questions for the character of ``session`` (a ``ChatSession``) after ``history`` (the
    task's ``(speaker, text)`` lines). Run it on the session's thread (it reads the store)."""
    who = session.who
    horizon = horizon_at(session.store, session.work, who.scope.character if who.scope is not None
                         else session.store.character(session.work, who.character), who.position)
    me = horizon.character.name
    people = [name for name, aliases in horizon.people
              if name != me and norm(name) in horizon.known_names]
    last_reply = next((t for s, t in reversed(history) if s != "user"), "")
    asked = " ".join(t for s, t in history if s == "user")
    mentioned = [p for p in people if _named(last_reply, p) or _named(last_reply, p.split()[0])]
    recent: list[str] = []
    for scene in reversed(horizon.scenes):
        recent += [p for p in scene.participants if p != me and p in people and p not in recent]
    chosen = list(dict.fromkeys([*mentioned, *recent]))
    out = [f"What do you make of {p}?" for p in chosen if not _named(asked, p)][:2]
    place = next((s.location for s in reversed(horizon.scenes) if s.location), "")
    if place and len(out) < COUNT:
        out.append(f"What happened at {place}?")
    for generic in ("What will you do now?", "What do you remember most from the last few days?",
                    "Who do you trust most right now?"):
        if len(out) >= COUNT:
            break
        out.append(generic)
    return out[:COUNT]


__all__ = ["COUNT", "follow_ups"]
