"""The multi-agent simulation of one given-circumstance acting case (CoSER §4.3).

One ``coser-gca`` agent per character (actor model), an environment model speaking as the
Environment and a next-speaker predictor. Each round one role speaks, then the predictor picks
the next one (see ``nsp`` for the rules); at most ``max_rounds`` rounds. With ``continue_from =
k`` the first k rounds replay the original messages and speakers without calling any model.

Visibility is enforced here, not left to prompts: an agent receives its own messages with their
[thoughts] and everyone else's with the thoughts removed; the environment model and the
predictor see no thoughts at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

from pydantic import BaseModel, Field

from incanon.agents.base import CharacterAt, Turn
from incanon.agents.registry import create_agent
from incanon.bench.coser.agents import ActorSetting, GcaActor
from incanon.bench.coser.formats import ENVIRONMENT, TestSample, remove_thoughts
from incanon.bench.coser.scoring import actor_rounds
import incanon.bench.coser.simulation.case as cases
from incanon.bench.coser.simulation.nsp import Decision, case_rng, decide, parse_prediction
from incanon.bench.coser.simulation.rag import BookMemory
from incanon.bench.coser.simulation.roles import EnvironmentRole, SpeakerPredictor
from incanon.canon.position import Position
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary, default_library

Source = Literal["original", "actor", "environment"]


class SimulationConfig(BaseModel):
    """Settings of the simulation (all of them change results, so all go in the run config)."""

    max_rounds: int = Field(default=20, ge=1)
    """At most this many messages (CoSER: 20)."""
    end_from_round: int = Field(default=5, ge=0)
    """The predictor may end the scene after this round (counted from 0) or later."""
    continue_from: int = Field(default=0, ge=0)
    """Replay this many original messages before the models take over."""
    thoughts: bool = True
    """Ask actors for [inner thoughts]."""
    output_example: bool = True
    """Show actors an example of each markup."""
    nsp_constrained: bool = False
    """Constrain the predictor's answer to the candidates with a JSON schema."""
    prompt_set: str = ""
    """``""`` for incanon's prompts, ``paper`` for ones built like CoSER's (``promptsets``)."""
    seed: int = 0
    """Seed of the random speaker picks (combined with the case id)."""
    actor_params: GenerationParams = GenerationParams(max_tokens=400)
    env_params: GenerationParams = GenerationParams(max_tokens=160)
    nsp_params: GenerationParams = GenerationParams(max_tokens=24)


class SimMessage(BaseModel):
    """One message of the simulated scene (CoSER's ``{"role", "content"}`` plus provenance)."""

    role: str
    content: str
    source: Source
    raw: str | None = None
    """The model's output before cleaning, when cleaning changed it."""
    retrieved: list[str] | None = None
    """What the actor recalled just before writing this message (retrieval augmentation)."""


class Simulation(BaseModel):
    """A simulated scene and how it came about."""

    case_id: str
    messages: list[SimMessage] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    """Every next-speaker decision, in order."""
    ended_by: Literal["nsp", "max_rounds", "original"] = "max_rounds"
    prompts: dict[str, str] = Field(default_factory=dict)
    """Role → system prompt it was given (actors without what they recalled, Environment, NSP)."""

    @property
    def actor_rounds(self) -> int:
        """Messages not spoken by the Environment (the scoring's length correction)."""
        return actor_rounds([m.model_dump() for m in self.messages])

    def coser_messages(self) -> list[dict[str, str]]:
        """The scene in CoSER's layout: ``[{"role", "content"}]``."""
        return [{"role": m.role, "content": m.content} for m in self.messages]


@dataclass
class Cast:
    """The models (and optional book memory) a simulation draws on."""

    actor: ChatModel
    nsp: ChatModel
    environment: ChatModel
    prompts: PromptLibrary = field(default_factory=default_library)
    memory: BookMemory | None = None


def view(viewer: str, history: Sequence[SimMessage]) -> list[Turn]:
    """The scene as ``viewer`` may see it: its own messages whole, others' without thoughts."""
    turns = []
    for m in history:
        text = m.content if m.role in (viewer, ENVIRONMENT) else remove_thoughts(m.content)
        turns.append(Turn(speaker=m.role, text=text))
    return turns


def _actors(sample: TestSample, cast: Cast, config: SimulationConfig, params: GenerationParams) -> dict[str, GcaActor]:
    profiles = cases.profiles(sample)
    speakers = cases.speakers(sample)
    actors: dict[str, GcaActor] = {}
    for name in cases.characters(sample):
        setting = ActorSetting(
            book=sample.book, profile=profiles.get(name, ""), scenario=sample.scenario,
            other_profiles={n: p for n, p in profiles.items() if n != name},
            motivation=cases.motivation(sample, name), thoughts=config.thoughts,
            output_example=config.output_example, others=speakers, prompt_set=config.prompt_set,
        )
        memory = (cast.memory.memory(sample.book, name, cases.plot_index(sample)) if cast.memory is not None
                  else None)
        agent = create_agent("coser-gca", cast.actor, prompts=cast.prompts, params=params, setting=setting,
                             memory=memory)
        assert isinstance(agent, GcaActor)
        actors[name] = agent
    return actors


def _who(sample: TestSample, name: str, profile: str) -> CharacterAt:
    # CoSER has no story clock beyond plot order: plot i_p stands at chapter i_p + 1 of book 1.
    i_p = cases.plot_index(sample)
    return CharacterAt(work_title=sample.book, character=name, profile=profile,
                       position=Position.chapter_pos(1, (i_p or 0) + 1), time_label=f"plot {i_p}")


def _epoch(params: GenerationParams, epoch: int) -> GenerationParams:
    # The response cache keys sampled generations (temperature > 0) by epoch: each repetition
    # samples afresh and is cached apart; greedy ones are shared.
    return params.model_copy(update={"epoch": epoch}) if epoch else params


async def simulate_case(sample: TestSample, cast: Cast, config: SimulationConfig | None = None,
                        *, case: str | None = None, epoch: int = 0) -> Simulation:
    """Simulate ``sample``'s scene (repetition ``epoch``); returns the messages and every
    decision behind them."""
    config = config or SimulationConfig()
    cid = case or cases.case_id(sample)
    speakers = cases.speakers(sample)
    majors = cases.major_characters(sample)
    rng = case_rng(config.seed, cid if not epoch else f"{cid}#epoch{epoch}")
    actors = _actors(sample, cast, config, _epoch(config.actor_params, epoch))
    profiles = cases.profiles(sample)
    environment = EnvironmentRole(cast.environment, cast.prompts, _epoch(config.env_params, epoch),
                                  scenario=sample.scenario, major_characters=majors, speakers=speakers,
                                  prompt_set=config.prompt_set)
    predictor = SpeakerPredictor(cast.nsp, cast.prompts, _epoch(config.nsp_params, epoch), scenario=sample.scenario,
                                 speakers=speakers, constrained=config.nsp_constrained, prompt_set=config.prompt_set)
    sim = Simulation(case_id=cid,
                     prompts={**{n: a.system_prompt(n) for n, a in actors.items()},
                              ENVIRONMENT: environment.system_prompt, "NSP": predictor.system_prompt})

    originals = sample.dialogues[: config.continue_from]
    current = originals[0].character if originals else speakers[0]
    for round_index in range(config.max_rounds):
        if round_index < len(originals):
            turn = originals[round_index]
            sim.messages.append(SimMessage(role=turn.character, content=turn.message, source="original"))
            if round_index + 1 < len(originals):
                current = originals[round_index + 1].character
                continue
            following = sample.dialogues[round_index + 1].character if round_index + 1 < len(sample.dialogues) else None
            raw = following or "END"
            prediction = parse_prediction(raw, speakers)
            decision = decide(prediction, raw=f"original: {raw}", current=turn.character, round_index=round_index,
                              speakers=speakers, majors=majors, rng=rng, end_from_round=config.end_from_round)
        else:
            if current == ENVIRONMENT:
                text, raw = await environment.respond(view(ENVIRONMENT, sim.messages))
                recalled = None
                source: Source = "environment"
            else:
                agent = actors[current]
                reply = await agent.respond(_who(sample, current, profiles.get(current, "")), view(current, sim.messages))
                text, raw = reply.text, reply.details.get("raw", reply.text)
                recalled = reply.details.get("recalled")
                source = "actor"
            sim.messages.append(SimMessage(role=current, content=text, source=source,
                                           raw=raw if raw.strip() != text else None,
                                           retrieved=recalled))
            if round_index + 1 >= config.max_rounds:
                break  # the cap is reached: no one speaks next, so no prediction is needed
            raw = await predictor.predict(view("NSP", sim.messages))
            decision = decide(parse_prediction(raw, speakers), raw=raw, current=current, round_index=round_index,
                              speakers=speakers, majors=majors, rng=rng, end_from_round=config.end_from_round)
        sim.decisions.append(decision)
        if decision.speaker is None:
            sim.ended_by = "original" if decision.raw.startswith("original: ") else "nsp"
            break
        current = decision.speaker
    return sim
