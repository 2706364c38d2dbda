"""The embedded backend: a GGUF model run in-process by llama-cpp-python.

One ``Llama`` per (file, n_ctx) per process, shared by every model object that asks for it,
because loading costs memory and seconds; a lock serializes calls (a llama context is not
reentrant) and calls run in a worker thread so the event loop keeps serving other tasks.
The chat template comes from the GGUF metadata (llama-cpp's default when no chat format is
given).
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import AsyncIterator, Callable
from typing import Any, Sequence

from incanon.errors import ModelError
from incanon.models.faults import ContextOverflowError
from incanon.models.gguf import LOCAL_INSTALL, free_at_exit, require_llama, resolve_gguf
from incanon.models.limit import endpoint_gate
from incanon.models.streaming import PieceCallback, StreamsPieces, thread_safe
from incanon.models.types import Completion, GenerationParams, Message

DEFAULT_N_CTX = 4096


@dataclass
class _Shared:
    llama: Any
    lock: threading.Lock
    formatter: Any = None

    def prompt_tokens(self, chat: list[dict[str, str]]) -> int:
        """Tokens of the templated prompt, counted before generating.

        llama-cpp fails on an oversized prompt deep inside ``eval`` with a numpy broadcast
        error (or its own ValueError), so the size is checked up front.
        """
        if self.formatter is not None:
            prompt = self.formatter(messages=chat).prompt
            return len(self.llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))
        # No template in the file: contents plus a few tokens of role markup per message.
        text = "\n".join(m["content"] for m in chat)
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=True)) + 4 * len(chat)


def _formatter(llama: Any) -> Any:
    template = (llama.metadata or {}).get("tokenizer.chat_template")
    if not template:
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    def token_text(token_id: int) -> str:
        return llama._model.token_get_text(token_id) if token_id != -1 else ""

    return Jinja2ChatFormatter(
        template=template, eos_token=token_text(llama.token_eos()), bos_token=token_text(llama.token_bos())
    )


_instances: dict[tuple[str, int], _Shared] = {}
_instances_lock = threading.Lock()


def shared_llama(path: Path, n_ctx: int, n_threads: int | None = None, n_batch: int = 512) -> _Shared:
    """The process-wide ``Llama`` for (path, n_ctx), loaded on first use (threads: first caller's)."""
    key = (str(path.resolve()), n_ctx)
    with _instances_lock:
        shared = _instances.get(key)
        if shared is None:
            from incanon.threads import share_cores

            share_cores()  # before llama.cpp's OpenMP runtime starts
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise ModelError(
                    f"the embedded backend needs llama-cpp-python ({exc}); "
                    f"fix: {LOCAL_INSTALL}, or use an openai: model"
                ) from None
            try:
                llama = free_at_exit(Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=n_threads or os.cpu_count() or 1,
                    n_batch=n_batch,
                    verbose=False,
                ))
            except (ValueError, RuntimeError, OSError) as exc:
                raise ModelError(f"could not load GGUF model {path}: {exc}") from None
            shared = _instances[key] = _Shared(llama, threading.Lock(), _formatter(llama))
        return shared


def llama_options(params: GenerationParams) -> dict[str, Any]:
    """``create_chat_completion`` arguments for ``params``."""
    options: dict[str, Any] = {
        "temperature": params.temperature,
        "top_p": params.top_p,
        "max_tokens": params.max_tokens,
        "stop": list(params.stop),
        "seed": params.seed,
        "frequency_penalty": params.frequency_penalty,
        "presence_penalty": params.presence_penalty,
    }
    fmt = params.response_format
    if fmt is not None:
        kind = fmt.get("type")
        if kind == "json_object":
            options["response_format"] = {"type": "json_object", **({"schema": fmt["schema"]} if "schema" in fmt else {})}
        elif kind == "json_schema":
            # OpenAI nests the schema in json_schema.schema; llama-cpp wants json_object + schema.
            schema = (fmt.get("json_schema") or {}).get("schema")
            options["response_format"] = {"type": "json_object", **({"schema": schema} if schema else {})}
        elif kind not in (None, "text"):
            raise ModelError(f"response_format type {kind!r} is not supported by the embedded backend")
    return options


_OVERFLOW = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")


class LlamaChatModel(StreamsPieces):
    """A chat model running a local GGUF file."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        threads: int | None = None,
        n_batch: int = 512,
    ):
        # Checked here, not at the first call: a command stops before any work, with the hint.
        require_llama()
        self.path = resolve_gguf(path)
        self.n_ctx = n_ctx
        self.threads = threads
        self.n_batch = n_batch
        self.endpoint = f"gguf:{self.path.resolve()}"
        """Concurrency-limit key: the file (calls to one file are serialized anyway)."""

    @property
    def name(self) -> str:
        """``gguf:<file stem>``, for people; the cache keys on :attr:`identity`."""
        return f"gguf:{self.path.stem}"

    @property
    def identity(self) -> str:
        """``gguf:<stem>#<size>-<content hash>``: which weights answer (the response cache key)."""
        from incanon.models.identity import file_fingerprint

        return f"gguf:{self.path.stem}#{file_fingerprint(self.path)}"

    def __repr__(self) -> str:
        return f"LlamaChatModel(path={str(self.path)!r}, n_ctx={self.n_ctx})"

    def _shared(self) -> _Shared:
        return shared_llama(self.path, self.n_ctx, self.threads, self.n_batch)

    def load(self) -> "LlamaChatModel":
        """Load the model now rather than on the first call."""
        self._shared()
        return self

    def _overflow(self, tokens: int, n_ctx: int) -> ContextOverflowError:
        return ContextOverflowError(
            f"{self.name}: the prompt has {tokens} tokens but the context window (n_ctx) is "
            f"{n_ctx}; shorten the prompt or load with a larger n_ctx (e.g. embedded?n_ctx={n_ctx * 2})",
            prompt_tokens=tokens,
            n_ctx=n_ctx,
        )

    async def _generate(self, messages: Sequence[Message], params: GenerationParams | None,
                        write: PieceCallback | None) -> Completion:
        # Queue in the event loop, not in worker threads: waiting threads would fill the
        # default executor and starve everything else that runs off the loop.
        on_piece = thread_safe(write, asyncio.get_running_loop()) if write is not None else None
        # A worker thread cannot be cancelled: without this, a cancelled call (Ctrl-C, a time
        # limit) went on writing to the end of its token budget, minutes on a busy CPU, and
        # asyncio.run waited for it before the process could exit.
        stop = threading.Event()
        async with endpoint_gate(self.endpoint).slot(1):
            try:
                return await asyncio.to_thread(self.generate_sync, messages, params or GenerationParams(), on_piece,
                                               stop)
            except asyncio.CancelledError:
                stop.set()
                raise

    def generate_sync(self, messages: Sequence[Message], params: GenerationParams,
                      on_piece: Callable[[str], object] | None = None,
                      stop: threading.Event | None = None) -> Completion:
        """The blocking call (what ``generate`` runs off the event loop); with ``on_piece``,
        llama.cpp streams and each piece of text is passed to it as it comes. With ``stop``,
        it streams too and stops between two tokens once ``stop`` is set (:class:`ModelError`)."""
        shared = self._shared()
        options = llama_options(params)
        chat = [{"role": m.role, "content": m.content} for m in messages]
        start = time.perf_counter()
        with shared.lock:
            tokens = shared.prompt_tokens(chat)
            # llama.cpp may round the context up (to 256) while llama-cpp-python's token
            # buffer keeps the size asked for: the smaller one is what fits.
            n_ctx = min(shared.llama.n_ctx(), len(shared.llama.input_ids))
            if tokens >= n_ctx:
                raise self._overflow(tokens, n_ctx)
            try:
                if on_piece is None and stop is None:
                    response = shared.llama.create_chat_completion(messages=chat, **options)
                else:
                    response = self._streamed(shared, chat, options, tokens, on_piece, stop)
            except ValueError as exc:
                match = _OVERFLOW.search(str(exc))
                if match is not None:
                    raise self._overflow(int(match.group(1)), int(match.group(2))) from None
                shared.llama.reset()  # a failed eval may leave the context half-filled
                raise ModelError(f"{self.name}: {exc}") from None
        latency = time.perf_counter() - start
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            model=self.name,
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
            latency_s=latency,
            finish_reason=choice.get("finish_reason"),
        )

    def _streamed(self, shared: _Shared, chat: list[dict[str, str]], options: dict[str, Any], prompt_tokens: int,
                  on_piece: Callable[[str], object] | None, stop: threading.Event | None = None) -> dict[str, Any]:
        """A streamed ``create_chat_completion``, its pieces passed on, gathered into the shape
        of the whole response (llama-cpp's stream carries no usage: the text is counted).
        Stopped between two tokens once ``stop`` is set."""
        text, reason = "", None
        pieces = shared.llama.create_chat_completion(messages=chat, stream=True, **options)
        try:
            for chunk in pieces:
                if stop is not None and stop.is_set():
                    raise ModelError(f"{self.name}: generation stopped (the call was cancelled)")
                choice = chunk["choices"][0]
                piece = (choice.get("delta") or {}).get("content") or ""
                if piece:
                    text += piece
                    if on_piece is not None:
                        on_piece(piece)
                reason = choice.get("finish_reason") or reason
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()  # ends llama-cpp's generation loop now, not when the generator is collected
        completion_tokens = len(shared.llama.tokenize(text.encode("utf-8"), add_bos=False)) if text else 0
        return {"choices": [{"message": {"content": text}, "finish_reason": reason}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}}
