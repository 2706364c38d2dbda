"""Refinement: complete each conversation's setting (scenario and motivations) for the actors.

Extraction spreads context over several fields (what the plot summary says, the scenario leaves
out), so a second call rewrites the scenario and every motivation to stand on their own, while
revealing nothing the conversation itself goes on to say (a setting that copies a run of the
dialogue's own words is sent back as unreadable). A refinement that cannot be read after
every attempt leaves the extracted setting in place and says so in the report.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from incanon.bench.coser.curate.calls import CallOutcome, ReadError, RetryPlan, call_structured, first_problem
from incanon.bench.coser.curate.schema import RefinedSetting, SchemaLimits, refine_schema, response_format
from incanon.bench.coser.formats import Conversation, ConversationCharacter, Plot, parse_message
from incanon.llmout import JSONRepairError, repair_json
from incanon.models import ChatModel, GenerationParams
from incanon.templates import PromptLibrary


QUOTE_WORDS = 8
"""A run of this many words of the dialogue inside the setting counts as revealing it."""


def _words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.casefold())


def quoted_dialogue(setting: str, conv: Conversation) -> str | None:
    """The first run of ``QUOTE_WORDS`` words that the setting copies from the dialogue, if any."""
    grams = set()
    for turn in conv.dialogues:
        words = _words(parse_message(turn.message).speech)
        grams.update(tuple(words[i : i + QUOTE_WORDS]) for i in range(len(words) - QUOTE_WORDS + 1))
    words = _words(setting)
    for i in range(len(words) - QUOTE_WORDS + 1):
        if tuple(words[i : i + QUOTE_WORDS]) in grams:
            return " ".join(words[i : i + QUOTE_WORDS])
    return None


def _reader(names: list[str], conv: Conversation):
    def read(text: str, hit_limit: bool) -> tuple[RefinedSetting, list[str]]:
        try:
            repaired = repair_json(text)
        except JSONRepairError as exc:
            raise ReadError(str(exc), truncated=hit_limit) from None
        try:
            setting = RefinedSetting.model_validate(repaired.value)
        except ValidationError as exc:
            raise ReadError(first_problem(exc), truncated=repaired.truncated) from None
        given = {c.name for c in setting.key_characters}
        missing = [n for n in names if n not in given]
        if missing:
            raise ReadError(f"key_characters must list exactly {names}; missing {missing}")
        if not setting.scenario.strip():
            raise ReadError("scenario: must not be empty")
        copied = quoted_dialogue(" ".join([setting.scenario, *(c.motivation for c in setting.key_characters)]), conv)
        if copied:
            raise ReadError(f"the setting repeats the conversation's own words ({copied!r}); it must not reveal them")
        return setting, [f"json: {f}" for f in repaired.fixes]

    return read


def refine_input(plot: Plot, conv: Conversation) -> dict[str, Any]:
    return {
        "plot_summary": plot.summary,
        "character_information": [c.model_dump(include={"name", "description", "summary"}) for c in plot.key_characters],
        "scenario": conv.scenario,
        "topic": conv.topic,
        "key_characters": [{"name": c.name, "motivation": c.motivation} for c in conv.key_characters],
        "dialogues": [{"character": d.character, "message": d.message} for d in conv.dialogues],
    }


async def refine_conversation(
    model: ChatModel,
    library: PromptLibrary,
    *,
    title: str,
    plot: Plot,
    conv: Conversation,
    max_tokens: int = 1024,
    constrained: bool = True,
    limits: SchemaLimits = SchemaLimits(),
    retry: RetryPlan = RetryPlan(),
) -> tuple[Conversation | None, CallOutcome[Any]]:
    """The conversation with its setting completed, or None (keep the original) on failure."""
    names = list(dict.fromkeys(c.name for c in conv.key_characters))
    prompt = library.render(
        "coser_curate_refine", title=title, names=", ".join(names),
        conversation=json.dumps(refine_input(plot, conv), ensure_ascii=False, indent=1),
    )
    fmt = response_format("coser_setting", refine_schema(limits)) if constrained else None
    outcome = await call_structured(
        model, library, prompt, _reader(names, conv), plan=retry, required="scenario, key_characters [{name, motivation}]",
        params=GenerationParams(max_tokens=max_tokens, response_format=fmt),
    )
    if outcome.value is None:
        return None, outcome
    setting: RefinedSetting = outcome.value
    refined = {c.name: c.motivation for c in setting.key_characters}
    characters = [
        ConversationCharacter(name=c.name, motivation=refined.get(c.name) or c.motivation) for c in conv.key_characters
    ]
    return conv.model_copy(update={"scenario": setting.scenario, "key_characters": characters}), outcome
