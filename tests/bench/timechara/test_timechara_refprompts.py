"""``--prompts-from``: the clone's prompt files are sent word for word. The fixtures are our own
invented texts in the reference's layout (``methods/self_refine/feedback.txt``, ``data/*.txt``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from incanon.agents import CharacterAt, Turn, create_agent
from incanon.bench.timechara.refprompts import use_reference_prompts
from incanon.canon import Position
from incanon.errors import InputError, NotFoundError
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary
from incanon.testing.cli import run_cli

FEEDBACK = ("OTTER-FEEDBACK on {agent_name}.\nInterviewer: {question_0}\n{agent_name}: {response_0}\n"
            "Give a spatiotemporal score and a personality score, then the total.\n")


SPATIO = "OTTER-TIME {agent_name} | {question_0} | {answer_0} | truth: {agent_fact_0}\nScore 0 or 1."
PERSONA = "OTTER-PERSONA {agent_name} ({agent_personality}) | {question_0} | {response_0}"


def clone(tmp_path: Path, text: str = FEEDBACK, open_text: str = "OTTER-OPEN {agent_name} {response_0}") -> Path:
    root = tmp_path / "timechara"
    folder = root / "methods" / "self_refine"
    folder.mkdir(parents=True)
    (folder / "feedback.txt").write_text(text, encoding="utf-8")
    (folder / "feedback_open_source.txt").write_text(open_text, encoding="utf-8")
    (root / "data").mkdir()
    (root / "data" / "spatiotemporal_consistency_evaluation_prompt.txt").write_text(SPATIO, encoding="utf-8")
    (root / "data" / "personality_consistency_evaluation_prompt.txt").write_text(PERSONA, encoding="utf-8")
    return root


async def test_self_refine_sends_the_clone_s_feedback_prompt(tmp_path: Path):
    library = PromptLibrary()
    assert [p.name for p in use_reference_prompts(library, clone(tmp_path))] == [
        "feedback.txt", "spatiotemporal_consistency_evaluation_prompt.txt", "personality_consistency_evaluation_prompt.txt"]
    model = ScriptedModel(rules=[(r"OTTER-FEEDBACK", "Spatiotemporal score: 3\nPersonality score: 3\nTotal: 6")],
                          default="I keep the lamp.")
    who = CharacterAt(work_title="The Lamp Saga", character="Ada", personality="Dry.", position=Position.parse("1"),
                      time_label="end of book 1")
    reply = await create_agent("self-refine", model, prompts=library).respond(
        who, [Turn(speaker="user", text="Who keeps the lamp?")])
    assert [c.step for c in reply.calls] == ["answer", "feedback-1"] and reply.details["accepted"] is True
    sent = reply.calls[1].messages[-1].content
    assert sent == FEEDBACK.format(agent_name="Ada", question_0="Who keeps the lamp?", response_0="I keep the lamp.")
    other = PromptLibrary()
    use_reference_prompts(other, clone(tmp_path / "o"), open_source=True)
    assert other.render("self_refine_feedback", character="Ada", question="Q", answer="A", work_title="", when="",
                        situation="", personality="") == "OTTER-OPEN Ada A"


async def test_the_judges_send_the_clone_s_evaluation_prompts(tmp_path: Path):
    from incanon.judges.personality import PersonalityJudge
    from incanon.judges.spatiotemporal import SpatiotemporalJudge

    library = PromptLibrary()
    use_reference_prompts(library, clone(tmp_path))
    model = ScriptedModel(default="Fine.\nScore: 1")
    got = await SpatiotemporalJudge(model, prompts=library).judge(
        character="Ada", when="book 1", question="Q?", answer="A.", label="Ada was absent.")
    assert got.score == 1
    assert model.calls[-1].messages[-1].content == SPATIO.format(
        agent_name="Ada", question_0="Q?", answer_0="A.", agent_fact_0="Ada was absent.")
    judge = ScriptedModel(default="Score: 5")
    await PersonalityJudge(judge, prompts=library).judge(character="Ada", question="Q?", answer="A.", personality="Dry.")
    assert judge.calls[-1].messages[-1].content == PERSONA.format(
        agent_name="Ada", agent_personality="Dry.", question_0="Q?", response_0="A.")


def test_bad_clones_say_what_is_wrong(tmp_path: Path):
    with pytest.raises(NotFoundError, match="feedback.txt"):
        use_reference_prompts(PromptLibrary(), tmp_path)
    with pytest.raises(InputError, match="response_0"):
        use_reference_prompts(PromptLibrary(), clone(tmp_path / "a", text="no placeholders here"))
    library = PromptLibrary()
    use_reference_prompts(library, clone(tmp_path / "b", text="{agent_name} {mood} {response_0}"))
    with pytest.raises(InputError, match="mood") as err:
        library.render("self_refine_feedback", character="Ada", question="Q", answer="A")
    assert "feedback.txt" in str(err.value)


def test_cli_refuses_a_folder_without_the_files(tmp_path: Path):
    env = dict(os.environ, INCANON_HOME=str(tmp_path))
    items = tmp_path / "items.jsonl"
    items.write_text("")
    res = run_cli(["timechara", "eval", "--items", str(items), "--model",
                  "scripted:x.json", "--judge", "scripted:x.json", "--prompts-from", str(tmp_path)], env=env, timeout=300)
    assert res.returncode != 0 and "feedback.txt" in res.stderr and "Traceback" not in res.stderr
