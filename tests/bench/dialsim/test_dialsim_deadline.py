"""Retrieval in real time: warm before the first question, stopped at the question's deadline."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from incanon.agents import create_agent
from incanon.bench.dialsim import SimConfig, Simulator
from incanon.bench.dialsim.agents import RecentContextAgent
from incanon.bench.dialsim.deadline import DeadlineRunner
from incanon.models import ScriptedModel


async def test_a_step_within_its_deadline_returns_its_value():
    runner = DeadlineRunner()
    assert await runner.run(lambda: 41 + 1, 1.0) == 42
    assert await runner.run(lambda: "inline", None) == "inline"
    assert not runner.busy


async def test_a_step_past_its_deadline_times_out_and_is_collected_later():
    runner = DeadlineRunner()
    release, finished = threading.Event(), threading.Event()

    def slow() -> str:
        # Ends only when the test lets it (or after 30 s): a wait that did not stop at the
        # deadline would show as a late return, whatever the machine's load.
        release.wait(30)
        finished.set()
        return "late"

    started = time.perf_counter()
    with pytest.raises(TimeoutError):
        await runner.run(slow, 0.05)
    assert time.perf_counter() - started < 10  # the wait stopped at the deadline, not at the step's end
    assert runner.busy and not finished.is_set()
    release.set()
    await runner.settle()  # the next step waits for the abandoned one
    assert finished.is_set() and not runner.busy


async def test_no_time_left_is_a_timeout_without_running():
    ran = []
    with pytest.raises(TimeoutError):
        await DeadlineRunner().run(lambda: ran.append(1), 0.0)
    assert ran == []


class _SlowRecall(RecentContextAgent):
    """Retrieval takes ``recall_s`` of real time; notes whether memory changed meanwhile."""

    def __init__(self, model, recall_s: float) -> None:
        super().__init__(model)
        self.recall_s = recall_s
        self.recalling = False
        self.overlaps = 0

    async def _observe(self, line) -> None:
        self.overlaps += self.recalling

    def recall(self, query, evidence, budget):
        self.recalling = True
        try:
            time.sleep(self.recall_s)
            return super().recall(query, evidence, budget)
        finally:
            self.recalling = False


async def _no_pause(_: float) -> None:
    await asyncio.sleep(0)


async def test_real_time_retrieval_past_the_deadline_is_a_timeout(sample_script, sample_questions):
    # A recall of 1 s against a limit of 0.15 s: the margin keeps a busy machine from passing the bound.
    agent = _SlowRecall(ScriptedModel(default="(A)"), recall_s=1.0)
    # Real clock and deadlines, no pacing between utterances (the test need not wait them out).
    sim = Simulator(sample_script.first(2), sample_questions, agent, config=SimConfig(time_limit=0.15),
                    sleep=_no_pause, warm_up=False)
    result = await sim.run()
    asked = result.outcomes
    assert asked and all(o.status == "timeout" and o.stage == "retrieval" for o in asked)
    assert all(o.retrieve_s is not None and o.retrieve_s < 0.8 for o in asked)  # stopped at its deadline
    assert agent.overlaps == 0  # the memory was never updated under a running retrieval


async def test_real_time_retrieval_in_time_answers(sample_script, sample_questions):
    agent = _SlowRecall(ScriptedModel(default="(A)"), recall_s=0.0)
    sim = Simulator(sample_script.first(2), sample_questions, agent, config=SimConfig(time_limit=2.0),
                    sleep=_no_pause, warm_up=False)
    result = await sim.run()
    assert result.outcomes and all(o.status != "timeout" and o.stage is None for o in result.outcomes)


async def test_warm_up_loads_the_retrieval_path_before_the_clock(monkeypatch):
    import incanon.bench.dialsim.agents.memory as memory

    counted: list[str] = []
    monkeypatch.setattr(memory, "estimate_tokens", lambda text: counted.append(text) or len(text.split()))
    agent = create_agent("dialsim-bm25-utterance", ScriptedModel(default="(A)"))
    queried = []
    original = agent.index.top_k
    monkeypatch.setattr(agent.index, "top_k", lambda *a, **k: queried.append(a) or original(*a, **k))
    await agent.warm_up()
    assert counted, "the token counter is loaded at warm-up"
    assert len(agent.units) == 0 and len(agent.index) == 0 and not queried  # the memory is untouched
