"""Structured calls with repair-and-retry, as CoSER's curation makes them.

One *attempt* is a generation and, when its answer cannot be read, one repair turn in which the
model sees its own answer and what is wrong with it (for an answer cut off by the token limit:
close it at a sensible point). When the repaired answer cannot be read either, the next attempt
starts over, sampling at ``retry_temperature`` so it is not the cached first answer again. After
``max_attempts`` the outcome is a failure that carries every problem met and the last answer:
callers record it, they never drop it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

from incanon.models import ChatModel, Completion, ContextOverflowError, GenerationParams, user
from incanon.templates import PromptLibrary

T = TypeVar("T")


class ReadError(ValueError):
    """An answer that cannot be read; ``truncated`` when it was cut off."""

    def __init__(self, problem: str, *, truncated: bool = False):
        super().__init__(problem)
        self.truncated = truncated


@dataclass
class CallStats:
    """What the calls of one step spent."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 0
    repairs: int = 0

    def add(self, completion: Completion) -> None:
        if completion.cached:
            self.cached_calls += 1
            return
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens

    def __iadd__(self, other: CallStats) -> CallStats:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

    def dump(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass
class CallOutcome(Generic[T]):
    value: T | None
    stats: CallStats
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    raw: str = ""
    """The last answer (kept for failures)."""

    @property
    def ok(self) -> bool:
        return self.value is not None


Reader = Callable[[str, bool], "tuple[T, list[str]]"]
"""(answer text, hit the token limit) → (value, notes); raises ``ReadError``."""


@dataclass(frozen=True)
class RetryPlan:
    max_attempts: int = 5
    retry_temperature: float = 0.7
    repair_tokens: int = 4096


async def call_structured(
    model: ChatModel,
    library: PromptLibrary,
    prompt: str,
    reader: Callable[[str, bool], tuple[T, list[str]]],
    *,
    params: GenerationParams,
    plan: RetryPlan = RetryPlan(),
    required: str = "",
) -> CallOutcome[T]:
    stats = CallStats()
    outcome: CallOutcome[T] = CallOutcome(None, stats)
    for attempt in range(plan.max_attempts):
        stats.attempts += 1
        use = params if attempt == 0 else params.model_copy(
            update={"temperature": max(params.temperature, plan.retry_temperature), "epoch": attempt})
        try:
            completion = await model.generate([user(prompt)], use)
        except ContextOverflowError as exc:
            outcome.errors.append(f"attempt {attempt + 1}: {exc}")
            break  # a longer prompt will not fit on a second try either
        stats.add(completion)
        outcome.raw = completion.text
        try:
            value, notes = reader(completion.text, completion.finish_reason == "length")
            outcome.value, outcome.notes = value, notes
            return outcome
        except ReadError as exc:
            first = exc
        stats.repairs += 1
        repair = library.render(
            "coser_curate_repair", text=completion.text, problem=str(first), truncated=first.truncated,
            required=required,
        )
        repair_params = params.model_copy(update={"max_tokens": plan.repair_tokens, "epoch": attempt})
        try:
            fixed = await model.generate([user(repair)], repair_params)
        except ContextOverflowError as exc:
            outcome.errors.append(f"attempt {attempt + 1}: {first}; repair: {exc}")
            continue
        stats.add(fixed)
        try:
            value, notes = reader(fixed.text, fixed.finish_reason == "length")
            outcome.value, outcome.notes = value, [*notes, f"repaired by the model (attempt {attempt + 1})"]
            return outcome
        except ReadError as exc:
            outcome.errors.append(f"attempt {attempt + 1}: {first}; after repair: {exc}")
            outcome.raw = fixed.text or completion.text
    return outcome


def first_problem(exc: Any) -> str:
    """A pydantic ValidationError as one line: ``plots[0].summary: Field required``."""
    errors = exc.errors(include_url=False)
    loc = ""
    for part in errors[0]["loc"]:
        loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{loc or 'answer'}: {errors[0]['msg']}{more}"
