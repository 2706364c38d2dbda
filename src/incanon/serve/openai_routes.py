"""The OpenAI-compatible endpoints of ``incanon serve``: ``GET /v1/models``,
``GET /v1/models/{id}`` and ``POST /v1/chat/completions`` (streaming and not), over
:mod:`incanon.serve.characters`.

Errors come back in OpenAI's shape (``{"error": {"message", "type", "param", "code"}}``) so
clients show them, also for an unknown id or route under ``/v1``. With a token configured, every
``/v1`` request needs ``Authorization: Bearer <token>``. Each client (its token, else its address)
may have ``client_concurrency`` chat requests running and ``client_queue`` more waiting their turn
(:mod:`incanon.serve.limits`); only past the queue does a request get 429 with ``Retry-After``.
A chat whose client disconnects is stopped, streamed or not (:mod:`incanon.serve.disconnect`).
The request header ``X-Incanon-Reader-At: POS`` gives the reader's position (at or before the
server's ``--reader-at`` unless ``--spoilers``): the listing, one model and the chat show and
accept nothing after it (:mod:`incanon.serve.reader`).
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from incanon.errors import IncanonError, NotFoundError
from incanon.serve.characters import CharacterServer, completion_json
from incanon.printable import excerpt, safe_message
from incanon.serve.reader import READER_HEADER
from incanon.serve.requests import FieldError, read_body
from incanon.serve.config import ServeConfig
from incanon.serve.disconnect import ClientGone, unless_gone
from incanon.serve.hidden_model import without_model
from incanon.serve.limits import ClientLimits, QueueFull


def openai_error(status: int, message: str, kind: str, code: str | None = None,
                 headers: dict[str, str] | None = None, param: str | None = None) -> JSONResponse:
    """An error in the OpenAI wire format; ``param`` names the request field at fault. The
    message quotes the request only as short escaped excerpts (:func:`safe_message`)."""
    return JSONResponse({"error": {"message": safe_message(message), "type": kind,
                                   "param": None if param is None else safe_message(param, 100), "code": code}},
                        status_code=status, headers=headers)


def character_router(config: ServeConfig, characters: CharacterServer, limits: ClientLimits | None = None) -> APIRouter:
    """The ``/v1`` routes; ``limits``: the per-client limits (by default from ``config``)."""
    router = APIRouter(prefix="/v1")
    limits = limits or ClientLimits(config.client_concurrency, config.client_queue)

    def client_of(request: Request) -> str:
        auth = request.headers.get("authorization", "")
        return auth or (request.client.host if request.client else "?")

    def reader_of(request: Request) -> str | None:
        # The header when sent (an empty one is an error of its own, not "none").
        return request.headers.get(READER_HEADER)

    def refused(request: Request) -> JSONResponse | None:
        if config.token is None:
            return None
        auth = request.headers.get("authorization", "")
        given = auth[7:] if auth.lower().startswith("bearer ") else ""
        if not hmac.compare_digest(given.encode(), config.token.encode()):
            return openai_error(401, "missing or wrong bearer token", "invalid_request_error", "invalid_api_key")
        return None

    @router.get("/models")
    async def models(request: Request) -> Any:
        """Each character at each of its named time points, as OpenAI model entries."""
        if (denied := refused(request)) is not None:
            return denied
        try:
            return JSONResponse({"object": "list", "data": await characters.list_models(reader_of(request))})
        except IncanonError as exc:
            return openai_error(404 if isinstance(exc, NotFoundError) else 400, str(exc), "invalid_request_error",
                                param=exc.param if isinstance(exc, FieldError) else None)

    @router.post("/chat/completions")
    async def chat_completions(request: Request) -> Any:
        """A point-in-time character's reply to ``messages``; ``stream: true`` for SSE chunks.
        The response's extra ``incanon`` field holds the scope and evidence."""
        if (denied := refused(request)) is not None:
            return denied
        try:
            body = read_body(await request.body())
        except IncanonError as exc:
            return openai_error(400, str(exc), "invalid_request_error",
                                param=exc.param if isinstance(exc, FieldError) else None)
        client = client_of(request)
        try:
            await limits.acquire(client)  # waits its turn when the client's slots are taken
        except QueueFull:
            return openai_error(429, f"at most {config.client_concurrency} requests at once per client and "
                                     f"{config.client_queue} waiting", "rate_limit_error",
                                headers={"Retry-After": "1"})
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                limits.release(client)

        streaming = False  # a stream releases its slot when it ends, not when this returns
        try:
            prepared = await characters.prepare(body, reader_of(request))
            if body.get("stream"):
                async def events() -> AsyncIterator[str]:
                    try:
                        async for event in characters.stream(prepared):
                            yield event
                    finally:
                        release()

                streaming = True
                return StreamingResponse(events(), media_type="text/event-stream",
                                         headers={"Cache-Control": "no-cache"})
            # A JSONResponse as is: the reply is JSON data already, and FastAPI's encoder would
            # walk all of it (the evidence holds every call's prompt) once more for nothing.
            try:
                reply = await unless_gone(request.receive, characters.answer(prepared),
                                          f"/v1 chat with {prepared.model!r}")
            except ClientGone:
                return Response(status_code=499)  # nobody is there to read it (nginx's "client closed")
            return JSONResponse(completion_json(reply))
        except IncanonError as exc:
            status = 404 if isinstance(exc, NotFoundError) else 400
            return openai_error(status, without_model(str(exc), body.get("model"), config.methods), "invalid_request_error",
                                "model_not_found" if status == 404 else None,
                                param=exc.param if isinstance(exc, FieldError) else None)
        finally:
            if not streaming:
                release()

    @router.get("/models/{model_id:path}")
    async def model(model_id: str, request: Request) -> Any:
        """One entry of ``/v1/models`` by its id."""
        if (denied := refused(request)) is not None:
            return denied
        try:
            found = await characters.find_model(model_id, reader_of(request))
        except IncanonError as exc:  # the reader position itself is wrong
            return openai_error(400, str(exc), "invalid_request_error",
                                param=exc.param if isinstance(exc, FieldError) else None)
        if found is None:
            # One answer for unknown and not-yet-read: telling them apart would tell what is later.
            return openai_error(404, "The model (the requested model) does not exist or is past the reader's "
                                     "position; GET /v1/models lists them", "invalid_request_error",
                                "model_not_found", param="model")
        return JSONResponse(found)

    @router.api_route("/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"], include_in_schema=False)
    async def unknown(rest: str, request: Request) -> Any:
        """Anything else under ``/v1``: an OpenAI-shaped 404 (or 405 for a known path)."""
        if (denied := refused(request)) is not None:
            return denied
        if rest.strip("/") in ("models", "chat/completions"):
            return openai_error(405, f"{request.method} is not allowed on /v1/{rest.strip('/')}",
                                "invalid_request_error", "method_not_allowed")
        return openai_error(404, f"no route {request.method} /v1/{excerpt(rest)}: this server offers GET /v1/models, "
                                 "GET /v1/models/{id} and POST /v1/chat/completions",
                            "invalid_request_error", "unknown_url")

    return router
