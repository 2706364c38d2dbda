"""Who perceives what in each scene of a built book: the narrator, and the units the default cut
cannot see (``incanon.canon.perception``).

The default cut knows quoted speech (heard by those present) and narration (the narrator's alone
in a first-person book, seen by those present in a third-person one). What it cannot know, the
helper is asked per scene (``canon_perception``), quoting each passage exactly:

* a named character's unspoken thought or feeling in third-person narration (``thought``);
* in a first-person book, what the narrator does or shows in view of the others (``action``);
* a letter or other writing: its writer, its readers and the scene where they read it (``document``);
* narration that no one present could perceive (a recollection, a summary: ``narration``).

Answers are cached like every helper step; a passage that is not in the scene, or a name that is
no one of the cast, is left out and counted, never guessed.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel

from incanon.canon.perception import MODES, StatedUnit, Unit, likely_narrator, narration_person, place_units, view
from incanon.canon.position import Position
from incanon.canon.world import Chunk, ChunkUnit
from incanon.canonbuild.cast import Cast
from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.errors import IncanonError
from incanon.llmout.structured import ask_structured
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary

PERCEPTION_PARAMS = GenerationParams(max_tokens=700)
#: A narrator chosen by presence must be at this share of the scenes that list anyone.
NARRATOR_SHARE = 0.5


class UnitAnswer(BaseModel):
    """One passage in the helper's reply to ``canon_perception``."""

    text: str
    mode: str
    by: str | None = None
    known_by: list[str] = []
    read_in: str | None = None


class PerceptionAnswer(BaseModel):
    """The helper's reply to ``canon_perception``."""

    units: list[UnitAnswer] = []


@dataclass
class PerceptionResult:
    """The narrator and each scene's stated units (placed in the scene's text)."""

    narrator: str | None = None
    narrator_reason: str = ""
    units: dict[str, list[Unit]] = field(default_factory=dict)
    """Scene id → its units, stated and default, in text order."""
    asked: int = 0
    failed: int = 0
    dropped: int = 0
    """Passages left out: not in the scene's text, an unknown mode or name."""
    problems: list[str] = field(default_factory=list)

    def perceived(self, scene: ExtractedScene, name: str) -> str:
        """The text of ``scene`` that ``name`` (present there) perceived."""
        units = self.units.get(scene.id)
        if units is None:
            return scene.text
        return view(scene.text, units, name, Position.parse(scene.id).key, True)


def choose_narrator(scenes: list[ExtractedScene], cast: Cast, wanted: str | None) -> tuple[str | None, str]:
    """The first-person narrator of the book, and why: ``wanted`` (``--narrator``) when given;
    else, when the narration is told in the first person, the character present in the most
    scenes (a narrator is at every scene it tells as lived)."""
    if wanted:
        owner = cast.owner(wanted)
        if owner is None:
            raise IncanonError(f"--narrator {wanted!r} is no character of the book (found: "
                               f"{', '.join(m.name for m in cast.members[:12])})")
        return owner.name, "named by --narrator"
    if narration_person(s.text for s in scenes) != "first":
        return None, "narration in the third person"
    listed = [s for s in scenes if s.participants]
    present = [[o.name for n in s.participants if (o := cast.owner(n)) is not None] for s in listed]
    counts = Counter(n for p in present for n in dict.fromkeys(p))
    if not counts:
        return None, "first-person narration, but no scene lists anyone present"
    name = likely_narrator([s.text for s in scenes], present, NARRATOR_SHARE, {m.name: m.names for m in cast.members})
    if name is None:
        top, n = counts.most_common(1)[0]
        return None, (f"first-person narration, but no one is present in half the scenes ({top}: {n} of "
                      f"{len(listed)}); name the narrator with --narrator")
    return name, (f"first-person narration; present in {counts[name]} of {len(listed)} scenes, the one the "
                  "narration names least")


_SPACES = re.compile(r"\s+")


def _find(text: str, passage: str, start: int) -> tuple[int, int] | None:
    """Where ``passage`` is in ``text`` from ``start`` (white space may differ), or None."""
    at = text.find(passage, start)
    if at >= 0:
        return at, at + len(passage)
    words = passage.split()
    if not words:
        return None
    m = re.compile(r"\s+".join(re.escape(w) for w in words)).search(text, start)
    return (m.start(), m.end()) if m else None


def _stated(scene: ExtractedScene, answer: PerceptionAnswer, cast: Cast, known_scenes: set[str],
            result: PerceptionResult) -> list[StatedUnit]:
    def who(name: str | None) -> str | None:
        owner = cast.owner(name) if name else None
        return owner.name if owner is not None else None

    found: list[tuple[int, StatedUnit]] = []
    for u in answer.units:
        where = _find(scene.text, u.text.strip(), 0) if u.text.strip() else None
        by = who(u.by)
        known = tuple(dict.fromkeys(n for k in u.known_by if (n := who(k)) is not None))
        if (where is None or u.mode not in MODES or (u.mode == "thought" and by is None)
                or (u.mode == "document" and by is None and not known)):
            result.dropped += 1
            continue
        start = Position.parse(u.read_in).key if u.read_in in known_scenes else None
        audience = "present" if u.mode == "action" else "private" if u.mode == "narration" else None
        found.append((where[0], StatedUnit(scene.text[where[0]:where[1]], u.mode, audience, by, known, start)))
    found.sort(key=lambda p: p[0])
    ordered: list[StatedUnit] = []
    end = -1
    for at, st in found:  # overlapping passages: the first one stands
        if at >= end:
            ordered.append(st)
            end = at + len(st.text)
        else:
            result.dropped += 1
    return ordered


async def label_scenes(scenes: list[ExtractedScene], cast: Cast, narrator: str | None, work_title: str,
                       model: ChatModel, prompts: PromptLibrary, *, concurrency: int = 4,
                       json_mode: bool = True, on_done: Callable[[int], None] = lambda _: None) -> PerceptionResult:
    """Ask the helper, per scene with anyone present, for the units the default cut cannot see."""
    result = PerceptionResult(narrator=narrator)
    known_scenes = {s.id for s in scenes}
    todo = [s for s in scenes if s.participants and s.text.strip()]
    gate = asyncio.Semaphore(max(1, concurrency))
    done = 0
    stopped: list[str] = []

    async def one(scene: ExtractedScene) -> None:
        nonlocal done
        present = [o.name for n in scene.participants if (o := cast.owner(n)) is not None]
        async with gate:
            if stopped:
                return  # another scene's call was killed: ask nothing more
            try:
                answer = await ask_structured(
                    model, prompts, "canon_perception", PerceptionAnswer, params=PERCEPTION_PARAMS,
                    json_mode=json_mode, work_title=work_title, narrator=narrator or "", present=present,
                    text=scene.text)
            except IncanonError as exc:
                result.failed += 1
                result.problems.append(f"scene {scene.id}: {str(exc)[:200]}")
                answer = None
            except BaseException:
                stopped.append(scene.id)
                raise
        stated = _stated(scene, answer, cast, known_scenes, result) if answer is not None else []
        units, missing = place_units(scene.text, stated, narrator)
        result.units[scene.id] = units
        result.asked += 1
        done += 1
        on_done(done)

    tasks = [asyncio.ensure_future(one(s)) for s in todo]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:  # a kill or a crash stops the other scenes' calls too
            t.cancel()
        raise
    for s in scenes:  # scenes not asked: the default cut
        result.units.setdefault(s.id, place_units(s.text, [], narrator)[0])
    return result


def chunk_units(chunks: Iterable[Chunk], scenes: dict[str, ExtractedScene], result: PerceptionResult) -> list[Chunk]:
    """``chunks`` with the stated units of their scenes, each cut to the chunk it falls in."""
    out: list[Chunk] = []
    cursor: dict[str, int] = {}
    for chunk in chunks:
        scene = scenes.get(chunk.scene or "")
        units = [u for u in result.units.get(chunk.scene or "", []) if u.given]
        if scene is None or not units:
            out.append(chunk)
            continue
        at = scene.text.find(chunk.text, cursor.get(scene.id, 0))
        if at < 0:
            out.append(chunk)
            continue
        cursor[scene.id] = at + 1
        lo, hi = at, at + len(chunk.text)
        stated = []
        for u in units:
            a, b = max(u.start, lo), min(u.end, hi)
            if a < b and scene.text[a:b].strip():
                stated.append(ChunkUnit.model_validate({
                    "text": scene.text[a:b], "mode": u.mode, "by": u.by, "audience": u.audience,
                    "known_by": list(u.known_by),
                    "from": None if u.from_key is None else str(Position.from_key(Position.parse(scene.id).axis,
                                                                                  u.from_key))}))
        out.append(chunk.model_copy(update={"units": stated}) if stated else chunk)
    return out


__all__ = ["PERCEPTION_PARAMS", "PerceptionAnswer", "PerceptionResult", "UnitAnswer", "choose_narrator",
           "chunk_units", "label_scenes"]
