"""CoSER's next-speaker prediction (arXiv:2502.09082, §4.3), as the product runs it in scenes.

The rules are the CoSER simulation's, moved here so the product need not import a benchmark
(``tests/test_layers.py``): ask the predictor with the ``coser_nsp_system`` / ``coser_nsp_ask``
templates (the visible scene, no thoughts), read its answer leniently (a name, ``random`` or an
end signal: ``END``, ``<END CHAT>``, a ``Next Speaker:`` line, ``{"next_speaker": ...}``, a first
name only), then decide: an early end, ``random``, an unknown name or the speaker who just acted
become a seeded random pick among the main characters and the Environment (else anyone else).

CoSER's simulation (``incanon.bench.coser.simulation.nsp``) imports these rules, so the
benchmark's numbers and the product's picks come from one implementation.
"""

from __future__ import annotations

import random
import re
from typing import Any, Literal, Sequence

from pydantic import BaseModel

from incanon.agents.base import Turn
from incanon.llmout import json_objects
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary

ENVIRONMENT = "Environment"
"""CoSER's role that describes the surroundings (a candidate of the predictor's template)."""

Kind = Literal["name", "random", "end", "unknown"]
_END = re.compile(r"<\s*end[\s_-]*chat\s*>|\bend[\s_-]*chat\b|^\W*end\W*$|\bend (?:of )?(?:the )?(?:scene|conversation)\b"
                  r"|\b(?:scene|conversation) (?:ends|is over|should end)\b", re.IGNORECASE)
_RANDOM = re.compile(r"^\W*random\W*$", re.IGNORECASE)
_NEXT_LINE = re.compile(r"next\s+speaker\s*(?:\*\*|#)?\s*(?:[:\-]|\bis\b)?\s*\**\s*([^\n*]+)", re.IGNORECASE)
_KEYS = ("next_speaker", "next speaker", "speaker", "next", "name", "choice")


class Prediction(BaseModel):
    """What could be read from one predictor answer."""

    kind: Kind
    name: str | None = None
    """The speaker named (``kind == "name"``)."""


class Decision(BaseModel):
    """Who acts next, and why."""

    after_round: int
    raw: str
    predicted: str
    """``name:<who>``, ``random``, ``end`` or ``unknown``."""
    speaker: str | None
    """The next speaker; None when the scene ends."""
    fallback: str | None = None
    """Why a random speaker was drawn instead of the prediction, if one was."""


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s'-]", " ", text.lower())).strip()


def _from_json(text: str) -> str | None:
    for value in json_objects(text, lenient=True):
        for key, item in value.items():
            if str(key).strip().lower() in _KEYS and isinstance(item, str):
                return item
    return None


def _next_speaker_line(text: str) -> str | None:
    # A reasoned answer's last "Next Speaker" line is the answer; reasoning that mentions an end is not one.
    matches = _NEXT_LINE.findall(text)
    if not matches:
        return None
    name = matches[-1].strip().rstrip(".,!\"'").replace("*", "").strip()
    return name if re.search(r"\w", name) else None


def parse_prediction(text: str, candidates: Sequence[str]) -> Prediction:
    """Read a predictor's answer against the candidate speakers."""
    raw = (text or "").strip()
    answer = _from_json(raw) or _next_speaker_line(raw) or raw
    first_line = next((ln for ln in answer.splitlines() if ln.strip()), "")
    if _END.search(first_line) or _END.search(answer.strip()):
        return Prediction(kind="end")
    if _RANDOM.match(first_line):
        return Prediction(kind="random")
    wanted = _norm(answer)
    by_norm = {_norm(c): c for c in candidates}
    if wanted in by_norm:
        return Prediction(kind="name", name=by_norm[wanted])
    head = _norm(first_line.split(":")[-1]) if ":" in first_line else _norm(first_line)
    if head in by_norm:
        return Prediction(kind="name", name=by_norm[head])
    # Full names anywhere in the answer: the earliest mention wins.
    hits = sorted((m.start(), by_norm[key]) for key in by_norm if key
                  for m in [re.search(rf"\b{re.escape(key)}\b", wanted)] if m)
    if hits:
        return Prediction(kind="name", name=hits[0][1])
    # A single word naming exactly one candidate ("Elizabeth" for "Elizabeth Bennet").
    words = set(wanted.split())
    partial = [c for key, c in by_norm.items() if words & {w for w in key.split() if len(w) > 2}]
    if len(partial) == 1:
        return Prediction(kind="name", name=partial[0])
    if re.search(r"\brandom\b", wanted):
        return Prediction(kind="random")
    return Prediction(kind="unknown")


def fallback_pool(current: str, speakers: Sequence[str], majors: Sequence[str]) -> list[str]:
    """Who a random pick chooses from: the main characters and the Environment, else anyone
    else who speaks; never the speaker who just acted."""
    pool = [n for n in dict.fromkeys([*majors, ENVIRONMENT]) if n != current and n in speakers]
    return pool or [n for n in speakers if n != current] or list(speakers)


def decide(prediction: Prediction, *, raw: str, current: str, round_index: int, speakers: Sequence[str],
           majors: Sequence[str], rng: random.Random, end_from_round: int = 5,
           allow_repeat: bool = False) -> Decision:
    """Turn a prediction into the next speaker (or the end) by CoSER's rules (module docstring)."""
    predicted = f"name:{prediction.name}" if prediction.kind == "name" else prediction.kind
    reason: str | None = None
    if prediction.kind == "end":
        if round_index >= end_from_round:
            return Decision(after_round=round_index, raw=raw, predicted=predicted, speaker=None)
        reason = f"end before round {end_from_round}"
    elif prediction.kind == "name":
        if prediction.name == current and not allow_repeat:
            reason = "same speaker again"
        elif prediction.name in speakers:
            return Decision(after_round=round_index, raw=raw, predicted=predicted, speaker=prediction.name)
        else:
            reason = "not a speaker of the scene"
    else:
        reason = "random" if prediction.kind == "random" else "no speaker named"
    pick = rng.choice(sorted(fallback_pool(current, speakers, majors)))
    return Decision(after_round=round_index, raw=raw, predicted=predicted, speaker=pick, fallback=reason)


def nsp_format(candidates: Sequence[str]) -> dict[str, Any]:
    """JSON-schema response format that admits only a candidate, ``random`` or ``END``."""
    schema = {"type": "object",
              "properties": {"next_speaker": {"type": "string", "enum": [*candidates, "random", "END"]}},
              "required": ["next_speaker"], "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": "next_speaker", "schema": schema, "strict": True}}


class SpeakerPredictor:
    """Asks the predictor model who acts next: one stateless call on the visible scene."""

    def __init__(self, model: ChatModel, prompts: PromptLibrary, params: GenerationParams, *,
                 scenario: str, speakers: Sequence[str], constrained: bool = False,
                 system_template: str = "coser_nsp_system", ask_template: str = "coser_nsp_ask") -> None:
        self.model = model
        self.prompts = prompts
        self.speakers = list(speakers)
        self.params = params.model_copy(update={"response_format": nsp_format(self.speakers)}) if constrained else params
        self.system_prompt = prompts.render(system_template, scenario=scenario, speakers=self.speakers,
                                            environment=ENVIRONMENT)
        self.ask = ask_template

    def messages(self, turns: Sequence[Turn]) -> list[Message]:
        """The predictor's prompt: its system prompt, then the scene so far and the question."""
        transcript = "\n\n".join(f"{t.speaker}: {t.text}" for t in turns)
        ask = self.prompts.render(self.ask, transcript=transcript, speakers=self.speakers,
                                  last_speaker=turns[-1].speaker if turns else "nobody")
        return [Message(role="system", content=self.system_prompt), Message(role="user", content=ask)]

    async def predict(self, turns: Sequence[Turn]) -> str:
        """The predictor's raw answer."""
        completion = await self.model.generate(self.messages(turns), self.params)
        return completion.text
