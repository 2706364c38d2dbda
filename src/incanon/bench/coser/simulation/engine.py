"""The multi-agent simulation of one given-circumstance acting case (CoSER §4.3).

One ``coser-gca`` agent per character (actor model), an environment model speaking as the
Environment and a next-speaker predictor. Each round one role speaks, then the predictor picks
the next one (see ``nsp`` for the rules); at most ``max_rounds`` rounds. With ``continue_from =
k`` the first k rounds replay the original messages and speakers without calling any model.

The rounds are taken by the product's scene engine (:mod:`incanon.scenes.engine`), the same one
``incanon scene`` runs: this module only casts it. The stage (:mod:`.stage`) holds the messages
and shows each role its view (its own messages with their [thoughts], everyone else's with the
thoughts removed; the environment model and the predictor see no thoughts at all); the
performers are the actors and the environment model; the director (:mod:`.director`) is the
predictor with CoSER's end rules, the replay and the round cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from incanon.agents.base import CharacterAt
from incanon.agents.registry import create_agent
from incanon.bench.coser.agents import ActorSetting, GcaActor
from incanon.bench.coser.formats import ENVIRONMENT, TestSample
import incanon.bench.coser.simulation.case as cases
from incanon.bench.coser.simulation.director import CoserDirector
from incanon.bench.coser.simulation.messages import SimMessage, Simulation, Source
from incanon.bench.coser.simulation.nsp import case_rng
from incanon.bench.coser.simulation.rag import BookMemory
from incanon.bench.coser.simulation.roles import EnvironmentRole, SpeakerPredictor
from incanon.bench.coser.simulation.stage import SimulationStage, actor_performer, environment_performer, view
from incanon.canon.position import Position
from incanon.models.types import ChatModel, GenerationParams
from incanon.scenes.engine import Performer, SceneEngine
from incanon.templates import PromptLibrary, default_library


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


@dataclass
class Cast:
    """The models (and optional book memory) a simulation draws on."""

    actor: ChatModel
    nsp: ChatModel
    environment: ChatModel
    prompts: PromptLibrary = field(default_factory=default_library)
    memory: BookMemory | None = None


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

    performers: dict[str, Performer] = {
        name: actor_performer(agent, _who(sample, name, profiles.get(name, ""))) for name, agent in actors.items()}
    performers[ENVIRONMENT] = environment_performer(environment)
    director = CoserDirector(dialogues=sample.dialogues, continue_from=config.continue_from, speakers=speakers,
                             majors=majors, predictor=predictor, rng=rng, max_rounds=config.max_rounds,
                             end_from_round=config.end_from_round)
    ending = await SceneEngine(SimulationStage(sim), director, performers.__getitem__).run()
    sim.decisions = director.decisions
    sim.ended_by = ending.ended_by  # type: ignore[assignment]
    return sim


__all__ = ["Cast", "SimMessage", "Simulation", "SimulationConfig", "Source", "simulate_case", "view"]
