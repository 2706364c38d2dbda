"""DialSim runs in the run store: one run per setting, one sample per session per repetition.

A *setting* is (model, memory strategy, answer format, time limit, name variant, ...); its run
id comes from that configuration, so the same command resumes the same run. Each repetition
(``--runs N``) is an epoch with its own seed (seed, seed+1, ...): a different draw of questions,
as the paper repeats each experiment three times. Every session's record (memory-update
latencies, the question and its outcome) is committed as soon as the session ends.

A simulation is sequential (memory carries over): a repetition whose every session is stored
and ok is skipped; one cut short (Ctrl-C, ``kill -9``) resumes after its last stored session,
with the memory those sessions added put back (:mod:`incanon.bench.dialsim.resume`); the
questions are the same (the plan depends on the seed alone). Repetitions simulated on other
workers (``--executor ray``) are stored whole, so they start again from their first session.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from incanon.agents.registry import create_agent
from incanon.bench.dialsim.scale import BudgetReached, Scale
from incanon.bench.dialsim.agents.memory import DEFAULT_CONTEXT_TOKENS, MemoryAgent
from incanon.bench.dialsim.names import name_map
from incanon.bench.dialsim.outcomes import SessionRecord
from incanon.bench.dialsim.promptsets import template_name
from incanon.bench.dialsim.refprompts import ReferenceJudge, ReferencePrompts
from incanon.bench.dialsim.report import dropped_line
from incanon.bench.dialsim.resume import MEMORY_KEY, MemoryJournal, ResumePoint, resume_point
from incanon.bench.dialsim.questions import Question, question_json
from incanon.bench.dialsim.scoring import AnswerJudge
from incanon.bench.dialsim.script import DialScript
from incanon.bench.dialsim.simulator import SimConfig, Simulator
from incanon.bench.dialsim.style import StyleTransfer
from incanon.bench.remote import call_by_path
from incanon.errors import ConfigError, IncanonError
from incanon.models.types import ChatModel, Usage
from incanon.runs import RunConfig, RunItem, RunStore, SampleRecord, input_hash, per_worker
from incanon.runs.budget import Budget
from incanon.runs.sample import WorkUnit
from incanon.runs.config import utcnow
from incanon.templates import PromptLibrary

if TYPE_CHECKING:  # the worker module imports this one when it rebuilds a repetition
    from incanon.bench.dialsim.worker import WorkerSpec

#: How a Ray worker rebuilds a repetition (named, not imported: see incanon.bench.remote).
_WORKER_TASK = "incanon.bench.dialsim.worker:build_task"

BENCHMARK = "dialsim"
Progress = Callable[[int, int, SessionRecord, int, int], object]
"""Called after each stored session: (repetition, repetitions, the session's record, sessions of
this repetition done, sessions per repetition); repetitions are 0-based."""
MEMORIES = ("recent", "bm25-utterance", "bm25-session", "bm25-summary", "embedding-utterance",
            "embedding-session", "embedding-summary", "oracle")


def memory_method(name: str) -> str:
    """``bm25-session`` (or ``dialsim-bm25-session``) → the registered method name."""
    short = name.removeprefix("dialsim-")
    short = {"base": "recent", "base-llm": "recent", "recent-context": "recent"}.get(short, short)
    if short not in MEMORIES:
        raise ConfigError(f"unknown memory strategy {name!r}; use one of: {', '.join(MEMORIES)}")
    return f"dialsim-{short}"


def questions_digest(questions: list[Question]) -> str:
    return hashlib.sha256("\n".join(question_json(q) for q in questions).encode()).hexdigest()[:16]


@dataclass
class RunSetup:
    """Everything one DialSim setting needs."""

    script: DialScript
    questions: list[Question]
    agent_model: ChatModel
    models: dict[str, str]
    """Role → spec, as recorded in the run (``agent``, ``judge``, ``style``, ``embedder``)."""
    memory: str = "bm25-session"
    config: SimConfig = field(default_factory=SimConfig)
    runs: int = 1
    names: str | None = None
    judge_model: ChatModel | None = None
    style: StyleTransfer | None = None
    embedder: Any = None
    k: int | None = None
    context_tokens: int | None = DEFAULT_CONTEXT_TOKENS
    """Cap on remembered text (None: the model's context size)."""
    constrain_choices: bool = False
    prompts: PromptLibrary | None = None
    prompt_set: str = ""
    """``""`` (incanon's prompts) or ``"paper"``."""
    prompts_from: str | None = None
    """A folder in the reference repository's ``prompt/*.txt`` layout whose texts are used as they are."""
    dataset: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    fresh: bool = False
    worker: WorkerSpec | None = None
    """How a Ray worker rebuilds the setting (used only when ``--executor`` sends work away)."""


@dataclass
class RunOutcome:
    run_id: str
    resumed: bool
    simulated: list[int] = field(default_factory=list)
    """Repetitions simulated in this call (0-based)."""
    skipped: list[int] = field(default_factory=list)
    """Repetitions already complete in the store."""
    usage: Usage = field(default_factory=Usage)
    elapsed_s: float = 0.0
    status: str = "finished"
    """``finished``; ``failed`` when every question asked ended in an error; ``stopped-budget``
    when ``--max-cost`` stopped the simulation."""
    notes: list[str] = field(default_factory=list)


def run_config(setup: RunSetup) -> RunConfig:
    cfg = setup.config
    return RunConfig(
        benchmark=BENCHMARK, name=setup.name,
        task=f"DialSim {setup.memory}, {cfg.answer_format}, "
             f"{'no time limit' if cfg.time_limit == 0 else f'{cfg.time_limit:g}s limit'}"
             f"{f', {setup.names} names' if setup.names else ''}",
        dataset={"work": setup.script.work, "main": setup.script.main, "questions": len(setup.questions),
                 "questions_sha": questions_digest(setup.questions), **setup.dataset},
        models=setup.models, methods=[memory_method(setup.memory)],
        seeds=[cfg.seed + i for i in range(setup.runs)],
        params={"time_limit": cfg.time_limit, "fast": cfg.fast, "format": cfg.answer_format, "names": setup.names,
                "k": setup.k, "context_tokens": setup.context_tokens, "constrain_choices": setup.constrain_choices,
                "fan_ratio": cfg.fan_ratio, "tkg_unanswerable_share": cfg.tkg_unanswerable_share,
                "fan_unanswerable_share": cfg.fan_unanswerable_share, "lenient": cfg.lenient,
                "prompt_set": setup.prompt_set or "incanon", "protocol": 2,
                # Only when set, so the ids of runs made before these options stay the same.
                **({"paper_protocol": True} if cfg.protocol == "paper" else {}),
                **({"warm_model": cfg.warm_model} if cfg.warm_model is not None else {}),
                **({"prompts_from": setup.prompts_from} if setup.prompts_from else {})},
    )


def make_judge(model: ChatModel | None, *, prompts: PromptLibrary | None, lenient: bool, prompt_set: str,
               prompts_from: str | None) -> Any:
    """The answer judge: incanon's template, or the reference's prompt files (``prompts_from``)."""
    if model is None:
        return None
    if prompts_from:
        return ReferenceJudge(model, ReferencePrompts(prompts_from), lenient=lenient)
    return AnswerJudge(model, prompts=prompts, lenient=lenient, template=template_name("judge", prompt_set))


def memory_agent(setup: RunSetup) -> MemoryAgent:
    """A fresh agent of the setting's memory strategy."""
    options: dict[str, Any] = {"answer_format": setup.config.answer_format, "k": setup.k,
                               "context_tokens": setup.context_tokens, "constrain_choices": setup.constrain_choices,
                               "prompt_set": setup.prompt_set, "protocol": setup.config.protocol}
    if setup.prompts_from:
        options["prompts_from"] = setup.prompts_from
    if setup.prompts is not None:
        options["prompts"] = setup.prompts
    if "embedding" in setup.memory:
        options["embedder"] = setup.embedder
    agent = create_agent(memory_method(setup.memory), setup.agent_model, **options)
    assert isinstance(agent, MemoryAgent)
    return agent


def _sample(run_id: str, epoch: int, seed: int, record: SessionRecord, started: Any,
            memory: list[dict[str, Any]] | None = None) -> SampleRecord:
    item_input = {"session": record.session, "seed": seed}
    q = record.question
    status = record.sample_status()
    return SampleRecord(
        run_id=run_id, item_id=record.session, epoch=epoch, input_hash=input_hash(item_input), input=item_input,
        outputs=record.model_dump(mode="json", exclude={"usage"}), scores=record.scores(), usage=record.usage,
        started=started, finished=utcnow(),
        duration_s=record.update.get("mean", 0.0) * record.update.get("count", 0) + ((q.answer_s or 0.0) if q else 0.0),
        status=status, error_type="QuestionError" if status == "error" else None,
        error=(q.error if q is not None and status == "error" else None),
        extra=None if memory is None else {MEMORY_KEY: memory},
    )


async def run_setting(
    setup: RunSetup, store: RunStore, *, progress: Progress | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> RunOutcome:
    """Simulate every repetition of ``setup`` not already complete in ``store`` (those of this
    shard, within the budget: see :mod:`incanon.bench.dialsim.scale`)."""
    if setup.runs < 1:
        raise ConfigError(f"--repetitions must be at least 1, got {setup.runs}")
    scale = Scale.current()
    epochs = scale.epochs(setup.runs)
    config = scale.config(run_config(setup))
    remote_task = None
    if scale.remote:
        if setup.worker is None:
            raise ConfigError("this DialSim setting cannot run on other workers: it has no worker spec")
        remote_task = per_worker(functools.partial(call_by_path, _WORKER_TASK, setup.worker, scale.prices))
        assert scale.executor is not None
        await scale.executor.prepare(remote_task)  # before the run exists: a bad cluster leaves no run
    info = store.create_or_resume(config, fresh=setup.fresh)
    outcome = RunOutcome(run_id=info.id, resumed=info.resumed)
    sessions = [s.id for s in setup.script.dialogue]
    store.set_total(info.id, len(sessions) * len(epochs))
    budget = scale.budget(store.spent_cost(info.id))
    judge = make_judge(setup.judge_model, prompts=setup.prompts, lenient=setup.config.lenient,
                       prompt_set=setup.prompt_set, prompts_from=setup.prompts_from)
    t0 = clock()
    status = "crashed"
    templates: dict[str, str] = {}
    try:
        todo = []
        for epoch in epochs:
            states = store.sample_states(info.id)
            if all(states.get((s, epoch), ("",))[0] == "ok" for s in sessions):
                outcome.skipped.append(epoch)
            else:
                todo.append(epoch)
        points: dict[int, ResumePoint] = {}
        if todo and remote_task is None:
            stored = list(store.samples(info.id))
            points = {epoch: resume_point(stored, sessions, epoch) for epoch in todo}
            for epoch, point in points.items():
                if point.start:
                    outcome.notes.append(f"repetition {epoch + 1} resumes after session {sessions[point.start - 1]} "
                                         f"({point.start} of {len(sessions)} sessions already done)")

        done: dict[int, int] = {epoch: point.start for epoch, point in points.items()}
        asked = {"questions": 0, "errors": 0}
        dropped: dict[str, int] = {}

        def save(record: SessionRecord, epoch: int, seed: int, last: bool,
                 memory: list[dict[str, Any]] | None = None) -> None:
            store.record(_sample(info.id, epoch, seed, record, utcnow(), memory))
            if record.question is not None:
                asked["questions"] += 1
                asked["errors"] += record.sample_status() == "error"
            outcome.usage = outcome.usage + record.usage
            for reason, n in record.dropped.items():
                dropped[reason] = dropped.get(reason, 0) + n
            done[epoch] = done.get(epoch, 0) + 1
            if progress is not None:
                progress(epoch, setup.runs, record, done[epoch], len(sessions))
            if budget is not None:
                budget.add(record.usage.cost)
                # A budget reached by the very last session is a finished run.
                if budget.exhausted and not last:
                    raise BudgetReached(f"budget reached: spent {budget.describe()}")

        try:
            if remote_task is not None:
                templates = await _simulate_remote(setup, scale, remote_task, info.id, todo, budget, save, outcome)
            else:
                await _simulate_here(setup, scale, judge, todo, budget, save, outcome, points)
            # Every question asked ended in an error: the run produced nothing (and says so).
            status = "failed" if asked["questions"] and asked["errors"] == asked["questions"] else "finished"
            outcome.status = status
        except BudgetReached as stop:
            status = outcome.status = "stopped-budget"
            outcome.notes.append(f"{stop}; no new session was started. Run again with a higher --max-cost "
                                 "to continue (a repetition cut short resumes after its last stored session)")
        if dropped:  # never silent: these questions would have been asked under incanon's protocol
            outcome.notes.append(dropped_line(dropped))
    except BaseException:
        status = "interrupted"
        raise
    finally:
        outcome.elapsed_s = clock() - t0
        store.finish(info.id, status, spent=outcome.usage, elapsed_s=outcome.elapsed_s)
        used = {**(setup.prompts.used if setup.prompts is not None else {}), **templates}
        if used:
            store.add_templates(info.id, used)
    return outcome


def _unpriced_notes(outcome: RunOutcome, names: set[str] | list[str]) -> None:
    for model in sorted(names):
        note = f"no price known for model {model!r}: its calls count as $0 (add it to a --prices file)"
        if note not in outcome.notes:
            outcome.notes.append(note)


async def _simulate_here(setup: RunSetup, scale: Scale, judge: AnswerJudge | None, todo: list[int],
                         budget: Budget | None, save: Callable[..., None], outcome: RunOutcome,
                         points: dict[int, ResumePoint] | None = None) -> None:
    """Each repetition in this process, one after the other, each from its resume point."""
    sessions = [s.id for s in setup.script.dialogue]
    for epoch in todo:
        if budget is not None and budget.exhausted:
            raise BudgetReached(f"budget reached: spent {budget.describe()}")
        seed = setup.config.seed + epoch
        cfg = replace(setup.config, seed=seed)
        names = name_map(setup.script, setup.names, seed=seed, protocol=cfg.protocol)
        agent = memory_agent(setup)
        journal = MemoryJournal(agent)
        point = (points or {}).get(epoch, ResumePoint())
        sim = Simulator(setup.script, setup.questions, agent, config=cfg, judge=judge,
                        style=setup.style, names=names, prices=scale.prices)
        last = epoch == todo[-1]
        try:
            await sim.run(on_session=lambda r, e=epoch, sd=seed, lst=last: save(
                r, e, sd, lst and r.session == sessions[-1], journal.take()),
                start=point.start, restore=lambda _agent, p=point: journal.restore(p.memory))
        finally:
            _unpriced_notes(outcome, sim.unpriced)
        outcome.simulated.append(epoch)


async def _simulate_remote(setup: RunSetup, scale: Scale, task: Any, run_id: str, todo: list[int],
                           budget: Budget | None, save: Callable[..., None], outcome: RunOutcome) -> dict[str, str]:
    """Each repetition whole on a worker of ``scale.executor`` (all at once, or one at a time
    under a budget so it is checked between them); the sessions are stored here. Returns the
    templates the workers rendered."""
    engine = scale.executor
    assert engine is not None
    sessions = [s.id for s in setup.script.dialogue]
    concurrency = 1 if budget is not None else max(1, len(todo))
    await engine.start_run(task, run_id=run_id, timeout=None, prices=None, concurrency=concurrency)

    async def one(epoch: int) -> tuple[int, Any]:
        seed = setup.config.seed + epoch
        item = RunItem(id=f"repetition-{epoch}", input={"seed": seed})
        return epoch, await engine.run(WorkUnit(item, input_hash(item.input)))

    try:
        if budget is None:
            attempts = list(await asyncio.gather(*(one(e) for e in todo)))
        else:
            attempts = []
            for epoch in todo:
                if budget.exhausted:
                    raise BudgetReached(f"budget reached: spent {budget.describe()}")
                attempts.append(await one(epoch))
                _store_repetition(*attempts[-1], setup, save, outcome, sessions, last=epoch == todo[-1])
            attempts = []
        for epoch, attempt in attempts:
            _store_repetition(epoch, attempt, setup, save, outcome, sessions, last=epoch == todo[-1])
    finally:
        templates = await engine.end_run()
    return templates


def _store_repetition(epoch: int, attempt: Any, setup: RunSetup, save: Callable[..., None], outcome: RunOutcome,
                      sessions: list[str], *, last: bool) -> None:
    sample = attempt.sample
    if sample.status != "ok":
        raise IncanonError(f"repetition {epoch + 1} failed on a worker: {sample.error}")
    _unpriced_notes(outcome, sample.outputs.get("unpriced", []))
    seed = setup.config.seed + epoch
    stop: BudgetReached | None = None
    for raw in sample.outputs["sessions"]:
        record = SessionRecord.model_validate(raw)
        try:
            save(record, epoch, seed, last and record.session == sessions[-1])
        except BudgetReached as reached:  # the repetition is paid for already: keep all of it
            stop = reached
    outcome.simulated.append(epoch)
    if stop is not None:
        raise stop
