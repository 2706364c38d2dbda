"""The character knowledge graph (RoleRAG's indexing): chunk, extract, normalize aliases, merge,
summarize, embed and store, incrementally; and read it back through a knowledge scope.

>>> report = await build_graph(store, "lanterns", model, canon_chunks(store, "lanterns"))  # doctest: +SKIP
>>> view = GraphView.open(store, "lanterns", scope=store.scope("lanterns", "Wren", "1-3"))  # doctest: +SKIP
>>> view.neighbours(view.find("Wren Callow"))                                              # doctest: +SKIP
"""

from incanon.graph.builder import BuildReport, ChunkIssue, CountingModel, GraphBuilder, build_graph
from incanon.graph.chunking import (
    SourceChunk,
    book_chunks,
    canon_chunks,
    count_tokens,
    file_chunks,
    text_chunks,
    windows,
)
from incanon.graph.config import ENTITY_TYPES, GraphConfig
from incanon.graph.db import GraphDB
from incanon.graph.extract import ChunkExtractor, ChunkResult
from incanon.graph.integrate import IntegrationReport
from incanon.graph.names import core_tokens, fold, similarity, variant_match
from incanon.graph.normalize import Form, Group, NormalizationStats, Normalizer, parse_same
from incanon.graph.parse import Extraction, ExtractionParseError, RawEntity, RawRelation, parse_extraction
from incanon.graph.scripted import HashEmbedder, WorldOracle, oracle_model
from incanon.graph.view import GraphEdge, GraphNode, GraphView

__all__ = [
    "ENTITY_TYPES",
    "BuildReport",
    "ChunkExtractor",
    "ChunkIssue",
    "ChunkResult",
    "CountingModel",
    "Extraction",
    "ExtractionParseError",
    "Form",
    "GraphBuilder",
    "GraphConfig",
    "GraphDB",
    "GraphEdge",
    "GraphNode",
    "GraphView",
    "Group",
    "HashEmbedder",
    "IntegrationReport",
    "NormalizationStats",
    "Normalizer",
    "RawEntity",
    "RawRelation",
    "SourceChunk",
    "WorldOracle",
    "book_chunks",
    "build_graph",
    "canon_chunks",
    "core_tokens",
    "count_tokens",
    "file_chunks",
    "fold",
    "oracle_model",
    "parse_extraction",
    "parse_same",
    "similarity",
    "text_chunks",
    "variant_match",
    "windows",
]
