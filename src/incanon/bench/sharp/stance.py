"""Stances and the stance detector: an LLM reads an answer and says FAVOR, AGAINST or NEUTRAL.

SHARP asks ChatGPT for ``{'Stance': ..., 'Reason': ...}`` about the claim (its Appendix A). Real
detector outputs wander: prose around the JSON, code fences, single-quoted pseudo-JSON as in the
paper's own template, ``"favour"`` or ``"Favor."``, a ``Stance: AGAINST`` line with no JSON at
all. :func:`parse_stance` reads all of that; what it cannot read gets one repair turn (the model
sees its output and the problem). Both calls ask for a JSON-schema response format, which the
embedded backend enforces with a grammar, so small local models answer in shape.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from incanon.bench.sharp.prompting import prompt_for
from incanon.llmout import NEGATORS, is_negated, json_objects, named_labels
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


class Stance(StrEnum):
    """A stance toward a claim, ordered AGAINST < NEUTRAL < FAVOR (see :attr:`rank`)."""

    FAVOR = "FAVOR"
    AGAINST = "AGAINST"
    NEUTRAL = "NEUTRAL"

    @property
    def rank(self) -> int:
        """+1 FAVOR, 0 NEUTRAL, -1 AGAINST: the order Table 2's shifts are read in."""
        return {"FAVOR": 1, "NEUTRAL": 0, "AGAINST": -1}[self.value]


STANCES = (Stance.FAVOR, Stance.AGAINST, Stance.NEUTRAL)

# Words a detector uses for each stance; the first match in this order wins for one value.
_SYNONYMS: dict[Stance, tuple[str, ...]] = {
    Stance.FAVOR: ("favor", "favour", "favorable", "favourable", "support", "supportive", "agree",
                   "agrees", "positive", "in favor", "in favour"),
    Stance.AGAINST: ("against", "oppose", "opposed", "opposes", "disagree", "disagrees",
                     "negative", "contra"),
    Stance.NEUTRAL: ("neutral", "no stance", "neither", "undecided"),
}
# Chinese detector wording (a Chinese prompt may get a Chinese answer). Negated forms first:
# "不支持" must not read as 支持.
# Traditional-script forms too: detectors answer in the script of the claim, and SHARP's Chinese
# claims mix both.
_ZH_SYNONYMS: tuple[tuple[str, Stance | None], ...] = (
    ("不支持", None), ("不赞同", Stance.AGAINST), ("不贊同", Stance.AGAINST), ("不同意", Stance.AGAINST),
    ("不赞成", Stance.AGAINST), ("不贊成", Stance.AGAINST),
    ("反对", Stance.AGAINST), ("反對", Stance.AGAINST), ("否定", Stance.AGAINST), ("中立", Stance.NEUTRAL),
    ("无立场", Stance.NEUTRAL), ("無立場", Stance.NEUTRAL),
    ("支持", Stance.FAVOR), ("赞同", Stance.FAVOR), ("贊同", Stance.FAVOR), ("赞成", Stance.FAVOR),
    ("贊成", Stance.FAVOR), ("同意", Stance.FAVOR),
)
# "立场：反对", "立場: 中立", "态度 = 支持", "立场是反对", "立場為支持": a Chinese key with a Chinese
# value (full-width colon too, or the copula).
_ZH_KEYED = re.compile(r"(?:立场|立場|态度|態度)\s*(?:[:：=]|是|为|為)\s*[:：]?\s*[\"'“「]?\s*([\u4e00-\u9fff]{1,6})")
# "既不支持也不反对": neither side, in Chinese (read as 中立 before anything else).
_ZH_SIDE = r"(?:支持|赞同|贊同|同意|赞成|贊成|反对|反對)"
_ZH_NEITHER_NOR = re.compile(rf"既?不{_ZH_SIDE}[，,、\s]*(?:也|又)不{_ZH_SIDE}")
# The keys a detector may give its JSON, in English or Chinese.
_STANCE_KEYS = ("stance", "立场", "立場", "态度", "態度")
_REASON_KEYS = ("reason", "理由", "原因")
# "neither favor nor against" names the middle, not the two sides it mentions: without this the
# negation check sees "nor against" denied but "Neither favor" asserted, and reads FAVOR.
_NEITHER_NOR = re.compile(
    r"\bneither\s+(?:in\s+)?(?:favou?r|against|support\w*|agree\w*|oppos\w*|disagree\w*)\s+"
    r"nor\s+(?:in\s+)?(?:favou?r|against|support\w*|agree\w*|oppos\w*|disagree\w*)\b",
    re.IGNORECASE)


def _neither_nor(text: str) -> str:
    """``text`` with every "neither <stance> nor <stance>" replaced by the word NEUTRAL (中立 for
    the Chinese "既不支持也不反对")."""
    return _ZH_NEITHER_NOR.sub("中立", _NEITHER_NOR.sub("NEUTRAL", text))


# "Stance: AGAINST", "stance = favor because ...", "Stance: 中立": the value runs to the end of
# its clause, so "FAVOR/AGAINST" is read whole (two stances: none), not as its first word.
_KEYED = re.compile(r"""["']?\bstance\b["']?\s*[:=]\s*\**\s*["']?\[?\s*([^\s"'\[\]{},.;:()（）。，；][^\n"'\[\]{},.;:()（）。，；]{0,30})""",
                    re.IGNORECASE)
_LABEL_WORD = re.compile(r"\b(FAVOU?R|AGAINST|NEUTRAL)\b", re.IGNORECASE)
LABELS = frozenset(s.value for s in Stance)


# "没有表示支持", "并非支持", "不是支持": a stance word denied by what comes shortly before it in
# its clause (then "而是明确反对" names the stance meant).
_ZH_DENIED = re.compile(r"(?:没有|沒有|没|沒|不是|并非|並非|未曾|未)[^，,。；;！!？?、]{0,4}$")


def _zh_stances(text: str) -> set[Stance | None]:
    """The stances Chinese words in ``text`` name; None for a denied one ("不支持", "没有表示支持")."""
    found: set[Stance | None] = set()
    rest = text
    for word, stance in _ZH_SYNONYMS:
        start = rest.find(word)
        while start >= 0:
            found.add(None if stance is not None and _ZH_DENIED.search(rest[:start]) else stance)
            rest = rest[:start] + " " * len(word) + rest[start + len(word):]
            start = rest.find(word)
    return found


def to_stance(value: Any) -> Stance | None:
    """A detector's stance value as a :class:`Stance` (any case, British spelling, trailing
    punctuation, synonyms such as "supportive", Chinese 支持 / 反对 / 中立); None when it names
    none, several, or only negated ones ("not in favor" says what the stance is not)."""
    if isinstance(value, Stance):
        return value
    if not isinstance(value, str):
        return None
    value = _neither_nor(value)
    zh = _zh_stances(value)
    text = re.sub(r"[^a-z' ]+", " ", value.lower().replace("’", "'")).strip()
    if text in {"favor", "favour", "against", "neutral"} and not zh:
        return Stance.FAVOR if text.startswith("favo") else Stance(text.upper())
    found = set(zh)
    for stance, words in _SYNONYMS.items():
        for w in words:
            for match in re.finditer(rf"\b{re.escape(w)}\b", text):
                found.add(None if is_negated(text, match.start()) else stance)
    found.discard(None)
    return found.pop() if len(found) == 1 else None


class StanceReading(BaseModel):
    """What could be read from one detector output."""

    stance: Stance | None
    reason: str = ""
    problem: str | None = None
    """Why no stance could be read (None when one was)."""


def _objects(text: str) -> list[dict[str, Any]]:
    """JSON-ish objects in ``text``: fenced blocks first, then the text; strict JSON, then
    Python-literal syntax (the paper's template shows single-quoted keys)."""
    return json_objects(text, lenient=True, nested=True)


def _field(obj: dict[str, Any], names: tuple[str, ...]) -> Any:
    for key, value in obj.items():
        if isinstance(key, str) and key.strip().strip("'\"").lower() in names:
            return value
    return None


def parse_stance(text: str) -> StanceReading:
    """Read ``{stance, reason}`` from a detector output.

    In order: a JSON (or Python-literal) object with a ``stance`` key (any case); a
    ``stance: X`` line or fragment (also inside JSON cut off by the token limit); a text that
    names exactly one of FAVOR / AGAINST / NEUTRAL. Keys and values are case-insensitive. A
    missing ``reason`` is allowed (the stance is what the metrics need).
    """
    original = text or ""
    text = _neither_nor(original)  # parsed; the reason keeps the detector's own words
    problem = "no JSON object with a 'stance' field"
    for obj in _objects(text):
        raw = _field(obj, _STANCE_KEYS)
        if raw is None:
            problem = "the JSON object has no 'stance' field"
            continue
        stance = to_stance(raw)
        reason = _field(obj, _REASON_KEYS)
        if stance is not None:
            return StanceReading(stance=stance, reason=str(reason or "").strip())
        problem = f"the stance {raw!r} is not one of FAVOR, AGAINST, NEUTRAL"
    for match in _KEYED.finditer(text):
        if re.match(rf"\s*{NEGATORS}\b", match.group(1), re.IGNORECASE):
            continue  # "Stance: not FAVOR" names no stance
        stance = to_stance(match.group(1))
        if stance is not None:
            reason = re.search(r"""["']?\breason\b["']?\s*[:=]\s*["']?(.+?)["']?\s*(?:[,}]|$)""", text,
                               re.IGNORECASE | re.DOTALL)
            return StanceReading(stance=stance, reason=(reason.group(1).strip() if reason else ""))
    for match in _ZH_KEYED.finditer(text):
        stance = to_stance(match.group(1))  # "不支持" maps to no stance, as in English
        if stance is not None:
            return StanceReading(stance=stance, reason=original.strip())
    if not _objects(text):
        labels, denied = named_labels(text, _LABEL_WORD, to_stance)
        if len(labels) == 1:
            return StanceReading(stance=labels.pop(), reason=original.strip())
        if len(labels) > 1:
            problem = "the reply names several stances and no JSON says which one is meant"
        elif denied:
            problem = "the reply only says which stance the utterance does not take"
        else:  # Chinese prose: "他不同意。", "回答表示贊同。" (a negated 不支持 names no stance)
            named = _zh_stances(text)
            if len(named - {None}) == 1:  # "没有表示支持，而是明确反对": the one not denied
                return StanceReading(stance=(named - {None}).pop(), reason=original.strip())
            if len(named - {None}) > 1:
                problem = "the reply names several stances and no JSON says which one is meant"
    return StanceReading(stance=None, problem=problem)


def stance_format() -> dict[str, Any]:
    """The JSON-schema response format of the detector: stance first (so a reply cut short
    by the token limit still carries it), then a short reason."""
    schema = {
        "type": "object",
        "properties": {
            "stance": {"type": "string", "enum": [s.value for s in STANCES]},
            "reason": {"type": "string", "maxLength": 300},
        },
        "required": ["stance", "reason"],
        "additionalProperties": False,
    }
    return {"type": "json_schema", "json_schema": {"name": "stance", "schema": schema, "strict": True}}


class StanceVerdict(BaseModel):
    """The detector's verdict on one answer."""

    stance: Stance | None
    """None only when even the repair turn gave no readable stance."""
    reason: str = ""
    repaired: bool = False
    """True when the stance came from the repair turn."""
    raw: str = ""
    """The detector's output (both outputs, separated by ``---``, after a repair)."""


class StanceDetector:
    """Detects the stance of an utterance toward a claim with an LLM (the paper uses ChatGPT).

    ``detect(target, utterance, speaker=...)`` renders ``sharp_stance`` (target = the claim,
    utterance = the main character's answer), parses the reply, and on failure makes one repair
    call rendered from ``sharp_stance_repair``. Calls: 1, or 2 with a repair.
    """

    def __init__(self, model: ChatModel, prompts: PromptLibrary | None = None,
                 params: GenerationParams | None = None) -> None:
        self.model = model
        self.prompts = prompts or default_library()
        base = params or GenerationParams(max_tokens=160)
        self.params = base if base.response_format else base.model_copy(update={"response_format": stance_format()})

    async def detect(self, target: str, utterance: str, *, speaker: str = "someone",
                     lang: str = "en") -> StanceVerdict:
        """The stance of ``utterance`` toward ``target``; ``speaker`` is who put the claim;
        ``lang`` the claim's language (the prompt is the one for that language)."""
        messages = [Message(role="user", content=self.prompts.render(
            prompt_for(self.prompts, "sharp_stance", lang), target=target, utterance=utterance, speaker=speaker))]
        first = await self.model.generate(messages, self.params)
        reading = parse_stance(first.text)
        if reading.stance is not None:
            return StanceVerdict(stance=reading.stance, reason=reading.reason, raw=first.text)
        repair = messages + [
            Message(role="assistant", content=first.text),
            Message(role="user", content=self.prompts.render(prompt_for(self.prompts, "sharp_stance_repair", lang),
                                                             problem=reading.problem)),
        ]
        second = await self.model.generate(repair, self.params)
        again = parse_stance(second.text)
        return StanceVerdict(stance=again.stance, reason=again.reason, repaired=True,
                             raw=f"{first.text}\n---\n{second.text}")
