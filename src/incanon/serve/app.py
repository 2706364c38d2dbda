"""The web app: a JSON API over the chat and the run store, and the page that uses it.

``create_app(config)`` returns an ASGI app (FastAPI); ``incanon serve`` runs it with uvicorn.
Errors come back as ``{"error": "..."}`` with 404 for unknown things and 400 for bad input,
the same one-line messages the CLI prints.

Nothing blocking runs on the event loop: a chat session lives on a thread of its own (its canon
store connection is bound to that thread), model calls run on the model thread, a work's first
embedding is a background job (``GET /api/status`` shows it), and canon and run-store reads are
plain functions that FastAPI runs in its thread pool. See :mod:`incanon.serve.hosting`.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any, AsyncIterator

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from incanon import __version__
from incanon.agents import DEFAULT_METHOD, agent_descriptions
from incanon.canon.position import Position
from incanon.canon.schema import DB_NAME
from incanon.canon.store import CanonStore
from incanon.chat import Outcome
from incanon.errors import IncanonError, InputError, NotFoundError
from incanon.keptrows import DamagedRow
from incanon.models.types import ChatModel
from incanon.printable import safe_message
from incanon.serve.chats import ChatRegistry
from incanon.serve.config import ServeConfig
from incanon.serve.characters import CharacterServer
from incanon.serve.guard import RequestGuard, allowed_hosts
from incanon.serve.hosting import SharedModel
from incanon.serve.indexing import IndexJobs
from incanon.serve.limits import ClientLimits
from incanon.serve.openai_routes import character_router
from incanon.serve.reader import READER_PARAM, ViewOf, parse_reader, visible_characters
from incanon.serve.reader_chats import chat_target, past_reader, reader_line
from incanon.serve.runsview import RunsView, overview_json
from incanon.serve.scene_routes import scene_router
from incanon.serve.samples import SampleQuery
from incanon.serve.timeline import timeline


#: ``?reader_at=POS`` on the routes that show or move story: how far the person has read.
READER_QUERY = Query(None, max_length=64, description="How far the person has read: a story position (1-3, "
                     "1-3-2, 2024-03-07); nothing after it is shown, no chat goes past it. Default: the "
                     "server's --reader-at.")


class NewChat(BaseModel):
    """``POST /api/chats``."""

    character: str = Field(min_length=1)
    at: str = Field(min_length=1)
    method: str = DEFAULT_METHOD
    work: str | None = None


class ChatLine(BaseModel):
    """``POST /api/chats/{id}/say``: a line to say, or a slash command (``/at 2-4``, ``/why``)."""

    line: str = Field(min_length=1, max_length=4000)


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "kind": outcome.kind, "message": outcome.message,
        "turn": outcome.turn.model_dump(mode="json") if outcome.turn else None,
        "evidence": outcome.evidence.model_dump(mode="json") if outcome.evidence else None,
        "scope": outcome.scope, "data": outcome.data,
    }


#: The API's OpenAPI description (there is no docs page: see ``create_app``).
OPENAPI_URL = "/api/openapi.json"

#: SQLite integers are 64-bit; larger query numbers are a 422, not an overflow deep in a read.
_MAX_INT = 2**63 - 1


def _static() -> Any:
    return resources.files("incanon.serve") / "static"


def _chat_store(config: ServeConfig) -> Any:
    """The chat store ``config.chats`` names (None: chats in memory only)."""
    from incanon.serve.chat_store import ChatStore

    if config.chats is False:
        return None
    if config.chats is True:
        from incanon.paths import home

        return ChatStore(home() / "chats.sqlite")
    return ChatStore(Path(config.chats))


def create_app(config: ServeConfig, *, model: ChatModel | None = None) -> FastAPI:
    """The web app over ``config``'s canon store and run store. ``model``: a ready chat model
    (tests pass a scripted one); by default ``config.model`` is loaded on the first chat."""
    shared = SharedModel(config, model)
    jobs = IndexJobs(config)
    chats = ChatRegistry(config, shared, jobs, _chat_store(config))
    runs = RunsView(config.runs)
    characters = CharacterServer(config, shared, jobs)
    scenes_routes, scenes = scene_router(config, shared, jobs)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        jobs.close()
        chats.close_all()
        scenes.close_all()
        if chats.store is not None:
            chats.store.close()
        characters.close()
        shared.close()
        runs.close()

    # No Swagger UI or ReDoc page: FastAPI loads their scripts from a CDN, so offline (and on
    # any machine that cannot reach it) the page was a script error. The description stays.
    app = FastAPI(title="incanon", version=__version__, lifespan=lifespan, docs_url=None,
                  openapi_url=OPENAPI_URL, redoc_url=None)
    app.state.chats = chats
    app.state.runs = runs
    app.state.characters = characters
    app.state.jobs = jobs
    limits = ClientLimits(config.client_concurrency, config.client_queue)
    app.include_router(character_router(config, characters, limits))
    app.include_router(scenes_routes)
    app.add_middleware(RequestGuard, hosts=allowed_hosts(config.host, config.allow_hosts), max_body=config.max_body)

    @app.exception_handler(IncanonError)
    async def _incanon_error(_: Request, exc: IncanonError) -> JSONResponse:
        # Messages quote what they refuse: only as short escaped excerpts (a 100,000-character
        # name must not come back whole, a control character never raw).
        status = 404 if isinstance(exc, NotFoundError) else 409 if isinstance(exc, DamagedRow) else 400
        return JSONResponse({"error": safe_message(str(exc))}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's default reply echoes the whole input back; name the fields and stop there.
        problems = []
        for error in exc.errors()[:5]:
            where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
            problems.append(f"{where or 'body'}: {error.get('msg', 'invalid')}")
        return JSONResponse({"error": safe_message("; ".join(problems) or "invalid request")}, status_code=422)

    # -- the page -----------------------------------------------------------------------------
    static = _static()
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(static / "index.html"), headers={"Cache-Control": "no-cache"})

    @app.get("/api/docs", include_in_schema=False)
    @app.get("/docs", include_in_schema=False)
    @app.get("/redoc", include_in_schema=False)
    def no_docs_page() -> JSONResponse:
        return JSONResponse({"error": f"no API docs page here: the OpenAPI description is at {OPENAPI_URL} "
                                      "(open it in any OpenAPI viewer)"}, status_code=404)

    # -- about --------------------------------------------------------------------------------
    @app.get("/api/info")
    def info() -> dict[str, Any]:
        """Version, what the app serves and with which model."""
        return {"version": __version__, "canon": str(config.canon), "runs": str(config.runs),
                "model": config.model_label, "embedder": config.embedder}

    @app.get("/api/status")
    async def status() -> dict[str, Any]:
        """Background work in progress or done: each work's first embedding for retrieval
        (``state`` embedding / ready / failed, chunks ``done`` of ``total``, ``seconds``), and
        the ``/v1`` chat requests running and waiting their turn."""
        return {"embedding": jobs.status(), "chat_requests": limits.totals()}

    @app.get("/api/methods")
    def methods() -> list[dict[str, str]]:
        """The chat's role-play methods, with what each does."""
        described = agent_descriptions()
        return [{"name": m, "description": described.get(m, "")} for m in config.methods if m in described]

    # -- canon --------------------------------------------------------------------------------
    @app.get("/api/works")
    def works(reader_at: str | None = READER_QUERY) -> list[dict[str, Any]]:
        """The works of the canon store, with the characters a reader at ``reader_at`` (else the
        server's reader position) is shown: those first seen by then (every one without)."""
        if not (config.canon / DB_NAME).is_file():  # opening a plain folder would create an empty store
            raise NotFoundError(f"no canon store at {config.canon} (create one with `incanon canon import`)")
        views = ViewOf(config.reader_at, reader_at, spoilers=config.spoilers, field=READER_PARAM)
        with CanonStore.open(config.canon) as store:
            found = []
            for w in store.works():
                view = views.maybe(w)
                shown = visible_characters(store, w.id, view) if view is not None else []
                found.append({"id": w.id, "title": w.title, "author": w.author, "axis": w.axis.value,
                              "characters": [c.name for c in shown]})
            return found

    @app.get("/api/works/{work}/timeline")
    def work_timeline(work: str, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """The slider's stops: scenes and characters' time points in story order, as a reader at
        ``reader_at`` (at or before the server's ``--reader-at`` unless ``--spoilers``; default
        the server's) may see them: nothing after that position is sent."""
        views = ViewOf(config.reader_at, reader_at, spoilers=config.spoilers, field=READER_PARAM)
        with CanonStore.open(config.canon) as store:
            info = store.work(work)
            cap = parse_reader(config.reader_at, "--reader-at") if config.reader_at else None
            return timeline(store, work, views(info), cap=cap if cap is not None and cap.axis is info.axis else None)

    # -- chat ---------------------------------------------------------------------------------
    @app.post("/api/chats", status_code=201)
    async def new_chat(body: NewChat, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """Start a chat with a character at a point in the story (at or before the reader's
        position, when one applies)."""
        work, character, at = await asyncio.to_thread(chat_target, config, body.work, body.character, body.at,
                                                      reader_at)
        chat = await chats.open(character=character, at=at, method=body.method, work=work)
        return await chats.state(chat.id)

    @app.get("/api/chats")
    async def list_chats(reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """The kept chats, most recently used first (those standing at or before the reader's
        position, when one applies): each reopens where it was. ``damaged``: ids of kept chats
        that cannot be read back (left out; ``GET`` names the damage, ``DELETE`` forgets one)."""
        kept = await asyncio.to_thread(chats.saved)
        damaged = await asyncio.to_thread(chats.store.damaged) if chats.store is not None else []
        shown = []
        for c in kept:
            try:
                past = await asyncio.to_thread(past_reader, config, c["work"], Position.parse(c["at"]), reader_at)
            except IncanonError:
                continue  # its work is gone from the store: nothing to reopen
            if past is None:
                shown.append(c)
        return {"chats": shown, "hidden": len(kept) - len(shown), "damaged": damaged}

    async def refuse_past(chat_id: str, reader_at: str | None) -> None:
        session = (await chats.ensure(chat_id)).session
        why = await asyncio.to_thread(past_reader, config, session.work, session.who.position, reader_at)
        if why is not None:
            raise InputError(why)

    @app.get("/api/chats/{chat_id}")
    async def get_chat(chat_id: str, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """A chat's state: who, when, the scope in force and every turn with its evidence."""
        await refuse_past(chat_id, reader_at)
        return await chats.state(chat_id)

    @app.post("/api/chats/{chat_id}/say")
    async def say(chat_id: str, body: ChatLine, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """Say a line (or run ``/at``, ``/method``, ``/why``, ``/help``); returns what happened
        and the chat's new state. With a reader position, ``/at`` moves only up to it and a chat
        standing past it answers nothing else (an ``error`` outcome says so)."""
        session = (await chats.ensure(chat_id)).session
        line, refused = await asyncio.to_thread(reader_line, config, session.work, session.who.character,
                                                session.who.position, body.line, reader_at)
        outcome = Outcome("error", safe_message(refused)) if refused else await chats.say(chat_id, line)
        return {"outcome": _outcome_json(outcome), "chat": await chats.state(chat_id)}

    @app.post("/api/chats/{chat_id}/regenerate")
    async def regenerate(chat_id: str, reader_at: str | None = READER_QUERY) -> dict[str, Any]:
        """Answer the last line again: the last reply is replaced (the model does not see it);
        returns the new reply and the chat's new state."""
        await refuse_past(chat_id, reader_at)
        outcome = await chats.regenerate(chat_id)
        return {"outcome": _outcome_json(outcome), "chat": await chats.state(chat_id)}

    @app.get("/api/chats/{chat_id}/transcript")
    async def transcript(chat_id: str) -> Response:
        """The conversation and each reply's evidence (``incanon-chat/1`` JSON), as a download."""
        session = (await chats.ensure(chat_id)).session
        name = "".join(ch if ch.isalnum() else "-" for ch in session.who.character.lower()).strip("-")
        return Response(session.transcript.model_dump_json(indent=2), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="incanon-chat-{name}.json"'})

    @app.delete("/api/chats/{chat_id}", status_code=204)
    async def close_chat(chat_id: str) -> Response:
        """Close a chat and forget it."""
        chats.close(chat_id)
        return Response(status_code=204)

    # -- runs ---------------------------------------------------------------------------------
    @app.get("/api/runs")
    def list_runs(benchmark: str | None = None, model: str | None = None, method: str | None = None) -> dict[str, Any]:
        """Runs of the run store, newest first, filtered by benchmark, model and method."""
        return runs.runs(benchmark=benchmark, model=model, method=method)

    @app.get("/api/runs/{run_id}")
    def get_run(run_id: str) -> dict[str, Any]:
        """One run's overview: configuration, progress, usage and scores."""
        return overview_json(runs.overview(run_id))

    @app.get("/api/runs/{run_id}/samples")
    def list_samples(run_id: str, status: str | None = None, type: str | None = None,
                     q: str | None = None, offset: int = Query(0, ge=0, le=_MAX_INT),
                     limit: int = Query(100, ge=1, le=1000)) -> dict[str, Any]:
        """A page of the run's samples, filtered by status, type and text."""
        return runs.samples(run_id, SampleQuery(status=status or None, type=type or None, text=q or None,
                                                offset=offset, limit=limit))

    @app.get("/api/runs/{run_id}/sample")
    def get_sample(run_id: str, item: str, epoch: int = Query(0, ge=0, le=_MAX_INT)) -> dict[str, Any]:
        """One sample, whole: input, answer, scores, rationales, calls, usage."""
        return runs.sample(run_id, item, epoch)

    # -- replies of the OpenAI-compatible endpoint ----------------------------------------------
    @app.get("/api/completions")
    def list_completions() -> list[dict[str, Any]]:
        """The latest replies of ``/v1/chat/completions`` (newest first), without evidence."""
        return [{"id": r.id, "model": r.model, "character": r.character, "at": r.at, "method": r.method,
                 "created": r.created, "text": r.text[:200]} for r in reversed(characters.replies.values())]

    @app.get("/api/completions/{completion_id}")
    def get_completion(completion_id: str) -> dict[str, Any]:
        """One ``/v1/chat/completions`` reply with its scope and evidence."""
        reply = characters.replies.get(completion_id)
        if reply is None:
            raise NotFoundError(f"no recent reply {completion_id!r} (the app keeps the last {characters.keep_replies})")
        return {"id": reply.id, "model": reply.model, "text": reply.text, "created": reply.created, **reply.incanon()}

    @app.get("/api/report")
    def report(run: list[str] = Query(default=[])) -> dict[str, Any]:
        """The report of the runs (paper-layout tables, charts as PNG data URIs)."""
        return runs.report(run)

    return app
