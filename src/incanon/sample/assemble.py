"""Merge parsed books, a parsed script and hand-written annotations into one ``World``.

Books decide which scenes exist and give the chunks; a script gives the dialogue of its sessions;
annotations (the ``World`` JSON without chunks) give everything a parser cannot know:
characters, participants, summaries, relations, facts and probes. Where two sources say the same
thing they must agree, so a typo in either is caught here rather than in a benchmark.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from incanon.canon.world import World
from incanon.errors import InputError
from incanon.ingest.markdown_book import DEFAULT_CHUNK_WORDS, ParsedBook, chunk_book
from incanon.ingest.transcript import Session


def fold(name: str) -> str:
    """The form names are compared in: case- and spacing-insensitive."""
    return " ".join(name.split()).casefold()


def character_names(annotations: Mapping[str, Any]) -> dict[str, str]:
    """Every character name and alias (folded) → canonical name."""
    table: dict[str, str] = {}
    for character in annotations.get("characters", []):
        aliases = [a["name"] if isinstance(a, dict) else a for a in character.get("aliases", [])]
        for name in [character["name"], *aliases]:
            table[fold(name)] = character["name"]
    return table


def assemble_world(
    annotations: Mapping[str, Any],
    *,
    books: Iterable[ParsedBook] = (),
    sessions: Iterable[Session] = (),
    max_words: int = DEFAULT_CHUNK_WORDS,
    source: str = "",
) -> World:
    """Build and validate a ``World`` from annotations plus parsed sources.

    * every book scene gets its chunks; a book scene missing from the annotations is added bare
      (id and position only);
    * every script session fills the messages of the annotated scene ``session-N`` (added if
      missing); annotated speakers, if given, must be the transcript's speakers, and every
      speaker is made a participant.

    Raises ``InputError`` (naming ``source``) when the sources disagree.
    """
    data: dict[str, Any] = copy.deepcopy(dict(annotations))
    scenes: list[dict[str, Any]] = data.setdefault("scenes", [])
    by_id = {scene["id"]: scene for scene in scenes}
    names = character_names(data)
    resolve = lambda written: names.get(fold(written), written)  # noqa: E731

    chunks = []
    for book in books:
        chunks.extend(c.model_dump() for c in chunk_book(book, max_words=max_words))
        for scene in book.scenes():
            if scene.id not in by_id:
                by_id[scene.id] = {"id": scene.id, "position": scene.position}
                scenes.append(by_id[scene.id])
            elif by_id[scene.id].get("position", scene.position) != scene.position:
                raise InputError(
                    f"scene {scene.id!r} is at {scene.position} in {book.source or 'the book'} but the "
                    f"annotations put it at {by_id[scene.id]['position']}",
                    source=source or None,
                )
    data["chunks"] = chunks

    for session in sessions:
        _merge_session(session, by_id, scenes, resolve, source)
    return World.model_validate(data)


def _merge_session(session: Session, by_id: dict, scenes: list, resolve, source: str) -> None:
    built = session.to_scene(resolve=resolve).model_dump(exclude_defaults=True)
    annotated = by_id.get(session.id)
    if annotated is None:
        by_id[session.id] = built
        scenes.append(built)
        return
    where = f"{session.id} (script line {session.line})"
    for key in ("position", "date"):
        if key in annotated and annotated[key] != built[key]:
            raise InputError(
                f"{where}: the script gives {key} {built[key]!r} but the annotations say {annotated[key]!r}",
                source=source or None,
            )
        annotated.setdefault(key, built[key])
    speakers = [resolve(s) for s in annotated.get("speakers", [])]
    if speakers and speakers != built["speakers"]:
        raise InputError(
            f"{where}: annotated speakers {speakers} differ from the script's {built['speakers']}",
            source=source or None,
        )
    annotated["speakers"] = built["speakers"]
    participants = [resolve(p) for p in annotated.get("participants", [])]
    annotated["participants"] = list(dict.fromkeys([*participants, *built["speakers"]]))
    messages = annotated.get("messages")
    if messages:
        said = [(resolve(m["speaker"]), m.get("speech", "")) for m in messages]
        if said != [(m["speaker"], m["speech"]) for m in built["messages"]]:
            raise InputError(f"{where}: annotated messages differ from the script", source=source or None)
    else:
        annotated["messages"] = built["messages"]
