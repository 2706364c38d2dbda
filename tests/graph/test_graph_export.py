"""graph export: GraphML and JSON that other tools read, cut at a position when asked."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from incanon.testing.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
NS = {"g": "http://graphml.graphdrawing.org/xmlns"}


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd)


def test_graphml_and_json_with_and_without_a_cutoff(tmp_path):
    (tmp_path / "examples").symlink_to(REPO / "examples")
    built = _cli("graph", "build", "examples/rolerag/clara_voss.txt", "--store", "canon", "--work", "clara",
                 "--title", "Clara Voss", "--axis", "date", "--born", "1801-03-04", "--character", "Clara Voss|Voss",
                 "--helper", "scripted:examples/rolerag/model.json", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert _cli("graph", "export", "--store", "canon", "--out", "all.json", cwd=tmp_path).returncode == 0
    assert _cli("graph", "export", "--store", "canon", "--at", "1830-06-01", "--out", "early.graphml",
                cwd=tmp_path).returncode == 0
    whole = json.loads((tmp_path / "all.json").read_text())
    names = {n["name"] for n in whole["nodes"]}
    assert "Anton Brede" in names and whole["edges"]
    ids = {n["id"] for n in whole["nodes"]}
    assert all(e["source_id"] in ids and e["target_id"] in ids for e in whole["edges"])
    root = ET.parse(tmp_path / "early.graphml").getroot()
    early = {d.text for d in root.iterfind(".//g:node/g:data[@key='n_name']", NS)}
    assert "Clara Voss" in early and "Anton Brede" not in early  # not known yet in 1830
    summary = _cli("graph", "export", "--store", "canon", "--at", "1830-06-01", "--out", "early.json", "--json",
                   cwd=tmp_path)
    early_json = json.loads((tmp_path / "early.json").read_text())
    assert json.loads(summary.stdout) == {"work": "clara", "out": "early.json", "format": "json", "at": "1830-06-01",
                                          "nodes": len(early_json["nodes"]), "edges": len(early_json["edges"])}
    bad = _cli("graph", "export", "--store", "canon", "--out", "graph.txt", cwd=tmp_path)
    assert bad.returncode == 2 and "--format" in bad.stderr


def test_edges_carry_a_relation_type(tmp_path):
    (tmp_path / "examples").symlink_to(REPO / "examples")
    built = _cli("graph", "build", "examples/rolerag/clara_voss.txt", "--store", "canon", "--work", "clara",
                 "--title", "Clara Voss", "--axis", "date", "--born", "1801-03-04", "--character", "Clara Voss|Voss",
                 "--helper", "scripted:examples/rolerag/model.json", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert _cli("graph", "export", "--store", "canon", "--out", "g.graphml", cwd=tmp_path).returncode == 0
    assert _cli("graph", "export", "--store", "canon", "--out", "g.json", cwd=tmp_path).returncode == 0
    root = ET.parse(tmp_path / "g.graphml").getroot()
    key = root.find("g:key[@attr.name='type'][@for='edge']", NS)
    assert key is not None
    node_type = {n.get("id"): n.find(f"g:data[@key='n_type']", NS).text for n in root.iterfind(".//g:node", NS)}
    edges = list(root.iterfind(".//g:edge", NS))
    assert edges
    for edge in edges:
        # The type is the pair of entity types the edge joins, as networkx reads it back.
        data = edge.find(f"g:data[@key='{key.get('id')}']", NS)
        assert data is not None
        assert data.text == "-".join(sorted((node_type[edge.get("source")], node_type[edge.get("target")])))
    doc = json.loads((tmp_path / "g.json").read_text())
    assert all(e["type"] and "-" in e["type"] for e in doc["edges"])
