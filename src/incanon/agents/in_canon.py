"""``in-canon``: incanon's own role-play method, strict by construction.

Nothing it sends to a model comes from after the character's position or from a scene the
character missed, because it never reads such text:

* **persona**: the scoped builder's (``incanon.canon.persona_at``): names in use, profile and
  personality as of the position;
* **retrieval**: the top ``k`` chunks among those the character witnessed (scene-tied chunks of
  missed scenes are not even scored; TimeChara's RAG-cutoff cuts by time only);
* **knowledge**: facts the character knows at the position, the most relevant to the question
  first (their own first on a tie), and the relations the character can know (established in a
  witnessed scene, their own from the start, or named by a known fact);
* **narrative experts**: the temporal and spatial experts of TimeChara, reading the same
  witnessed chunks (the paper's experts read the whole book); their hints reach the answer.

Calls per turn: 2 or 3, as ``narrative-experts``; one embedding of the question.
Options: ``store=`` (required), ``embedder=`` or ``retriever=``; ``k=`` (6); ``facts=`` (8);
``relations=`` (8); ``experts=`` (True); ``expert_max_tokens=``.
"""

from __future__ import annotations

from typing import Any, Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.experts import spatial_expert, temporal_expert
from incanon.agents.registry import register_agent
from incanon.agents.support import call_fitting, final_messages, question_of, require_scope, retriever_from, top_k
from incanon.canon.horizon import Horizon, stems
from incanon.canon.persona import horizon_at
from incanon.canon.records import FactRecord, RelationRecord
from incanon.cards.lorebook import triggered_facts
from incanon.errors import ConfigError
from incanon.retrieval import RetrievedChunk

DEFAULT_FACTS = 8
DEFAULT_RELATIONS = 8


def _count(options: dict[str, Any], key: str, default: int) -> int:
    value = int(options.get(key, default))
    if value < 0:
        raise ConfigError(f"{key} must be 0 or more, got {value}")
    return value


def relevant_facts(horizon: Horizon, question: str, limit: int) -> list[FactRecord]:
    """Known facts ranked by the content words they share with ``question``; the character's
    own facts and the latest come first among equals."""
    asked = stems(question)
    me = horizon.character.name
    # Facts from an imported card's lorebook come first when their entry fires, as a front end
    # would insert them (regular-expression and selective keys honoured).
    fired = triggered_facts(horizon.character.card, question)

    def rank(f: FactRecord) -> tuple[bool, int, int, int]:
        return (f.id not in fired, -len(stems(f.text) & asked), f.subject != me, -f.position.key)

    return sorted(horizon.facts, key=rank)[:limit]


def relation_line(r: RelationRecord) -> str:
    """A relation as the knowledge block words it."""
    feeling = f", {r.affection} affection" if r.affection else ""
    return f"{r.source} → {r.target}: {r.type}{feeling}"


@register_agent("in-canon")
class InCanonAgent(Agent):
    """incanon's strict method: the scoped persona, retrieval of witnessed text only, the facts
    and relations the character knows, and the narrative experts on witnessed text; it never
    reads anything later or from a scene the character missed."""

    requires = ("store",)

    def uses_scope(self) -> bool:
        return True

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        scope = require_scope(who, self.name).witnessed_view()
        who = who.model_copy(update={"scope": scope})
        question = question_of(dialogue)
        details: dict[str, Any] = {"witnessed_only": scope.character is not None}

        chunks: list[RetrievedChunk] = []
        if top_k(self.options):
            # Embedded off the event loop: a chat whose client went away stops here at once.
            retriever = retriever_from(self.options, self.name)
            if hasattr(retriever, "aretrieve"):
                chunks = await retriever.aretrieve(question, scope, top_k(self.options), cutoff=True)
            else:  # a retriever of the caller's own
                chunks = retriever.retrieve(question, scope, top_k(self.options), cutoff=True)
        details["retrieved"] = [c.to_dict() for c in chunks]

        facts: list[FactRecord] = []
        relations: list[RelationRecord] = []
        if scope.character is not None:
            horizon = horizon_at(self.options["store"], scope.work.id, scope.character, scope.at)
            facts = relevant_facts(horizon, question, _count(self.options, "facts", DEFAULT_FACTS))
            mine = [r for r in horizon.relations() if who.character in (r.source, r.target)]
            relations = mine[:_count(self.options, "relations", DEFAULT_RELATIONS)]
        details["facts"] = [f.id for f in facts]
        details["relations"] = [relation_line(r) for r in relations]
        knowledge = self.prompts.render("incanon_knowledge", facts=[f.text for f in facts],
                                        relations=[relation_line(r) for r in relations]).strip()

        hints: list[str] = []
        if self.options.get("experts", True):
            temporal, future_hint = await temporal_expert(self, who, question, calls, chunks)
            details["temporal"] = temporal.to_dict()
            details["spatial"] = None
            if future_hint:
                hints.append(future_hint)
            else:
                presence, absent_hint = await spatial_expert(self, who, question, calls, chunks)
                details["spatial"] = presence
                if absent_hint:
                    hints.append(absent_hint)
        # A scene the experts place after now gets no passages: nothing could help but a guess.
        passages = [] if hints and details.get("temporal", {}).get("status") == "future" else chunks
        text, shown = await call_fitting(
            self, "answer",
            lambda kept: final_messages(self, who, dialogue, hints=hints, passages=kept, system_extra=knowledge),
            passages, calls)
        details["dropped_for_context"] = len(passages) - len(shown)
        # The facts' own words, for the evidence a person reads (the context holds their ids).
        details["fact_texts"] = {f"fact:{f.id}": f.text for f in facts}
        return Reply(text=text, method=self.name, calls=calls, hints=hints,
                     context=[c.id for c in shown] + [f"fact:{f.id}" for f in facts], details=details)
