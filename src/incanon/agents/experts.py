"""The two narrative experts of TimeChara's NARRATIVE-EXPERTS, run on the agent's own model.

* The **temporal expert** names where in the story the question's scene happens and whether
  that is past or future for the character. The named period is compared with the character's
  position (``verdicts.is_later``); the expert's own past/future word decides only when no
  period could be read. Both are recorded.
* The **spatial expert** (asked only about the past) says whether the character was present at
  the scene.

Each returns a verdict and, when it has one, the hint the final prompt gets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt
from incanon.agents.support import call_fitting, passage_view, position_format
from incanon.agents.verdicts import is_later, parse_levels, parse_period, parse_presence, parse_relative
from incanon.canon.position import Position
from incanon.models.types import GenerationParams, Message
from incanon.retrieval import RetrievedChunk

EXPERT_MAX_TOKENS = 384


@dataclass(frozen=True)
class TemporalVerdict:
    """What the temporal expert decided, and on what basis."""

    status: Literal["past", "future"]
    period: Position | None
    """The story position the expert named (None if none could be read)."""
    claimed: str | None
    """The expert's own word: ``past``, ``future`` or None."""
    basis: Literal["period", "claimed", "default"]
    """``period``: by comparing positions; ``claimed``: the expert's word; ``default``: neither
    could be read, so the question is treated as past (the spatial expert still runs)."""

    @property
    def disagrees(self) -> bool:
        """True when the expert's word contradicts its own period."""
        return self.basis == "period" and self.claimed is not None and self.claimed != self.status

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"status": self.status, "period": str(self.period) if self.period else None,
                "claimed": self.claimed, "basis": self.basis, "disagrees": self.disagrees}


def _written(who: CharacterAt) -> str:
    """The character's position as the expert prompt shows it (with level names if any)."""
    if not who.levels:
        return str(who.position)
    parts = str(who.position).split("-")
    return " - ".join(f"{level} {part}" for level, part in zip(who.levels, parts))


def expert_params(agent: Agent) -> GenerationParams:
    """The agent's generation settings with room for the experts' reasoning."""
    tokens = int(agent.options.get("expert_max_tokens", max(agent.params.max_tokens, EXPERT_MAX_TOKENS)))
    return agent.params.model_copy(update={"max_tokens": tokens})


def _books(who: CharacterAt) -> list[tuple[str, str]]:
    books = dict(who.scope.work.books) if who.scope is not None else {}
    if who.scope is not None and who.scope.witnessed_only and who.position.book is not None:
        # A scope kept to what the character knows does not name later books either.
        books = {k: v for k, v in books.items() if not k.isdigit() or int(k) <= who.position.book}
    return sorted(books.items(), key=lambda kv: (not kv[0].isdigit(), int(kv[0]) if kv[0].isdigit() else 0, kv[0]))


def drop_echo(output: str, prompt: str) -> str:
    """``output`` without the lines it copied from ``prompt``.

    Small models echo prompt lines ("... (story position 2-2)", "Verdict: <present or
    absent>"); read as an answer, an echoed position would pass for the expert's period.
    """
    seen = {line.strip() for line in prompt.splitlines() if line.strip()}
    return "\n".join(line for line in output.splitlines() if line.strip() not in seen)


def level_format(who: CharacterAt) -> str:
    """How an expert should write a position at the work's own depth (``volume L - book M -
    chapter N``), or the canon axis' format when the work has no levels."""
    if not who.levels:
        return position_format(who.position.axis)
    letters = "LMN"[-len(who.levels):] if len(who.levels) <= 3 else "N" * len(who.levels)
    return " - ".join(f"{level} {letter}" for level, letter in zip(who.levels, letters)) + \
        " (Arabic numbers)"


def decide_temporal(output: str, who: CharacterAt, prompt: str = "") -> TemporalVerdict:
    """Turn the temporal expert's text into a verdict (see the module docstring); lines
    copied from ``prompt`` are ignored. A work with its own depth (``who.levels``) is read at
    exactly that depth, as the authors do: a period with another number of parts is no period."""
    output = drop_echo(output, prompt) if prompt else output
    if who.levels:
        period = parse_levels(output, len(who.levels))
    else:
        period = parse_period(output, who.position.axis, dict(_books(who)))
    claimed = parse_relative(output)
    if period is not None:
        return TemporalVerdict("future" if is_later(period, who.position) else "past", period, claimed, "period")
    if claimed is not None:
        return TemporalVerdict(claimed, None, claimed, "claimed")  # type: ignore[arg-type]
    return TemporalVerdict("past", None, None, "default")


async def temporal_expert(
    agent: Agent, who: CharacterAt, question: str, calls: list[CallRecord],
    passages: Sequence[RetrievedChunk] = (),
) -> tuple[TemporalVerdict, str | None]:
    """Ask the temporal expert; returns its verdict and the future hint (None for the past)."""
    def prompt(kept: Sequence[RetrievedChunk]) -> str:
        return agent.prompts.render(
            "expert_temporal", work_title=who.work_title, author=who.author, books=_books(who),
            character=who.character, when=who.when, position=_written(who),
            position_format=level_format(who), question=question,
            passages=passage_view(kept),
        )

    output, kept = await call_fitting(
        agent, "temporal-expert", lambda kept: [Message(role="user", content=prompt(kept))],
        passages, calls, expert_params(agent))
    verdict = decide_temporal(output, who, prompt(kept))
    hint = None
    if verdict.status == "future":
        hint = agent.prompts.render("hint_future", character=who.character, when=who.when)
    return verdict, hint


async def spatial_expert(
    agent: Agent, who: CharacterAt, question: str, calls: list[CallRecord],
    passages: Sequence[RetrievedChunk] = (),
) -> tuple[str | None, str | None]:
    """Ask the spatial expert; returns ``present``/``absent``/None and the absence hint."""
    def prompt(kept: Sequence[RetrievedChunk]) -> str:
        return agent.prompts.render(
            "expert_spatial", work_title=who.work_title, author=who.author, character=who.character,
            question=question, passages=passage_view(kept),
        )

    output, kept = await call_fitting(
        agent, "spatial-expert", lambda kept: [Message(role="user", content=prompt(kept))],
        passages, calls, expert_params(agent))
    presence = parse_presence(drop_echo(output, prompt(kept)))
    hint = None
    if presence == "absent":
        hint = agent.prompts.render("hint_absent", character=who.character, when=who.when)
    return presence, hint
