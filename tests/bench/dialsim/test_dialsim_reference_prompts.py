"""``--prompts-from DIR``: the texts of a folder in the reference repository's ``prompt/`` layout,
used exactly. The fixture is our own wording in that layout (file names and markers only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.agents import create_agent
from incanon.agents.base import CharacterAt, Turn
from incanon.bench.dialsim import DialScript, DialSession, Line, Question, RunSetup, SimConfig, run_setting
from incanon.bench.dialsim.refprompts import ReferenceJudge, ReferencePrompts, reference_question
from incanon.canon.position import Position
from incanon.errors import InputError
from incanon.models import ScriptedModel
from incanon.runs import RunStore

OURS = {
    "RAG_qa_prompt_multi_choice_structured.txt": "BOT=<<<Chatbot>>> DAY=<<<Date>>>\nMEM:\n<<<Dialog_History>>>ASK:\n<<<Question>>>\nPICK ONE",
    "RAG_qa_prompt_multi_choice_unstructured.txt": "r-unstructured <<<Chatbot>>> <<<Date>>> <<<Dialog_History>>> <<<Question>>>",
    "RAG_qa_prompt_open_ended.txt": "r-open <<<Chatbot>>> <<<Date>>> <<<Dialog_History>>> <<<Question>>>",
    "naive_llm_inference_multi_choice_structured.txt": "PLAIN <<<Chatbot>>>|<<<Date>>>|<<<Dialog_History>>>|<<<Question>>>",
    "naive_llm_inference_multi_choice_unstructured.txt": "n-unstructured <<<Chatbot>>> <<<Date>>> <<<Dialog_History>>> <<<Question>>>",
    "naive_llm_inference_open_ended.txt": "n-open <<<Chatbot>>> <<<Date>>> <<<Dialog_History>>> <<<Question>>>",
    "chatgpt_summarize_prompt.txt": "SQUEEZE THIS:\n<<<DIALOG>>>\nEND",
    "gpt_as_a_judge_system_prompt.txt": "You grade. Reply JSON with correct and wrong.",
    "gpt_as_a_judge_user_prompt.txt": "Q=<<<QUESTION>>> GOLD=<<<TRUEANSWER>>> SAID=<<<PREDICTION>>>",
}
OPTIONS = ["Cy", "Ben", "Dee", "Gus", "I don't know."]


@pytest.fixture()
def clone(tmp_path: Path) -> Path:
    """A clone-shaped folder: <clone>/prompt/*.txt."""
    folder = tmp_path / "Simulator" / "prompt"
    folder.mkdir(parents=True)
    for name, text in OURS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return tmp_path / "Simulator"


def _session(sid: str, date: str, order: int, speakers: list[str]) -> DialSession:
    lines = tuple(Line(sid, date, i, who, f"line {i} of {sid}") for i, who in enumerate(speakers))
    return DialSession(sid, order, date, sid, tuple(dict.fromkeys(speakers)), tuple(dict.fromkeys(speakers)), lines)


def test_the_question_is_laid_out_as_the_reference_lays_it_out():
    assert reference_question("Ben", "Who?", OPTIONS, "mc") == (
        "Ben: Who?\n\t(A) Cy\n\t(B) Ben\n\t(C) Dee\n\t(D) Gus\n\t(E) I don't know.")
    assert reference_question("Ben", "Who?", OPTIONS, "mc-nl") == "Ben: Who? Cy? or Ben? or Dee? or Gus? or you don't know?"
    assert reference_question("Ben", "Who?", OPTIONS, "open") == "Ben: Who?"


async def test_the_answer_prompt_is_the_files_text_with_the_markers_filled(clone):
    model = ScriptedModel(default="(A)")
    agent = create_agent("dialsim-bm25-session", model, prompts_from=str(clone))
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben"])
    for line in s1.lines:
        await agent.observe(line)
    await agent.end_session(s1)
    who = CharacterAt(work_title="W", character="Ana", position=Position.parse("2020-01-02"), time_label="January 2, 2020")
    turn = Turn(speaker="Ben", text="What was line 1 of s1?")
    await agent.answer(who, turn, agent.retrieve(who, turn), question_text="What was line 1 of s1?", options=OPTIONS)
    sent = model.calls[-1].messages[-1].content
    history = "[January 1, 2020, s1]\nAna: line 0 of s1\nBen: line 1 of s1\n"
    assert sent == ("BOT=Ana DAY=January 2, 2020\nMEM:\n" + history + "ASK:\nBen: What was line 1 of s1?\n"
                    "\t(A) Cy\n\t(B) Ben\n\t(C) Dee\n\t(D) Gus\n\t(E) I don't know.\nPICK ONE")
    base = create_agent("dialsim-recent", ScriptedModel(default="(A)"), prompts_from=str(clone / "prompt"))
    await base.answer(who, turn, base.retrieve(who, turn), question_text="Q?", options=OPTIONS)
    assert base.model.calls[-1].messages[-1].content.startswith("PLAIN Ana|January 2, 2020|No history.\n|Ben: Q?\n")


async def test_summaries_and_the_judge_use_the_files_too(clone):
    model = ScriptedModel(default="short")
    agent = create_agent("dialsim-bm25-summary", model, prompts_from=str(clone))
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben"])
    for line in s1.lines:
        await agent.observe(line)
    await agent.end_session(s1)
    assert model.calls[-1].messages[-1].content == "SQUEEZE THIS:\nAna: line 0 of s1\nBen: line 1 of s1\nEND"
    replies = iter(['{"correct": false, "wrong": false}', '{"correct": false, "wrong": true}'])
    judge_model = ScriptedModel(default=lambda messages: next(replies))
    score = await ReferenceJudge(judge_model, ReferencePrompts(clone)).score("Who?", "Cy", "Ben, I think")
    assert score.verdict == "wrong" and len(judge_model.calls) == 2  # asked again, as the reference does
    sent = judge_model.calls[0].messages
    assert sent[0].role == "system" and sent[0].content == OURS["gpt_as_a_judge_system_prompt.txt"]
    assert sent[1].content == "Q=Who? GOLD=Cy SAID=Ben, I think"


async def test_a_whole_run_sends_the_files_text(clone, tmp_path):
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben", "Ana", "Ben"])
    q = Question(id="q", session="s1", source="tkg", type="cur", answerable=True, texts={"default": "Who?"},
                 answer="Cy", options=OPTIONS)
    model = ScriptedModel(default="(A)")
    setup = RunSetup(script=DialScript(work="w", title="W", main="Ana", sessions=[s1]), questions=[q],
                     agent_model=model, models={"agent": "scripted"}, config=SimConfig(fast=True),
                     prompts_from=str(clone))
    outcome = await run_setting(setup, RunStore(tmp_path / "runs.sqlite"))
    answers = [c.messages[-1].content for c in model.calls if "PICK ONE" in c.messages[-1].content]
    assert len(answers) == 1 and answers[0].startswith("BOT=Ana DAY=January 1, 2020\nMEM:\n")
    plain = await run_setting(RunSetup(script=setup.script, questions=[q], agent_model=ScriptedModel(default="(A)"),
                                       models={"agent": "scripted"}, config=SimConfig(fast=True)),
                              RunStore(tmp_path / "runs.sqlite"))
    assert plain.run_id != outcome.run_id  # the prompts are part of what makes the run


def test_a_missing_file_or_marker_is_named(clone, tmp_path):
    (clone / "prompt" / "chatgpt_summarize_prompt.txt").unlink()
    prompts = ReferencePrompts(clone)
    prompts.check("mc", retrieval=True)
    with pytest.raises(InputError, match=r"chatgpt_summarize_prompt.txt: missing"):
        prompts.check("mc", retrieval=True, summary=True)
    (clone / "prompt" / "RAG_qa_prompt_open_ended.txt").write_text("no markers here", encoding="utf-8")
    with pytest.raises(InputError, match=r"RAG_qa_prompt_open_ended.txt: no <<<Date>>> marker"):
        ReferencePrompts(clone).check("open", retrieval=True)
    with pytest.raises(InputError, match="takes a folder"):
        ReferencePrompts(tmp_path / "nowhere")


def test_the_cli_checks_the_folder_before_any_run(clone, tmp_path, monkeypatch, capsys):
    from dialsim_helpers import cli_exit, tiny_store

    tiny_store(tmp_path / "canon")
    questions = tmp_path / "q.jsonl"
    questions.write_text(Question(id="q", session="session-1", source="tkg", type="cur", answerable=True,
                                  texts={"default": "Who?"}, answer="Cy", options=OPTIONS).model_dump_json() + "\n")
    (clone / "prompt" / "RAG_qa_prompt_multi_choice_structured.txt").unlink()
    code = cli_exit(["dialsim", "run", "--store", str(tmp_path / "canon"), "--questions", str(questions),
                     "--model", "scripted:(A)", "--prompts-from", str(clone), "--runs", str(tmp_path / "r.sqlite"),
                     "--fast"], monkeypatch)
    assert code == 2 and "RAG_qa_prompt_multi_choice_structured.txt: missing" in capsys.readouterr().err
    assert not (tmp_path / "r.sqlite").exists()
