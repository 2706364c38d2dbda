"""Plain-text views of chat state (``/why``, ``/help``), shared by every text front end."""

from __future__ import annotations

import json
from typing import Any

from incanon.chat.transcript import Evidence


def clip(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def scope_lines(scope: dict[str, Any] | None) -> list[str]:
    """Who, when, and the counts of what is visible and hidden."""
    if scope is None:
        return ["Knowledge scope: none (the method sees no canon)"]
    v, h = scope["visible"], scope["hidden"]
    # A built book's entities and relations are in its knowledge graph; said when it has one.
    graph_v = (f", graph: {v['graph_entities']} entities, {v['graph_relations']} relations"
               if "graph_entities" in v else "")
    graph_h = (f", graph: {h['graph_entities']} entities, {h['graph_relations']} relations"
               if "graph_entities" in h else "")
    return [
        f"Knowledge scope: {scope.get('character') or 'omniscient reader'} at {scope['at']} in {scope['work']}",
        f"  visible: {v['scenes']} scenes ({v['witnessed_scenes']} witnessed), {v['chunks']} chunks, "
        f"{v['facts']} facts, {v['entities']} entities, {v['relations']} relations{graph_v}",
        f"  hidden:  {h['future_scenes']} future scenes, {h['missed_scenes']} scenes before now, not witnessed, "
        f"{h['chunks']} chunks{_chunk_split(h)}, {h['facts']} facts, {h['entities']} entities, {h['relations']} relations"
        f"{graph_h}",
    ]


def _graph_lines(graph: dict[str, Any]) -> list[str]:
    lines = []
    if graph.get("nodes"):
        lines.append("  Graph entities: " + ", ".join(map(str, graph["nodes"])))
    for rel in graph.get("relations", [])[:12]:
        if isinstance(rel, dict):
            desc = rel.get("description") or rel.get("label") or ""
            lines.append(f"    {rel.get('source')} - {rel.get('target')}" + (f": {clip(desc, 120)}" if desc else ""))
    if graph.get("outside"):
        lines.append("  Outside the character's knowledge: " + ", ".join(map(str, graph["outside"])))
    return lines


def _details_lines(details: dict[str, Any]) -> list[str]:
    # Retrieval lists are shown above; the rest (verdicts, rounds, flags) in compact JSON.
    skip = {"retrieved", "expert_context", "examples", "nodes", "relations", "entities", "outside", "unknown",
            "scores", "hypothesis", "profile"}
    lines = []
    for key, value in details.items():
        if key in skip or value in (None, [], {}):
            continue
        lines.append(f"  {key}: {clip(json.dumps(value, ensure_ascii=False, default=str), 200)}")
    return lines


def why_lines(evidence: Evidence | None, scope_now: dict[str, Any] | None) -> list[str]:
    """The ``/why`` view: the scope in force now, then what shaped the last answer."""
    lines = scope_lines(scope_now)
    if evidence is None:
        return lines + ["No answer yet: say something first."]
    if scope_now is not None and evidence.at != scope_now.get("at"):
        lines.append(f"(the last answer was made at {evidence.at}, before the character moved)")
    lines.append(f"Last answer: method {evidence.method}, at {evidence.at} ({evidence.when})")
    lines.append("  Hints: none" if not evidence.hints else "  Hints:")
    lines += [f"    - {clip(h, 300)}" for h in evidence.hints]
    if evidence.chunks:
        shown = sum(c.shown for c in evidence.chunks)
        lines.append(f"  Retrieved chunks: {len(evidence.chunks)}, {shown} reached the answer's prompt")
        for c in evidence.chunks:
            flags = ["in prompt" if c.shown else "not in prompt"] + ([] if c.in_scope else [c.label.upper()])
            score = f" score {c.score:.3f}" if c.score is not None else ""
            lines.append(f"    [{c.position}] {c.id}{score} ({', '.join(flags)}): {clip(c.text, 140)}")
    else:
        lines.append("  Retrieved chunks: none")
    lines += _graph_lines(evidence.graph)
    if evidence.memories:
        lines.append("  Memories and other context: " + ", ".join(evidence.memories))
    for ex in evidence.examples:
        lines.append(f"  Example ({ex.get('data_type', '?')}): {clip(ex.get('question', ''), 80)} -> "
                     f"{clip(ex.get('answer', ''), 80)}")
    lines.append(f"  Calls: {len(evidence.calls)}")
    for i, call in enumerate(evidence.calls, 1):
        lines.append(f"    {i}. {call.step} ({call.messages} messages): {clip(call.output, 160)}")
    return lines + _details_lines(evidence.details)


def help_lines(commands: dict[str, str]) -> list[str]:
    """The ``/help`` view."""
    width = max(len(c) for c in commands)
    return ["Type to talk to the character. Commands:"] + [f"  {c.ljust(width)}  {d}" for c, d in commands.items()]


def _chunk_split(hidden: dict[str, int]) -> str:
    if "chunks_after_now" not in hidden:  # a scope recorded before the split was kept
        return ""
    return f" ({hidden['chunks_after_now']} after now, {hidden['chunks_not_witnessed']} before now, not witnessed)"
