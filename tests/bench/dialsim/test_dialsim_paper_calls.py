"""``--protocol paper``: the model calls as the reference sends them (sampling, summary bound,
no warm-up call) and the oracle's current session pasted whole, on a fixture of our own in the
authors' ``<show>_dialsim`` / ``<show>_oracle_tkg`` layout."""

from __future__ import annotations

import json

import pytest

from incanon.agents import create_agent
from incanon.bench.dialsim import DialScript, DialSession, Line, SimConfig, Simulator, ingest, load_script, read_questions
from incanon.canon import CanonStore
from incanon.models import ScriptedModel

OPTIONS = ["Cy", "Ben", "Dee", "Gus", "I don't know."]
# Session 1-2's question is asked after its second line; its evidence is that session, whose
# fourth line (not yet spoken when the question comes) holds the answer.
DATA = {"1": {
    "1": {"script": "Ana: Morning.\nBen: Morning, Ana.", "date": "January 1, 2020", "hard_q": {}, "easy_q": {}},
    "2": {"script": "Ana: Who bakes today?\nBen: Let me think.\nAna: Tell me.\nBen: Cy bakes the rye today.",
          "date": "January 2, 2020",
          "hard_q": {"cur": [{"questions": {"default": "Who bakes the rye today?"}, "answer": "Cy",
                              "options": OPTIONS}]},
          "easy_q": {}}}}
ORACLE_TKG = {"1": {"2": {"cur": [["January 2, 2020"]]}}}


def _world(tmp_path) -> tuple[DialScript, list]:
    (tmp_path / "bake_dialsim.json").write_text(json.dumps(DATA))
    (tmp_path / "bake_oracle_tkg.json").write_text(json.dumps(ORACLE_TKG))
    store = CanonStore.open(tmp_path / "canon")
    report = ingest(store, published=tmp_path / "bake_dialsim.json")
    assert report.with_evidence == 1
    questions = read_questions(tmp_path / "canon" / "dialsim" / "bake" / "published_questions.jsonl")
    return load_script(store, "bake", "Ana"), questions


def _answer_prompts(model: ScriptedModel) -> list[str]:
    return [c.messages[-1].content for c in model.calls if "Who bakes the rye today?" in c.messages[-1].content]


@pytest.mark.parametrize("protocol", ["paper", "incanon"])
async def test_the_paper_oracle_pastes_the_current_session_whole_lines_not_yet_spoken_included(tmp_path, protocol):
    script, questions = _world(tmp_path)
    assert questions[0].evidence == ["1-2"]
    model = ScriptedModel(default="(A)")
    agent = create_agent("dialsim-oracle", model, protocol=protocol)
    config = SimConfig(time_limit=0, fast=True, protocol=protocol, seed=0)
    result = await Simulator(script, questions, agent, config=config).run()
    asked = [s.question for s in result.sessions if s.question is not None]
    assert len(asked) == 1 and asked[0].index < 3, "asked before the answer's line is spoken"
    prompt = _answer_prompts(model)[0]
    if protocol == "paper":
        # As the reference's date_to_sessions: the session's whole script, filed when it began.
        assert "Ben: Cy bakes the rye today." in prompt and asked[0].retrieved == ["1-2#1"]
    else:
        assert "Cy bakes the rye" not in prompt, "incanon's own protocol shows only the lines heard"


async def test_paper_answer_and_summary_calls_use_the_references_sampling_and_summary_bound():
    lines = tuple(Line("s1", "2020-01-01", i, who, f"line {i}") for i, who in enumerate(["Ana", "Ben"]))
    session = DialSession("s1", 0, "2020-01-01", "s1", ("Ana", "Ben"), ("Ana", "Ben"), lines)
    for protocol, sampling, summary_tokens in (("paper", (0.2, 0.1), 4096), ("incanon", (0.0, 1.0), 240)):
        model = ScriptedModel(default="a summary")
        agent = create_agent("dialsim-bm25-summary", model, protocol=protocol)
        for line in lines:
            await agent.observe(line)
        await agent.end_session(session)
        summary = model.calls[-1].params
        assert (summary.temperature, summary.top_p, summary.max_tokens) == (*sampling, summary_tokens)
        from incanon.agents.base import CharacterAt, Turn
        from incanon.canon.position import Position

        who = CharacterAt(work_title="W", character="Ana", position=Position.parse("2020-01-02"))
        turn = Turn(speaker="Ben", text="Who said line 1?")
        await agent.answer(who, turn, agent.retrieve(who, turn))
        answer = model.calls[-1].params
        assert (answer.temperature, answer.top_p) == sampling


@pytest.mark.parametrize(("protocol", "warm", "hello"), [
    ("paper", None, 0), ("paper", True, 1), ("incanon", None, 1), ("incanon", False, 0)])
async def test_the_warm_up_call_is_sent_only_under_incanons_protocol_or_when_asked(tmp_path, protocol, warm, hello):
    script, questions = _world(tmp_path)
    model = ScriptedModel(default="(A)")
    agent = create_agent("dialsim-bm25-session", model, protocol=protocol)
    config = SimConfig(time_limit=0, fast=True, protocol=protocol, warm_model=warm)
    await Simulator(script, questions, agent, config=config).run()
    assert sum(c.messages[-1].content == "Hello." for c in model.calls) == hello
