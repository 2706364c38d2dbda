"""Next-speaker prediction: read the predictor's answer, then decide who acts next.

The predictor answers with a speaker's name, ``random`` or an end signal (``END``,
``<END CHAT>``, ``END CHAT``). Its text wanders (``Next: **Mr Bennet**.``, ``{"next_speaker":
...}``, a first name only), so :func:`parse_prediction` reads names leniently. The decision
follows CoSER: the scene may end only from round 5 on (rounds counted from 0, so at least six
messages); an early end, ``random``, an unknown name or the speaker who just acted are replaced
by a random pick among the main characters and the Environment (else any other speaker), drawn
from a generator seeded per case so reruns pick the same.
"""

from __future__ import annotations

import random
import re
from typing import Literal, Sequence

from pydantic import BaseModel

from incanon.bench.coser.formats import ENVIRONMENT
from incanon.llmout import json_objects

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


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s'-]", " ", text.lower())).strip()


def _from_json(text: str) -> str | None:
    for value in json_objects(text, lenient=True):
        for key, item in value.items():
            if str(key).strip().lower() in _KEYS and isinstance(item, str):
                return item
    return None


def _next_speaker_line(text: str) -> str | None:
    # A reasoned answer ("1. Reasoning: ... 2. Next Speaker: Iago"): its last "Next Speaker" line
    # is the answer, as CoSER's extract_nsp reads it; reasoning that mentions an end is not one.
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


class Decision(BaseModel):
    """Who acts next, and why."""

    after_round: int
    """The round (from 0) after which the decision was made."""
    raw: str
    """The predictor's answer (or ``original`` for continue-from rounds)."""
    predicted: str
    """``name:<who>``, ``random``, ``end`` or ``unknown``."""
    speaker: str | None
    """The next speaker; None when the scene ends."""
    fallback: str | None = None
    """Why a random speaker was drawn instead of the prediction, if one was."""


def fallback_pool(current: str, speakers: Sequence[str], majors: Sequence[str]) -> list[str]:
    """Who a random pick chooses from: the main characters and the Environment, else anyone
    else who speaks; never the speaker who just acted."""
    pool = [n for n in dict.fromkeys([*majors, ENVIRONMENT]) if n != current and n in speakers]
    return pool or [n for n in speakers if n != current] or list(speakers)


def decide(prediction: Prediction, *, raw: str, current: str, round_index: int, speakers: Sequence[str],
           majors: Sequence[str], rng: random.Random, end_from_round: int = 5,
           allow_repeat: bool = False) -> Decision:
    """Turn a prediction into the next speaker (or the end) by the rules in the module doc."""
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


def case_rng(seed: int, case: str) -> random.Random:
    """A generator seeded by the run seed and the case id (same picks on every rerun)."""
    return random.Random(f"{seed}:{case}")
