"""The model calls of CoSER's simulation and judging, for ``--dry-run``.

Simulation (:func:`incanon.bench.coser.simulation.engine.simulate_case`): after the first
``--continue-from`` original messages, each round is one actor or environment message, followed
by one next-speaker prediction unless the round cap is reached. A scene may end earlier when the
predictor says so (allowed from round ``end_from_round``), so the rounds up to ``--max-rounds``
are counted as an upper bound: a budget should not fall short. Which rounds the environment
speaks is assumed to follow the original conversation's share of environment messages.

Judging (:meth:`incanon.bench.coser.critics.Critic.critique`): one critic call per dimension
(four), with one repair call each when the critique cannot be read (maximum only).
"""

from __future__ import annotations

from incanon.bench.coser.promptsets import template_name
from incanon.bench.coser.critics import DIMENSIONS
from incanon.bench.coser.formats import ENVIRONMENT
from incanon.bench.coser.simulation.engine import SimulationConfig
from incanon.bench.sizing import prompt_tokens, text_tokens
from incanon.runs.estimate import CallPattern, EstimateLine
from incanon.runs.records import RunItem
from incanon.templates import PromptLibrary

NSP_TOKENS = 12
"""A predicted speaker's name."""
CRITIQUE_TOKENS = 500
"""One dimension's critique: a few flaws as JSON."""


def _dialogues(item: RunItem) -> list[dict]:
    return list(item.input["sample"].get("dialogues") or [])


def _model_rounds(item: RunItem, config: SimulationConfig) -> int:
    return max(0, config.max_rounds - min(config.continue_from, len(_dialogues(item))))


def _env_share(item: RunItem) -> float:
    turns = _dialogues(item)
    return sum(1 for t in turns if t.get("character") == ENVIRONMENT) / len(turns) if turns else 0.0


def _context_tokens(item: RunItem) -> int:
    """Profiles, plot and scenario the system prompts carry."""
    sample = item.input["sample"]
    return text_tokens(str(sample.get("plot") or "")) + sum(
        text_tokens(p) for p in (sample.get("character_profiles") or {}).values()) + text_tokens(
        str(sample.get("scenario") or ""))


def simulation_lines(config: SimulationConfig, *, actor: str, nsp: str, env: str,
                     prompts: PromptLibrary | None = None) -> list[EstimateLine]:
    """Actor, environment and next-speaker calls per test case."""
    actor_out = min(config.actor_params.max_tokens or 400, 200)
    env_out = min(config.env_params.max_tokens or 160, 120)

    def history(item: RunItem) -> int:  # the scene so far, on average half of it
        return (_model_rounds(item, config) * (actor_out + 20)) // 2

    def acting(item: RunItem) -> CallPattern:
        rounds = _model_rounds(item, config) * (1 - _env_share(item))
        size = prompt_tokens(template_name("act_system", config.prompt_set), extra=_context_tokens(item) + history(item), prompts=prompts)
        return CallPattern(calls=rounds, min_calls=min(1, int(rounds)), max_calls=_model_rounds(item, config),
                           prompt_tokens=size, completion_tokens=actor_out)

    def environment(item: RunItem) -> CallPattern:
        rounds = _model_rounds(item, config) * _env_share(item)
        size = prompt_tokens("coser_env_system", extra=text_tokens(str(item.input["sample"].get("scenario") or ""))
                             + history(item), prompts=prompts)
        return CallPattern(calls=rounds, min_calls=0, max_calls=_model_rounds(item, config),
                           prompt_tokens=size, completion_tokens=env_out)

    def predicting(item: RunItem) -> CallPattern:
        calls = max(0, _model_rounds(item, config) - 1)
        size = prompt_tokens(template_name("nsp_system", config.prompt_set), extra=history(item) + 40, prompts=prompts)
        return CallPattern(calls=calls, min_calls=0, max_calls=calls, prompt_tokens=size,
                           # A reasoned prediction (the paper set) writes a few sentences before the name.
                           completion_tokens=NSP_TOKENS if not config.prompt_set else min(config.nsp_params.max_tokens, 150))

    note = f"up to --max-rounds {config.max_rounds}: scenes ending earlier cost less"
    return [EstimateLine("actors", actor, acting, note=note + "; the original's share of non-environment turns"),
            EstimateLine("environment", env, environment, note="the original's share of environment turns"),
            EstimateLine("next-speaker prediction", nsp, predicting, note="1 call after each round but the last")]


def critic_line(critic: str, prompts: PromptLibrary | None = None) -> EstimateLine:
    """The critic: one call per dimension per simulated case."""

    def critique(item: RunItem) -> CallPattern:
        scene = sum(text_tokens(m.get("content")) for m in item.input.get("messages") or [])
        size = prompt_tokens("coser_critic_frame", extra=scene + _context_tokens(item) + 250, prompts=prompts)
        calls = len(DIMENSIONS)
        return CallPattern(calls=calls, min_calls=calls, max_calls=2 * calls, prompt_tokens=size,
                           completion_tokens=CRITIQUE_TOKENS)

    return EstimateLine("critic", critic, critique, note=f"{len(DIMENSIONS)} dimensions, 1 call each")
