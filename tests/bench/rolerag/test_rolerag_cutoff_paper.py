"""``rolerag-cutoff`` cuts everything it puts in a prompt, under both protocols: the source chunks
of a plain-text biography (the reference's ``corpus/<Name>.txt`` layout: one undated text), the
entities and relations nobody dated, and the baselines' chunks. The biography and the clone's
``rolerag/prompt.py`` are our own invented texts."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from incanon.agents import Turn, character_at, create_agent
from incanon.bench.rolerag import RetrievalConfig
from incanon.bench.rolerag.cutoff import cut_text
from incanon.bench.rolerag.paper import PAPER_ENTITY_TYPES
from incanon.bench.rolerag.refprompts import use_reference_build_prompts, use_reference_prompts
from incanon.canon import CanonStore
from incanon.canon.position import Axis, Position
from incanon.canon.world import WorkInfo, World
from incanon.graph import GraphBuilder, GraphConfig, HashEmbedder
from incanon.graph.characters import CharacterSpec
from incanon.graph.chunking import corpus_chunks
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

BIOGRAPHY = """\
Edda, Countess of Lindley (3 May 1815 – 27 November 1852), was a mathematician and writer. She is known for her notes on the Calculating Loom of Silas Brandt, published in 1843. Since 2009 the second Tuesday of October has been Edda Marlowe Day.

Augusta Edda Harrow was born in Bath on 3 May 1815, the only child of the poet Lord Harrow and Miriam Fane. Her father left England in 1816 and died in Greece in 1824. Her mother raised her alone and had her taught mathematics and music. In 1828 Edda designed a flying machine after studying the anatomy of birds.

In 1833 she met Silas Brandt at a party in London. Brandt showed her a working part of his Difference Frame. Her tutor from 1834 was the logician Amos Weld.

In 1835 she married William Marlowe, who became Earl of Lindley in 1838. In 1842 she translated an article on the Calculating Loom. Her notes to the translation, published in 1843, were three times its length.

In 1851 she lost a large sum in a betting syndicate she had planned with friends. She died on 27 November 1852.

In 1980 a programming language was named Marlowe in her honour.
"""


def _ent(name, type_, description, when=""):
    return {"name": name, "type": type_, "description": description, "when": when, "until": ""}


def _rel(a, b, description, strength, when):
    return {"source": a, "target": b, "description": description, "strength": strength, "when": when, "until": ""}


EXTRACTION = {"entities": [
    _ent("Edda Marlowe", "character", "Mathematician and writer, daughter of Lord Harrow.", "3 May 1815"),
    _ent("Lord Harrow", "character", "Poet, Edda's father, who died in Greece in 1824.", "1815"),
    _ent("Silas Brandt", "character", "Inventor of the Difference Frame and the Calculating Loom.", "1833"),
    _ent("William Marlowe", "character", "Edda's husband, Earl of Lindley from 1838.", "1835"),
    # Dated by nothing the build can read: their names are not in the text word for word.
    _ent("Marlowe programming language", "object", "A programming language named after Edda in 1980."),
    _ent("Gambling scheme", "event", "A scheme for betting on horse races that cost Edda a large sum in 1851."),
], "relations": [
    _rel("Edda Marlowe", "Lord Harrow", "Lord Harrow was Edda's father.", 9, "1815"),
    _rel("Edda Marlowe", "Silas Brandt", "Edda met Silas Brandt and wrote to him about his machines.", 8, "1833"),
    _rel("Edda Marlowe", "William Marlowe", "Edda married William Marlowe.", 8, "1835"),
    _rel("Edda Marlowe", "Gambling scheme", "Edda planned the betting syndicate with friends.", 6, ""),
]}


def _build(root: Path, extraction: dict, names: str = "Edda Marlowe|Edda|Augusta Edda Harrow") -> CanonStore:
    (root / "corpus").mkdir()
    (root / "corpus" / "Edda.txt").write_text(BIOGRAPHY, encoding="utf-8")
    store = CanonStore.open(root / "canon")
    spec = CharacterSpec.parse(names)
    store.import_world(World(work=WorkInfo(id="edda", title="Edda Marlowe", axis="date"), characters=[spec.character()]))
    chunks = corpus_chunks([root / "corpus" / "Edda.txt"], 600, 100, None).chunks
    helper = ScriptedModel(rules=[("may be missing", '{"entities": [], "relations": []}'),
                                  ("list the entities and relations", json.dumps(extraction)),
                                  ("one and the same", '{"reason": "different", "same": false}'),
                                  ("Which one name", '{"name": ""}')], default="A summary.")
    builder = GraphBuilder(store, "edda", helper, config=GraphConfig(born="1815-05-03"), embedder=HashEmbedder())
    asyncio.run(builder.add(chunks))
    builder.close()
    return store


@pytest.fixture(scope="module")
def edda(tmp_path_factory) -> CanonStore:
    store = _build(tmp_path_factory.mktemp("edda"), EXTRACTION)
    yield store
    store.close()


NAMES = [("Edda Marlowe", "character"), ("Silas Brandt", "character"), ("William Marlowe", "character"),
         ("Marlowe programming language", "object"), ("Gambling scheme", "event"), ("machines", "object", "general"),
         ("plans", "event", "general")]


def _model(protocol: str) -> ScriptedModel:
    items = [(n[0], n[1], n[2] if len(n) > 2 else "specific") for n in NAMES]
    records = "##\n".join(f"({t}<|>{n}<|>a reason<|>Yes<|>{s})" for n, t, s in items) + "<|COMPLETE|>"
    entities = {"entities": [{"name": n, "type": t, "relevant": "yes", "reason": "r", "specificity": s}
                             for n, t, s in items[1:]]}
    return ScriptedModel(rules=[("Records:|ZEBRA-ENTITIES", records), ("Hypothetical answer:", "I think of my work."),
                                ("Find the entities", json.dumps(entities))], default="I answer in character.")


def _later_years(prompt: str, at: str) -> list[int]:
    return [int(y) for y in re.findall(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)", prompt) if int(y) > int(at[:4])]


def _ask(store: CanonStore, method: str, protocol: str, at: str, prompts: PromptLibrary | None = None,
         character: str = "Edda Marlowe"):
    model = _model(protocol)
    agent = create_agent(method, model, store=store, embedder=HashEmbedder(), prompts=prompts,
                         retrieval_config=RetrievalConfig.for_protocol(protocol, threshold=0.99))
    reply = asyncio.run(agent.respond(character_at(store, "edda", character, at),
                                      [Turn(speaker="user", text="Tell me about your work and your plans.")]))
    return reply, model.calls[-1].messages[-1].content


@pytest.mark.parametrize("protocol", ["paper", "incanon"])
@pytest.mark.parametrize("at", ["1830-06-01", "1836-01-01", "1860-01-01"])
def test_no_later_year_reaches_the_answer_prompt(edda, protocol, at):
    reply, prompt = _ask(edda, "rolerag-cutoff", protocol, at)
    assert _later_years(prompt, at) == [], prompt
    if protocol == "paper":  # the source chunk is there, cut to what is true by then
        assert reply.details["passages"] and "born in Bath" in prompt
    assert ("Silas Brandt" in reply.details["nodes"]) == (at >= "1833")
    # Without the cutoff the same question shows the whole life.
    whole, prompt = _ask(edda, "rolerag", protocol, at)
    assert "Marlowe programming language" in whole.details["nodes"]
    if protocol == "paper":
        assert 2009 in _later_years(prompt, at)


def test_the_clone_s_chunks_section_is_cut(edda, tmp_path: Path):
    root = tmp_path / "RoleRAG" / "rolerag"
    root.mkdir(parents=True)
    (root / "prompt.py").write_text(
        'PROMPTS = {}\nPROMPTS["keyword_extractionv2"] = """ZEBRA-ENTITIES {entity_types} {character} {source}'
        ' {tuple_delimiter}{record_delimiter}{completion_delimiter} {question}"""\n'
        'PROMPTS["single_response_en"] = """ZEBRA-ANSWER {character}\n{context_data}\n{question}"""\n', encoding="utf-8")
    library = PromptLibrary()
    use_reference_prompts(library, tmp_path / "RoleRAG")
    reply, answer = _ask(edda, "rolerag-cutoff", "paper", "1830-06-01", library)
    entities = reply.calls[0].messages[-1].content
    assert entities.startswith("ZEBRA-ENTITIES object,character,event,time,location,organization Edda Marlowe")
    chunks = answer.split("-----Chunks-----")[1].split("-----Entities-----")[0]
    assert "Augusta Edda Harrow was born in Bath" in chunks and "In 1833" not in chunks and "2009" not in chunks
    assert _later_years(answer, "1830") == []


def test_undated_entities_wait_for_their_time(edda):
    for protocol in ("paper", "incanon"):
        early, _ = _ask(edda, "rolerag-cutoff", protocol, "1830-06-01")
        middle, _ = _ask(edda, "rolerag-cutoff", protocol, "1860-01-01")
        late, _ = _ask(edda, "rolerag-cutoff", protocol, "1990-01-01")
        for name in ("Marlowe programming language", "Gambling scheme"):
            assert name not in early.details["nodes"], (protocol, name)
        assert "Gambling scheme" in middle.details["nodes"]
        assert "Marlowe programming language" not in middle.details["nodes"]
        assert {"Marlowe programming language", "Gambling scheme"} <= set(late.details["nodes"])
        # The undated relation to the scheme comes with it, not before.
        pairs = [(r["source"], r["target"]) for r in early.details["relations"]]
        assert all("Gambling scheme" not in p for p in pairs)


def test_the_baselines_chunks_are_cut(edda):
    for method in ("rag-chunks", "profile"):
        reply, prompt = _ask(edda, method, "incanon", "1830-06-01")
        assert _later_years(prompt, "1830-06-01") == [], (method, prompt)
    reply, prompt = _ask(edda, "rag-chunks", "incanon", "1990-01-01")
    assert "2009" not in prompt and "1980" in prompt  # 2009 is after 1990 too


def test_cut_text_dates_sentences_by_their_paragraph():
    text = ("Born in 1815, she died in 1852.\n\nShe later worked on the Loom. In 1843 she published notes.\n\n"
            "Her mother taught her music. In 1828 she drew a flying machine. She kept the drawings.")
    at = Position.parse("1830-06-01").key
    assert cut_text(text, Axis.DATE, at) == "Her mother taught her music. In 1828 she drew a flying machine. She kept the drawings."
    assert cut_text(text, Axis.DATE, Position.parse("1900-01-01").key) == text  # nothing later: unchanged
    assert cut_text(text, Axis.CHAPTER, 0) == text  # no dates on a chapter axis


async def test_unreadable_entity_replies_end_without_an_answer(edda):
    model = ScriptedModel(default="I cannot tell.")
    agent = create_agent("rolerag-cutoff", model, store=edda, embedder=HashEmbedder(),
                         retrieval_config=RetrievalConfig.for_protocol("paper"))
    reply = await agent.respond(character_at(edda, "edda", "Edda Marlowe", "1860-01-01"),
                                [Turn(speaker="user", text="Hello?")])
    assert reply.text == "" and [c.step for c in reply.calls] == ["entities"] * 6 and reply.details["gave_up"]


def test_the_clone_s_extraction_lists_types_in_its_order(tmp_path: Path):
    root = tmp_path / "RoleRAG" / "rolerag"
    root.mkdir(parents=True)
    (root / "prompt.py").write_text(
        'PROMPTS = {}\nPROMPTS["entiti_relation_extraction"] = """ZEBRA types: {entity_types} {tuple_delimiter}'
        '{record_delimiter}{completion_delimiter}\n{input_text}"""\nPROMPTS["entiti_continue_extraction"] = "more"\n',
        encoding="utf-8")
    library = PromptLibrary()
    use_reference_build_prompts(library, tmp_path / "RoleRAG")
    rendered = library.render("graph_extract", text="T.", entity_types=list(GraphConfig().entity_types), axis_hint="")
    assert rendered == f"ZEBRA types: {','.join(PAPER_ENTITY_TYPES)} <|>##<|COMPLETE|>\nT."


def test_the_speaker_is_not_hidden_by_the_words_of_a_late_sentence(tmp_path: Path):
    # The extraction names her "Marlowe, Edda" with no time: the build finds no such words in the
    # text, and the only sentence holding both her names is the 2009 one. She still knows
    # herself at 1836, and her relations of 1815 and 1833 reach the prompt.
    renamed = json.loads(json.dumps(EXTRACTION).replace("Edda Marlowe", "Marlowe, Edda"))
    renamed["entities"][0]["when"] = ""
    store = _build(tmp_path, renamed, "Marlowe, Edda|Edda")
    reply, prompt = _ask(store, "rolerag-cutoff", "paper", "1836-01-01", character="Marlowe, Edda")
    targets = {r["target"] for r in reply.details["relations"]} | {r["source"] for r in reply.details["relations"]}
    assert {"Silas Brandt", "William Marlowe"} <= targets and _later_years(prompt, "1836") == []
    store.close()


def test_the_characters_own_node_is_not_dated_by_a_late_sentence(tmp_path) -> None:
    from incanon.graph.db import GraphDB

    undated = {**EXTRACTION, "entities": [
        {**e, "when": ""} if e["name"] == "Edda Marlowe" else e for e in EXTRACTION["entities"]]}
    undated["relations"] = [{**r, "when": ""} if r["target"] == "Lord Harrow" else r for r in EXTRACTION["relations"]]
    store = _build(tmp_path, undated)
    db = GraphDB(store, "edda")
    node = next(n for n in db.nodes("character") if n.name == "Edda Marlowe")
    # The only sentence naming "Edda Marlowe" word for word is the 2009 "Day": before, the node
    # (and a relation of hers dated by it) took 2009 and she was hidden all her life.
    assert all(m["from_key"] is None for m in db.node_mentions(node.row_id))
    father = next(e for e in db.edges() if {db.node(e.a).name, db.node(e.b).name} == {"Edda Marlowe", "Lord Harrow"})
    years = [m["from_key"] for m in db.edge_mentions(father.row_id)]
    assert not any(k is not None and Position.from_key(Axis.DATE, k).date.year >= 2009 for k in years)
    db.close()
    store.close()
