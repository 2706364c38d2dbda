"""The simulator: seeded questions, timeouts recorded as timeouts, errors never counted as wrong."""

from __future__ import annotations

import asyncio
import time

import pytest

from dialsim_helpers import FakeClock, SlowModel, TINY_TKG, tiny_store
from incanon.agents import create_agent
from incanon.bench.dialsim import (
    Knowledge, SimConfig, Simulator, load_script, plan_simulation, quads_from_rows, tkg_questions)
from incanon.bench.dialsim.agents import RecentContextAgent
from incanon.bench.dialsim.plan import AFTER, BEFORE, is_group_speaker
from incanon.errors import ConfigError, ModelError
from incanon.models import ScriptedModel


def _sim(script, questions, model, clock=None, **config):
    clock = clock or FakeClock()
    agent = create_agent(config.pop("memory", "dialsim-bm25-session"), model)
    return Simulator(script, questions, agent, config=SimConfig(**{"fast": True, **config}),
                     clock=clock, sleep=clock.sleep, warm_up=False)


def test_the_same_seed_asks_the_same_questions_at_the_same_places(sample_script, sample_questions):
    first = plan_simulation(sample_script, sample_questions, seed=7).signature()
    assert first == plan_simulation(sample_script, sample_questions, seed=7).signature()
    assert len(first) >= len(sample_script.dialogue) - 2  # sessions where Wren is silent or alone ask nothing
    others = [plan_simulation(sample_script, sample_questions, seed=s).signature() for s in (8, 9)]
    assert all(o != first for o in others)


def test_planned_questions_follow_the_papers_rules(sample_script, sample_questions):
    main = sample_script.main
    for seed in range(20):
        plan = plan_simulation(sample_script, sample_questions, seed=seed)
        for p in plan.asked.values():
            session = sample_script.session(p.session)
            lines = session.lines
            own = [i for i, line in enumerate(lines) if line.speaker == main]
            assert lines[p.index].speaker == main and p.index != own[0]
            near = {lines[j].speaker for j in range(max(0, p.index - BEFORE), min(len(lines), p.index + AFTER + 1))}
            assert p.asker != main and p.asker in near and not is_group_speaker(p.asker)
            assert p.question.session == p.session


def test_a_session_with_one_speaker_gets_no_question(tmp_path):
    store = tiny_store(tmp_path)
    script = load_script(store, "tiny", "Ana")
    questions, _ = tkg_questions(quads_from_rows(TINY_TKG, script), script, Knowledge(store, script))
    plan = plan_simulation(script, questions, seed=0)
    assert plan.skipped["session-5"] == "fewer than two speakers"
    assert set(plan.asked) <= {"session-1", "session-3", "session-4"}


async def test_a_simulation_is_deterministic_by_seed(sample_script, sample_questions):
    def answer(messages):
        return "(A)" if "Jory" in messages[-1].content else "(E)"

    runs = []
    for _ in range(2):
        result = await _sim(sample_script, sample_questions, ScriptedModel(default=answer), seed=3).run()
        runs.append([(o.session, o.index, o.asker, o.question_id, o.answer, o.status) for o in result.outcomes])
    assert runs[0] == runs[1] and len(runs[0]) == len(plan_simulation(sample_script, sample_questions, seed=3).asked)
    assert {status for *_, status in runs[0]} <= {"correct", "wrong"}


async def test_a_slow_answer_is_a_timeout_not_a_wrong_answer(sample_script, sample_questions):
    clock = FakeClock()
    model = SlowModel(clock, seconds=7.0, reply="(A)")
    result = await _sim(sample_script.first(3), sample_questions, model, clock=clock, time_limit=6).run()
    assert [o.status for o in result.outcomes] == ["timeout"] * 3
    assert all(o.stage == "answer" and o.answer == "(A)" and o.answer_s == 7.0 for o in result.outcomes)
    assert result.accuracy() == 0.0, "a timeout is a failed question, as in the paper"
    quick = await _sim(sample_script.first(3), sample_questions, SlowModel(FakeClock(), 5.0), time_limit=6).run()
    assert "timeout" not in {o.status for o in quick.outcomes}


async def test_no_time_limit_means_no_timeouts(sample_script, sample_questions):
    clock = FakeClock()
    result = await _sim(sample_script.first(2), sample_questions, SlowModel(clock, 500.0), clock=clock, time_limit=0).run()
    assert "timeout" not in {o.status for o in result.outcomes}


class _SlowMemory(RecentContextAgent):
    """Takes ``seconds`` of fake time to remember each utterance."""

    def __init__(self, model, clock, seconds):
        super().__init__(model)
        self.clock, self.seconds = clock, seconds

    async def _observe(self, line):
        self.clock.now += self.seconds
        await super()._observe(line)


async def test_a_slow_memory_update_fails_the_question_as_a_timeout(sample_script, sample_questions):
    clock = FakeClock()
    agent = _SlowMemory(ScriptedModel(default="(E)"), clock, 6.5)
    sim = Simulator(sample_script.first(2), sample_questions, agent, config=SimConfig(fast=True, time_limit=6),
                    clock=clock, sleep=clock.sleep, warm_up=False)
    result = await sim.run()
    assert [(o.status, o.stage) for o in result.outcomes] == [("timeout", "memory")] * 2
    assert all(o.answer is None for o in result.outcomes), "the question was never put to the agent"
    assert result.sessions[0].memory_timeouts == result.sessions[0].lines


async def test_errors_are_recorded_as_errors_and_count_wrong_as_in_the_reference(sample_script, sample_questions):
    broken = SlowModel(FakeClock(), 0.0, fail=ModelError("backend down"))
    result = await _sim(sample_script.first(2), sample_questions, broken, time_limit=6).run()
    assert [o.status for o in result.outcomes] == ["error", "error"]
    assert all(o.stage == "answer" and "backend down" in o.error for o in result.outcomes)
    assert result.accuracy() == 0.0, "the reference counts a model error as a wrong answer"
    assert result.counts() == {"error": 2}, "but incanon counts it apart"
    assert all(s.sample_status() == "error" and s.scores()["correct"] == 0.0 for s in result.sessions)


class _BrokenMemory(RecentContextAgent):
    async def _observe(self, line):
        raise RuntimeError("disk full")


async def test_a_failing_memory_update_is_an_error_not_a_wrong_answer(sample_script, sample_questions):
    agent = _BrokenMemory(ScriptedModel(default="(A)"))
    clock = FakeClock()
    sim = Simulator(sample_script.first(1), sample_questions, agent, config=SimConfig(fast=True),
                    clock=clock, sleep=clock.sleep, warm_up=False)
    result = await sim.run()
    [outcome] = result.outcomes
    assert outcome.status == "error" and outcome.stage == "memory" and "disk full" in outcome.error
    assert len(result.sessions[0].memory_errors) == result.sessions[0].lines


async def test_real_time_paces_one_interval_per_utterance_question_included(sample_script, sample_questions):
    clock = FakeClock()
    script = sample_script.first(2)
    result = await _sim(script, sample_questions, ScriptedModel(default="(E)"), clock=clock, time_limit=6, fast=False).run()
    lines = sum(len(s.lines) for s in script.dialogue)
    assert result.outcomes, "the two sessions ask questions"
    assert clock.now == pytest.approx(6 * lines), "the question shares its utterance's interval (the reference's budget)"
    fast_clock = FakeClock()
    await _sim(script, sample_questions, ScriptedModel(default="(E)"), clock=fast_clock, time_limit=6).run()
    assert fast_clock.sleeps == [], "fast mode measures instead of sleeping"


class _Hanging:
    name = "hanging"

    async def generate(self, messages, params=None):
        await asyncio.sleep(30)
        raise AssertionError("should have been cancelled")


async def test_real_time_cancels_an_answer_at_the_limit(sample_script, sample_questions):
    clock = FakeClock()  # only for pacing; the answer deadline is the event loop's own
    agent = create_agent("dialsim-recent", _Hanging())
    sim = Simulator(sample_script.first(1), sample_questions, agent, config=SimConfig(time_limit=0.2),
                    clock=time.perf_counter, sleep=clock.sleep, warm_up=False)
    [outcome] = (await sim.run()).outcomes
    assert outcome.status == "timeout" and outcome.stage == "answer" and outcome.answer is None


def test_open_answers_need_a_judge(sample_script, sample_questions):
    with pytest.raises(ConfigError, match="judge"):
        _sim(sample_script, sample_questions, ScriptedModel(default="x"), answer_format="open")


async def test_open_format_scores_with_the_judge(sample_script, sample_questions):
    from incanon.bench.dialsim import AnswerJudge

    judge = AnswerJudge(ScriptedModel(default="Score: 1"))
    agent = create_agent("dialsim-recent", ScriptedModel(default="No idea, honestly."), answer_format="open")
    clock = FakeClock()
    sim = Simulator(sample_script.first(2), sample_questions, agent, judge=judge, warm_up=False,
                    config=SimConfig(fast=True, answer_format="open"), clock=clock, sleep=clock.sleep)
    result = await sim.run()
    assert all(o.status == "correct" and o.score_method == "judge" for o in result.outcomes)
    assert all("(A)" not in o.question for o in result.outcomes)


async def test_questions_are_restyled_for_the_asker_before_the_clock_starts(sample_script, sample_questions):
    from incanon.bench.dialsim import StyleTransfer

    def voice(messages):
        prompt = messages[-1].content
        question = prompt.rsplit("Question: ", 1)[1].strip()
        return "Oi! " + question if "Nell" not in prompt else "Something else entirely?"

    style_model = ScriptedModel(default=voice)
    clock = FakeClock()
    agent_model = ScriptedModel(default="(E)")
    sim = Simulator(sample_script.first(4), sample_questions, create_agent("dialsim-recent", agent_model),
                    config=SimConfig(fast=True, seed=5), style=StyleTransfer(style_model), clock=clock,
                    sleep=clock.sleep, warm_up=False)
    result = await sim.run()
    assert len(style_model.calls) == len(result.outcomes)
    for outcome in result.outcomes:
        if outcome.styled:
            assert outcome.question.startswith("Oi! ")
        else:
            assert "dropped" in outcome.style_note, "a rewrite that loses names is not used"
    assert any(o.styled for o in result.outcomes)
    asked = [c.messages[-1].content for c in agent_model.calls]
    assert all(any(o.question.splitlines()[0] in prompt for prompt in asked) for o in result.outcomes)
