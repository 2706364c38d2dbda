"""Who speaks next in a scene: the user's choice, round robin, or CoSER's next-speaker prediction.

The prediction is CoSER's (:mod:`incanon.scenes.nsp`: ``SpeakerPredictor`` asks with CoSER's
templates, ``parse_prediction`` reads the answer, ``decide`` turns it into a speaker), so the
product and the benchmark pick speakers by the same rules: an unknown name, ``random`` or the
speaker who just spoke become a seeded random pick among the others. A scene the user runs has no end, so
an ``END`` answer is noted and the next one in turn speaks instead.

The predictor is a director, not a character: it is shown the scene's public lines (no aside)
under the canonical names of those present, and its answer only picks a speaker.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from incanon.agents.base import Turn
from incanon.models.types import ChatModel, GenerationParams
from incanon.scenes.nsp import SpeakerPredictor, decide, parse_prediction
from incanon.templates import PromptLibrary

Order = Literal["nsp", "round-robin"]
ORDERS: tuple[str, ...] = ("nsp", "round-robin")

#: The predictor answers with a name: a few tokens (CoSER's own setting for incanon's prompts).
NSP_PARAMS = GenerationParams(max_tokens=24, temperature=0.0)


@dataclass(frozen=True)
class Choice:
    """The next speaker and how it was chosen."""

    speaker: str
    how: str
    """``user``, ``round-robin``, ``next-speaker prediction``, or the prediction's fallback."""
    raw: str = ""
    """The predictor's answer, when it was asked."""


def round_robin(present: Sequence[str], last: str | None) -> str:
    """The character after ``last`` in the cast's order (the first when ``last`` is none of them)."""
    if last in present:
        return present[(list(present).index(last) + 1) % len(present)]
    return present[0]


async def predict(model: ChatModel, prompts: PromptLibrary, *, scenario: str, present: Sequence[str],
                  public: Sequence[Turn], last: str | None, seed: str,
                  params: GenerationParams = NSP_PARAMS) -> Choice:
    """CoSER's next-speaker prediction among ``present`` after the ``public`` lines."""
    if len(present) == 1:
        return Choice(present[0], "the only one present")
    predictor = SpeakerPredictor(model, prompts, params, scenario=scenario, speakers=list(present))
    raw = await predictor.predict(list(public))
    prediction = parse_prediction(raw, list(present))
    if prediction.kind == "end":
        return Choice(round_robin(present, last), "round-robin (the predictor would end the scene here)", raw)
    # ``end_from_round`` never reached: ending is the user's call, not the predictor's.
    decision = decide(prediction, raw=raw, current=last or "", round_index=len(public), speakers=list(present),
                      majors=list(present), rng=random.Random(seed), end_from_round=1 << 30)
    assert decision.speaker is not None
    how = "next-speaker prediction" if decision.fallback is None else f"random pick ({decision.fallback})"
    return Choice(decision.speaker, how, raw)
