"""Penalty-based LLM critics (CoSER §4.3, Appendix G): one call per dimension, flaws as JSON.

Each dimension gets its own request: ``coser_critic_frame`` (materials: plot summary, scenario,
profiles, the original conversation as reference, the dimension's rubric from
``coser_critic_<dimension>``) as the system message, and the simulated conversation in
``coser_critic_ask``. Every placeholder is filled; templates render with ``StrictUndefined``, so
a rubric that needs a value nobody passed fails loudly instead of reaching the critic as text.

Critics' JSON is messy: prose and code fences around it, trailing commas, single quotes,
``"severity": "4 (severe)"``, the dimension key missing or spelled differently, a bare list of
flaws, an answer cut off by the token limit. :func:`parse_critique` reads all of that. What it
cannot read gets one repair turn, constrained by a JSON schema (a grammar on the embedded
backend); if that fails too, complete flaw objects are salvaged from both answers, and only when
there are none is the dimension left unscored (never silently given 100).
"""

from __future__ import annotations

import asyncio
from typing import Any, Mapping, Sequence

from pydantic import BaseModel, Field

from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.gca_ngrams import reference_text, simulation_text
from incanon.bench.coser.metrics import transcript
from incanon.bench.coser.scoring import (
    DIMENSIONS, MAX_SEVERITY, MIN_SEVERITY, Flaw, actor_rounds, canonical_dimension, case_score, coerce_flaws,
    dimension_score, dimension_slug,
)
from incanon.bench.coser.simulation import case as cases
from incanon.llmout import json_values
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


def _flaws_from(value: Any, dimension: str) -> list[Any] | None:
    """The raw flaw list inside one decoded value, or None if it has none."""
    if isinstance(value, list):
        if all(isinstance(v, dict) for v in value) and (not value or any(
                {"severity", "instance", "type"} & {str(k).lower() for k in v} for v in value)):
            return value
        return None
    if not isinstance(value, dict):
        return None
    keyed = {str(k).strip().lower(): v for k, v in value.items()}
    if "flaws" in keyed:
        flaws = keyed["flaws"]
        return [] if flaws in (None, "", "None", "none") else flaws if isinstance(flaws, list) else [flaws]
    for key, inner in value.items():
        if canonical_dimension(str(key)) == dimension:
            return _flaws_from(inner, dimension) if not isinstance(inner, list) else inner
    nested = [v for v in value.values() if isinstance(v, (dict, list))]
    if len(nested) == 1:  # the dimension named another way ("Consistency", "evaluation")
        return _flaws_from(nested[0], dimension)
    return None


def parse_critique(text: str, dimension: str) -> tuple[list[Flaw] | None, str | None]:
    """(flaws, problem): the flaws a critic reported for ``dimension``, or None and why not."""
    for value in json_values(text or "", lenient=True, nested=True):
        raw = _flaws_from(value, dimension)
        if raw is not None:
            # Live critiques are read leniently ("4 (severe)" → 4) and stored as integers, so a
            # rescore (which counts as the reference: ints only) gives the same scores.
            return coerce_flaws(raw, lenient=True), None
    if not (text or "").strip():
        return None, "the answer was empty"
    if "{" not in text:
        return None, "the answer contains no JSON object"
    return None, f"no complete JSON object with a 'flaws' list for {dimension} was found"


def salvage_flaws(texts: Sequence[str]) -> list[Flaw]:
    """Complete flaw objects found anywhere in ``texts`` (an answer cut off mid-list)."""
    best: list[Flaw] = []
    for text in texts:
        objects = [v for v in json_values(text or "", lenient=True, nested=True) if isinstance(v, dict)
                   and "severity" in {str(k).lower() for k in v}]
        flaws = coerce_flaws(objects, lenient=True)
        if len(flaws) > len(best):
            best = flaws
    return best


def critique_format(dimension: str) -> dict[str, Any]:
    """JSON-schema response format of one dimension's critique."""
    flaw = {
        "type": "object",
        "properties": {
            "instance": {"type": "string", "maxLength": 400},
            "type": {"type": "string", "maxLength": 60},
            "severity": {"type": "integer", "enum": list(range(MIN_SEVERITY, MAX_SEVERITY + 1))},
        },
        "required": ["instance", "type", "severity"],
        "additionalProperties": False,
    }
    inner = {"type": "object", "properties": {"flaws": {"type": "array", "items": flaw, "maxItems": 20}},
             "required": ["flaws"], "additionalProperties": False}
    schema = {"type": "object", "properties": {dimension: inner}, "required": [dimension], "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": "critique", "schema": schema, "strict": True}}


class DimensionCritique(BaseModel):
    """One dimension's critique of one simulation."""

    dimension: str
    flaws: list[Flaw] | None = None
    """None when nothing could be read, even after the repair turn."""
    score: float | None = None
    raw: str = ""
    """The critic's answer (both answers, separated by ``---``, after a repair)."""
    repaired: bool = False
    salvaged: bool = False
    """True when the flaws were picked out of an unreadable answer."""
    problem: str | None = None


class CaseCritique(BaseModel):
    """All four dimensions of one case."""

    actor_rounds: int
    dimensions: dict[str, DimensionCritique] = Field(default_factory=dict)

    def scores(self) -> dict[str, float | None]:
        return {d: (self.dimensions[d].score if d in self.dimensions else None) for d in DIMENSIONS}

    @property
    def score(self) -> float | None:
        return case_score(self.scores())

    def coser_critique(self) -> dict[str, Any]:
        """The critique in CoSER's evaluation-file layout: ``{dimension: {"flaws", "score"}}``."""
        return {d: {"flaws": [f.model_dump(exclude={"defaulted", "uncounted"}) for f in (c.flaws or [])], "score": c.score}
                for d, c in self.dimensions.items()}


class CriticMaterials(BaseModel):
    """What the critic is given besides the simulation (the same for all four dimensions)."""

    book: str
    plot_summary: str = ""
    scenario: str = ""
    character_profiles: dict[str, str] = Field(default_factory=dict)
    major_characters: list[str] = Field(default_factory=list)
    original_conversation: str = ""
    continue_from: int = 0
    thoughts_shown: bool = False
    original_plain: str = ""
    """The original as CoSER's evaluator joins it (for its own prompt, ``--prompts-from``)."""

    @classmethod
    def from_sample(cls, sample: TestSample, *, continue_from: int = 0, thoughts: bool = False) -> "CriticMaterials":
        original = [{"character": t.character, "message": t.message} for t in sample.dialogues]
        return cls(book=sample.book, plot_summary=sample.plot.summary, scenario=sample.scenario,
                   character_profiles=cases.profiles(sample), major_characters=cases.major_characters(sample),
                   original_conversation=transcript(original, thoughts=thoughts), continue_from=continue_from,
                   thoughts_shown=thoughts, original_plain=reference_text(original))


class Critic:
    """Judges simulations on the four dimensions with one model call each (plus repairs)."""

    def __init__(self, model: ChatModel, prompts: PromptLibrary | None = None,
                 params: GenerationParams | None = None, *, thoughts: bool = False) -> None:
        self.model = model
        self.prompts = prompts or default_library()
        self.params = params or GenerationParams(max_tokens=2048)
        self.thoughts = thoughts
        """Show the critic the characters' inner thoughts (CoSER's default: no)."""

    def messages(self, dimension: str, materials: CriticMaterials, simulation: str,
                 plain: str = "") -> list[Message]:
        """System and user message of one dimension; ``plain``: the simulation as CoSER's evaluator
        joins it (what its own prompt, ``--prompts-from``, is sent)."""
        rubric = self.prompts.render(f"coser_critic_{dimension_slug(dimension)}",
                                     major_characters=materials.major_characters)
        frame = self.prompts.render("coser_critic_frame", dimension=dimension, rubric=rubric,
                                    **materials.model_dump())
        ask = self.prompts.render("coser_critic_ask", dimension=dimension, transcript=simulation,
                                  simulation_plain=plain)
        return [Message(role="system", content=frame), Message(role="user", content=ask)]

    async def critique_dimension(self, dimension: str, materials: CriticMaterials, simulation: str,
                                 rounds: int, plain: str = "") -> DimensionCritique:
        messages = self.messages(dimension, materials, simulation, plain)
        first = await self.model.generate(messages, self.params)
        flaws, problem = parse_critique(first.text, dimension)
        if flaws is not None:
            return DimensionCritique(dimension=dimension, flaws=flaws, raw=first.text,
                                     score=dimension_score((f.severity for f in flaws), rounds))
        repair = messages + [
            Message(role="assistant", content=first.text),
            Message(role="user", content=self.prompts.render("coser_critic_repair", dimension=dimension,
                                                             problem=problem)),
        ]
        second = await self.model.generate(repair, self.params.model_copy(
            update={"response_format": critique_format(dimension)}))
        raw = f"{first.text}\n---\n{second.text}"
        flaws, again = parse_critique(second.text, dimension)
        salvaged = False
        if flaws is None:
            flaws = salvage_flaws([second.text, first.text]) or None
            salvaged = flaws is not None
        score = dimension_score((f.severity for f in flaws), rounds) if flaws is not None else None
        return DimensionCritique(dimension=dimension, flaws=flaws, score=score, raw=raw, repaired=True,
                                 salvaged=salvaged, problem=None if flaws is not None else again)

    async def critique(self, sample: TestSample, simulation: Sequence[Mapping[str, Any]], *,
                       continue_from: int = 0, dimensions: Sequence[str] = DIMENSIONS) -> CaseCritique:
        """Critique one simulated scene (``[{"role", "content"}]``) of ``sample``."""
        materials = CriticMaterials.from_sample(sample, continue_from=continue_from, thoughts=self.thoughts)
        text = transcript(simulation, thoughts=self.thoughts)
        plain = simulation_text(simulation)
        rounds = actor_rounds(simulation)
        # The dimensions are independent requests (one per dimension, as in the paper): send them together.
        found = await asyncio.gather(*(self.critique_dimension(d, materials, text, rounds, plain) for d in dimensions))
        return CaseCritique(actor_rounds=rounds, dimensions=dict(zip(dimensions, found)))
