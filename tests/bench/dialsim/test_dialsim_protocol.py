"""The reference's real-time protocol, rule by rule, with scripted slow models on a fake clock."""

from __future__ import annotations

from collections import Counter

import pytest

from dialsim_helpers import FakeClock, SlowModel, tiny_store
from incanon.agents import create_agent
from incanon.bench.dialsim import Question, SimConfig, Simulator, load_script, plan_simulation
from incanon.bench.dialsim.agents import RecentContextAgent
from incanon.bench.dialsim.ingest import world_from_sessions
from incanon.bench.dialsim.plan import is_group_speaker, names_current_period
from incanon.canon import CanonStore
from incanon.ingest import parse_transcript
from incanon.models import Completion


class TwoSpeedModel:
    """Summaries take ``summary_s`` and answers ``answer_s`` of fake time."""

    name = "two-speed"

    def __init__(self, clock: FakeClock, summary_s: float, answer_s: float, reply: str = "(E)") -> None:
        self.clock, self.summary_s, self.answer_s, self.reply = clock, summary_s, answer_s, reply
        self.prompts: list[str] = []

    async def generate(self, messages, params=None):
        prompt = messages[-1].content
        self.prompts.append(prompt)
        summary = "Summarize this conversation" in prompt
        self.clock.now += self.summary_s if summary else self.answer_s
        return Completion(text="Wren's brother Jory toasted her." if summary else self.reply, model=self.name)


async def _simulate(script, questions, agent, clock, **config):
    sim = Simulator(script, questions, agent, config=SimConfig(**{"fast": True, **config}), clock=clock,
                    sleep=clock.sleep, warm_up=False)
    return await sim.run()


async def test_a_summary_that_came_too_late_is_never_retrieved(sample_script, sample_questions):
    script = sample_script.first(5)
    late_clock, in_time_clock = FakeClock(), FakeClock()
    late = await _simulate(script, sample_questions, create_agent("dialsim-bm25-summary", TwoSpeedModel(late_clock, 2.0, 0.1)),
                           late_clock, time_limit=1)
    in_time = await _simulate(script, sample_questions,
                              create_agent("dialsim-bm25-summary", TwoSpeedModel(in_time_clock, 0.5, 0.1)),
                              in_time_clock, time_limit=1)
    # Every session's summary took 2 s under a 1 s limit: dropped, so no later question sees one.
    assert all(s.memory_timeouts == 1 for s in late.sessions)
    assert all(o.retrieved == [] for o in late.outcomes)
    assert any(o.retrieved for o in in_time.outcomes), "summaries made in time are retrieved"
    assert all(s.memory_timeouts == 0 for s in in_time.sessions)


async def test_without_a_time_limit_a_slow_summary_is_kept(sample_script, sample_questions):
    clock = FakeClock()
    result = await _simulate(sample_script.first(5), sample_questions,
                             create_agent("dialsim-bm25-summary", TwoSpeedModel(clock, 30.0, 0.1)), clock, time_limit=0)
    assert any(o.retrieved for o in result.outcomes)


class _SlowUpdates(RecentContextAgent):
    """Each utterance takes ``seconds`` of fake time to remember; retrieval ``recall_s``."""

    def __init__(self, model, clock, seconds, recall_s=0.0):
        super().__init__(model)
        self.clock, self.seconds, self.recall_s = clock, seconds, recall_s

    async def _observe(self, line):
        self.clock.now += self.seconds

    def recall(self, query, evidence, budget):
        self.clock.now += self.recall_s
        return super().recall(query, evidence, budget)


@pytest.mark.parametrize("update_s, recall_s, answer_s, status, stage", [
    (0.60, 0.0, 0.62, "timeout", "answer"),   # 1.22 s > 1 s: one budget, not two
    (0.30, 0.0, 0.62, "correct", None),
    (0.30, 0.75, 0.10, "timeout", "retrieval"),  # retrieval gets the limit minus the update
    (1.20, 0.0, 0.10, "timeout", "memory"),   # the question's own utterance was late
    (0.50, 0.0, 0.50, "timeout", "answer"),   # reaching the limit is a timeout (result_time >= limit)
])
async def test_update_retrieval_and_answer_share_one_budget(sample_script, sample_questions, update_s, recall_s,
                                                             answer_s, status, stage):
    clock = FakeClock()
    agent = _SlowUpdates(SlowModel(clock, answer_s, reply="(E)"), clock, update_s, recall_s)
    script = sample_script.first(1)
    planned = plan_simulation(script, sample_questions, seed=0).asked[script.dialogue[0].id]
    gold = planned.question.gold_marker
    agent.model.reply = gold
    result = await _simulate(script, sample_questions, agent, clock, time_limit=1)
    [outcome] = result.outcomes
    assert (outcome.status, outcome.stage) == (status, stage)
    assert outcome.update_s == pytest.approx(update_s)
    assert outcome.limit_s == pytest.approx(1 - update_s)
    if stage in (None, "answer"):
        assert outcome.retrieve_s == pytest.approx(recall_s) and outcome.answer_s == pytest.approx(answer_s)


async def test_a_late_utterance_is_dropped_from_utterance_memory(sample_script, sample_questions):
    clock = FakeClock()

    class Agent(type(create_agent("dialsim-bm25-utterance", SlowModel(clock, 0.0)))):
        async def _observe(self, line):
            if line.index == 2:
                clock.now += 5.0  # only this utterance's update is late
            await super()._observe(line)

    agent = Agent(SlowModel(clock, 0.0))
    await _simulate(sample_script.first(1), sample_questions, agent, clock, time_limit=1)
    session = sample_script.dialogue[0]
    kept = [u.text for u in agent.units]
    assert len(kept) == len(session.lines) - 1
    assert not any(t.endswith(session.lines[2].render()) for t in kept)
    assert len(agent.index) == len(kept), "the index lost the late utterance too"


def _window_store(tmp_path):
    script = """\
## 2020-01-01
Eve: Too early to matter.
Ana: Hello all.
Ben: Hi Ana.
All: Hello!
Ana: So, what news?
Cy: The mill is closed.
Dee: For a week.
Gus: Too late to matter.
Hal: Even later.

## 2020-01-02
Ben: Ana is not here yet.
Cy: No.
"""
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world_from_sessions(parse_transcript(script), work_id="w", title="W"))
    return store


def _q(qid, session, type_, text="Who runs the mill?", answerable=True, source="tkg"):
    answer = "Cy" if answerable else "I don't know."
    return Question(id=qid, session=session, source=source, type=type_, answerable=answerable,
                    texts={"default": text}, answer=answer, options=["Cy", "Ben", "Dee", "Gus", "I don't know."])


def test_the_asker_speaks_within_three_turns_before_and_two_after_and_is_never_a_group(tmp_path):
    script = load_script(_window_store(tmp_path), "w", "Ana")
    pool = [_q("q1", "session-1", "cur")]
    askers = Counter(plan_simulation(script, pool, seed=s).asked["session-1"].asker for s in range(200))
    # Ana's second line (index 4) is the question point: lines 1..6 are the window.
    assert set(askers) == {"Ben", "Cy", "Dee"}, askers
    assert all(p.index == 4 for p in [plan_simulation(script, pool, seed=s).asked["session-1"] for s in range(20)])
    assert is_group_speaker("All") and is_group_speaker("Monica and Rachel") and not is_group_speaker("Allan")


def test_a_session_where_the_main_character_never_speaks_asks_nothing():
    from incanon.bench.dialsim import DialScript, DialSession, Line

    lines = tuple(Line("s1", "2020-01-01", i, who, "...") for i, who in enumerate(["Ben", "Cy", "Ben"]))
    silent = DialSession("s1", 0, "2020-01-01", "s1", ("Ana", "Ben", "Cy"), ("Ben", "Cy"), lines)
    script = DialScript(work="w", title="W", main="Ana", sessions=[silent])
    plan = plan_simulation(script, [_q("q", "s1", "cur")], seed=0)
    assert plan.asked == {} and plan.skipped == {"s1": "the main character does not speak"}


def test_the_type_is_drawn_first_then_a_question_of_it(tmp_path):
    """40 present-tense questions and 1 future one: drawing a question first would ask the future
    one 1 time in 41; the reference draws the type from a list padded to under 21.5 % future
    types ([cur, fu, cur, cur, cur]), so the future question comes up 1 time in 5."""
    script = load_script(_window_store(tmp_path), "w", "Ana")
    pool = [_q(f"c{i}", "session-1", "cur") for i in range(40)] + [_q("f", "session-1", "fu", answerable=False)]
    asked = [plan_simulation(script, pool, seed=s).asked["session-1"].question.type for s in range(2000)]
    share = asked.count("fu") / len(asked)
    assert 0.17 < share < 0.23, share


def test_fan_quiz_three_tenths_of_the_time_where_a_session_has_both(tmp_path):
    script = load_script(_window_store(tmp_path), "w", "Ana")
    pool = [_q("t", "session-1", "cur"), _q("f", "session-1", "ans_wo_time", source="fan")]
    asked = [plan_simulation(script, pool, seed=s).asked["session-1"].question.source for s in range(2000)]
    assert 0.27 < asked.count("fan") / len(asked) < 0.33


def test_a_tkg_question_naming_the_current_month_or_year_is_not_asked(tmp_path):
    script = load_script(_window_store(tmp_path), "w", "Ana")
    assert names_current_period("Who ran the mill in 2020?", "2020-01-01")
    assert names_current_period("Who ran the mill in January 2020?", "2020-01-01")
    assert not names_current_period("Who ran the mill on January 1, 2020?", "2020-01-01")
    pool = [_q("now", "session-1", "past", "Who ran the mill in 2020?"),
            _q("then", "session-1", "past", "Who ran the mill in 2019?")]
    asked = {plan_simulation(script, pool, seed=s).asked["session-1"].question.id for s in range(50)}
    assert asked == {"then"}


def test_the_realised_mix_is_reported(sample_script, sample_questions):
    from incanon.bench.dialsim.report import DialsimReport, setting_from_rows

    plan = plan_simulation(sample_script, sample_questions, seed=1)
    records = [{"question": {"status": "correct", "type": p.question.type, "source": p.question.source,
                             "category": p.question.category, "answer_s": 0.002, "update_s": 0.001}}
               for p in plan.asked.values()]
    setting = setting_from_rows({"run_id": "r", "model": "m", "memory": "bm25-session", "time_limit": 6.0,
                                 "format": "mc"}, {0: records})
    text = DialsimReport(settings=[setting]).markdown()
    assert "## Question mix asked" in text and "| r | bm25-session | 6s |" in text
    assert "| 3.0 |" in text, "question times in milliseconds (2 ms + 1 ms)"
