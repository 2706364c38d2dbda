"""The memory strategies: what each keeps, what it recalls, and how it asks its model."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from incanon.agents import CharacterAt, Turn, agent_names, create_agent
from incanon.bench.dialsim import MEMORIES, memory_method
from incanon.bench.dialsim.agents import TOP_K, estimate_tokens
from incanon.canon.position import Position
from incanon.errors import ConfigError
from incanon.models import ScriptedModel


class HashEmbedder:
    """Deterministic bag-of-words vectors: enough to test ranking without a real model."""

    name = "hash"
    dim = 64

    def __init__(self):
        self.calls = 0

    def embed(self, texts, kind="passage"):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, int(hashlib.md5(word.strip(".,?!:").encode()).hexdigest(), 16) % self.dim] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def _who(script, session):
    return CharacterAt(work_title="x", character=script.main, position=Position.parse(session.date), time_label=session.date)


async def _replay(agent, script, count):
    for session in script.dialogue[:count]:
        for line in session.lines:
            await agent.observe(line)
        await agent.end_session(session)


def test_every_strategy_is_a_registered_method():
    assert {f"dialsim-{m}" for m in MEMORIES} <= set(agent_names())
    assert memory_method("bm25-session") == memory_method("dialsim-bm25-session") == "dialsim-bm25-session"
    assert memory_method("base") == "dialsim-recent"
    with pytest.raises(ConfigError, match="unknown memory"):
        memory_method("bm25-everything")
    assert TOP_K == {"utterance": 20, "session": 10, "summary": 15}
    assert create_agent("dialsim-bm25-utterance", ScriptedModel(default="x")).k == 20


async def test_bm25_session_recalls_the_session_that_mentions_the_question(sample_script):
    model = ScriptedModel(default="(A)")
    agent = create_agent("dialsim-bm25-session", model, k=1)
    await _replay(agent, sample_script, 4)
    current = sample_script.dialogue[4]
    for line in current.lines[:3]:
        await agent.observe(line)
    question = "What is the furnace levy on the glassworks?\n(A) Forty crowns\n(B) Six\n(C) Two\n(D) One\n(E) I don't know."
    reply = await agent.respond(_who(sample_script, current), [Turn(speaker="Jory Callow", text=question)])
    prompt = model.calls[-1].messages[0].content
    assert reply.context == ["session-3#2"] and "Forty crowns" in prompt and "Hot glass and cold truth" in prompt
    assert current.lines[2].text in prompt, "the conversation in progress is always in the prompt"
    assert "Jory Callow asks you" in prompt and "(E)" in prompt


async def test_utterance_retrieval_skips_the_current_session(sample_script):
    agent = create_agent("dialsim-bm25-utterance", ScriptedModel(default="(E)"))
    await _replay(agent, sample_script, 1)
    current = sample_script.dialogue[1]
    for line in current.lines:
        await agent.observe(line)
    units = agent.recall("Dace stick culvert measure", [], 10_000)
    assert units and all(u.session == sample_script.dialogue[0].id for u in units)


async def test_recent_context_keeps_the_newest_sessions_within_the_budget(sample_script):
    agent = create_agent("dialsim-recent", ScriptedModel(default="(E)"))
    await _replay(agent, sample_script, 3)
    newest = estimate_tokens(agent.units[-1].text)
    small = agent.recall("anything", [], newest + 1)
    assert [u.session for u in small] == [sample_script.dialogue[2].id], "the newest whole session, as the reference"
    assert small[0].text.endswith(sample_script.dialogue[2].lines[-1].text)
    assert agent.recall("anything", [], newest - 1) == [], "a session that does not fit stops the filling"
    assert [u.session for u in agent.recall("anything", [], 100_000)] == [s.id for s in sample_script.dialogue[:3]]


async def test_summaries_are_written_by_the_agents_model_at_session_end(sample_script):
    model = ScriptedModel(rules=[("Summarize this conversation", "Wren's brother Jory toasted her first night on the Sea Wall.")],
                          default="(E)")
    agent = create_agent("dialsim-bm25-summary", model)
    for line in sample_script.dialogue[0].lines:
        await agent.observe(line)
    assert model.calls == [], "nothing is summarized before the session ends"
    await agent.end_session(sample_script.dialogue[0])
    assert len(model.calls) == 1 and "Bring the good jug" in model.calls[0].messages[0].content
    [unit] = agent.recall("Who toasted Wren?", [], 1000)
    assert "(summary) Wren's brother Jory toasted" in unit.text


async def test_embedding_memory_appends_one_vector_per_unit(sample_script):
    embedder = HashEmbedder()
    agent = create_agent("dialsim-embedding-utterance", ScriptedModel(default="(E)"), embedder=embedder)
    await _replay(agent, sample_script, 2)
    lines = sum(len(s.lines) for s in sample_script.dialogue[:2])
    assert len(agent.index) == lines and embedder.calls == lines
    units = agent.recall("Sefa chimneys purchase", [], 10_000)
    assert len(units) == 20 and any("chimneys" in u.text for u in units)


async def test_the_oracle_sees_only_evidence_it_heard(sample_script):
    model = ScriptedModel(default="(E)")
    agent = create_agent("dialsim-oracle", model)
    await _replay(agent, sample_script, 3)
    heard = [s.id for s in sample_script.dialogue[:3]]
    units = agent.recall("", [heard[1], "session-5", "session-99"], 100_000)
    assert [u.session for u in units] == [heard[1]]
    await agent.respond(_who(sample_script, sample_script.dialogue[3]),
                        [Turn(speaker="Dace Morrow", text="Who?", about=f"{heard[0]},session-5")])
    prompt = model.calls[-1].messages[0].content
    assert sample_script.dialogue[0].lines[0].text in prompt and sample_script.dialogue[1].lines[0].text not in prompt


async def test_constrained_choices_ask_for_a_marker_by_grammar(sample_script):
    model = ScriptedModel(default='{"answer": "(C)"}')
    agent = create_agent("dialsim-recent", model, constrain_choices=True)
    reply = await agent.respond(_who(sample_script, sample_script.dialogue[0]), [Turn(speaker="Nell Hobb", text="Q?\n(A) a")])
    assert reply.text == "(C)"
    assert model.calls[-1].params.response_format["json_schema"]["schema"]["properties"]["answer"]["enum"][-1] == "(E)"


async def test_reset_forgets_everything(sample_script):
    agent = create_agent("dialsim-bm25-session", ScriptedModel(default="(E)"))
    await _replay(agent, sample_script, 2)
    agent.reset()
    assert agent.recall("Wren", [], 1000) == [] and agent.current == []


class _SizedModel(ScriptedModel):
    """A scripted model that says its context size, like a local GGUF model."""

    n_ctx = 3000


def test_the_context_budget_is_the_models_size_unless_capped():
    agent = create_agent("dialsim-bm25-session", _SizedModel(default="(E)"))
    assert agent.context_tokens == 2500 and "n_ctx" in agent.context_source
    capped = create_agent("dialsim-bm25-session", _SizedModel(default="(E)"), context_tokens=800)
    assert capped.context_tokens == 800
    unknown = create_agent("dialsim-bm25-session", ScriptedModel(default="(E)"))
    assert unknown.context_tokens == 3500, "the reference's 4,000 fallback minus its 500 reserve"
    big = create_agent("dialsim-recent", ScriptedModel(default="(E)", name="gpt-4o-mini"))
    assert big.context_tokens == 128000 - 500


async def test_the_paper_prompt_set_lays_out_the_question_as_the_reference(sample_script):
    model = ScriptedModel(default="(E)")
    agent = create_agent("dialsim-bm25-session", model, prompt_set="paper")
    await _replay(agent, sample_script, 2)
    who = CharacterAt(work_title="t", character="Wren Callow", position=Position.parse("1187-04-02"),
                      time_label="April 2, 1187")
    turn = Turn(speaker="Jory", text="Who lights the lamps?\n(A) Dace\n(B) Nell\n(C) Pell\n(D) Sefa\n(E) I don't know.")
    await agent.answer(who, turn, agent.retrieve(who, turn), question_text="Who lights the lamps?",
                       options=["Dace", "Nell", "Pell", "Sefa", "I don't know."])
    prompt = model.calls[-1].messages[-1].content
    assert prompt.startswith("You are Wren Callow") and "[Retrieved Dialogue History]" in prompt
    assert "[Question] Jory: Who lights the lamps?\n\t(A) Dace\n\t(B) Nell" in prompt and prompt.endswith("[Answer]")
    assert "April 2, 1187" in prompt
    base = create_agent("dialsim-recent", model, prompt_set="paper", answer_format="mc-nl")
    await base.answer(who, turn, base.retrieve(who, turn), question_text="Who lights the lamps?",
                      options=["Dace", "Nell", "Pell", "Sefa", "I don't know."])
    prompt = model.calls[-1].messages[-1].content
    assert "[Dialogue History]" in prompt and "Who lights the lamps? Dace? or Nell? or Pell? or Sefa? or you don't know?" in prompt
