"""The character knowledge graph as files other tools open: GraphML (Gephi, yEd, Cytoscape,
networkx) and JSON (nodes and edges).

The export goes through a :class:`~incanon.graph.view.GraphView`, so with a knowledge scope it
holds only what the story has told by then, under the names known by then.

Each edge carries a relation ``type`` for filtering in Gephi, networkx or pandas: the types of
the two entities it joins, in alphabetical order (``character-location``). The graph keeps no
label of its own per relation (an extracted relation is a description and a strength), so the
pair of entity types is the kind of relation the store knows.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from incanon.graph.view import GraphEdge, GraphNode, GraphView

FORMATS = ("graphml", "json")

_NODE_KEYS = (("name", "string"), ("type", "string"), ("description", "string"), ("aliases", "string"),
              ("position", "string"), ("mentions", "int"))
_EDGE_KEYS = (("type", "string"), ("description", "string"), ("weight", "double"), ("position", "string"), ("until", "string"))


def graph_elements(view: GraphView) -> tuple[list[GraphNode], list[GraphEdge]]:
    """The visible nodes (by mentions, then name) and each visible edge once."""
    nodes = sorted((view.node(i) for i in view.node_ids()), key=lambda n: (-n.mentions, n.name))
    seen: dict[int, GraphEdge] = {}
    for node in nodes:
        for edge in view.edges_of(node.id):
            seen.setdefault(edge.id, edge)
    edges = sorted(seen.values(), key=lambda e: (e.source, e.target))
    return nodes, edges


def relation_types(nodes: list[GraphNode], edges: list[GraphEdge]) -> dict[int, str]:
    """Each edge's relation type by edge id: its two entity types, sorted, joined by ``-``."""
    kind = {node.id: node.type for node in nodes}
    return {edge.id: "-".join(sorted((kind.get(edge.source_id, ""), kind.get(edge.target_id, ""))))
            for edge in edges}


def graph_json(view: GraphView, work: str, at: str | None) -> dict[str, Any]:
    """``{"work", "at", "nodes": [...], "edges": [...]}`` with node ids to join edges on."""
    nodes, edges = graph_elements(view)
    types = relation_types(nodes, edges)
    return {"work": work, "at": at,
            "nodes": [{"id": n.id, **n.to_dict()} for n in nodes],
            "edges": [{"id": e.id, "source_id": e.source_id, "target_id": e.target_id, "type": types[e.id],
                       **e.to_dict()} for e in edges]}


def graphml(view: GraphView, work: str, at: str | None) -> str:
    """The graph as GraphML text (undirected; attributes declared as ``key`` elements)."""
    nodes, edges = graph_elements(view)
    types = relation_types(nodes, edges)
    root = ET.Element("graphml", xmlns="http://graphml.graphdrawing.org/xmlns")
    for key, kind in _NODE_KEYS:
        ET.SubElement(root, "key", {"id": f"n_{key}", "for": "node", "attr.name": key, "attr.type": kind})
    for key, kind in _EDGE_KEYS:
        ET.SubElement(root, "key", {"id": f"e_{key}", "for": "edge", "attr.name": key, "attr.type": kind})
    graph = ET.SubElement(root, "graph", {"id": work + (f"@{at}" if at else ""), "edgedefault": "undirected"})
    for node in nodes:
        element = ET.SubElement(graph, "node", id=f"n{node.id}")
        values = {**node.to_dict(), "aliases": "; ".join(node.aliases)}
        for key, _ in _NODE_KEYS:
            if values.get(key) is not None:
                ET.SubElement(element, "data", key=f"n_{key}").text = str(values[key])
    for edge in edges:
        element = ET.SubElement(graph, "edge", {"id": f"e{edge.id}", "source": f"n{edge.source_id}",
                                                "target": f"n{edge.target_id}"})
        values = {**edge.to_dict(), "type": types[edge.id]}
        for key, _ in _EDGE_KEYS:
            if values.get(key) is not None:
                ET.SubElement(element, "data", key=f"e_{key}").text = str(values[key])
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(view: GraphView, work: str, at: str | None, fmt: str) -> str:
    """The graph in ``fmt`` (``graphml`` or ``json``)."""
    if fmt == "graphml":
        return graphml(view, work, at)
    return json.dumps(graph_json(view, work, at), ensure_ascii=False, indent=2) + "\n"
