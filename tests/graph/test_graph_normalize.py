"""Each normalization stage on small scripted worlds, and merge precision/recall on the sample
world's aliases (ground truth)."""

from __future__ import annotations

import json
import re

from incanon.canon import CanonStore
from incanon.canon.world import Chunk, WorkInfo, World
from incanon.graph import GraphBuilder, GraphConfig, GraphDB, GraphView, HashEmbedder, SourceChunk
from incanon.graph.quality import merge_quality
from incanon.models import ScriptedModel

from graph_helpers import FAST


def _world(texts: list[str]) -> World:
    return World(work=WorkInfo(id="t", title="The Test"),
                 chunks=[Chunk(id=f"c{i}", position=f"1-{i + 1}", text=t) for i, t in enumerate(texts)])


def _model(per_text: dict[str, list[tuple[str, str]]], same: set[frozenset[str]], canonical: str | None = None
           ) -> ScriptedModel:
    """Extraction of the listed (name, type) per chunk text; ``same`` pairs judged one entity."""

    def extract(messages):
        if len(messages) > 1:
            return json.dumps({"entities": [], "relations": []})
        text = messages[0].content
        for key, names in per_text.items():
            if key in text:
                return json.dumps({"entities": [{"name": n, "type": t, "description": f"{n} in {key}"} for n, t in names],
                                   "relations": []})
        return json.dumps({"entities": [], "relations": []})

    def judge(messages):
        text = messages[-1].content
        a = re.search(r"Entry A: (.+?)(?: \(also called|\n)", text).group(1)
        b = re.search(r"Entry B: (.+?)(?: \(also called|\n)", text).group(1)
        return json.dumps({"reason": "scripted", "same": frozenset((a, b)) in same})

    def pick(messages):
        names = re.findall(r"^- (.+)$", messages[-1].content, re.M)
        return json.dumps({"name": canonical if canonical in names else names[0]})

    return ScriptedModel(rules=[(r"missing from your answer", extract), (r"list the entities", extract),
                                (r"one and the same", judge), (r"Which one name", pick)],
                         default="summary")


def _build(tmp_path, texts, per_text, same=frozenset(), config=FAST, canonical=None):
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(_world(texts))
    model = _model(per_text, set(same), canonical)
    builder = GraphBuilder(store, "t", model, embedder=HashEmbedder(), config=config)
    return store, builder, model


def _chunks(store):
    return [SourceChunk(c.id, c.text, c.position, scene=c.scene, canon_chunk=c.id) for c in store.chunks("t")]


def _judged(model):
    return [c for c in model.calls if "one and the same" in c.messages[-1].content]


def _names(store):
    view = GraphView.open(store, "t")
    return sorted((view.node(i).name, view.node(i).type, tuple(sorted(view.node(i).aliases))) for i in view.node_ids())


async def test_sure_merges_need_no_model(tmp_path):
    store, builder, model = _build(tmp_path, ["alpha", "bravo"], {"alpha": [("The Beacon Tower", "location")],
                                                               "bravo": [("beacon  tower", "location")]})
    report = await builder.add(_chunks(store))
    n = report.integration.normalization
    assert n.sure == 1 and n.llm_calls == 0 and not _judged(model)
    assert [name for name, _, _ in _names(store)] == ["The Beacon Tower"]


async def test_title_variant_goes_to_the_llm_and_the_llm_names_the_entity(tmp_path):
    store, builder, model = _build(tmp_path, ["alpha", "bravo", "charlie"],
                                   {"alpha": [("Ada", "character")], "bravo": [("Ada Vane", "character")],
                                    "charlie": [("Mistress Vane", "character"), ("Bo Vane", "character")]},
                                   same={frozenset({"Ada", "Ada Vane"}), frozenset({"Mistress Vane", "Ada Vane"}),
                                         frozenset({"Ada", "Mistress Vane"})}, canonical="Ada Vane")
    report = await builder.add(_chunks(store))
    n = report.integration.normalization
    assert n.candidates["variant"] == 3 and n.judged == 3 and n.canonical_calls == 1
    assert n.llm_calls == n.judged + n.canonical_calls == len(model.calls) - 3 - 3  # minus extraction + gleaning
    assert ("Ada Vane", "character", ("Ada", "Mistress Vane")) in _names(store)
    assert ("Bo Vane", "character", ()) in _names(store)


async def test_one_name_under_several_types_is_one_entity_of_the_majority_type(tmp_path):
    # The reference keys nodes by name and keeps the most common type ("Vienna" as a location
    # three times and an organization once is one location).
    per_text = {"alpha": [("Vienna", "location")], "bravo": [("Vienna", "organization")],
                "charlie": [("Vienna", "location"), ("Ada Vane", "character")]}
    store, builder, model = _build(tmp_path, ["alpha", "bravo", "charlie"], per_text)
    report = await builder.add(_chunks(store))
    assert ("Vienna", "location", ()) in _names(store) and len(_names(store)) == 2
    assert report.integration.retyped == 1 and not _judged(model)
    # Incrementally: the stored node's mentions vote too, and a tie keeps the stored type.
    store2, builder2, _ = _build(tmp_path / "two", ["alpha", "bravo"], {"alpha": [("Vienna", "location")],
                                                                        "bravo": [("Vienna", "organization")]})
    await builder2.add(_chunks(store2)[:1])
    await builder2.add(_chunks(store2))
    assert [n[:2] for n in _names(store2)] == [("Vienna", "location")]


async def test_types_stay_apart_when_merge_types_is_off(tmp_path):
    store, builder, model = _build(tmp_path, ["alpha", "bravo"], {"alpha": [("Vane", "character")],
                                                               "bravo": [("Vane", "location")]},
                                   config=FAST.model_copy(update={"merge_types": False}))
    await builder.add(_chunks(store))
    assert [(name, type_) for name, type_, _ in _names(store)] == [("Vane", "character"), ("Vane", "location")]
    assert not _judged(model)


async def test_fuzzy_and_embedding_candidates(tmp_path):
    per_text = {"alpha": [("Ottilie Brand", "character")], "bravo": [("Otilie Brand", "character")]}
    same = {frozenset({"Ottilie Brand", "Otilie Brand"})}
    store, builder, _ = _build(tmp_path, ["alpha", "bravo"], per_text, same=same)
    n = (await builder.add(_chunks(store))).integration.normalization
    assert n.candidates["fuzzy"] == 1 and n.judged_same == 1
    store2, builder2, _ = _build(tmp_path / "knn", ["alpha", "bravo"], per_text, same=same,
                                 config=GraphConfig(fuzzy_threshold=1.0, knn_threshold=0.6))
    n2 = (await builder2.add(_chunks(store2))).integration.normalization
    assert n2.candidates["fuzzy"] == 0 and n2.candidates["knn"] >= 1 and n2.judged_same == 1
    assert len(_names(store2)) == 1


async def test_without_the_llm_judge_only_sure_merges_happen(tmp_path):
    store, builder, model = _build(tmp_path, ["alpha", "bravo"], {"alpha": [("Ada", "character")],
                                                               "bravo": [("Ada Vane", "character")]},
                                   config=GraphConfig(llm_judge=False, knn_k=0))
    report = await builder.add(_chunks(store))
    assert report.integration.normalization.judged == 0 and len(_names(store)) == 2 and not _judged(model)


async def test_verdicts_are_stored_and_reused(tmp_path):
    store, builder, model = _build(tmp_path, ["alpha", "bravo"], {"alpha": [("Ada", "character")],
                                                               "bravo": [("Ada Vane", "character")]},
                                   same={frozenset({"Ada", "Ada Vane"})})
    chunks = _chunks(store)
    await builder.add(chunks)
    first = len(_judged(model))
    changed = [chunks[0], SourceChunk("c1", chunks[1].text + " Again.", chunks[1].position)]
    report = await builder.add(changed)
    assert report.chunks_changed == 1 and report.chunks_extracted == 1
    assert report.integration.normalization.reused_verdicts >= 1 and len(_judged(model)) == first


async def test_sample_world_aliases_merge_with_high_precision_and_recall(built, world):
    store, report, _ = built
    view = GraphView.open(store, "lanterns")
    wren = view.node(view.find("Stormwren"))
    assert wren.name == "Wren Callow" and {"Lamp-Mistress Callow", "Wren"} <= set(wren.aliases)
    assert view.find("A. H. Marrow") == view.find("Aldric Hame") == view.find("the Provost")
    assert view.find("Jory Callow") != view.find("Wren Callow")  # two Callows
    quality = merge_quality(GraphDB(store, "lanterns"), world)
    assert quality.precision == 1.0 and quality.recall >= 0.95, quality.to_dict()
    n = report.integration.normalization
    assert n.llm_calls < n.topk_baseline < n.all_pairs_baseline
    assert n.skipped_connected > 0  # pairs already joined through other merges are never asked


async def test_paper_alias_candidates_take_the_type_after_the_top_k(tmp_path):
    # The entity nearest to "Otilie Brand" is an object; the reference takes the top k over all
    # types and drops other types afterwards, so with k = 1 the character is never a candidate.
    per_text = {"alpha": [("Ottilie Brand", "character"), ("Otilie Brandy", "object")],
                "bravo": [("Otilie Brand", "character")]}
    same = {frozenset({"Ottilie Brand", "Otilie Brand"})}
    common = {"fuzzy_threshold": 1.0, "knn_threshold": 0.3, "knn_k": 1}
    store, builder, _ = _build(tmp_path / "within", ["alpha", "bravo"], per_text, same=same,
                               config=GraphConfig(**common))
    await builder.add(_chunks(store)[:1])  # alpha first: "Otilie Brand" is the one new entity after
    within = (await builder.add(_chunks(store))).integration.normalization
    assert within.candidates["knn"] == 1 and within.judged_same == 1
    store2, builder2, _ = _build(tmp_path / "after", ["alpha", "bravo"], per_text, same=same,
                                 config=GraphConfig.for_protocol("paper", **common))
    await builder2.add(_chunks(store2)[:1])
    after = (await builder2.add(_chunks(store2))).integration.normalization
    assert after.candidates["knn"] == 0 and after.judged_same == 0
    paper = GraphConfig.for_protocol("paper")
    assert (paper.knn_k, paper.knn_threshold, paper.knn_type_after) == (3, 0.7, True)
    assert GraphConfig.for_protocol("incanon") == GraphConfig()
