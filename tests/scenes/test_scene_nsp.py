"""The scenes' next-speaker prediction is CoSER's: the same prompt, the same reading of the
predictor's answer, the same decision and fallback picks as the benchmark's simulation, so the
product and ``coser simulate`` cannot drift apart."""

from __future__ import annotations

import random

import pytest

from incanon.agents.base import Turn
from incanon.bench.coser.simulation import nsp as coser
from incanon.bench.coser.simulation.roles import SpeakerPredictor as CoserPredictor
from incanon.models.types import GenerationParams
from incanon.scenes import nsp
from incanon.templates import default_library

SPEAKERS = ["Elizabeth Bennet", "Mr Darcy", "Mr Bennet", "Environment"]
ANSWERS = [
    "Mr Darcy", "mr darcy.", "Next: **Mr Bennet**.", '{"next_speaker": "Elizabeth Bennet"}', "Elizabeth",
    "random", "RANDOM", "END", "<END CHAT>", "The scene should end here.", "Environment", "Lady Catherine",
    "1. Reasoning: Darcy has been insulted, he will answer.\n2. Next Speaker: Mr Darcy", "Mr", "", "  \n ",
    "I think Mr Bennet, or perhaps Mr Darcy", "end of the scene? no: Mr Darcy",
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_an_answer_is_read_as_coser_reads_it(answer):
    assert nsp.parse_prediction(answer, SPEAKERS).model_dump() == coser.parse_prediction(answer, SPEAKERS).model_dump()


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize(("current", "round_index"), [("Mr Darcy", 0), ("Elizabeth Bennet", 6), ("", 2)])
def test_a_prediction_is_decided_as_coser_decides_it(answer, current, round_index):
    ours = nsp.decide(nsp.parse_prediction(answer, SPEAKERS), raw=answer, current=current, round_index=round_index,
                      speakers=SPEAKERS, majors=SPEAKERS[:2], rng=random.Random(f"7:{answer}"))
    theirs = coser.decide(coser.parse_prediction(answer, SPEAKERS), raw=answer, current=current,
                          round_index=round_index, speakers=SPEAKERS, majors=SPEAKERS[:2],
                          rng=random.Random(f"7:{answer}"))
    assert ours.model_dump() == theirs.model_dump()


def test_the_predictor_sends_coser_s_prompt():
    prompts = default_library()
    params = GenerationParams(max_tokens=24)
    turns = [Turn(speaker="Narrator", text="Rain."), Turn(speaker="Mr Darcy", text="I came to see you.")]
    for constrained in (False, True):
        ours = nsp.SpeakerPredictor(None, prompts, params, scenario="A drawing room.", speakers=SPEAKERS,  # type: ignore[arg-type]
                                    constrained=constrained)
        theirs = CoserPredictor(None, prompts, params, scenario="A drawing room.", speakers=SPEAKERS,  # type: ignore[arg-type]
                                constrained=constrained)
        assert ours.messages(turns) == theirs.messages(turns)
        assert ours.params == theirs.params
