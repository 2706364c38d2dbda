"""Profiles for an imported work, written from the scenes each character witnessed.

An imported work often has only whole-story profiles (CoSER's books, cards, world files written
from the end). The scoped builder then keeps only the sentences that name nothing hidden at the
position, and for a character whose whole profile is about later events nothing may be left:
Iago at his first appearance in CoSER's Othello keeps 0 of 17 sentences. ``reprofile`` runs
``canon build``'s profile stage on the stored work instead: for each character whose persona is
left too thin at one of its points, a sheet per time point written by the helper from the scenes
the character witnessed up to it (their chunks or lines, never a later or missed scene), each
built on the one before, stored as the character's time points. A character without time points
gets them: its first appearance and the end of each chapter it is present in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.canon.persona import persona_at
from incanon.canon.position import Axis, Position
from incanon.canon.records import CharacterRecord, TimePointRecord
from incanon.canon.store import CanonStore
from incanon.canonbuild.cast import CastMember
from incanon.canonbuild.profiles import write_sheets
from incanon.canonbuild.timepoints import PlannedPoint
from incanon.errors import InputError
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary

#: A persona keeps "too little" when its profile keeps fewer characters than this.
THIN = 40


@dataclass
class Reprofiled:
    """What ``reprofile`` did for one character."""

    character: str
    points: list[str] = field(default_factory=list)
    """Labels written."""
    thin_at: list[str] = field(default_factory=list)
    """Positions where the persona kept too little before."""
    failed: list[str] = field(default_factory=list)
    """Points the helper's sheet could not be used for (their old text stays)."""


def thin_points(store: CanonStore, work: str, record: CharacterRecord) -> list[Position]:
    """Positions (its time points, or its first appearance) where ``record``'s persona keeps a
    profile shorter than ``THIN`` characters."""
    positions = [tp.position for tp in record.time_points] or (
        [record.first_position] if record.first_position is not None else [])
    return [p for p in positions if len(persona_at(store, work, record, p).profile.strip()) < THIN]


def _planned(store: CanonStore, work: str, record: CharacterRecord) -> list[PlannedPoint]:
    if record.time_points:
        return [PlannedPoint(str(tp.position), tp.label, "stored") for tp in record.time_points]
    witnessed = [s for s in store.scenes(work) if record.name in s.participants]
    if record.first_position is None or not witnessed:
        return []
    points = [PlannedPoint(str(record.first_position), "first appearance", "structure")]
    one_book = len({s.position.book for s in witnessed}) == 1
    for book, chapter in dict.fromkeys((s.position.book, s.position.chapter) for s in witnessed):
        end = Position.parse(f"{book}-{chapter}")
        if end > record.first_position:
            label = f"end of chapter {chapter}" if one_book else f"end of book {book}, chapter {chapter}"
            points.append(PlannedPoint(str(end), label, "structure"))
    return points


def _scenes(store: CanonStore, work: str, record: CharacterRecord) -> tuple[list[ExtractedScene], list[str]]:
    """The work's scenes as the profile stage reads them, and the ids of those ``record`` was at."""
    by_scene: dict[str, list[str]] = {}
    for chunk in store.chunks(work):
        if chunk.scene is not None:
            by_scene.setdefault(chunk.scene, []).append(chunk.text)
    scenes: list[ExtractedScene] = []
    present: list[str] = []
    for s in store.scenes(work):
        text = "\n\n".join(by_scene.get(s.id, []))
        if not text:
            # No chunk: the scene's own lines (never another character's thoughts).
            text = "\n".join(f"{m.speaker}: {' '.join(p for p in (m.action, m.speech) if p)}"
                             for m in store.messages(work, s.id))
        p = s.position
        scene = ExtractedScene(p.book or 1, p.chapter or 1, 0, len(text), text, s.summary or s.title,
                               list(s.speakers), list(s.participants), number=p.scene or 1, location=s.location)
        scenes.append(scene)
        if record.name in s.participants:
            present.append(scene.id)
    return scenes, present


async def reprofile(store: CanonStore, work: str, model: ChatModel, prompts: PromptLibrary, *,
                    characters: list[str] | None = None, every: bool = False, budget: int = 3000,
                    json_mode: bool = True, say: Callable[[str], None] = lambda _: None) -> list[Reprofiled]:
    """Write time-point sheets for the characters of ``work`` whose persona is too thin somewhere
    (``every``: for every character, or the ``characters`` given), see the module docstring."""
    info = store.work(work)
    if info.axis is not Axis.CHAPTER:
        raise InputError(f"work {work!r} uses {info.axis} positions; profiles are written for works of "
                         "books and chapters")
    chosen = [store.character(work, c) for c in characters] if characters else store.characters(work)
    done: list[Reprofiled] = []
    for record in chosen:
        thin = thin_points(store, work, record)
        if not (thin or every or characters):
            continue
        points = _planned(store, work, record)
        if not points:
            say(f"{record.name}: no witnessed scene to write a profile from; left as it is")
            continue
        scenes, present = _scenes(store, work, record)
        # The profile prompt names the character as a reader at each point may: no secret name.
        member = CastMember(name=record.name, aliases=list(record.shown_names_at(Position.parse(points[0].position))),
                            scenes=present)
        sheets = await write_sheets(member, points, scenes, info.title, model, prompts, budget=budget,
                                    json_mode=json_mode)
        old = {tp.label: tp for tp in record.time_points}
        written: list[TimePointRecord] = []
        result = Reprofiled(record.name, thin_at=[str(p) for p in thin])
        for r in sheets:
            before = old.get(r.point.label)
            if r.sheet is None:
                result.failed.append(r.point.label)
                if before is not None:
                    written.append(before)
                continue
            written.append(TimePointRecord(
                r.point.label, Position.parse(r.point.position),
                before.description if before is not None and before.description else r.sheet.situation,
                r.sheet.profile, r.sheet.personality))
            result.points.append(r.point.label)
        if result.points:
            store.set_time_points(work, record.name, written)
        say(f"{record.name}: {len(result.points)} of {len(points)} time point sheet(s) written from witnessed scenes"
            + (f" (too thin at {', '.join(result.thin_at)} before)" if result.thin_at else "")
            + (f"; failed: {', '.join(result.failed)}" if result.failed else ""))
        done.append(result)
    return done


__all__ = ["THIN", "Reprofiled", "reprofile", "thin_points"]
