"""Turn an agent's ``Reply`` into the ``Evidence`` that ``/why`` shows and ``/save`` keeps.

Methods report what they used in two places: ``Reply.context`` (ids of what reached the final
prompt) and ``Reply.details`` (their own findings). Retrieved chunks are looked up in the canon
store so their text can be shown; graph facts, examples and memories are taken as the method
reported them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from incanon.agents.base import CharacterAt, Reply
from incanon.canon.records import ChunkRecord
from incanon.chat.transcript import ChunkEvidence, Evidence, call_evidence

ChunkLookup = Callable[[str], "ChunkRecord | None"]
"""Chunk id → the stored chunk (None when the store has no such chunk)."""

_GRAPH_KEYS = ("hypothesis", "entities", "nodes", "relations", "outside", "unknown", "scores")


def _retrieved(details: dict[str, Any]) -> list[dict[str, Any]]:
    # ``retrieved``: what a retrieval method found; ``expert_context``: what the narrative
    # experts read (the final prompt gets only the part the scope allows).
    found = details.get("retrieved") or details.get("expert_context") or []
    return [r for r in found if isinstance(r, dict) and "id" in r]


#: The label of a passage whose standing cannot be decided: never "in scope" by default.
UNKNOWN_SCOPE = "scope unknown"


def _label(who: CharacterAt, position: str, scene: str | None, chunk: str | None = None) -> str:
    """How the passage stands for the character (``KnowledgeScope.label``): in scope only when
    before now and witnessed, whatever the method's own cut-off was. Fails closed: a passage
    without a position, or one the scope cannot place (another axis, a vanished scene), is
    ``scope unknown``, never in scope."""
    from incanon.canon.scope import IN_SCOPE

    scope = who.scope
    if scope is None:
        return IN_SCOPE if not position else UNKNOWN_SCOPE
    if not position:
        return UNKNOWN_SCOPE
    try:
        return scope.label(position, scene, chunk=chunk)
    except Exception:  # noqa: BLE001 - whatever could not place it, it is not known to be in scope
        return UNKNOWN_SCOPE


def _scoped(who: CharacterAt, position: str, scene: str | None, chunk: str | None = None) -> dict[str, Any]:
    # A chunk is in scope when the character perceived something of it (its units), not merely
    # when it was in the room: a first-person narrator's thoughts are not the others'.
    label = _label(who, position, scene, chunk)
    return {"label": label, "in_scope": label == "in scope"}


def chunk_evidence(reply: Reply, who: CharacterAt, lookup: ChunkLookup) -> list[ChunkEvidence]:
    """Every chunk the method retrieved or showed, best first, with its text."""
    shown = set(reply.context)
    rows: dict[str, ChunkEvidence] = {}
    for found in _retrieved(reply.details):
        record = lookup(found["id"])
        position = str(found.get("position") or (record.position if record else ""))
        scene = found.get("scene") if found.get("scene") is not None else (record.scene if record else None)
        rows[found["id"]] = ChunkEvidence(
            id=found["id"], position=position, scene=scene, score=found.get("score"),
            text=record.text if record else "", shown=found["id"] in shown,
            **_scoped(who, position, scene, found["id"] if record else None))
    for cid in reply.context:
        if cid in rows:
            continue
        record = lookup(cid)
        if record is not None:
            rows[cid] = ChunkEvidence(id=cid, position=str(record.position), scene=record.scene, text=record.text,
                                      shown=True, **_scoped(who, str(record.position), record.scene, cid))
    return list(rows.values())


def build_evidence(reply: Reply, who: CharacterAt, lookup: ChunkLookup) -> Evidence:
    """The evidence of ``reply``, made by ``who`` (whose scope was in force)."""
    details = dict(reply.details)
    chunks = chunk_evidence(reply, who, lookup)
    chunk_ids = {c.id for c in chunks}
    graph = {k: details[k] for k in _GRAPH_KEYS if details.get(k)} if "nodes" in details or "relations" in details else {}
    graph_names = set(graph.get("nodes", [])) | {
        f"{r.get('source')} - {r.get('target')}" for r in graph.get("relations", []) if isinstance(r, dict)}
    examples = [e for e in details.get("examples", []) if isinstance(e, dict)]
    said = details.get("fact_texts") if isinstance(details.get("fact_texts"), dict) else {}
    # A known fact is shown by its words ("fact:f-trial" told a person nothing).
    memories = [str(said.get(c, c)) for c in reply.context
                if c not in chunk_ids and c not in graph_names and not c.startswith("example:")]
    return Evidence(
        method=reply.method, at=str(who.position), when=who.when,
        scope=who.scope.describe() if who.scope is not None else None,
        hints=list(reply.hints), chunks=chunks, graph=graph, memories=memories, examples=examples,
        calls=[call_evidence(c) for c in reply.calls], details=details,
    )
