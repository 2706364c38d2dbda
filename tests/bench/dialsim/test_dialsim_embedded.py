"""End to end on the embedded model: two sessions of the sample dialogue, in fast mode."""

from __future__ import annotations

import pytest

from incanon.agents import create_agent
from incanon.bench.dialsim import MARKERS, SimConfig, Simulator
from incanon.models import load_chat_model

pytestmark = pytest.mark.slow


async def test_two_sessions_on_the_embedded_model(sample_script, sample_questions):
    model = load_chat_model("embedded")
    # A small budget keeps the prompt short on a CPU; the grammar makes the tiny model pick a marker.
    agent = create_agent("dialsim-bm25-session", model, context_tokens=600, constrain_choices=True)
    # No time limit: how fast a shared CI machine is must not decide what this test checks.
    sim = Simulator(sample_script.first(2), sample_questions, agent, config=SimConfig(fast=True, time_limit=0, seed=0))
    result = await sim.run()
    assert len(result.sessions) == 2 and len(result.outcomes) == 2
    for outcome in result.outcomes:
        assert outcome.status in ("correct", "wrong"), outcome.error
        assert outcome.answer in MARKERS and outcome.answer_s is not None
    assert all(s.update["count"] == s.lines and not s.memory_errors for s in result.sessions)
    assert result.accuracy() in (0.0, 0.5, 1.0)
