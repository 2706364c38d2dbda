"""The director of a CoSER simulation (§4.3): who acts each round, and when the scene ends.

It is the scene engine's director (:class:`incanon.scenes.engine.Director`) with CoSER's rules:

* with ``continue_from = k``, the first k rounds are the original messages, cued with their
  text so no model is asked; after the last of them, the original's next speaker (or its end)
  is decided by the same rules as a prediction (``raw`` ``original: <speaker>``);
* then the first speaker (with nothing replayed, the first listed) acts, and after every round
  the next-speaker predictor, shown the scene without thoughts (the engine's public view), names
  who acts next; :func:`~incanon.bench.coser.simulation.nsp.decide` turns its answer into a
  speaker, a seeded random pick or the end (only from ``end_from_round`` on);
* at most ``max_rounds`` messages: once the cap is reached nobody speaks next, so the predictor
  is not asked (the original's decision after a replay that ends on the cap is still recorded).

Every decision is kept, in order, in ``decisions``.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from incanon.bench.coser.formats import DialogueTurn
from incanon.bench.coser.simulation.nsp import Decision, decide, parse_prediction
from incanon.bench.coser.simulation.roles import SpeakerPredictor
from incanon.scenes.engine import Cue, SceneEngine

ORIGINAL = "original"
"""How a replayed message is cued (and the source it is recorded with)."""


class CoserDirector:
    """Cues the rounds of one simulated case (module docstring)."""

    def __init__(self, *, dialogues: Sequence[DialogueTurn], continue_from: int, speakers: Sequence[str],
                 majors: Sequence[str], predictor: SpeakerPredictor, rng: random.Random, max_rounds: int,
                 end_from_round: int) -> None:
        self.dialogues = list(dialogues)
        self.originals = self.dialogues[:continue_from]
        self.speakers = list(speakers)
        self.majors = list(majors)
        self.predictor = predictor
        self.rng = rng
        self.max_rounds = max_rounds
        self.end_from_round = end_from_round
        self.decisions: list[Decision] = []

    async def cue(self, engine: SceneEngine[Any]) -> Cue:
        """Who acts after the messages so far, or the end."""
        said = len(engine.lines)
        if said and said == len(self.originals):
            return self._follow(self._original_next(said - 1), said)
        if said >= self.max_rounds:
            return Cue.end("max_rounds")
        if said < len(self.originals):
            turn = self.originals[said]
            return Cue(turn.character, how=ORIGINAL, script=turn.message)
        if not said:
            return Cue(self.speakers[0], how="first speaker")
        raw = await self.predictor.predict(engine.public_view())
        current = engine.lines[-1].speaker
        return self._follow(self._decide(raw, raw, current, said - 1), said)

    def _original_next(self, round_index: int) -> Decision:
        # The original's own next speaker, or its end, decided as a prediction would be.
        following = self.dialogues[round_index + 1].character if round_index + 1 < len(self.dialogues) else None
        raw = following or "END"
        return self._decide(raw, f"{ORIGINAL}: {raw}", self.originals[round_index].character, round_index)

    def _decide(self, answer: str, raw: str, current: str, round_index: int) -> Decision:
        return decide(parse_prediction(answer, self.speakers), raw=raw, current=current, round_index=round_index,
                      speakers=self.speakers, majors=self.majors, rng=self.rng, end_from_round=self.end_from_round)

    def _follow(self, decision: Decision, said: int) -> Cue:
        self.decisions.append(decision)
        if decision.speaker is None:
            return Cue.end(ORIGINAL if decision.raw.startswith(f"{ORIGINAL}: ") else "nsp", raw=decision.raw)
        if said >= self.max_rounds:
            return Cue.end("max_rounds")
        how = "next-speaker prediction" if decision.fallback is None else f"random pick ({decision.fallback})"
        return Cue(decision.speaker, how=how, raw=decision.raw)
