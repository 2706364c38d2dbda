"""``rolerag-cutoff`` on a biography that opens with a dated summary of the whole life: the
summary dates nothing, so a work it names ("best known for the Atlas ...") is not visible from
the birth year. Both extractions: incanon's own (with ``when``) and the reference's tuple format
read through ``--prompts-from`` (no ``when``: every mention is dated by its surroundings).

The biography (``corpus/<Name>.txt``, the reference's layout), the extractions and the clone's
``prompt.py`` are our own invented texts; the person is made up and the dates are not in text
order (the Atlas of 1861 is told before the journeys of 1841)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from incanon.agents import Turn, character_at, create_agent
from incanon.bench.rolerag import RetrievalConfig
from incanon.bench.rolerag.refprompts import use_reference_build_prompts
from incanon.canon import CanonStore
from incanon.canon.world import WorkInfo, World
from incanon.graph import GraphBuilder, GraphConfig, HashEmbedder
from incanon.graph.characters import CharacterSpec
from incanon.graph.chunking import corpus_chunks
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

BIOGRAPHY = """\
Tobiah Quell (1812–1889) was a cartographer and surveyor, best known for the Atlas of the Northern Reaches and the Meridian Society.

Quell was born in Harwick on 9 March 1812, the son of the ferryman Eli Quell. In 1830 he was apprenticed to the surveyor Maud Penrose. His first map, of the Harwick estuary, appeared in 1836.

The Atlas of the Northern Reaches, his great work, was published in 1861. Its plates came from the northern journeys he had begun in 1841 with his assistant Corin Vale. Penrose lent him her instruments for the first journey.

He married the engraver Ines Marrow in 1847. Their daughter Rosalind was born in 1850 and later coloured the Atlas plates.

In 1875 he founded the Meridian Society with Corin Vale. The Society met at Harwick every spring.

He died at Harwick on 2 February 1889.
"""

AT = "1845-01-01"
LATER = ("Atlas", "Meridian", "Society", "Ines Marrow", "Rosalind", "married", "engraver")
"""Words of the facts that become true after 1845 (none may reach a prompt at 1845)."""

EARLIER = ("Maud Penrose", "Corin Vale")
"""Entities true by 1845: the cut must not hide them."""


def _ent(name: str, type_: str, description: str, when: str = "") -> dict:
    return {"name": name, "type": type_, "description": description, "when": when, "until": ""}


def _rel(a: str, b: str, description: str, strength: int, when: str = "") -> dict:
    return {"source": a, "target": b, "description": description, "strength": strength, "when": when, "until": ""}


OWN = {"entities": [
    _ent("Tobiah Quell", "character", "Cartographer and surveyor.", "1812"),
    _ent("Maud Penrose", "character", "Surveyor who took Quell as her apprentice.", "1830"),
    _ent("Corin Vale", "character", "Quell's assistant on the northern journeys.", "1841"),
    _ent("Atlas of the Northern Reaches", "object", "Quell's great atlas of the north.", "1861"),
    _ent("Meridian Society", "organization", "A society of mapmakers meeting at Harwick.", "1875"),
    _ent("Ines Marrow", "character", "Engraver, Quell's wife.", "1847"),
    _ent("Rosalind", "character", "Daughter of Quell and Ines Marrow.", "1850"),
], "relations": [
    _rel("Tobiah Quell", "Maud Penrose", "Quell was apprenticed to Maud Penrose.", 8, "1830"),
    _rel("Tobiah Quell", "Corin Vale", "Corin Vale travelled north with Quell as his assistant.", 7, "1841"),
    _rel("Tobiah Quell", "Atlas of the Northern Reaches", "Quell made the Atlas of the Northern Reaches.", 9, "1861"),
    _rel("Tobiah Quell", "Meridian Society", "Quell founded the Meridian Society.", 8, "1875"),
    _rel("Corin Vale", "Meridian Society", "Corin Vale co-founded the Meridian Society.", 6, "1875"),
    _rel("Tobiah Quell", "Ines Marrow", "Quell married Ines Marrow.", 8, "1847"),
]}


def _tuples(extraction: dict) -> str:
    """The same extraction in the reference's record format: no time field anywhere."""
    records = [f'("entity"<|>{e["name"]}<|>{e["type"]}<|>{e["description"]})' for e in extraction["entities"]]
    records += [f'("relationship"<|>{r["source"]}<|>{r["target"]}<|>{r["description"]}<|>{r["strength"]})'
                for r in extraction["relations"]]
    return "##".join(records) + "<|COMPLETE|>"


PROMPT_PY = '''PROMPTS = {}
PROMPTS["entiti_relation_extraction"] = """ZEBRA-EXTRACT {entity_types} {tuple_delimiter}{record_delimiter}{completion_delimiter}
Text: {input_text}
"""
PROMPTS["entiti_continue_extraction"] = """ZEBRA-MORE please.
"""
'''


def _build(root: Path, paper_extraction: bool) -> CanonStore:
    (root / "corpus").mkdir()
    (root / "corpus" / "Quell.txt").write_text(BIOGRAPHY, encoding="utf-8")
    store = CanonStore.open(root / "canon")
    spec = CharacterSpec.parse("Tobiah Quell|Quell|Tobiah")
    store.import_world(World(work=WorkInfo(id="quell", title="Tobiah Quell", axis="date"),
                             characters=[spec.character()]))
    chunks = corpus_chunks([root / "corpus" / "Quell.txt"], 600, 100, None).chunks
    library = None
    if paper_extraction:
        (root / "RoleRAG" / "rolerag").mkdir(parents=True)
        (root / "RoleRAG" / "rolerag" / "prompt.py").write_text(PROMPT_PY, encoding="utf-8")
        library = PromptLibrary()
        use_reference_build_prompts(library, root / "RoleRAG")
        rules = [("ZEBRA-MORE", "<|COMPLETE|>"), ("ZEBRA-EXTRACT", _tuples(OWN))]
    else:
        rules = [("may be missing", '{"entities": [], "relations": []}'),
                 ("list the entities and relations", json.dumps(OWN))]
    helper = ScriptedModel(rules=rules + [("one and the same", '{"reason": "different", "same": false}'),
                                          ("Which one name", '{"name": ""}')], default="A summary.")
    builder = GraphBuilder(store, "quell", helper, config=GraphConfig(born="1812-03-09"), embedder=HashEmbedder(),
                           prompts=library)
    asyncio.run(builder.add(chunks))
    builder.close()
    return store


@pytest.fixture(scope="module", params=["own-extraction", "paper-extraction"])
def quell(request, tmp_path_factory):
    store = _build(tmp_path_factory.mktemp("quell"), request.param == "paper-extraction")
    yield store
    store.close()


NAMES = [("Tobiah Quell", "character"), ("Atlas of the Northern Reaches", "object"),
         ("Meridian Society", "organization"), ("Ines Marrow", "character"), ("Rosalind", "character"),
         ("Maud Penrose", "character"), ("Corin Vale", "character")]


def _model() -> ScriptedModel:
    records = "##".join(f"({t}<|>{n}<|>a reason<|>Yes<|>specific)" for n, t in NAMES) + "<|COMPLETE|>"
    entities = {"entities": [{"name": n, "type": t, "relevant": "yes", "reason": "r", "specificity": "specific"}
                             for n, t in NAMES[1:]]}
    return ScriptedModel(rules=[("Records:|ZEBRA-ENTITIES", records), ("Hypothetical answer:", "I think of my maps."),
                                ("Find the entities", json.dumps(entities))], default="I answer in character.")


def _ask(store: CanonStore, method: str, protocol: str, at: str = AT):
    model = _model()
    agent = create_agent(method, model, store=store, embedder=HashEmbedder(),
                         retrieval_config=RetrievalConfig.for_protocol(protocol, threshold=0.99))
    reply = asyncio.run(agent.respond(character_at(store, "quell", "Tobiah Quell", at),
                                      [Turn(speaker="user", text="Tell me about your maps, your friends and your plans.")]))
    return reply, model.calls[-1].messages[-1].content


def _later_facts(prompt: str, at: str) -> list[str]:
    # The names the question asked about that the graph does not show at ``at`` are listed as
    # never met: they come from the question (here the scripted entity reply), not the graph.
    prompt = re.sub(r"Things you have never come across.*?(?=\n\nQuestion:)", "", prompt, flags=re.S)
    years = [y for y in re.findall(r"(?<!\d)(1[89]\d\d)(?!\d)", prompt) if int(y) > int(at[:4])]
    return years + [w for w in LATER if w in prompt]


@pytest.mark.parametrize("protocol", ["paper", "incanon"])
def test_no_later_fact_reaches_the_prompt_at_1845(quell, protocol):
    reply, prompt = _ask(quell, "rolerag-cutoff", protocol)
    assert _later_facts(prompt, AT) == [], prompt
    assert {"Maud Penrose", "Corin Vale"} <= set(reply.details["nodes"]), reply.details["nodes"]


@pytest.mark.parametrize("protocol", ["paper", "incanon"])
def test_the_later_facts_arrive_at_their_own_dates(quell, protocol):
    at_1865, _ = _ask(quell, "rolerag-cutoff", protocol, "1865-01-01")
    assert "Atlas of the Northern Reaches" in at_1865.details["nodes"]
    assert "Meridian Society" not in at_1865.details["nodes"]
    at_1880, _ = _ask(quell, "rolerag-cutoff", protocol, "1880-01-01")
    assert "Meridian Society" in at_1880.details["nodes"]


def test_without_the_cutoff_the_summary_is_in_the_prompt(quell):
    # The measure can fail: the plain method shows the later works at 1845.
    reply, prompt = _ask(quell, "rolerag", "paper")
    assert "Atlas of the Northern Reaches" in reply.details["nodes"] and _later_facts(prompt, AT)
