"""The numbers of a knowledge scope's summary (``KnowledgeScope.describe``): what a character
sees and what is hidden from it, counted by the same rules as the scope's listings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from incanon.canon.fact_table import scope_mask

if TYPE_CHECKING:
    from incanon.canon.scope import KnowledgeScope

#: The relations joined to their ends (the omniscient reader's count needs the ends' positions).
RELATIONS_FROM = (
    "relations r LEFT JOIN characters sc ON sc.id = r.source_character_id"
    " LEFT JOIN entities se ON se.id = r.source_entity_id"
    " LEFT JOIN characters tc ON tc.id = r.target_character_id"
    " LEFT JOIN entities te ON te.id = r.target_entity_id"
)


def summarize(scope: KnowledgeScope) -> dict[str, Any]:
    """What ``KnowledgeScope.describe`` returns (uncached): who, when, and how much is visible
    or hidden."""
    wid = [scope._wid]
    total = {
        t: scope._count(t, ("work_id = ?", wid))
        for t in ("scenes", "chunks", "facts", "entities", "relations")
    }
    # A character sees only the chunks of scenes it witnessed: text before now from a missed
    # scene is hidden ("before now, not witnessed"), whatever a method's own cut-off reads.
    past_chunks = scope._count("chunks k", scope._chunk_cond(False))
    visible = {
        "scenes": scope._count("scenes s", scope._scene_cond(None)),
        "witnessed_scenes": scope._count("scenes s", scope._scene_cond(True)),
        "chunks": scope._count("chunks k", scope._chunk_cond(True)),
        # The rule of facts(), counted over the work's fact columns: the SQL form's
        # per-fact subqueries grew faster than the facts (26 ms at 50k, 128 ms at 150k).
        "facts": int(scope_mask(*scope._fact_args(False)).sum()),
    }
    if scope.character is not None:
        # Which entities and relations a character knows is decided by its knowledge (names
        # met, relations witnessed or told), not by a SQL condition.
        knows = scope.knowledge()
        visible["entities"], visible["relations"] = len(knows.entities()), len(knows.relations())
    else:
        visible["entities"] = scope._count("entities e", scope._entity_cond())
        visible["relations"] = scope._count(RELATIONS_FROM, scope._relation_cond(True))
    future = scope._count("scenes s", ("s.work_id = ? AND s.pos_key > ?", [scope._wid, scope._at]))
    past = scope._count("scenes s", scope._scene_cond(False))
    return {
        "work": scope.work.id,
        "character": scope.character.name if scope.character else None,
        "at": str(scope.at),
        "witnessed_only": scope.witnessed_only,
        "visible": visible,
        "hidden": {
            "future_scenes": future,
            "missed_scenes": past - visible["witnessed_scenes"],
            "chunks": total["chunks"] - visible["chunks"],
            "chunks_after_now": total["chunks"] - past_chunks,
            "chunks_not_witnessed": past_chunks - visible["chunks"],
            "facts": total["facts"] - visible["facts"],
            "entities": total["entities"] - visible["entities"],
            "relations": total["relations"] - visible["relations"],
        },
    }
