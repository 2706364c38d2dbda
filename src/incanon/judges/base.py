"""The judge plug point: a prompt template, a score range, a robust parser, one repair call."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from pydantic import BaseModel, Field

from incanon.llmout import json_objects, parse_score
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


def _call(step: str, messages: list[Message], output: str) -> dict[str, Any]:
    return {"step": step, "messages": [{"role": m.role, "content": m.content} for m in messages], "output": output}


class Judgement(BaseModel):
    """A judge's verdict on one answer."""

    score: int | None
    """The parsed score; ``None`` only when even the repair call gave none."""
    rationale: str
    """The judge's reasoning (its full first output)."""
    repaired: bool = False
    """True when the score came from the repair call."""
    calls: list[dict[str, Any]] = Field(default_factory=list)
    """The calls made (``{"step", "messages", "output"}``): the judgement, then the repair."""


class LLMJudge:
    """Renders ``template`` with the item's fields, asks ``model``, parses a score in ``allowed``."""

    def __init__(
        self,
        model: ChatModel,
        template: str,
        allowed: Iterable[int] | tuple[float, float],
        *,
        prompts: PromptLibrary | None = None,
        params: GenerationParams | None = None,
        parser: Callable[[str, Any], int | None] | None = None,
    ) -> None:
        self.model = model
        # A benchmark can read scores its authors' way (TimeChara's paper protocol does); the
        # default is incanon's robust reader.
        self.parser = parser or parse_score
        self.template = template
        self.allowed = allowed if isinstance(allowed, tuple) else frozenset(allowed)
        self.prompts = prompts or default_library()
        self.params = params or GenerationParams(max_tokens=384)

    def _choices(self) -> list[int]:
        if isinstance(self.allowed, tuple):
            return list(range(int(self.allowed[0]), int(self.allowed[1]) + 1))
        return sorted(int(v) for v in self.allowed)

    def _score_format(self) -> dict[str, Any]:
        """A JSON schema that admits only an allowed score (grammar-constrained where supported)."""
        schema = {
            "type": "object",
            "properties": {"score": {"type": "integer", "enum": self._choices()}},
            "required": ["score"],
            "additionalProperties": False,
        }
        return {"type": "json_schema", "json_schema": {"name": "score", "schema": schema, "strict": True}}

    def _read_repair(self, text: str) -> int | None:
        scored = [o["score"] for o in json_objects(text) if "score" in o]
        if not scored:
            return parse_score(text, self.allowed)
        value = scored[0]
        return value if isinstance(value, int) and value in self._choices() else None

    def _range_text(self) -> str:
        if isinstance(self.allowed, tuple):
            return f"a whole number from {int(self.allowed[0])} to {int(self.allowed[1])}"
        return " or ".join(str(v) for v in sorted(self.allowed))

    async def judge(self, **fields: Any) -> Judgement:
        """Judge one answer; ``fields`` fill the template."""
        prompt = self.prompts.render(self.template, **fields)
        messages = [Message(role="user", content=prompt)]
        first = await self.model.generate(messages, self.params)
        score = self.parser(first.text, self.allowed)
        calls = [_call("judge", messages, first.text)]
        if score is not None:
            return Judgement(score=score, rationale=first.text.strip(), calls=calls)
        # One repair turn: show the judge its own text and ask for the bare score, constrained
        # to the allowed values by a JSON schema (small local models follow a grammar even when
        # they ignore the instruction to end with "Score: N").
        repair = messages + [
            Message(role="assistant", content=first.text),
            Message(
                role="user",
                content=f"Your evaluation did not end with a score. Reply with only the score "
                f"({self._range_text()}) as JSON: {{\"score\": N}}.",
            ),
        ]
        second = await self.model.generate(
            repair, GenerationParams(max_tokens=16, response_format=self._score_format())
        )
        return Judgement(
            score=self._read_repair(second.text),
            rationale=first.text.strip(),
            repaired=True,
            calls=[*calls, _call("repair", repair[-1:], second.text)],
        )
