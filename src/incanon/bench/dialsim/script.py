"""The dialogue a simulation replays: a work's dated sessions, read from the canon store.

A *script* is every dated session with dialogue, in story order (the paper's Script_pre). The
*dialogue* the agent lives through is the sessions its character is present at (the paper's D);
the others exist only as evidence the character missed, which makes questions unanswerable.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from incanon.bench.dialsim.dates import spoken
from incanon.canon.store import CanonStore
from incanon.errors import InputError, NotFoundError


@dataclass(frozen=True)
class Line:
    """One utterance of a session."""

    session: str
    """Session (scene) id."""
    date: str
    """ISO date of the session."""
    index: int
    """0-based position within the session."""
    speaker: str
    text: str

    def render(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class DialSession:
    """One dated session: who was there, who spoke, and what was said."""

    id: str
    order: int
    """0-based place among all sessions of the script (ties of date keep the store's order)."""
    date: str
    title: str
    participants: tuple[str, ...]
    speakers: tuple[str, ...]
    lines: tuple[Line, ...]

    def present(self, name: str) -> bool:
        return name in self.participants

    @property
    def header(self) -> str:
        """How the session is introduced in a prompt: ``[March 22, 1187, session-1]``."""
        return f"[{spoken(self.date)}, {self.id}]"

    def text(self, upto: int | None = None) -> str:
        """The session as ``Speaker: text`` lines (the first ``upto`` lines if given)."""
        lines = self.lines if upto is None else self.lines[:upto]
        return "\n".join(line.render() for line in lines)


@dataclass
class DialScript:
    """Every dated session of one work and the character the agent plays."""

    work: str
    title: str
    main: str
    sessions: list[DialSession]
    personalities: dict[str, str] = field(default_factory=dict)
    """Character name → personality text (for style transfer)."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Every name and alias of the work's characters → canonical name."""

    @cached_property
    def by_id(self) -> dict[str, DialSession]:
        return {s.id: s for s in self.sessions}

    def session(self, session_id: str) -> DialSession:
        try:
            return self.by_id[session_id]
        except KeyError:
            raise NotFoundError(f"unknown session {session_id!r} in work {self.work!r}") from None

    @property
    def dialogue(self) -> list[DialSession]:
        """The sessions the main character is present at, in order (what the agent hears)."""
        return [s for s in self.sessions if s.present(self.main)]

    def first(self, count: int) -> "DialScript":
        """The script up to the ``count``-th session of the dialogue (a short trial run)."""
        dialogue = self.dialogue[:count]
        if not dialogue:
            return self
        last = dialogue[-1].order
        return DialScript(work=self.work, title=self.title, main=self.main,
                          sessions=[s for s in self.sessions if s.order <= last],
                          personalities=self.personalities, aliases=self.aliases)

    def line_count(self) -> int:
        return sum(len(s.lines) for s in self.sessions)


def most_lines(sessions: list[DialSession]) -> str:
    """The character with the most lines (the paper's choice of main character)."""
    counts = Counter(line.speaker for s in sessions for line in s.lines)
    if not counts:
        raise InputError("the script has no lines")
    top = max(counts.values())
    return min(name for name, n in counts.items() if n == top)  # ties: alphabetical, not arbitrary


def load_script(store: CanonStore, work: str, main: str | None = None) -> DialScript:
    """The dated sessions of ``work`` and its main character (given, or the one with most lines)."""
    info = store.work(work)
    sessions: list[DialSession] = []
    for scene in store.scenes(work):
        if not scene.date:
            continue
        lines = tuple(
            Line(scene.id, scene.date, i, m.speaker, m.speech or f"({m.action})")
            for i, m in enumerate(m for m in store.messages(work, scene.id) if m.speech or m.action)
        )
        if not lines:
            continue
        sessions.append(DialSession(
            id=scene.id, order=len(sessions), date=scene.date, title=scene.title,
            participants=scene.participants, speakers=scene.speakers, lines=lines,
        ))
    if not sessions:
        raise InputError(f"work {work!r} has no dated sessions with dialogue (ingest a script first)")
    name = store.character(work, main).name if main else most_lines(sessions)
    if not any(s.present(name) for s in sessions):
        raise InputError(f"{name!r} is present at no session of work {work!r}")
    characters = store.characters(work)
    people = {c.name: c.personality for c in characters}
    aliases = {alias: c.name for c in characters for alias in (c.name, *c.aliases)}
    return DialScript(work=work, title=info.title, main=name, sessions=sessions, personalities=people,
                      aliases=aliases)
