"""RoleRAG's graph-guided retrieval: hypothetical answer → entities with relevance and
specificity → three strategies.

* an entity the character could not know (relevance "no") → its reason goes to the prompt, so
  the character can decline;
* a *specific* entity → first its exact name or alias in the graph (as the reference does),
  else the top-k graph entities *of its type* above a similarity threshold calibrated for the
  embedder (``incanon.graph.calibrate``), with their descriptions and their relations to the
  character; none found → noted as likely unknown ("never came across");
* a *general* entity (a topic: hobbies, friends, places) → the character's 1-hop neighbours of
  the same type, heaviest edge first.

The speaker is not a query entity: an entity naming the character (any of their names) is
dropped, as the reference drops it, so the character's nearest neighbours are not added to every
prompt. With ``cutoff`` the graph is read through the character's knowledge scope
(``GraphView``), so an entity, relation, description or name the story only gives after the
character's position (by event time: when a fact becomes true, not where it is written) cannot
be retrieved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from incanon.agents.base import CharacterAt
from incanon.bench.rolerag.cutoff import PromptCut
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError, NotFoundError
from incanon.graph.config import ENTITY_TYPES, GraphConfig
from incanon.graph.db import GraphDB
from incanon.graph.names import fold
from incanon.graph.parse import entity_type
from incanon.graph.view import GraphEdge, GraphNode, GraphView
from incanon.models.types import ChatModel, Embedder, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


class RetrievalConfig(BaseModel):
    """Knobs of the retrieval step."""

    model_config = ConfigDict(frozen=True)

    k: int = Field(3, ge=1)
    """Graph entities per specific query entity."""
    threshold: float | None = Field(None, ge=-1.0, le=1.0)
    """Cosine similarity a graph entity needs to count as found; None: the threshold calibrated
    for the embedder (``incanon.graph.calibrate``; 0.82 for one never calibrated)."""
    type_filter: bool = True
    """Similar entities must have the query entity's type (the reference's filter)."""
    event_time: bool = True
    """Cutoff by when a fact becomes true (the time the text gives it); False: by where it is
    written (its chunk's position) only, incanon's earlier cutoff, kept to measure its leak."""
    general_k: int = Field(5, ge=1)
    """Neighbours of the character per general query entity."""
    max_entities: int = Field(8, ge=1)
    """Query entities kept from the extraction."""
    hypothesis_tokens: int = Field(160, ge=16)
    """Completion budget of the hypothetical answer."""
    entities_tokens: int = Field(400, ge=32)
    """Completion budget of the entity extraction."""
    # The paper protocol's knobs (``incanon.bench.rolerag.paper``); the defaults are incanon's.
    flow: Literal["incanon", "paper"] = "incanon"
    """``paper``: the reference's ``local_query`` (``paper.paper_strategies``), which reads the
    knobs below from ``drop_first_specific`` on; ``incanon``: incanon's strategies."""
    one_call: bool = False
    """Query entities from one call that reasons about possible answers (the reference), not a
    hypothetical answer and then the entities (two calls)."""
    drop_first_specific: bool = False
    """Drop the first specific entity as the speaker (the reference's ``[1:]``), not those that
    name the character."""
    type_after_top_k: bool = False
    """Top ``k`` over all types, then keep the entity's type (the reference), not top ``k``
    within the type."""
    general_pooled: bool = False
    """``general_k`` neighbours over all general topics' types together (the reference: 10), not
    ``general_k`` per topic."""
    source_tokens: int = Field(0, ge=0)
    """Tokens of the source chunks the retrieved entities share, put in the context (the
    reference: 1,000; 0: none)."""
    relation_tokens: int | None = Field(None, ge=0)
    """Token budget of the specific entities' relations, heaviest first (the reference: 1,200)."""
    entity_retries: int = Field(0, ge=0)
    """Times the entity call is asked again when no entity can be read (the reference: 5)."""
    unknown_notes: bool = True
    """Name specific entities not found as "never came across" (incanon; the reference does not)."""

    @classmethod
    def for_protocol(cls, protocol: str, **overrides: Any) -> "RetrievalConfig":
        """``paper``: the reference's values (``paper.PAPER``); ``incanon``: incanon's own."""
        from incanon.bench.rolerag.paper import PAPER

        if protocol not in PROTOCOLS:
            raise ConfigError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
        base = dict(PAPER) if protocol == "paper" else {}
        return cls(**{**base, **{k: v for k, v in overrides.items() if v is not None}})


PROTOCOLS: tuple[str, ...] = ("paper", "incanon")
"""``paper``: retrieval as the authors' code does it; ``incanon``: incanon's own choices."""


class QueryEntity(BaseModel):
    """An entity of the question or the hypothetical answer."""

    name: str
    type: str
    relevant: bool
    reason: str = ""
    specificity: str = "specific"


@dataclass
class Retrieval:
    """What the retrieval step found for one question."""

    hypothesis: str = ""
    entities: list[QueryEntity] = field(default_factory=list)
    character_node: GraphNode | None = None
    nodes: list[GraphNode] = field(default_factory=list)
    relations: list[GraphEdge] = field(default_factory=list)
    outside: list[QueryEntity] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    exact: list[str] = field(default_factory=list)
    """Query entities found by exact name or alias."""
    dropped_self: list[str] = field(default_factory=list)
    """Query entities that named the speaker (not looked up)."""
    threshold: float | None = None
    passages: list[dict[str, Any]] = field(default_factory=list)
    """Source chunks put in the context (paper protocol)."""
    gave_up: bool = False
    """No entity could be read after every re-ask (paper protocol): the reference then answers
    "" without an answer call."""
    paper: bool = False
    """Filled by the paper protocol: the reference's answer context shows graph names and types
    upper-cased, as its graph stores them (``refprompts.context_data``)."""
    echoed: list[dict[str, Any]] | None = None
    """Paper protocol, when the reference's name loop empties its list (``paper.emptied``): the
    character's chunks, which its last branch adds again after the others."""
    calls: list[tuple[str, list[Message], str]] = field(default_factory=list)

    def prompt_vars(self) -> dict[str, Any]:
        return {
            "summary": self.character_node.description if self.character_node else "",
            "entities": [{"name": n.name, "type": n.type, "description": n.description} for n in self.nodes],
            "relations": [{"source": e.source, "target": e.target, "description": e.description} for e in self.relations],
            "outside": [{"name": e.name, "reason": e.reason} for e in self.outside],
            "unknown": self.unknown,
            "passages": self.passages,
            **({"paper_graph": True} if self.paper else {}),
            **({"echoed": self.echoed} if self.echoed is not None else {}),
        }

    def details(self) -> dict[str, Any]:
        return {
            "hypothesis": self.hypothesis,
            "entities": [e.model_dump() for e in self.entities],
            "nodes": [n.name for n in self.nodes],
            "relations": [e.to_dict() for e in self.relations],
            "outside": [e.name for e in self.outside],
            "unknown": self.unknown,
            "exact": self.exact,
            "dropped_self": self.dropped_self,
            "threshold": self.threshold,
            "scores": {k: round(v, 4) for k, v in self.scores.items()},
            "passages": [p["id"] for p in self.passages],
            **({"gave_up": True} if self.gave_up else {}),
        }


_ENTITIES_FORMAT = {"type": "json_schema", "json_schema": {"name": "query_entities", "strict": True, "schema": {
    "type": "object", "properties": {"entities": {"type": "array", "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "type": {"type": "string", "enum": list(ENTITY_TYPES)},
                       "relevant": {"type": "string", "enum": ["yes", "no"]}, "reason": {"type": "string"},
                       "specificity": {"type": "string", "enum": ["specific", "general"]}},
        "required": ["name", "type", "relevant", "reason", "specificity"], "additionalProperties": False}}},
    "required": ["entities"], "additionalProperties": False}}}


def parse_entities(text: str, limit: int = 8) -> list[QueryEntity]:
    """Query entities from a JSON reply or from paper-style ``(type<|>name<|>reason<|>Yes<|>specific)``
    lines; unreadable entries are skipped."""
    out: list[QueryEntity] = []
    start, end = text.find("{"), text.rfind("}")
    items: list[Any] = []
    if start >= 0 and end > start:
        try:
            items = json.loads(text[start:end + 1]).get("entities", [])
        except (json.JSONDecodeError, AttributeError):
            items = []
    if not items:
        # Records end at a line break or at the reference's "##" and "<|COMPLETE|>" markers.
        records = text.replace("<|COMPLETE|>", "\n").replace("##", "\n").splitlines()
        for line in records:
            parts = [p.strip(" ()\"'") for p in line.split("<|>")]
            if len(parts) >= 5:
                items.append({"type": parts[0], "name": parts[1], "reason": parts[2], "relevant": parts[3],
                              "specificity": parts[4]})
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not str(item.get("name", "")).strip():
            continue
        relevant = str(item.get("relevant", "yes")).strip().lower() not in ("no", "false", "0")
        spec = str(item.get("specificity", "specific")).strip().lower()
        out.append(QueryEntity(
            name=str(item["name"]).strip(), type=entity_type(str(item.get("type", "")), ENTITY_TYPES) or "object",
            relevant=relevant, reason=str(item.get("reason", "")).strip(),
            specificity="general" if spec.startswith("gen") else "specific"))
    seen: set[str] = set()
    unique = [e for e in out if not (e.name.lower() in seen or seen.add(e.name.lower()))]  # type: ignore[func-returns-value]
    return unique[:limit]


class GraphRetriever:
    """Retrieves from the knowledge graph of one canon store, for any character of its works."""

    def __init__(self, store: CanonStore, model: ChatModel, embedder: Embedder, *,
                 config: RetrievalConfig | None = None, graph_config: GraphConfig | None = None,
                 prompts: PromptLibrary | None = None):
        self.store, self.model, self.embedder = store, model, embedder
        self.config = config or RetrievalConfig()
        self.graph_config = graph_config or GraphConfig()
        self.prompts = prompts or default_library()
        self._dbs: dict[str, GraphDB] = {}
        self._views: dict[tuple[object, ...], GraphView] = {}
        self._threshold: float | None = None

    def db(self, work: str) -> GraphDB:
        if work not in self._dbs:
            db = GraphDB(self.store, work)
            if db.counts()["nodes"] == 0:
                db.close()
                raise NotFoundError(
                    f"work {work!r} has no knowledge graph in {self.store.path}: build it with "
                    f"`incanon graph build --store {self.store.path} --work {work}`")
            self._dbs[work] = db
        return self._dbs[work]

    def view(self, who: CharacterAt, cutoff: bool) -> GraphView:
        work = who.scope.work.id if who.scope is not None else None
        if work is None:
            raise NotFoundError("graph retrieval needs the character's knowledge scope (character_at(...))")
        db = self.db(work)
        scope = who.scope
        key = (work, db.generation(), cutoff and scope.at.key, cutoff and scope.witnessed_only,
               cutoff and (scope.character.name if scope.character else None))
        view = self._views.get(key)
        if view is None:  # one view per (graph state, reader): building it scans every mention
            if len(self._views) >= 64:
                self._views.pop(next(iter(self._views)))
            view = self._views[key] = GraphView(db, scope if cutoff else None, self.graph_config,
                                                event_time=self.config.event_time)
        return view

    async def _ask(self, step: str, prompt: str, params: GenerationParams, out: Retrieval) -> str:
        messages = [Message(role="user", content=prompt)]
        completion = await self.model.generate(messages, params)
        out.calls.append((step, messages, completion.text))
        return completion.text.strip()

    async def retrieve(self, who: CharacterAt, question: str, *, cutoff: bool) -> Retrieval:
        out = Retrieval()
        view = self.view(who, cutoff)
        when = who.when if cutoff else ""
        if self.config.one_call:
            await self._one_call(who, question, when, out)
        else:
            await self._two_calls(who, question, when, out)
        me = self.me(view, who)
        out.character_node = view.node(me) if me is not None else None
        cut = PromptCut(view, me)  # what reaches the prompt: nothing true only after the position
        if self.config.flow == "paper":
            from incanon.bench.rolerag.paper import paper_strategies

            paper_strategies(self, view, me, out, cut)
        else:
            self._strategies(view, me, out, who, cut)
        return out

    async def _two_calls(self, who: CharacterAt, question: str, when: str, out: Retrieval) -> None:
        """incanon's entity step: a hypothetical answer, then the entities of both."""
        out.hypothesis = await self._ask("hypothesis", self.prompts.render(
            "rolerag_hypothesis", character=who.character, work_title=who.work_title, question=question),
            GenerationParams(max_tokens=self.config.hypothesis_tokens), out)
        reply = await self._ask("entities", self.prompts.render(
            "rolerag_entities", character=who.character, work_title=who.work_title, when=when, question=question,
            hypothesis=out.hypothesis, entity_types=list(ENTITY_TYPES)),
            GenerationParams(max_tokens=self.config.entities_tokens, response_format=_ENTITIES_FORMAT), out)
        out.entities = parse_entities(reply, self.config.max_entities)

    async def _one_call(self, who: CharacterAt, question: str, when: str, out: Retrieval) -> None:
        """The reference's single call (entities of the question and its possible answers), asked
        again while no entity can be read, up to ``entity_retries`` times; then it gives up
        (``gave_up``: the reference returns "" and makes no answer call; it makes one more entity
        call first, whose reply it never reads, which incanon does not)."""
        from incanon.bench.rolerag.paper import PAPER_ENTITY_TYPES

        prompt = self.prompts.render("rolerag_paper_entities", character=who.character, work_title=who.work_title,
                                     when=when, question=question, entity_types=list(PAPER_ENTITY_TYPES))
        params = GenerationParams(max_tokens=self.config.entities_tokens)
        for _ in range(self.config.entity_retries + 1):
            out.entities = parse_entities(await self._ask("entities", prompt, params, out), self.config.max_entities)
            if out.entities:
                return
        out.gave_up = True

    @staticmethod
    def me(view: GraphView, who: CharacterAt) -> int | None:
        """The character's node (by any of their names), whatever type a model gave it."""
        return view.find_any([who.character, *who.aliases]) or view.find_any([who.character, *who.aliases], None)

    def threshold(self) -> float:
        if self.config.threshold is not None:
            return self.config.threshold
        if self._threshold is None:
            from incanon.graph.calibrate import threshold_for

            self._threshold = threshold_for(self.embedder)[0]
        return self._threshold

    def _strategies(self, view: GraphView, me: int | None, out: Retrieval, who: CharacterAt, cut: PromptCut) -> None:
        nodes: dict[int, GraphNode] = {}
        edges: dict[int, GraphEdge] = {}
        own = {fold(n) for n in (who.character, *who.aliases)}
        if me is not None:
            own |= {fold(a) for a in self.db(view.db.work.id).aliases(me)} | {fold(view.db.node(me).name)}
        specific = []
        for e in out.entities:
            if fold(e.name) in own:  # the speaker is no query entity (the reference drops it)
                out.dropped_self.append(e.name)
            elif e.relevant and e.specificity == "specific":
                specific.append(e)
        out.threshold = self.threshold()
        missing = []
        for entity in specific:  # exact name or alias first, as the reference looks names up
            found = cut.find(entity.name)
            if found is None:
                missing.append(entity)
                continue
            out.exact.append(entity.name)
            self._add(cut, me, found, 1.0, nodes, edges, out)
        vectors = self.embedder.embed([e.name for e in missing], kind="query") if missing else []
        for entity, vec in zip(missing, vectors):
            hits = cut.search(vec, self.embedder.name, self.config.k, out.threshold,
                              entity.type if self.config.type_filter else None)
            if not hits:
                out.unknown.append(entity.name)
                continue
            for node, score in hits:
                self._add(cut, me, node, score, nodes, edges, out)
        for entity in out.entities:
            if not entity.relevant:
                out.outside.append(entity)
            elif entity.specificity == "general" and me is not None:
                for node, edge in cut.neighbours(me, entity.type, self.config.general_k):
                    nodes.setdefault(node.id, node)
                    edges.setdefault(edge.id, edge)
        out.nodes = list(nodes.values())
        out.relations = list(edges.values())

    @staticmethod
    def _add(cut: PromptCut, me: int | None, node: GraphNode, score: float, nodes: dict[int, GraphNode],
             edges: dict[int, GraphEdge], out: Retrieval) -> None:
        out.scores[node.name] = max(score, out.scores.get(node.name, -1.0))
        if node.id == me:
            return
        nodes.setdefault(node.id, node)
        edge = cut.edge_between(me, node.id) if me is not None else None
        if edge is not None:
            edges.setdefault(edge.id, edge)
