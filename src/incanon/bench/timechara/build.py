"""Build TimeChara items from any canon store (the paper's pipeline, §3.4 and Appendix D).

    scenes with dialogue ─► event summary + participants (helper LLM)
        ─► questions: structured (templates), free-form 5W1H (LLM), fake event → fake question (LLM)
        ─► characters × time points → data types (from canon positions and participants only)
        ─► spatiotemporal + personality labels ─► gold responses, regenerated while a judge
           finds them inconsistent with their labels (bounded; failures recorded)

Every step that can fail for one scene (an unreadable helper reply) is recorded in the report
and drops only what depends on it; the build goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections import Counter
from dataclasses import dataclass
from typing import Awaitable, Callable, TypeVar

from pydantic import BaseModel, Field

from incanon.bench.timechara.assign import Assigner, SceneEvent, when_text
from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.steps import Helper
from incanon.canon.records import CharacterRecord, SceneRecord
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError, IncanonError, NotFoundError
from incanon.judges.spatiotemporal import SpatiotemporalJudge
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary, default_library

T = TypeVar("T")
_QUOTE = re.compile(r"[\"“”][^\"“”]{2,}[\"“”]")


@dataclass
class BuildOptions:
    """Settings of one build."""

    seed: int = 0
    """Seed of every random draw (templates, characters, time points)."""
    min_turns: int = 2
    """Scenes need at least this many spoken lines to become events."""
    gold_attempts: int = 3
    """Gold generations per item before it is recorded as inconsistent."""
    concurrency: int = 4
    """Helper calls in flight at once."""
    freeform: bool = True
    """Make fact-based free-form questions."""
    fake: bool = True
    """Make fake events and fake questions."""
    characters: list[str] | None = None
    """Main characters (names); default: every character with time points."""
    max_scene_chars: int = 6000
    """Scene text sent to the helper is cut to this length."""
    json_mode: bool = True
    """Ask backends for JSON output where they support it."""


class BuildFailure(BaseModel):
    """One step that failed for one scene or item."""

    step: str
    scene: str
    item: str | None = None
    error: str
    raw: str = ""


class BuildReport(BaseModel):
    """What a build did, and what it could not do."""

    work: str
    characters: list[str]
    scenes_total: int
    scenes_used: int = 0
    skipped: dict[str, str] = Field(default_factory=dict)
    """Scene id → why it made no event."""
    counts: dict[str, int] = Field(default_factory=dict)
    """``question_generation/data_type`` → items."""
    failures: list[BuildFailure] = Field(default_factory=list)
    gold_inconsistent: list[str] = Field(default_factory=list)
    """Items whose gold response still contradicted a label after every attempt."""
    participant_mismatches: dict[str, list[str]] = Field(default_factory=dict)
    """Scene id → names the helper listed that the canon does not (data types use the canon)."""
    participants_from_helper: dict[str, list[str]] = Field(default_factory=dict)
    """Scene id → participants the helper extracted for a scene the canon gave none (the paper's
    participant step); written back to the canon store and used for data types."""
    no_participants: list[str] = Field(default_factory=list)
    """Scenes with no participant list at all: no presence/absence item is made from them."""


@dataclass
class BuildResult:
    """The items and the report of one build."""

    items: list[TimeCharaItem]
    report: BuildReport


def scene_text(store: CanonStore, work: str, scene: SceneRecord, by_scene: dict[str, list[str]]) -> str:
    """The scene's raw text (its chunks), else its dialogue written out."""
    if by_scene.get(scene.id):
        return "\n".join(by_scene[scene.id])
    lines = []
    for m in store.messages(work, scene.id):
        parts = [f"({m.action})" if m.action else "", m.speech]
        body = " ".join(p for p in parts if p)
        if body:
            lines.append(body if m.speaker in ("Environment", "impersonal") else f"{m.speaker}: {body}")
    return "\n".join(lines)


def dialogue_turns(store: CanonStore, work: str, scene: SceneRecord, text: str) -> int:
    """Spoken lines of a scene: messages with speech, or quotations in its text."""
    spoken = sum(1 for m in store.messages(work, scene.id) if m.speech.strip())
    return spoken or len(_QUOTE.findall(text))


def main_characters(store: CanonStore, work: str, names: list[str] | None) -> list[CharacterRecord]:
    """The characters asked questions: ``names``, or every one with time points."""
    if names:
        return [store.character(work, name) for name in names]
    chosen = [c for c in store.characters(work) if c.time_points]
    if not chosen:
        raise NotFoundError(f"no character of work {work!r} has time points; add some to build items")
    return chosen


def _canonical(names: list[str], characters: list[CharacterRecord]) -> list[str]:
    """The helper's names, with main characters written as the canon names them (by name,
    alias, or a full name that contains the canon name)."""
    out: list[str] = []
    for name in (n.strip() for n in names if n and n.strip()):
        low = name.lower()
        for c in characters:
            forms = {c.name.lower(), *(a.lower() for a in c.aliases)}
            if low in forms or any(f in low.split() or low.startswith(f + " ") for f in forms):
                name = c.name
                break
        if name not in out:
            out.append(name)
    return out


def _store_participants(store: CanonStore, work: str, found: dict[str, list[str]]) -> None:
    """Write extracted participant lists into the canon store (one transaction). The store only
    holds characters it knows, so other names stay in the items' participant lists only."""
    world = store.export_world(work)
    known = {c.name for c in world.characters}
    scenes = []
    for s in world.scenes:
        if s.id in found:
            kept = [n for n in found[s.id] if n in known]
            s = s.model_copy(update={"participants": kept, "speakers": [x for x in s.speakers if x in kept]})
        scenes.append(s)
    store.import_world(world.model_copy(update={"scenes": scenes}), replace=True)


async def build_items(
    store: CanonStore,
    work: str,
    helper_model: ChatModel,
    *,
    judge_model: ChatModel | None = None,
    prompts: PromptLibrary | None = None,
    options: BuildOptions | None = None,
    check_gold: bool = True,
) -> BuildResult:
    """Build the items of ``work``. ``judge_model`` (default: the helper) checks gold responses;
    ``check_gold=False`` skips the check."""
    options = options or BuildOptions()
    if options.concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {options.concurrency}")
    prompts = prompts or default_library()
    info = store.work(work)
    characters = main_characters(store, work, options.characters)
    helper = Helper(helper_model, prompts, json_mode=options.json_mode)
    judge = SpatiotemporalJudge(judge_model or helper_model, prompts=prompts) if check_gold else None
    scenes = store.scenes(work)
    report = BuildReport(work=work, characters=[c.name for c in characters], scenes_total=len(scenes))
    gate = asyncio.Semaphore(options.concurrency)
    by_scene: dict[str, list[str]] = {}
    for chunk in store.chunks(work):
        if chunk.scene:
            by_scene.setdefault(chunk.scene, []).append(chunk.text)

    async def step(name: str, scene: str, make: Callable[[], Awaitable[T]], item: str | None = None) -> T | None:
        async with gate:
            try:
                return await make()
            except IncanonError as exc:  # unreadable output, a backend that gave up: record, go on
                report.failures.append(BuildFailure(step=name, scene=scene, item=item, error=str(exc),
                                                    raw=getattr(exc, "raw", "")))
                return None

    async def one_scene(scene: SceneRecord) -> SceneEvent | None:
        text = scene_text(store, work, scene, by_scene)
        turns = dialogue_turns(store, work, scene, text)
        if turns < options.min_turns:
            report.skipped[scene.id] = f"{turns} spoken lines (fewer than {options.min_turns})"
            return None
        text = text[: options.max_scene_chars]
        event = await step("event", scene.id, lambda: helper.event(
            work_title=info.title, position=str(scene.position), speakers=list(scene.speakers),
            known_characters=[c.name for c in characters], scene_text=text))
        if event is None:
            report.skipped[scene.id] = "the helper's event summary could not be read"
            return None
        in_canon = {c.lower() for c in scene.participants}
        unknown = [p for p in event.participants if p.lower() not in in_canon]
        if unknown and scene.participants:
            report.participant_mismatches[scene.id] = unknown
        if not scene.participants:
            # A scene without annotations (a raw book): the helper's list, as in the paper.
            named = _canonical(event.participants, characters)
            if named:
                report.participants_from_helper[scene.id] = named
                scene = dataclasses.replace(scene, participants=tuple(named))
            else:
                report.no_participants.append(scene.id)
        summary = event.event_summary
        freeform = fake = fake_qa = None
        if options.freeform:
            freeform = await step("freeform", scene.id, lambda: helper.freeform(
                work_title=info.title, position=str(scene.position), event_summary=summary))
        if options.fake:
            fake = await step("fake_event", scene.id, lambda: helper.fake_event(
                work_title=info.title, event_summary=summary))
            if fake is not None:
                fake_summary = fake.fake_event_summary
                fake_qa = await step("fake_question", scene.id, lambda: helper.fake_question(
                    work_title=info.title, event_summary=summary, fake_event_summary=fake_summary))
        return SceneEvent(scene, text, event, freeform, fake, fake_qa)

    events = [ev for ev in await asyncio.gather(*(one_scene(s) for s in scenes)) if ev is not None]
    report.scenes_used = len(events)
    report.no_participants.sort()
    if report.participants_from_helper:
        _store_participants(store, work, report.participants_from_helper)
    assigner = Assigner(work, info.title, characters, seed=options.seed)
    drafts = [item for ev in events for item in assigner.items(ev)]
    points = {(c.name, str(tp.position)): tp for c in characters for tp in c.time_points}

    async def gold(item: TimeCharaItem) -> TimeCharaItem:
        when = when_text(points[(item.character, item.character_position or "")])
        done = await step("gold", item.scene or "", lambda: helper.gold(
            item, work_title=info.title, when=when, judge=judge, attempts=options.gold_attempts), item=item.id)
        return done if done is not None else item

    items = list(await asyncio.gather(*(gold(d) for d in drafts)))
    items = [i for i in items if i.gold_response]
    report.gold_inconsistent = [i.id for i in items if i.gold_consistent is False]
    report.counts = dict(sorted(Counter(f"{i.question_generation}/{i.data_type}" for i in items).items()))
    return BuildResult(items, report)
