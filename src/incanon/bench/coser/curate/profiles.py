"""Character profiles written from each character's own plots and conversations.

Only plots before the held-out split feed a profile, so no profile leaks the test conversations.
The material is cut to a token budget (earliest plots first, as a reader meets them).
"""

from __future__ import annotations

import json
from typing import Any

from incanon.bench.coser.curate.calls import CallStats
from incanon.bench.coser.curate.chunking import count_tokens
from incanon.bench.coser.formats import Plot
from incanon.models import ChatModel, GenerationParams, user
from incanon.templates import PromptLibrary

MARKER = "===Profile==="


def involved(plot: Plot, name: str) -> bool:
    if any(c.name == name for c in plot.key_characters):
        return True
    return any(any(c.name == name for c in conv.key_characters) or any(d.character == name for d in conv.dialogues)
               for conv in plot.conversation)


def material_for(name: str, plots: list[Plot], budget: int) -> tuple[str, int, int]:
    """(material JSON, plots used, plots available) for ``name``."""
    infos: list[dict[str, Any]] = []
    for plot in plots:
        if not involved(plot, name):
            continue
        info: dict[str, Any] = {"plot": plot.summary}
        own = next((c for c in plot.key_characters if c.name == name), None)
        if own is not None:
            info["character_summary"] = own.model_dump(include={"name", "description", "summary"})
        info["conversation"] = [
            {"scenario": conv.scenario, "dialogues": [f"{d.character}: {d.message}" for d in conv.dialogues]}
            for conv in plot.conversation
            if any(c.name == name for c in conv.key_characters) or any(d.character == name for d in conv.dialogues)
        ]
        infos.append(info)
    used: list[dict[str, Any]] = []
    for info in infos:
        if used and count_tokens(json.dumps([*used, info], ensure_ascii=False)) > budget:
            break
        used.append(info)
    return json.dumps(used, ensure_ascii=False, indent=1), len(used), len(infos)


def read_profile(text: str) -> str:
    """The profile after the marker (or the whole answer when the marker is missing)."""
    body = text.split(MARKER, 1)[1] if MARKER in text else text
    body = body.strip()
    if body.lower().startswith(("i apologize", "i'm sorry", "i am sorry", "sorry,")):
        return ""
    return body


async def write_profile(
    model: ChatModel,
    library: PromptLibrary,
    *,
    title: str,
    name: str,
    train_plots: list[Plot],
    language: str = "English",
    max_tokens: int = 1024,
    budget: int = 6000,
    max_attempts: int = 5,
    retry_temperature: float = 0.7,
) -> tuple[str, CallStats, list[str]]:
    """(profile, spend, notes); an empty profile when there is no material or no usable answer."""
    stats = CallStats()
    material, used, available = material_for(name, train_plots, budget)
    if not available:
        return "", stats, [f"{name}: no plots before the held-out split; no profile written"]
    notes = [f"{name}: profile material cut to {used} of {available} plots"] if used < available else []
    prompt = library.render("coser_curate_profile", character=name, title=title, language=language, material=material)
    for attempt in range(max_attempts):
        stats.attempts += 1
        params = GenerationParams(max_tokens=max_tokens, temperature=0.0 if attempt == 0 else retry_temperature,
                                  epoch=attempt)
        completion = await model.generate([user(prompt)], params)
        stats.add(completion)
        profile = read_profile(completion.text)
        if profile:
            return profile, stats, notes
    return "", stats, [*notes, f"{name}: no usable profile after {max_attempts} attempts"]
