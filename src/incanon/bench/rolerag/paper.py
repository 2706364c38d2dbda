"""RoleRAG's retrieval as the authors' code does it (``rolerag/operate.py``, ``local_query``):
the paper protocol of ``GraphRetriever``.

Where the reference and incanon's own retrieval differ (docs/rolerag.md, "Paper protocol"):

* one call finds the query entities, reasoning about the question *and* its possible answers
  (incanon: a hypothetical answer first, then the entities: two calls); a reply with no
  readable entity is asked again, up to 5 more times, then the answer is "" with no answer call;
* the first specific entity is dropped as the speaker (``specific_keywords[1:]``), whatever its
  name (incanon: entities that name the character);
* a specific entity not found by name: the 3 graph entities most similar to it over *all* types
  at cosine >= 0.55, then those of its type kept (incanon: top 3 within the type, at the
  threshold calibrated for the embedder);
* general entities: the character's neighbours of any of their types pooled, heaviest edge
  first, 10 in all (incanon: 5 per topic);
* the source chunks the retrieved entities share most (with the character) go in the context,
  up to 1,000 tokens (incanon: none), and the relations found for specific entities are cut at
  1,200 tokens of descriptions, heaviest first;
* no "never came across" notes for entities not found (the reference adds nothing for them).

Everything is read through the same ``GraphView`` and cut by ``cutoff.PromptCut`` (the source
chunks to their sentences true at the position, undated entities by the time their words or
descriptions give), so ``rolerag-cutoff`` keeps its knowledge scope under either protocol.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from incanon.bench.rolerag.cutoff import PromptCut
from incanon.graph.view import GraphEdge, GraphNode, GraphView
from incanon.tokens import count_tokens

if TYPE_CHECKING:
    from incanon.bench.rolerag.retrieval import GraphRetriever, QueryEntity, Retrieval

PAPER = {"flow": "paper", "k": 3, "threshold": 0.55, "general_k": 10, "one_call": True, "drop_first_specific": True,
         "type_after_top_k": True, "general_pooled": True, "source_tokens": 1000, "relation_tokens": 1200,
         "entity_retries": 5, "unknown_notes": False}
"""The reference's values (``QueryParam``: top_k 10, max_token_for_text_unit 1000,
max_token_for_global_context 1200; ``entities_vdb.query(name, 0.55, 3)``; 5 re-asks)."""


PAPER_ENTITY_TYPES: tuple[str, ...] = ("object", "character", "event", "time", "location", "organization")
"""The reference's entity types in its order (``PROMPTS["DEFAULT_ENTITY_TYPES"]``), as its prompts
list them; incanon's own order is ``incanon.graph.config.ENTITY_TYPES``."""


def paper_order(types: Sequence[str]) -> list[str]:
    """``types`` in the reference's order (types it does not know after, as given)."""
    return [t for t in PAPER_ENTITY_TYPES if t in types] + [t for t in types if t not in PAPER_ENTITY_TYPES]


def truncate(items: list[Any], text_of: Any, budget: int) -> list[Any]:
    """The longest prefix of ``items`` whose texts hold at most ``budget`` tokens together (the
    reference's ``truncate_list_by_token_size``)."""
    if budget <= 0:
        return []
    total = 0
    for i, item in enumerate(items):
        total += count_tokens(text_of(item))
        if total > budget:
            return items[:i]
    return items


def shared_chunks(view: GraphView, node_ids: list[int], budget: int, cut: PromptCut | None = None
                  ) -> list[dict[str, Any]]:
    """The visible source chunks cited by the most of ``node_ids`` (ties all kept, in first-seen
    order), cut to ``budget`` tokens: the reference's ``_find_most_related_text_unit_from_entities``.
    Through a scope each chunk is cut to what is true at the reader's position first
    (``cutoff.PromptCut.passage``), so the budget counts what the prompt gets."""
    cut = cut or PromptCut(view)
    counts: Counter[int] = Counter()
    for node_id in node_ids:
        counts.update(sorted(view.node_chunks(node_id)))
    if not counts:
        return []
    top = max(counts.values())
    shown = [p for p in (cut.passage(c) for c, n in counts.items() if n == top) if p is not None]
    return truncate(shown, lambda p: p["text"], budget)


def paper_strategies(retriever: "GraphRetriever", view: GraphView, me: int | None, out: "Retrieval",
                     cut: PromptCut | None = None) -> None:
    """Fill ``out`` from ``out.entities`` as the reference's ``local_query`` does (read through
    ``cut``: at a cutoff nothing true only later reaches the prompt)."""
    config = retriever.config
    cut = cut or PromptCut(view, me)
    specific = [e for e in out.entities if e.relevant and e.specificity == "specific"]
    general = [e for e in out.entities if e.relevant and e.specificity == "general"]
    if specific and config.drop_first_specific:
        out.dropped_self.append(specific[0].name)  # "Remove the speaker itself": the first one
        specific = specific[1:]
    out.outside = [e for e in out.entities if not e.relevant]
    out.threshold = retriever.threshold()
    nodes: dict[int, GraphNode] = {}
    relations: list[GraphEdge] = []
    if specific:
        found = _specific_nodes(retriever, cut, specific, out)
        for node in found:
            if node.id != me:
                nodes.setdefault(node.id, node)
        edges = [e for e in (cut.edge_between(me, n) for n in nodes) if e is not None] if me is not None else []
        edges.sort(key=lambda e: -e.weight)
        if config.relation_tokens is not None:
            edges = truncate(edges, lambda e: e.description, config.relation_tokens)
        relations.extend(edges)
        out.passages = shared_chunks(view, ([me] if me is not None else []) + list(nodes), config.source_tokens, cut)
    if general and me is not None:
        types = list(dict.fromkeys(e.type for e in general))
        # The heaviest general_k of each type hold the heaviest general_k of all of them pooled
        # (reading only those keeps a character with hundreds of neighbours cheap).
        pooled = [pair for t in types for pair in cut.neighbours(me, t, config.general_k)]
        if config.general_pooled:  # else general_k per type, as incanon's own flow
            pooled = sorted(pooled, key=lambda pair: -pair[1].weight)[:config.general_k]
        for node, edge in pooled:  # heaviest first
            nodes.setdefault(node.id, node)
            if all(edge.id != r.id for r in relations):
                relations.append(edge)
    if not specific and me is not None and config.source_tokens:
        out.passages = out.passages or shared_chunks(view, [me], config.source_tokens, cut)
    out.nodes = list(nodes.values())
    out.relations = relations
    out.paper = True
    if emptied(specific, general, out) and me is not None:
        out.echoed = shared_chunks(view, [me], config.source_tokens, cut)


def emptied(specific: Sequence["QueryEntity"], general: Sequence["QueryEntity"], out: "Retrieval") -> bool:
    """Does the reference's name loop empty its list of specific entities, with no general one?

    ``_build_local_query_context`` removes each entity found by name from the list it iterates,
    which skips the entity after each removal: the list ends empty only when it held one entity
    and that one was found by name. The caller then sees no specific and no general entity and
    runs its last branch as well: the character renamed in upper case (the answer prompt's
    "Please play as ..."), and the character's row and chunks added again after the others."""
    return len(specific) == 1 and not general and specific[0].name in out.exact


def _specific_nodes(retriever: "GraphRetriever", cut: PromptCut, specific: list["QueryEntity"],
                    out: "Retrieval") -> list[GraphNode]:
    config = retriever.config
    found: list[GraphNode] = []
    missing = []
    for entity in specific:  # by name or alias first
        hit = cut.find(entity.name)
        if hit is None:
            missing.append(entity)
        else:
            out.exact.append(entity.name)
            out.scores[entity.name] = 1.0
            found.append(hit)
    vectors = retriever.embedder.embed([e.name for e in missing], kind="query") if missing else []
    for entity, vec in zip(missing, vectors):
        if config.type_after_top_k:  # top k over every type, then those of the entity's type
            hits = [(n, s) for n, s in cut.search(vec, retriever.embedder.name, config.k, out.threshold or -1.0)
                    if n.type == entity.type]
        else:
            hits = cut.search(vec, retriever.embedder.name, config.k, out.threshold or -1.0,
                              entity.type if config.type_filter else None)
        for node, score in hits:
            out.scores[node.name] = max(score, out.scores.get(node.name, -1.0))
            found.append(node)
        if not hits and config.unknown_notes:
            out.unknown.append(entity.name)
    return found
