"""incanon's own method and the scoped persona every method gets, on the sample world.

Before the scoped builder, every method's system prompt for Wren at the end of book 1 said "also
called Wren, Wrennie, Stormwren, Lamp-Mistress Callow" and carried the whole-story profile (the
flood, Sefa's betrayal, the election); rag-cutoff fed her the text of scenes she missed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.agents import Turn, agent_names, character_at, create_agent
from incanon.audit import PAPER_METHODS
from incanon.canon import CanonStore
from incanon.graph import HashEmbedder
from incanon.models import ScriptedModel
from incanon.sample import sample_world

LATER = ("Stormwren", "Lamp-Mistress", "betray", "elected", "partnership")
MISSED_SCENES = {"1-2-1", "1-2-3"}  # Jory at the Counting House, Ilse and the Provost's ledger


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory):
    store = CanonStore.open(tmp_path_factory.mktemp("sample") / "canon")
    store.import_world(sample_world())
    yield store
    store.close()


def _agent(method: str, store: CanonStore):
    return create_agent(method, ScriptedModel(default="I would rather not say."), store=store,
                        embedder=HashEmbedder())


def test_in_canon_is_registered_and_the_default():
    from incanon.agents import DEFAULT_METHOD

    assert DEFAULT_METHOD == "in-canon" and "in-canon" in agent_names()


@pytest.mark.parametrize("method", ["in-canon", *PAPER_METHODS])
async def test_no_method_gets_the_whole_story_persona(sample, method):
    who = character_at(sample, "lanterns", "Wren", "end of book 1", warn=False)
    assert who.aliases == ["Wren", "Wrennie"]
    reply = await _agent(method, sample).respond(who, [Turn(speaker="user", text="Who are you?")])
    systems = [m.content for call in reply.calls for m in call.messages if m.role == "system"]
    assert systems, "every method's answer has a persona system prompt"
    for text in systems:
        for word in LATER:
            assert word not in text, f"{method}: {word!r} in the system prompt"
        assert "Wren Callow is an apprentice of the Lamplighters' Guild" in text


async def test_in_canon_reads_only_witnessed_text_and_known_facts(sample):
    who = character_at(sample, "lanterns", "Wren", "end of book 1", warn=False)
    question = "What did the Provost ask of the clerk at the Counting House?"
    reply = await _agent("in-canon", sample).respond(who, [Turn(speaker="user", text=question)])
    chunks = {c.id: c for c in sample.chunks("lanterns")}
    read = [r["id"] for r in reply.details["retrieved"]]
    assert read, "it retrieves"
    assert not {chunks[c].scene for c in read} & MISSED_SCENES
    assert all(chunks[c].position <= who.position for c in read)
    known = {f.id for f in sample.scope("lanterns", "Wren", "1-3").facts()}
    assert set(reply.details["facts"]) <= known and "f-payments" not in reply.details["facts"]
    # The experts read the same witnessed passages and are not told of later books.
    prompts = "\n".join(m.content for call in reply.calls for m in call.messages)
    assert [c.step for c in reply.calls] == ["temporal-expert", "spatial-expert", "answer"]
    for missed in (c for c in chunks.values() if c.scene in MISSED_SCENES):
        assert missed.text[:80] not in prompts
    books = sample.work("lanterns").books
    assert books["1"] in prompts and books["3"] not in prompts


async def test_rag_cutoff_still_cuts_by_time_only(sample):
    # The paper's baseline keeps its behaviour: text of scenes Wren missed can reach it.
    who = character_at(sample, "lanterns", "Wren", "end of book 1", warn=False)
    reply = await _agent("rag-cutoff", sample).respond(
        who, [Turn(speaker="user", text="Ilse Varga found two payments to the Marrow Timber Company in the Wall Levy.")])
    chunks = {c.id: c for c in sample.chunks("lanterns")}
    assert {chunks[r["id"]].scene for r in reply.details["retrieved"]} & MISSED_SCENES


def test_whole_story_text_is_withheld_with_a_warning(sample, capsys, caplog, tmp_path: Path):
    from incanon.agents import persona as persona_module
    from incanon.logs import NOTICE

    persona_module._WARNED.clear()
    with caplog.at_level(NOTICE, logger="incanon"):
        character_at(sample, "lanterns", "Wren", "end of book 1")
    # Logged (the command line shows NOTICE on stderr), not printed by library code; without the
    # withheld name itself (a person reads it).
    said = " ".join(r.getMessage() for r in caplog.records if r.levelno == NOTICE)
    assert "withheld" in said and "uses a name not yet in use" in said and "stormwren" not in said.lower()
