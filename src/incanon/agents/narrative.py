"""NARRATIVE-EXPERTS and NARRATIVE-EXPERTS-RAG-CUTOFF (TimeChara's decomposed reasoning).

``narrative-experts``: the temporal expert places the question's scene in story time; a
future scene gets the future hint and the spatial expert is not asked (nothing to gain). A
past scene goes to the spatial expert; an absent verdict adds the absence hint. The final
prompt is the persona prompt with the hints attached to the question.

``narrative-experts-rag-cutoff``: the top ``k`` chunks of the whole work go to both experts
(they need the story to place the scene, and their reasoning never reaches the user); the
final prompt gets only those of the chunks the character's scope allows, and none at all when
the scene is in the future.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.experts import spatial_expert, temporal_expert
from incanon.agents.registry import register_agent
from incanon.agents.support import (
    call_fitting,
    final_messages,
    question_of,
    require_scope,
    retriever_from,
    top_k,
)
from incanon.retrieval import RetrievedChunk, within


@register_agent("narrative-experts")
class NarrativeExpertsAgent(Agent):
    """Temporal expert, then (for past scenes only) spatial expert, then the answer.

    Calls per turn: 2 (future: ``temporal-expert``, ``answer``) or 3 (past: plus
    ``spatial-expert``). Option: ``expert_max_tokens=`` (384).
    """

    retrieves: ClassVar[bool] = False

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        question = question_of(dialogue)
        expert_context: list[RetrievedChunk] = []
        if self.retrieves:
            scope = require_scope(who, self.name)
            expert_context = retriever_from(self.options, self.name).retrieve(
                question, scope, top_k(self.options), cutoff=False)

        temporal, future_hint = await temporal_expert(self, who, question, calls, expert_context)
        hints = [future_hint] if future_hint else []
        details: dict[str, Any] = {"temporal": temporal.to_dict(), "spatial": None}
        if temporal.status == "past":
            presence, absent_hint = await spatial_expert(self, who, question, calls, expert_context)
            details["spatial"] = presence
            if absent_hint:
                hints.append(absent_hint)

        final_context: list[RetrievedChunk] = []
        if self.retrieves:
            details["expert_context"] = [c.to_dict() for c in expert_context]
            if temporal.status == "past":
                final_context = within(who.scope, expert_context)
        text, shown = await call_fitting(
            self, "answer", lambda kept: final_messages(self, who, dialogue, hints=hints, passages=kept),
            final_context, calls)
        if self.retrieves:
            details["dropped_for_context"] = len(final_context) - len(shown)
        return Reply(text=text, method=self.name, calls=calls, hints=hints,
                     context=[c.id for c in shown], details=details)


@register_agent("narrative-experts-rag-cutoff")
class NarrativeExpertsRAGCutoffAgent(NarrativeExpertsAgent):
    """Narrative experts that read the top-k chunks of the whole work; the answer sees only the
    chunks at or before the character's position (none for a future scene).

    Calls per turn: 2 or 3, as ``narrative-experts``; one embedding of the question.
    Options: ``store=`` and ``embedder=``, or ``retriever=``; ``k=``; ``expert_max_tokens=``.
    """

    retrieves = True
    requires = ("store|retriever",)

    def uses_scope(self) -> bool:
        return True
