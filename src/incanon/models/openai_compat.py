"""Chat over any OpenAI-compatible HTTP API (OpenAI, vLLM, Ollama, llama.cpp server, ...).

The client never retries (``max_retries=0``): the retry wrapper is the only retry layer, so
attempts, delays and ``Retry-After`` are decided in one place. The API key lives in a
``Secret`` and in the client; every message we build is scrubbed of it, and no exception that
holds the HTTP request (and so the ``Authorization`` header) is chained to ours.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any, Sequence
from urllib.parse import urlparse

from incanon.secrets import redact
from incanon.errors import ConfigError, ModelError
from incanon.models.faults import MalformedResponseError, RetryableError, scrub
from incanon.models.openai_http import http_error
from incanon.models.streaming import PieceCallback, StreamsPieces
from incanon.models.types import Completion, GenerationParams, Message

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
LOCAL_PLACEHOLDER_KEY = "sk-no-key-needed"
"""Sent to local servers when no key is set (the client insists on some key)."""
DEFAULT_TIMEOUT_S = 120.0


class Secret:
    """A string that never shows itself in ``repr`` or ``str``."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        """The secret itself; only for handing to the HTTP client."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


def is_local_url(url: str) -> bool:
    """True for loopback and private-network hosts (where servers usually need no key)."""
    host = urlparse(url).hostname or ""
    if host in ("localhost", "host.docker.internal") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_unspecified


def resolve_endpoint(base_url: str | None, key_env: str | None) -> tuple[str, Secret]:
    """Base URL (argument, else ``$OPENAI_BASE_URL``, else OpenAI) and the API key to send."""
    url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    env = key_env or DEFAULT_KEY_ENV
    key = os.environ.get(env)
    if not key:
        if not is_local_url(url):
            raise ConfigError(
                f"no API key for {url}: set the environment variable {env} "
                f"(or name another one with ?key_env=NAME)"
            )
        key = LOCAL_PLACEHOLDER_KEY
    return url, Secret(key)


def translate_error(exc: BaseException, where: str, key: Secret, timeout: float) -> ModelError:
    """Our error for an exception of the ``openai`` package (or a parse failure), key scrubbed."""
    import openai

    secret = key.reveal()
    refused = _refusal(exc)
    if isinstance(exc, openai.APITimeoutError) and refused is None:
        return RetryableError(f"{where}: no reply within the {timeout:g}s timeout")
    if isinstance(exc, openai.APIConnectionError):
        cause = refused or (type(exc.__cause__).__name__ if exc.__cause__ else "connection error")
        return RetryableError(f"{where}: connection failed ({cause})")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = exc.message.removeprefix(f"Error code: {status} - ")
        return http_error(status, exc.response.headers, detail, where, secret)
    if isinstance(exc, openai.APIResponseValidationError):
        return MalformedResponseError(scrub(f"{where}: reply does not match the API: {exc.message}", secret))
    if isinstance(exc, openai.OpenAIError):
        return ModelError(scrub(f"{where}: {type(exc).__name__}: {exc}", secret))
    # json.JSONDecodeError, pydantic errors and the like: the body was not what the API promises.
    return MalformedResponseError(scrub(f"{where}: unreadable reply ({type(exc).__name__}: {exc})", secret))


def _refusal(exc: BaseException) -> str | None:
    """``ConnectError`` when the cause is a refused or failed connection, not a timeout.

    The SDK's aiohttp transport maps every aiohttp connection error to httpx's ``ConnectTimeout``,
    so the cause chain is what tells a refused connection from a slow one."""
    seen = exc.__cause__
    while seen is not None:
        if isinstance(seen, OSError) and not isinstance(seen, TimeoutError):
            return "ConnectError"
        seen = seen.__cause__
    return None


_DEFAULTS = GenerationParams()
"""The parameters of a call given none (frozen, so one object serves every such call)."""


def request_options(params: GenerationParams) -> dict[str, Any]:
    """Chat-completions arguments for ``params`` (unset ones left out, as servers differ)."""
    options: dict[str, Any] = {
        "temperature": params.temperature,
        "top_p": params.top_p,
        "max_tokens": params.max_tokens,
    }
    if params.stop:
        options["stop"] = list(params.stop)
    if params.seed is not None:
        options["seed"] = params.seed
    # Sent only when set: some OpenAI-compatible servers reject parameters they do not know.
    if params.frequency_penalty:
        options["frequency_penalty"] = params.frequency_penalty
    if params.presence_penalty:
        options["presence_penalty"] = params.presence_penalty
    if params.response_format is not None:
        options["response_format"] = params.response_format
    return options


class OpenAIChatModel(StreamsPieces):
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        key_env: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
    ):
        self.model = model
        self.base_url, self._key = resolve_endpoint(base_url, key_env)
        self.timeout = timeout
        self.endpoint = self.base_url
        """Concurrency-limit key: all models of one server share a limit."""
        self._where = f"{self.name} at {redact(self.base_url)}"
        """How messages name this model (the base URL redacted once, not per call)."""
        # httpx pools belong to an event loop, so each loop gets its own client.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    @property
    def name(self) -> str:
        """``openai:MODEL``, for people; the cache keys on :attr:`identity`."""
        return f"openai:{self.model}"

    @property
    def identity(self) -> str:
        """``openai:MODEL@<normalized base URL>``: two servers serving one model name are two
        models (the API key is never part of it)."""
        from incanon.models.identity import normalize_base_url

        return f"openai:{self.model}@{normalize_base_url(self.base_url)}"

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.model!r}, base_url={redact(self.base_url)!r})"

    def _client(self) -> Any:
        """The SDK's client on the running loop (streamed calls)."""
        return self._on_loop().sdk()

    def _on_loop(self) -> "_LoopClients":
        loop = asyncio.get_running_loop()
        clients = self._clients.get(loop)
        if clients is None:
            clients = self._clients[loop] = _LoopClients(self.base_url, self._key, self.timeout)
            # Sessions must be closed on their own loop; asyncio.run (and the server's worker
            # loops) cancel the tasks still pending at shutdown, which closes them in time.
            _closers.add(loop.create_task(_close_at_shutdown(clients), name="incanon-openai-close"))
        return clients

    async def _generate(self, messages: Sequence[Message], params: GenerationParams | None,
                        write: PieceCallback | None) -> Completion:
        params = params or _DEFAULTS
        where = self._where
        start = time.perf_counter()
        error: ModelError | None = None
        body = {"model": self.model, "messages": [{"role": m.role, "content": m.content} for m in messages],
                **request_options(params)}
        try:
            if write is not None:
                data = await self._streamed(body, write)
            else:
                # A plain POST read as JSON data, aiohttp directly (the SDK's request path was
                # most of a call's client CPU: see openai_http); the SDK's when aiohttp is absent.
                clients = self._on_loop()
                if clients.poster is not None:
                    data = await clients.poster.post(body, where, self._key.reveal())
                else:
                    data = await clients.sdk().post("/chat/completions", body=body, cast_to=object)
        except ModelError as exc:  # ours already (the direct path), its key scrubbed
            error = exc
        except Exception as exc:  # noqa: BLE001 - every failure is translated below
            error = translate_error(exc, where, self._key, self.timeout)
        if error is not None:
            raise error  # raised outside the except block: the openai exception is not chained
        return _completion(data, self.model, where, time.perf_counter() - start)

    async def _streamed(self, body: dict[str, Any], write: PieceCallback) -> dict[str, Any]:
        """A streamed call, its pieces passed on, gathered into the shape of a whole
        ``chat.completion`` (usage from the last chunk when the server sends it)."""
        import openai

        stream = await self._client().post(
            "/chat/completions", body={**body, "stream": True, "stream_options": {"include_usage": True}},
            cast_to=object, stream=True, stream_cls=openai.AsyncStream[object])
        text, reason, usage, name = "", None, None, None
        async for chunk in stream:
            if not isinstance(chunk, dict):
                continue
            usage = chunk.get("usage") or usage
            name = chunk.get("model") or name
            for choice in chunk.get("choices") or []:
                piece = _field(_field(choice, "delta"), "content")
                if isinstance(piece, str) and piece:
                    text += piece
                    write(piece)
                reason = _field(choice, "finish_reason") or reason
        return {"model": name, "choices": [{"message": {"content": text}, "finish_reason": reason}],
                "usage": usage}


_closers: set[asyncio.Task[None]] = set()
"""Strong references to the closer tasks (the loop keeps only weak ones)."""


class _LoopClients:
    """One event loop's HTTP clients: a direct aiohttp poster for plain calls (see
    :mod:`incanon.models.openai_http`) and, made on first use, the SDK's client for streams."""

    def __init__(self, base_url: str, key: Secret, timeout: float) -> None:
        from incanon.models import openai_http

        self._args = (base_url, key, timeout)
        self._sdk: Any = None
        self.poster = openai_http.DirectPoster(base_url, key.reveal(), timeout) if openai_http.available() else None

    def sdk(self) -> Any:
        """The SDK's client (its aiohttp transport when installed)."""
        if self._sdk is None:
            import openai

            base_url, key, timeout = self._args
            self._sdk = openai.AsyncOpenAI(api_key=key.reveal(), base_url=base_url, max_retries=0,
                                           timeout=timeout, http_client=_http_client())
        return self._sdk

    async def close(self) -> None:
        """Close both (on their loop)."""
        if self.poster is not None:
            await self.poster.close()
        if self._sdk is not None:
            await self._sdk.close()


def _http_client() -> Any:
    """The SDK's aiohttp transport when installed (the ``aiohttp`` extra), else its httpx one.

    httpx's connection pool scans every pooled connection on each request (with a ``getpeername``
    system call per connection), which at 64 connections cost more CPU per call than the rest of
    the call path."""
    import openai

    try:
        return openai.DefaultAioHttpClient()
    except RuntimeError:  # the SDK raises this when aiohttp is missing
        return openai.DefaultAsyncHttpxClient()


async def _close_at_shutdown(clients: _LoopClients) -> None:
    """Wait until the loop shuts down (this task is cancelled then), then close ``clients``."""
    try:
        await asyncio.Event().wait()
    finally:
        _closers.discard(asyncio.current_task())  # type: ignore[arg-type]
        await clients.close()


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _completion(data: Any, model: str, where: str, latency: float) -> Completion:
    """A ``chat.completion`` JSON object as a :class:`Completion` (anything else is malformed)."""
    if not isinstance(data, dict):
        raise MalformedResponseError(f"{where}: reply is not a JSON object ({type(data).__name__})")
    choices = data.get("choices")
    if not choices or not isinstance(choices, list):
        raise MalformedResponseError(f"{where}: reply has no choices")
    choice = choices[0]
    message = _field(choice, "message")
    text = _field(message, "content")
    if not isinstance(text, str):
        refusal = _field(message, "refusal")
        if refusal:
            raise ModelError(f"{where}: the model refused: {refusal}")
        raise MalformedResponseError(f"{where}: reply has no message content")
    usage = data.get("usage")
    reason = _field(choice, "finish_reason")
    name = data.get("model")
    return Completion(
        text=text,
        model=name if isinstance(name, str) and name else model,
        prompt_tokens=_count(_field(usage, "prompt_tokens")),
        completion_tokens=_count(_field(usage, "completion_tokens")),
        latency_s=latency,
        finish_reason=reason if isinstance(reason, str) else None,
    )
