"""The caching wrapper: answers repeated calls from the ``ResponseCache``."""

from __future__ import annotations

import asyncio
from typing import Sequence

from incanon.models.cache import ResponseCache, cache_key
from incanon.models.identity import model_identity
from incanon.models.types import ChatModel, Completion, GenerationParams, Message


class CachingModel:
    """Looks each call up in the cache; on a miss calls the wrapped model and stores the reply.

    Identical calls in flight at the same time are sent once: the others wait for the first
    and are served from the cache (so a batch of equal prompts costs one call).
    """

    def __init__(self, inner: ChatModel, cache: ResponseCache):
        self.inner = inner
        self.cache = cache
        self._in_flight: dict[str, asyncio.Future[Completion]] = {}
        self._identity: str | None = None

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    @property
    def identity(self) -> str:
        """Which model answers (see :mod:`incanon.models.identity`): the cache key's model part."""
        if self._identity is None:
            self._identity = model_identity(self.inner)
        return self._identity

    def __repr__(self) -> str:
        return f"CachingModel({self.inner!r}, {self.cache!r})"

    async def generate(
        self, messages: Sequence[Message], params: GenerationParams | None = None
    ) -> Completion:
        """A cached completion (``cached=True``) or a fresh one, stored for next time."""
        params = params or GenerationParams()
        key = cache_key(self.identity, messages, params)
        while (pending := self._in_flight.get(key)) is not None:
            await asyncio.wait([pending])
            if not pending.cancelled():
                shared = pending.result().model_copy(update={"cached": True})
                shared._cache_key = key
                return shared
            # The first caller failed; this one tries for itself.
        hit = self.cache.get_completion(key)
        if hit is not None:
            hit._cache_key = key
            return hit
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            completion = await self.inner.generate(messages, params)
            self.cache.put_completion(key, self.identity, completion)
            completion._cache_key = key
            future.set_result(completion)
            return completion
        finally:
            if not future.done():
                future.cancel()  # waiters see a cancelled future and call on their own
            self._in_flight.pop(key, None)

    def forget_answer(self, completion: Completion) -> bool:
        """Drop ``completion`` from the cache (an answer its caller could not use), so the same
        call reaches the model again; False when it was not stored here."""
        key = completion._cache_key
        return bool(key) and self.cache.forget(key)  # type: ignore[arg-type]
