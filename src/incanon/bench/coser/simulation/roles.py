"""The two non-character roles of a simulation: the environment model and the next-speaker
predictor. Each sees the scene with every thought removed."""

from __future__ import annotations

from typing import Sequence

from incanon.agents.base import Turn
from incanon.bench.coser.agents import clean_reply, scene_messages
from incanon.bench.coser.formats import ENVIRONMENT
from incanon.bench.coser.promptsets import template_name
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.scenes.nsp import SpeakerPredictor as ScenePredictor
from incanon.templates import PromptLibrary


class EnvironmentRole:
    """Speaks as the Environment: its own earlier descriptions are assistant messages, the
    characters' visible messages are ``Name: text`` user messages."""

    def __init__(self, model: ChatModel, prompts: PromptLibrary, params: GenerationParams, *,
                 scenario: str, major_characters: Sequence[str], speakers: Sequence[str], prompt_set: str = "") -> None:
        self.model = model
        self.prompts = prompts
        self.params = params
        self.speakers = list(speakers)
        self.system_prompt = prompts.render(template_name("env_system", prompt_set), scenario=scenario,
                                            major_characters=list(major_characters))
        self.start = prompts.render(template_name("act_start", prompt_set))
        self.cue = prompts.render(template_name("act_cue", prompt_set), character=ENVIRONMENT)

    def messages(self, turns: Sequence[Turn]) -> list[Message]:
        return scene_messages(self.system_prompt, ENVIRONMENT, turns, start=self.start, cue=self.cue)

    async def respond(self, turns: Sequence[Turn]) -> tuple[str, str]:
        """(cleaned text, raw output)."""
        completion = await self.model.generate(self.messages(turns), self.params)
        return clean_reply(completion.text, ENVIRONMENT, self.speakers), completion.text


class SpeakerPredictor(ScenePredictor):
    """Asks the NSP model who acts next; one stateless call per round on the visible scene (the
    product's predictor, :class:`incanon.scenes.nsp.SpeakerPredictor`, with the prompt set's
    templates)."""

    def __init__(self, model: ChatModel, prompts: PromptLibrary, params: GenerationParams, *,
                 scenario: str, speakers: Sequence[str], constrained: bool = False, prompt_set: str = "") -> None:
        super().__init__(model, prompts, params, scenario=scenario, speakers=speakers, constrained=constrained,
                         system_template=template_name("nsp_system", prompt_set),
                         ask_template=template_name("nsp_ask", prompt_set))
