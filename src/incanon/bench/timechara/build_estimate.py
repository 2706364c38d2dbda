"""``incanon timechara build --dry-run``: the helper and judge calls a build would make, and
their approximate tokens, before any call. Scenes are filtered exactly as the build filters
them; item counts assume every helper step succeeds."""

from __future__ import annotations

from dataclasses import dataclass

from incanon.bench.sizing import prompt_tokens, text_tokens
from incanon.bench.timechara.build import BuildOptions, dialogue_turns, main_characters, scene_text
from incanon.canon.store import CanonStore
from incanon.templates import PromptLibrary, default_library

SUMMARY_TOKENS = 60
"""A helper reply of one JSON object (event, question, fake event)."""
GOLD_TOKENS = 120
VERDICT_TOKENS = 80


@dataclass
class StepEstimate:
    """One step: calls (at least, at most) and tokens."""

    step: str
    calls: int
    max_calls: int
    prompt_tokens: int
    completion_tokens: int


def estimate_build(store: CanonStore, work: str, options: BuildOptions, *, check_gold: bool = True,
                   prompts: PromptLibrary | None = None) -> tuple[int, list[StepEstimate]]:
    """(scenes that become events, the steps' estimates)."""
    prompts = prompts or default_library()
    info = store.work(work)
    characters = main_characters(store, work, options.characters)
    by_scene: dict[str, list[str]] = {}
    for chunk in store.chunks(work):
        if chunk.scene:
            by_scene.setdefault(chunk.scene, []).append(chunk.text)
    scenes, event_in, items = 0, 0, 0
    for scene in store.scenes(work):
        text = scene_text(store, work, scene, by_scene)
        if dialogue_turns(store, work, scene, text) < options.min_turns:
            continue
        scenes += 1
        event_in += prompt_tokens("timechara_event", [info.title, text[: options.max_scene_chars]], prompts)
        past = sum(1 for c in characters if any(tp.position >= scene.position for tp in c.time_points))
        future = any(tp.position < scene.position for c in characters for tp in c.time_points)
        # A scene without participants still gets them from the helper (or no presence items).
        items += past + int(future)
        items += (int(future) + int(past > 0)) if options.freeform else 0
        items += int(past > 0) if options.fake else 0
    small = prompt_tokens("timechara_freeform", [info.title, "x" * 200], prompts)
    steps = [StepEstimate("helper: event summary + participants", scenes, 2 * scenes, event_in, scenes * SUMMARY_TOKENS)]
    if options.freeform:
        steps.append(StepEstimate("helper: free-form question", scenes, 2 * scenes, scenes * small, scenes * SUMMARY_TOKENS))
    if options.fake:
        steps.append(StepEstimate("helper: fake event + fake question", 2 * scenes, 4 * scenes,
                                  2 * scenes * small, 2 * scenes * SUMMARY_TOKENS))
    gold_in = prompt_tokens("timechara_gold", ["x" * 600], prompts)
    steps.append(StepEstimate("helper: gold responses", items, items * options.gold_attempts, items * gold_in,
                              items * GOLD_TOKENS))
    if check_gold:
        judge_in = prompt_tokens("judge_spatiotemporal", ["x" * 800], prompts) + text_tokens("x" * 480)
        steps.append(StepEstimate("judge: gold checks", items, 2 * items * options.gold_attempts, items * judge_in,
                                  items * VERDICT_TOKENS))
    return scenes, steps
