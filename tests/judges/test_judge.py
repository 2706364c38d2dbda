from incanon.judges import LLMJudge, SpatiotemporalJudge, spatiotemporal_label
from incanon.models import ScriptedModel


async def test_judge_parses_first_answer_without_repair():
    model = ScriptedModel(default="It stays in character.\nScore: 1")
    verdict = await SpatiotemporalJudge(model).judge(
        character="Ada", when="end of book 1", question="Q?", answer="A.", label="L."
    )
    assert verdict.score == 1 and not verdict.repaired
    assert len(model.calls) == 1
    prompt = model.calls[0].messages[0].content
    assert "Ada" in prompt and "end of book 1" in prompt and "L." in prompt


async def test_judge_makes_one_repair_call_when_no_score():
    model = ScriptedModel(queue=["I am not sure what to think.", '{"score": 0}'])
    verdict = await LLMJudge(model, "judge_spatiotemporal", {0, 1}).judge(
        character="Ada", when="now", question="Q?", answer="A.", label="L."
    )
    assert verdict.score == 0 and verdict.repaired
    assert len(model.calls) == 2
    assert "only the score" in model.calls[1].messages[-1].content
    schema = model.calls[1].params.response_format["json_schema"]["schema"]
    assert schema["properties"]["score"]["enum"] == [0, 1]


async def test_repair_accepts_plain_text_and_rejects_out_of_range_json():
    judge = LLMJudge(ScriptedModel(queue=["hmm", "Score: 1"]), "judge_spatiotemporal", (1, 7))
    verdict = await judge.judge(character="A", when="now", question="Q", answer="A", label="L")
    assert verdict.score == 1
    judge = LLMJudge(ScriptedModel(queue=["hmm", '{"score": 9}']), "judge_spatiotemporal", (1, 7))
    verdict = await judge.judge(character="A", when="now", question="Q", answer="A", label="L")
    assert verdict.score is None


async def test_judge_gives_none_not_a_string_when_repair_fails():
    model = ScriptedModel(default="no idea")
    verdict = await LLMJudge(model, "judge_spatiotemporal", {0, 1}).judge(
        character="Ada", when="now", question="Q?", answer="A.", label="L."
    )
    assert verdict.score is None and verdict.repaired


def test_labels_differ_by_data_type():
    labels = {t: spatiotemporal_label(t, "Ada", "spring", "The bridge fell.")
              for t in ("future", "past-absence", "past-presence", "past-only")}
    assert len(set(labels.values())) == 4
    assert "later" in labels["future"] and "NOT there" in labels["past-absence"]
    assert all("The bridge fell." in v for v in labels.values())
