"""Time points of a main character: the ends of the books, the end of the story, and the scenes
after which the character's situation changes (chosen by the helper from the scenes they are in).

A time point is a position the character can be put at (``chat --at``, ``/v1`` model ids, cards).
The helper sees only the summaries of the character's own scenes and must answer with one of
their positions; an answer that is not one of them is dropped and counted. When the helper's
reply cannot be read, the character's scenes are cut into equal parts instead, and the report
says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from incanon.llmout.structured import ask_structured
from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.canon.position import Position
from incanon.canonbuild.cast import CastMember
from incanon.errors import IncanonError
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary


class ChosenPoint(BaseModel):
    position: str
    label: str = ""


class ChosenPoints(BaseModel):
    """The helper's reply to ``canon_time_points``."""

    time_points: list[ChosenPoint] = Field(default_factory=list)


@dataclass(frozen=True)
class PlannedPoint:
    position: str
    label: str
    origin: str
    """``structure`` (end of a book or of the story), ``helper`` or ``even`` (the fallback)."""


@dataclass
class PointsResult:
    points: list[PlannedPoint]
    rejected: list[str] = field(default_factory=list)
    """Positions the helper gave that are not scenes of the character."""
    failed: str = ""


def structural_points(member: CastMember, scenes: list[ExtractedScene]) -> list[PlannedPoint]:
    """The end of every book the character has appeared by, and the end of the story."""
    if not member.first_position:
        return []
    first = Position.parse(member.first_position)
    last_chapter: dict[int, int] = {}
    for s in scenes:
        last_chapter[s.book] = max(last_chapter.get(s.book, 0), s.chapter)
    books = sorted(last_chapter)
    points = [PlannedPoint(f"{b}-{last_chapter[b]}", f"end of book {b}", "structure")
              for b in books[:-1] if Position.parse(f"{b}-{last_chapter[b]}") >= first]
    points.append(PlannedPoint(f"{books[-1]}-{last_chapter[books[-1]]}", "end of the story", "structure"))
    return points


def _even(member: CastMember, count: int) -> list[PlannedPoint]:
    scenes = member.scenes
    if len(scenes) < 2 or count < 1:
        return []
    step = len(scenes) / (count + 1)
    picks = dict.fromkeys(scenes[max(0, int(step * (k + 1)) - 1)] for k in range(count))
    return [PlannedPoint(p, f"after scene {p}", "even") for p in picks]


async def plan_points(member: CastMember, scenes: list[ExtractedScene], work_title: str, model: ChatModel,
                      prompts: PromptLibrary, *, count: int = 3, json_mode: bool = True) -> PointsResult:
    """The character's time points, in story order (see the module docstring)."""
    own = [s for s in scenes if s.id in set(member.scenes)]
    result = PointsResult(points=structural_points(member, scenes))
    chosen: list[PlannedPoint] = []
    if count > 0 and len(own) > 1:
        try:
            reply = await ask_structured(model, prompts, "canon_time_points", ChosenPoints, json_mode=json_mode,
                                         work_title=work_title, character=member.name, count=count,
                                         scenes=[{"position": s.id, "summary": s.summary or "(no summary)"} for s in own])
            valid = {s.id for s in own}
            for p in reply.time_points[:count]:
                pos = p.position.strip()
                if pos in valid:
                    chosen.append(PlannedPoint(pos, p.label.strip() or f"after scene {pos}", "helper"))
                else:
                    result.rejected.append(pos)
        except IncanonError as exc:
            result.failed = str(exc)
            chosen = _even(member, count)
    seen: set[str] = set()
    merged: list[PlannedPoint] = []
    keys = sorted(Position.parse(s.id).key for s in scenes)
    for p in sorted([*chosen, *result.points], key=lambda p: Position.parse(p.position).key):
        if p.position in seen:
            continue
        seen.add(p.position)
        here = Position.parse(p.position).key
        if merged and not any(Position.parse(merged[-1].position).key < k <= here for k in keys):
            # Nothing happens between the two (a chosen scene that ends a book): one time point,
            # at the later position, with both labels.
            merged[-1] = PlannedPoint(p.position, f"{merged[-1].label} ({p.label})", p.origin)
            continue
        merged.append(p)
    result.points = merged
    return result


__all__ = ["ChosenPoint", "ChosenPoints", "PlannedPoint", "PointsResult", "plan_points", "structural_points"]
