"""Simulation and judging as resumable runs in the run store.

``run_simulation`` stores one sample per test case (benchmark ``coser-gca``): the simulated
messages, every next-speaker decision, the prompts, and BLEU / ROUGE-L against the original
(no critic needed for those). ``run_judging`` critiques the ok samples of a simulation run into
a *judged run* (benchmark ``coser-judge``, ``dataset.source_run`` names the simulation run):
the simulation run stays untouched, several critics can judge the same simulations, and each
judged run resumes on its own. Both runs are named by their configuration, so the same command
run again resumes instead of starting over.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from incanon.bench.coser.critics import Critic
from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.metrics import ngram_scores
from incanon.bench.coser.simulation.case import case_domain, case_id
from incanon.bench.coser.simulation.engine import Cast, SimulationConfig, simulate_case
from incanon.errors import InputError
from incanon.models.types import ChatModel, GenerationParams
from incanon.runs.config import RunConfig
from incanon.runs.driver import RunSettings
from incanon.runs.records import ItemOutcome, RunItem, RunResult
from incanon.runs.store import RunStore
from incanon.runs.sample import Task
from incanon.templates import PromptLibrary

if TYPE_CHECKING:  # the worker module imports this one when it rebuilds a task
    from incanon.bench.coser.worker import CriticWorker, SimulationWorker

SIMULATION_BENCHMARK = "coser-gca"
JUDGE_BENCHMARK = "coser-judge"


def file_digest(path: str | Path) -> str:
    """Short sha256 of a file's bytes (names the dataset in the run config)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def simulation_items(samples: list[TestSample]) -> list[RunItem]:
    """One run item per test case, keyed by CoSER's case id; the input is the whole sample."""
    items, seen = [], set()
    for index, sample in enumerate(samples):
        cid = case_id(sample, index)
        if cid in seen:
            cid = f"{cid}#{index}"  # two samples of one conversation: keep both
        seen.add(cid)
        items.append(RunItem(id=cid, input={"sample": sample.published(), "domain": case_domain(sample)}))
    return items


@dataclass
class SimulationSetup:
    """Everything a simulation run needs besides the test cases."""

    cast: Cast
    specs: dict[str, str]
    """Role → model spec: ``actor``, ``nsp``, ``env``."""
    store: RunStore
    config: SimulationConfig = field(default_factory=SimulationConfig)
    dataset: dict[str, Any] = field(default_factory=dict)
    """Where the cases come from (test file digest); part of the run's identity."""
    rag: str | None = None
    name: str | None = None
    epochs: int = 1
    """Repetitions of every case (each sampled afresh when the temperature is above 0)."""
    concurrency: int = 4
    fresh: bool = False
    progress: bool = True
    worker: SimulationWorker | None = None
    """How a Ray worker rebuilds the cast (used only when ``--executor`` sends samples away)."""

    def settings(self) -> RunSettings:
        """How the driver runs the simulation run."""
        return RunSettings(store=self.store, concurrency=self.concurrency, fresh=self.fresh, progress=self.progress)


def simulation_config(setup: SimulationSetup) -> RunConfig:
    method = "coser-gca" + (f"+rag={setup.rag}" if setup.rag else "")
    return RunConfig(
        benchmark=SIMULATION_BENCHMARK, name=setup.name, task="given-circumstance acting: simulation",
        dataset=setup.dataset, models=setup.specs, methods=[method],
        seeds=[setup.config.seed], params={"simulation": setup.config.model_dump(mode="json"), "rag": setup.rag},
    )


async def simulate_item(cast: Cast, config: SimulationConfig, item: RunItem) -> ItemOutcome:
    """One case: simulate the scene, score BLEU / ROUGE-L against the original."""
    sample = TestSample.model_validate(item.input["sample"])
    sim = await simulate_case(sample, cast, config, case=item.id, epoch=item.epoch)
    original = [{"character": t.character, "message": t.message} for t in sample.dialogues]
    ngram = ngram_scores(sim.coser_messages(), original, config.continue_from)
    return ItemOutcome(
        outputs={"messages": [m.model_dump(exclude_none=True) for m in sim.messages], "ended_by": sim.ended_by},
        scores={**ngram.as_scores(), "rounds": len(sim.messages),
                "actor_rounds": sim.actor_rounds},
        extra={"decisions": [d.model_dump() for d in sim.decisions], "prompts": sim.prompts},
    )


def simulation_task(cast: Cast, config: SimulationConfig) -> Task:
    """The per-case task (what a Ray worker runs)."""
    return functools.partial(simulate_item, cast, config)


async def run_simulation(samples: list[TestSample], setup: SimulationSetup) -> RunResult:
    """Simulate every case not yet done in the run this setup names (through the one driver,
    :mod:`incanon.runs.driver`, as :class:`incanon.bench.coser.benchmark.CoserSimulation`)."""
    from incanon.bench.coser.benchmark import CoserSimulation
    from incanon.runs.driver import evaluate

    return (await evaluate(CoserSimulation(samples, setup), setup.settings())).results[0]


def _continue_from(config: RunConfig) -> int:
    return int(((config.params or {}).get("simulation") or {}).get("continue_from", 0))


def judge_items(store: RunStore, source_run: str) -> Iterator[RunItem]:
    """The ok samples of a simulation run as judging items: one item per case, holding each
    simulated epoch (the judged run has as many epochs)."""
    info = store.get_run(source_run)
    if info.benchmark != SIMULATION_BENCHMARK:
        raise InputError(f"run {source_run} is a {info.benchmark} run, not a CoSER simulation run ({SIMULATION_BENCHMARK})")
    k = _continue_from(info.config)
    cases: dict[str, dict[str, Any]] = {}
    for sample in store.samples(source_run, status="ok"):
        case = cases.setdefault(sample.item_id, {
            "source_run": source_run, "sample": sample.input["sample"], "domain": sample.input.get("domain"),
            "continue_from": k, "epochs": {}})
        case["epochs"][str(sample.epoch)] = {
            "messages": [{"role": m["role"], "content": m["content"]} for m in (sample.outputs or {}).get("messages", [])],
            "ngram": {key: (sample.scores or {}).get(key) for key in ("bleu", "rouge_l", "sacrebleu", "rouge_score")},
        }
    for item_id, case in cases.items():
        yield RunItem(id=item_id, input=case)


def epochs_of(items: list[RunItem]) -> int:
    """How many epochs the judged run needs: one past the highest simulated epoch."""
    return 1 + max((int(e) for item in items for e in item.input["epochs"]), default=0)


@dataclass
class JudgeSetup:
    """Everything a judging run needs."""

    critic: ChatModel
    critic_spec: str
    store: RunStore
    prompts: PromptLibrary
    params: GenerationParams = field(default_factory=lambda: GenerationParams(max_tokens=2048))
    thoughts: bool = False
    """Show the critic inner thoughts (CoSER: no)."""
    name: str | None = None
    concurrency: int = 4
    fresh: bool = False
    progress: bool = True
    worker: CriticWorker | None = None
    """How a Ray worker rebuilds the critic (used only when ``--executor`` sends samples away)."""

    def settings(self) -> RunSettings:
        """How the driver runs the judged run."""
        return RunSettings(store=self.store, concurrency=self.concurrency, fresh=self.fresh, progress=self.progress)


def judge_config(store: RunStore, source_run: str, setup: JudgeSetup) -> RunConfig:
    source = store.get_run(source_run).config
    return RunConfig(
        benchmark=JUDGE_BENCHMARK, name=setup.name, task="given-circumstance acting: penalty-based critics",
        dataset={"source_run": source_run}, models={**source.models, "critic": setup.critic_spec},
        methods=list(source.methods),
        params={"critic_thoughts": setup.thoughts, "critic_params": setup.params.model_dump(mode="json"),
                "continue_from": _continue_from(source), "rag": (source.params or {}).get("rag"),
                "prompt_set": ((source.params or {}).get("simulation") or {}).get("prompt_set", "")},
    )


async def judge_item(critic: Critic, item: RunItem) -> ItemOutcome:
    """One case: critique the simulated scene (the item's epoch) on every dimension."""
    sample = TestSample.model_validate(item.input["sample"])
    simulated = item.input["epochs"].get(str(item.epoch))
    if simulated is None:
        raise InputError(f"case {item.id}: epoch {item.epoch} was not simulated successfully; nothing to judge")
    result = await critic.critique(sample, simulated["messages"], continue_from=int(item.input["continue_from"]))
    scores: dict[str, float | None] = dict(result.scores())
    scores["score"] = result.score
    scores.update(simulated.get("ngram") or {})
    scores["actor_rounds"] = result.actor_rounds
    return ItemOutcome(
        outputs={"critique": result.coser_critique(), "actor_rounds": result.actor_rounds,
                 "simulation": simulated["messages"]},
        scores=scores,
        extra={"raw": {d: c.raw for d, c in result.dimensions.items()},
               "repaired": [d for d, c in result.dimensions.items() if c.repaired],
               "salvaged": [d for d, c in result.dimensions.items() if c.salvaged],
               "unscored": {d: c.problem for d, c in result.dimensions.items() if c.flaws is None},
               "defaulted_severities": sum(f.defaulted for c in result.dimensions.values() for f in c.flaws or [])},
    )


def judging_task(critic: Critic) -> Task:
    """The per-case task (what a Ray worker runs)."""
    return functools.partial(judge_item, critic)


async def run_judging(source_run: str, setup: JudgeSetup) -> RunResult:
    """Critique every simulated case of ``source_run`` not yet judged by this critic (through
    the one driver, as :class:`incanon.bench.coser.benchmark.CoserJudging`)."""
    from incanon.bench.coser.benchmark import CoserJudging
    from incanon.runs.driver import evaluate

    return (await evaluate(CoserJudging(setup.store, source_run, setup), setup.settings())).results[0]
