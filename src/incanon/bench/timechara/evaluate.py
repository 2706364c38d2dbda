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
from incanon.bench.timechara.judged import spatiotemporal_score
from incanon.errors import ConfigError
from incanon.judges.hallucination import HallucinationJudge
from incanon.judges.personality import PersonalityJudge
from incanon.judges.spatiotemporal import SpatiotemporalJudge
from incanon.models.types import ChatModel
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunResult, RunStore, run_items
from incanon.templates import PromptLibrary, default_library

BENCHMARK = "timechara"


def needs_scope(agent: Agent) -> bool:
    """True for methods that retrieve canon text (RAG, RAG-cutoff, narrative-experts-RAG-cutoff)
    and so need a knowledge scope from a canon store. Agents may say so with ``needs_scope``."""
    declared = getattr(agent, "needs_scope", None)
    if isinstance(declared, bool):
        return declared
    return "rag" in agent.name.split("-")


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
        reply = await agent.respond(who, [Turn(speaker="user", text=item.question)])
        outcome = await judge_answer(item, who, reply.text, judges)
        outcome.outputs.update({"when": who.when, "hints": reply.hints, "context": reply.context})
        outcome.extra["calls"] = [c.model_dump(mode="json") for c in reply.calls]
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


async def evaluate(items: Sequence[TimeCharaItem], methods: Sequence[str], setup: EvalSetup) -> list[RunResult]:
    """One run per method over ``items`` (resumed if it exists); the runs' results in order."""
    if not methods:
        raise ConfigError("no role-play method given")
    prompts = setup.prompts or default_library()
    agents = [create_agent(m, setup.agent_model, prompts=prompts) for m in methods]
    if setup.resolver.store is None:
        scoped = [a.name for a in agents if needs_scope(a)]
        if scoped:
            raise ConfigError(
                f"method {', '.join(scoped)} retrieves from the canon and needs a knowledge scope, "
                "which published items alone do not give: pass --store DIR with the work's canon store"
            )
    judges = Judges.on(setup.judge_model, prompts, setup.hallucination_types)
    run_list = [RunItem(id=item.id, input=item.row()) for item in items]
    dataset = {**setup.dataset, "items": len(items), "fingerprint": items_fingerprint(items)}
    results = []
    for agent in agents:
        config = RunConfig(
            benchmark=BENCHMARK, name=setup.name, task="point-in-time interview (TimeChara)",
            dataset=dataset, models=setup.models, methods=[agent.name],
            params={"hallucination_types": setup.hallucination_types, "canon": setup.resolver.store is not None},
        )
        results.append(await run_items(
            run_list, make_task(agent, setup.resolver, judges), store=setup.runs, config=config,
            concurrency=setup.concurrency, progress=setup.progress, fresh=setup.fresh,
            templates=prompts.used, item_timeout=setup.item_timeout,
        ))
    return results
