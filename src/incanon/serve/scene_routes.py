"""The web app's scenes under ``/api/scenes``: two to four characters at one point of the story,
each answering from its own scope (:mod:`incanon.scenes`).

The reader's position (``?reader_at=``, else the server's ``--reader-at``) holds as for chats: a
scene starts, moves and answers only at or before it; its characters and its setting must be
ones a reader there has met (errors name nothing after it), and kept scenes past it are not
listed. A line said after the reader's position (a scene moved back keeps the lines said later)
is not shown to that reader, as its characters do not hear it there. Without a reader position,
anything goes, as for chats.

* ``POST /api/scenes`` ``{work?, characters, at?, setting?, order?, method?}``: a new scene;
* ``GET /api/scenes``: the kept scenes; ``GET /api/scenes/{id}``: one, whole;
* ``POST /api/scenes/{id}/say`` ``{line}``: a line of the scene protocol (narration, ``/as``,
  ``/to``, ``/next``, ``/at``, ``/why`` ...); returns the outcome and the scene;
* ``GET /api/scenes/{id}/transcript``: the scene as ``incanon-scene/1`` JSON (a download);
* ``DELETE /api/scenes/{id}``: close and forget it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from incanon.agents import DEFAULT_METHOD
from incanon.canon.names import listing
from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import IncanonError, InputError, NotFoundError
from incanon.printable import safe_message
from incanon.scenes import MAX_CAST, Outcome
from incanon.serve.config import ServeConfig
from incanon.serve.hosting import SharedModel
from incanon.serve.indexing import IndexJobs
from incanon.serve.reader import READER_PARAM, ReaderView, ViewOf, choose_work, find_character, resolve_at
from incanon.serve.reader_chats import past_reader
from incanon.serve.scene_host import SceneRegistry, scenes_store

READER_QUERY = Query(None, max_length=64, description="How far the person has read (a story position): the scene "
                     "stays at or before it. Default: the server's --reader-at.")


class NewScene(BaseModel):
    """``POST /api/scenes``."""

    characters: list[str] = Field(default_factory=list, max_length=MAX_CAST)
    at: str | None = Field(default=None, min_length=1, max_length=200)
    setting: str | None = Field(default=None, min_length=1, max_length=200)
    order: str = "nsp"
    method: str = DEFAULT_METHOD
    work: str | None = None


class SceneLineIn(BaseModel):
    """``POST /api/scenes/{id}/say``."""

    line: str = Field(min_length=1, max_length=4000)


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """An outcome as the app receives it."""
    data = dict(outcome.data)
    if data.get("line") is not None:
        data["line"] = data["line"].model_dump(mode="json")
    return {"kind": outcome.kind, "message": outcome.message,
            "lines": [line.model_dump(mode="json") for line in outcome.lines], "data": data}


# -- the reader's position --------------------------------------------------------------------------
def _view(config: ServeConfig, store: CanonStore, work: str, reader_at: str | None) -> ReaderView | None:
    if reader_at is None and config.reader_at is None:
        return None
    view = ViewOf(config.reader_at, reader_at, spoilers=config.spoilers, field=READER_PARAM)(store.work(work))
    return view if view.at is not None else None


def _resolve_at(store: CanonStore, work: str, names: list[str], at: str, view: ReaderView) -> Position:
    """``at`` at or before the reader: a position, or a label of a time point of one of the cast
    that the reader has reached."""
    records = [store.character(work, n) for n in names]
    error: IncanonError | None = None
    for record in records:
        try:
            return resolve_at(store, work, record, at, view)
        except NotFoundError as exc:  # a label of another member, maybe
            error = exc
    raise error or NotFoundError("unknown story position")


def _setting(store: CanonStore, work: str, setting: str, view: ReaderView) -> str:
    shown = [s for s in store.scenes(work) if view.shows(s.position)]
    if setting not in {s.id for s in shown}:
        raise NotFoundError(f"unknown scene {setting!r} for a reader at {view.at} "
                            f"(scenes there: {listing(s.id for s in shown)})")
    return setting


def scene_target(config: ServeConfig, body: NewScene, reader_at: str | None) -> dict[str, Any]:
    """The new scene's arguments as a reader at ``reader_at`` may ask for them: characters by
    names known there, position and setting at or before there."""
    wanted = dict(work=body.work, characters=list(body.characters), at=body.at, setting=body.setting,
                  order=body.order, method=body.method)
    if reader_at is None and config.reader_at is None:
        return wanted
    views = ViewOf(config.reader_at, reader_at, spoilers=config.spoilers, field=READER_PARAM)
    with CanonStore.open(config.canon) as store:
        found, view = choose_work(store, body.work, body.characters[0] if body.characters else "", views)
        if view.at is None:
            return wanted
        work = found.id
        names = [find_character(store, work, n, view).name for n in body.characters]
        setting = _setting(store, work, body.setting, view) if body.setting else None
        if not names and setting:
            names = list(store.scene(work, setting).participants)
        at = str(_resolve_at(store, work, names, body.at, view)) if body.at else None
        return {**wanted, "work": work, "characters": names, "at": at, "setting": setting}


def shown_lines(config: ServeConfig, work: str, lines: list[dict[str, Any]],
                reader_at: str | None) -> list[dict[str, Any]]:
    """The ``lines`` of a scene of ``work`` a reader at ``reader_at`` is shown: those said at or
    before the reader's position (a scene moved back keeps the lines said later, and its
    characters do not hear them there; nor is the reader shown them)."""
    with CanonStore.open(config.canon) as store:
        view = _view(config, store, work, reader_at)
    if view is None:
        return lines
    return [line for line in lines if view.shows(Position.parse(line["at"]))]


def scene_line(config: ServeConfig, state: dict[str, Any], line: str, reader_at: str | None) -> tuple[str, str | None]:
    """``(line, error)`` for a scene line said by a reader at ``reader_at``: ``/at X`` resolved at
    or before the reader (the line rewritten to the position), ``/enter NAME`` only for someone
    the reader has met, anything else only while the scene stands at or before the reader."""
    work, position = state["work"], Position.parse(state["at"])
    with CanonStore.open(config.canon) as store:
        view = _view(config, store, work, reader_at)
        if view is None:
            return line, None
        command, _, arg = line.strip().partition(" ")
        command = command.lower()
        try:
            if command == "/at" and arg.strip():
                return f"/at {_resolve_at(store, work, state['characters'], arg.strip(), view)}", None
            if not view.shows(position):
                return line, (f"this scene stands past how far you have read ({view.at}): move it to {view.at} "
                              "or before (the slider, or /at), or start a new scene")
            if command == "/enter" and arg.strip():
                return f"/enter {find_character(store, work, arg.strip(), view).name}", None
        except IncanonError as exc:
            return line, str(exc)
    return line, None


# -- routes -----------------------------------------------------------------------------------------
def scene_router(config: ServeConfig, shared: SharedModel, jobs: IndexJobs) -> tuple[APIRouter, SceneRegistry]:
    """The ``/api/scenes`` routes and the registry behind them (close it on shutdown)."""
    scenes = SceneRegistry(config, shared, jobs, scenes_store(config))
    router = APIRouter(prefix="/api/scenes")

    async def for_reader(state: dict[str, Any], reader_at: str | None) -> dict[str, Any]:
        lines = await asyncio.to_thread(shown_lines, config, state["work"], state["lines"], reader_at)
        return state if len(lines) == len(state["lines"]) else {**state, "lines": lines}

    async def refuse_past(scene_id: str, reader_at: str | None) -> dict[str, Any]:
        state = await scenes.state(scene_id)
        why = await asyncio.to_thread(past_reader, config, state["work"], Position.parse(state["at"]), reader_at)
        if why is not None:
            raise InputError(why.replace("this chat", "this scene").replace("new chat", "new scene"))
        return await for_reader(state, reader_at)

    @router.post("", status_code=201)
    async def new_scene(body: NewScene, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """Start a scene (at or before the reader's position, when one applies)."""
        if not body.characters and not body.setting:
            raise InputError("a scene needs its characters (two to four) or a setting scene")
        wanted = await asyncio.to_thread(scene_target, config, body, reader_at)
        scene = await scenes.open(**wanted)
        return await scenes.state(scene.id)

    @router.get("")
    async def list_scenes(reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """The kept scenes standing at or before the reader's position, most recent first.
        ``damaged``: ids of kept scenes that cannot be read back (left out)."""
        kept = await asyncio.to_thread(scenes.kept)
        damaged = await asyncio.to_thread(scenes.store.damaged) if scenes.store is not None else []
        shown = []
        for s in kept:
            try:
                past = await asyncio.to_thread(past_reader, config, s["work"], Position.parse(s["at"]), reader_at)
            except IncanonError:
                continue  # its work is gone from the store
            if past is None:
                shown.append(s)
        return {"scenes": shown, "hidden": len(kept) - len(shown), "damaged": damaged}

    @router.get("/{scene_id}")
    async def get_scene(scene_id: str, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """A scene, whole: cast, position, each present character's scope, every line."""
        return await refuse_past(scene_id, reader_at)

    @router.post("/{scene_id}/say")
    async def say(scene_id: str, body: SceneLineIn, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """Run a line of the scene (see :mod:`incanon.scenes.commands`); returns what happened and
        the scene's new state."""
        state = await scenes.state(scene_id)
        line, refused = await asyncio.to_thread(scene_line, config, state, body.line, reader_at)
        outcome = Outcome("error", safe_message(refused)) if refused else await scenes.say(scene_id, line)
        return {"outcome": outcome_json(outcome), "scene": await for_reader(await scenes.state(scene_id), reader_at)}

    @router.get("/{scene_id}/transcript")
    async def transcript(scene_id: str, reader_at: str | None = READER_QUERY) -> Response:
        """The scene (``incanon-scene/1`` JSON), as a download."""
        await refuse_past(scene_id, reader_at)
        scene = await scenes.ensure(scene_id)
        data = await scene.call(lambda s: s.scene.model_dump(mode="json"))
        data["lines"] = await asyncio.to_thread(shown_lines, config, data["work"], data["lines"], reader_at)
        text = json.dumps(data, indent=2, ensure_ascii=False)
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="incanon-scene-{scene_id}.json"'})

    @router.delete("/{scene_id}", status_code=204)
    async def close_scene(scene_id: str) -> Response:
        """Close a scene and forget it."""
        scenes.close(scene_id)
        return Response(status_code=204)

    return router, scenes
