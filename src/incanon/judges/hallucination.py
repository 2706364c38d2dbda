"""Fine-grained hallucination types for answers judged inconsistent (TimeChara Appendix H.2).

Four types come from general fine-grained hallucination work (entity, relation, contradictory,
invented) and four are specific to point-in-time role-play (temporal, spatial, unclarified,
incomplete). The judge reasons, then names one type; the parser maps what it wrote onto the enum
and never returns a free string: an unreadable answer gets one repair call, then ``None`` with
the raw output kept.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel

from incanon.llmout import labelled
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


class HallucinationType(StrEnum):
    """The kind of error that made an answer inconsistent."""

    ENTITY = "entity"
    RELATION = "relation"
    CONTRADICTORY = "contradictory"
    INVENTED = "invented"
    TEMPORAL = "temporal"
    SPATIAL = "spatial"
    UNCLARIFIED = "unclarified"
    INCOMPLETE = "incomplete"


_ORDER = list(HallucinationType)
# Spellings judges use for each type, matched on whole words after normalization.
_SYNONYMS: dict[str, HallucinationType] = {
    **{t.value: t for t in HallucinationType},
    "wrong entity": HallucinationType.ENTITY,
    "relational": HallucinationType.RELATION, "relationship": HallucinationType.RELATION,
    "contradiction": HallucinationType.CONTRADICTORY, "contradicts": HallucinationType.CONTRADICTORY,
    "contradicting": HallucinationType.CONTRADICTORY,
    "invention": HallucinationType.INVENTED, "fabricated": HallucinationType.INVENTED,
    "fabrication": HallucinationType.INVENTED, "made up": HallucinationType.INVENTED,
    "time": HallucinationType.TEMPORAL, "future knowledge": HallucinationType.TEMPORAL,
    "presence": HallucinationType.SPATIAL, "absence": HallucinationType.SPATIAL,
    "participation": HallucinationType.SPATIAL,
    "unclarified premise": HallucinationType.UNCLARIFIED, "false premise": HallucinationType.UNCLARIFIED,
    "uncorrected": HallucinationType.UNCLARIFIED, "unclear": HallucinationType.UNCLARIFIED,
    "omission": HallucinationType.INCOMPLETE, "incompleteness": HallucinationType.INCOMPLETE,
}
_KEYS = ("hallucination type", "error type", "type", "category", "classification", "label")


def _lookup(token: str) -> HallucinationType | None:
    words = re.sub(r"[^a-z0-9 ]+", " ", token.lower().replace("_", " ").replace("-", " ")).split()
    if not words:
        return None
    if len(words) == 1 and words[0].isdigit():
        index = int(words[0])
        return _ORDER[index - 1] if 1 <= index <= len(_ORDER) else None
    # "temporal error (reveals the future)" → "temporal error" → "temporal".
    for size in (2, 1):
        head = " ".join(words[:size])
        if head in _SYNONYMS:
            return _SYNONYMS[head]
    if words[-1] == "error" and len(words) >= 2 and words[-2] in _SYNONYMS:
        return _SYNONYMS[words[-2]]
    return None


def parse_hallucination_type(text: str) -> HallucinationType | None:
    """The type a judge named in ``text``, or None. Labelled answers (``Type: spatial``), last
    first, then ``[[spatial]]``, then a last line that is only a type name or number."""
    return labelled(text, _lookup, keys=_KEYS)


class HallucinationVerdict(BaseModel):
    """The classified error of one inconsistent answer."""

    type: HallucinationType | None
    """The error type; None when the judge's output named none of them."""
    raw: str
    """The judge's output (and the repair reply, if one was needed)."""
    repaired: bool = False


class HallucinationJudge:
    """Asks an LLM which of the eight hallucination types an inconsistent answer shows."""

    template = "judge_hallucination"

    def __init__(self, model: ChatModel, prompts: PromptLibrary | None = None,
                 params: GenerationParams | None = None) -> None:
        self.model = model
        self.prompts = prompts or default_library()
        self.params = params or GenerationParams(max_tokens=256)

    async def classify(
        self, *, character: str, question: str, answer: str, label: str, data_type: str,
        spatial_label: str = "", question_generation: str = "", when: str = "",
    ) -> HallucinationVerdict:
        """Classify the main error of ``answer`` given the item's label(s)."""
        prompt = self.prompts.render(
            self.template, character=character, when=when, question=question, answer=answer,
            label=label, spatial_label=spatial_label, data_type=data_type,
            question_generation=question_generation,
        )
        messages = [Message(role="user", content=prompt)]
        first = await self.model.generate(messages, self.params)
        found = parse_hallucination_type(first.text)
        if found is not None:
            return HallucinationVerdict(type=found, raw=first.text.strip())
        names = ", ".join(t.value for t in HallucinationType)
        repair = messages + [
            Message(role="assistant", content=first.text),
            Message(role="user", content=f"Name the error type only, one word out of: {names}."),
        ]
        second = await self.model.generate(repair, GenerationParams(max_tokens=16))
        return HallucinationVerdict(
            type=parse_hallucination_type(second.text),
            raw=f"{first.text.strip()}\n---\n{second.text.strip()}",
            repaired=True,
        )
