"""Answers recorded elsewhere (the authors' ``generated.json``), judged like any method's."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from incanon.agents.base import Agent, CharacterAt, Reply, Turn
from incanon.errors import InputError


class RecordedAnswers(Agent):
    """Replays stored answers by item id; makes no model call.

    ``name`` is the method the answers came from (recorded in the run config).
    """

    name = "recorded"

    def __init__(self, label: str, answers: Mapping[str, str], thoughts: Mapping[str, Any] | None = None) -> None:
        self.name = label  # type: ignore[misc]
        self.answers = dict(answers)
        self.thoughts = dict(thoughts or {})
        self.options: dict[str, Any] = {}

    def reply_for(self, item_id: str) -> Reply:
        """The stored answer of ``item_id``."""
        if item_id not in self.answers:
            raise InputError(f"no recorded answer for item {item_id}")
        thought = self.thoughts.get(item_id)
        hints = [thought] if isinstance(thought, str) and thought.strip() and thought.strip() != "-" else []
        return Reply(text=self.answers[item_id], method=self.name, hints=hints,
                     details={"recorded": True, "thought": thought})

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        raise InputError("recorded answers are looked up by item id, not by dialogue")
