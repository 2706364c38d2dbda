"""Structured answers from a helper LLM: JSON first, forgiving parsing, one repair turn.

Small local models wrap JSON in prose or code fences, or answer ``Question: ...`` lines instead;
all of that is read. What cannot be read gets one repair turn (the model sees its output and the
problem); after that the step fails with ``HelperOutputError`` carrying the raw text, and both
answers are dropped from the response cache (:mod:`incanon.models.forget`): a rerun asks again
instead of failing the same way for free.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from incanon.errors import IncanonError
from incanon.llmout import json_objects
from incanon.models.forget import forget_answers
from incanon.models.types import ChatModel, Completion, GenerationParams, Message
from incanon.templates import PromptLibrary

M = TypeVar("M", bound=BaseModel)


class HelperOutputError(IncanonError):
    """A helper model's output could not be read as the structure a pipeline step needs."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")


def _from_lines(text: str, schema: type[BaseModel]) -> dict[str, Any]:
    """``Field name: value`` lines whose name matches a field of ``schema``."""
    fields = {_key(name): name for name in schema.model_fields}
    data: dict[str, Any] = {}
    for line in text.splitlines():
        match = re.match(r"^\s*[-*#\d.]*\s*\**([A-Za-z][A-Za-z _-]{0,40}?)\**\s*:\s*(.+)$", line)
        if match and _key(match.group(1)) in fields:
            data.setdefault(fields[_key(match.group(1))], match.group(2).strip().strip('"'))
    return data


def _coerce(data: dict[str, Any], schema: type[BaseModel]) -> dict[str, Any]:
    # Keys as the model spells them; "A, B" text where a list is expected.
    fields = {_key(name): name for name in schema.model_fields}
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = fields.get(_key(str(key)))
        if name is None:
            continue
        annotation = str(schema.model_fields[name].annotation)
        if "list" in annotation and isinstance(value, str):
            value = [p.strip().strip("'\"") for p in re.split(r",|;|\band\b", value.strip("[]")) if p.strip()]
        out[name] = value
    return out


def parse_structured(text: str, schema: type[M]) -> M:
    """Read ``schema`` from ``text``; ``ValueError`` says what was wrong."""
    problems: list[str] = []
    candidates = [*json_objects(text), _from_lines(text, schema)]
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return schema.model_validate(_coerce(candidate, schema))
        except ValidationError as exc:
            problems.append("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
    raise ValueError(problems[0] if problems else "no JSON object found")


async def ask_structured(
    model: ChatModel,
    prompts: PromptLibrary,
    template: str,
    schema: type[M],
    *,
    params: GenerationParams | None = None,
    json_mode: bool = True,
    answers: list[Completion] | None = None,
    **variables: Any,
) -> M:
    """Render ``template``, ask ``model``, read a ``schema`` object; one repair turn if needed.
    An answer that cannot be read even after the repair turn is forgotten by the response cache.
    ``answers``, when given, receives the completions the value was read from, so a caller that
    finds the value unusable in its own terms can forget them too (``forget_answers``)."""
    params = params or GenerationParams(max_tokens=384)
    if json_mode and params.response_format is None:
        params = params.model_copy(update={"response_format": {"type": "json_object"}})
    messages = [Message(role="user", content=prompts.render(template, **variables))]
    first = await model.generate(messages, params)
    try:
        value = parse_structured(first.text, schema)
        if answers is not None:
            answers.append(first)
        return value
    except ValueError as exc:
        problem = str(exc)
    keys = ", ".join(f'"{name}"' for name in schema.model_fields)
    repair = messages + [
        Message(role="assistant", content=first.text),
        Message(role="user", content=prompts.render("timechara_json_repair", problem=problem, keys=keys)),
    ]
    second = await model.generate(repair, params)
    try:
        value = parse_structured(second.text, schema)
        if answers is not None:
            answers += [first, second]
        return value
    except ValueError as exc:
        forget_answers(model, first, second)
        raise HelperOutputError(
            f"{template}: the helper model's output is not the expected JSON ({exc}), even after a repair turn",
            raw=f"{first.text}\n---\n{second.text}",
        ) from None


__all__ = ["HelperOutputError", "ask_structured", "parse_structured"]
