"""Scripts into the canon store as a date-axis work of dated sessions.

Plain transcripts use ``incanon.ingest.parse_transcript``'s form (``## YYYY-MM-DD`` headers and
``Speaker: text`` lines); every speaker becomes a character and a participant of the sessions
they speak in. The packaged sample world gives a ready dialogue work with real participants
(silent listeners included), aliases and personalities.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from incanon.canon.names import norm
from incanon.canon.position import Axis
from incanon.canon.world import Character, Scene, WorkInfo, World
from incanon.errors import InputError
from incanon.ingest.transcript import Session, parse_transcript
from incanon.reading import read_text

SAMPLE_WORK = "lanterns-dialogue"
"""Work id of the sample world's dialogue (its eleven dated sessions)."""


def _characters(names: Iterable[str], first: dict[str, str]) -> list[Character]:
    seen: dict[str, Character] = {}
    for name in names:
        if norm(name) not in seen:
            seen[norm(name)] = Character(name=name, first_position=first.get(name))
    return list(seen.values())


def world_from_sessions(
    sessions: Sequence[Session], *, work_id: str, title: str, description: str = ""
) -> World:
    """A date-axis ``World`` whose scenes are ``sessions`` (ids renumbered ``session-1``...)."""
    if not sessions:
        raise InputError("no sessions to ingest")
    canonical: dict[str, str] = {}  # folded → first spelling seen
    scenes: list[Scene] = []
    first: dict[str, str] = {}
    for number, session in enumerate(sessions, start=1):
        if scenes and session.date < (scenes[-1].date or ""):
            raise InputError(
                f"session {number} ({session.date}) comes before the previous one ({scenes[-1].date}); "
                "give the scripts in date order")
        for turn in session.utterances:
            canonical.setdefault(norm(turn.speaker), turn.speaker)
        scene = session.to_scene(id=f"session-{number}", resolve=lambda w: canonical[norm(w)])
        scene = scene.model_copy(update={"position": session.date})
        for name in scene.speakers:
            first.setdefault(name, session.date)
        scenes.append(scene)
    return World(
        work=WorkInfo(id=work_id, title=title, axis=Axis.DATE, description=description),
        characters=_characters(canonical.values(), first),
        scenes=scenes,
    )


def read_transcripts(paths: Sequence[str | Path]) -> list[Session]:
    """Parse every transcript file, in the order given."""
    sessions: list[Session] = []
    for path in paths:
        p = Path(path).expanduser()
        sessions.extend(parse_transcript(read_text(p, "script file"), source=str(p)))
    return sessions


def transcripts_world(paths: Sequence[str | Path], *, work_id: str | None = None, title: str | None = None) -> World:
    """A dialogue world from plain transcript files."""
    stem = Path(paths[0]).stem if paths else "dialogue"
    return world_from_sessions(
        read_transcripts(paths), work_id=work_id or stem, title=title or stem.replace("_", " ").title())


def sample_dialogue_world() -> World:
    """The sample world's eleven dated sessions as a date-axis work, with the world's characters
    (aliases, profiles, personalities) and each session's annotated participants."""
    from incanon.sample import sample_world

    world = sample_world()
    scenes = [s.model_copy(update={"position": s.date}) for s in world.scenes if s.date and s.messages]
    people = {p for s in scenes for p in s.participants}
    firsts: dict[str, str] = {}
    for scene in scenes:
        for name in scene.participants:
            firsts.setdefault(name, scene.date or "")
    # Positions of the book's chapter axis (time points, an alias's first use, dated profile
    # text) mean nothing on this date axis: the dialogue work keeps only the undated parts.
    characters = [
        c.model_copy(update={"first_position": firsts[c.name], "time_points": [], "alias_from": {},
                             "profile_segments": [g for g in c.profile_segments if g.from_ is None],
                             "personality_segments": [g for g in c.personality_segments if g.from_ is None]})
        for c in world.characters if c.name in people
    ]
    return World(
        work=WorkInfo(id=SAMPLE_WORK, title=f"{world.work.title} (dialogue)", author=world.work.author,
                      axis=Axis.DATE, description="The dated dialogue sessions of the sample world."),
        characters=characters,
        scenes=scenes,
    )
