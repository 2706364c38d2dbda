"""A helper answer the build could not use is not served from the response cache again: a rerun
asks for exactly the failed steps; a stage where every step failed exits 1 and says which, and
the graph's failed chunks are listed, not counted as extracted."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from incanon.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
RULES = json.loads((ROOT / "examples" / "book" / "helper.json").read_text(encoding="utf-8"))


def _helper(tmp_path: Path, name: str, *first: tuple[str, str]) -> str:
    """The sample book's helper with ``first`` (pattern, answer) rules taking precedence."""
    rules = {**RULES, "rules": [{"match": m, "response": r} for m, r in first] + RULES["rules"]}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(rules), encoding="utf-8")
    return f"scripted:{path}"


def _build(tmp_path: Path, helper: str, *extra: str) -> tuple[int, dict, str]:
    result = CliRunner().invoke(app, ["canon", "build", str(BOOK), "--store", str(tmp_path / "canon"), "--helper",
                                      helper, "--cache", str(tmp_path / "cache.sqlite"), "--embedder", "none",
                                      "--json", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout), result.stderr


def test_unusable_profiles_are_asked_again_and_a_stage_that_all_failed_exits_1(tmp_path: Path) -> None:
    bad = _helper(tmp_path, "bad", ("character sheet of", "I would rather not say."))
    code, first, err = _build(tmp_path, bad, "--no-graph")
    assert code == 1 and first["profiles"] == 0
    assert "profiles: 0 of 7 written" in first["stages_failed"] and "failed: profiles: 0 of 7 written" in err
    assert sum(s["step"] == "profile" for s in first["failed_steps"]) == 7
    # The same command again: the 7 profile calls (each with its repair turn) reach the helper
    # again; everything else comes from the cache.
    code, again, _ = _build(tmp_path, bad, "--no-graph")
    assert code == 1 and again["helper"]["calls"] == 14
    # A helper that answers (another rules file: another model, so nothing of it is cached).
    code, fixed, _ = _build(tmp_path, _helper(tmp_path, "good"), "--no-graph")
    assert code == 0 and fixed["profiles"] == 7 and fixed["stored"] == "replaced"
    assert not fixed["stages_failed"] and not fixed["failed_steps"]


def test_a_graph_whose_every_chunk_failed_exits_1_and_lists_them(tmp_path: Path) -> None:
    bad = _helper(tmp_path, "graph", ("list the entities and relations", "no entities here, sorry"),
                  ("Your answer could not be read", "still nothing"))
    code, report, err = _build(tmp_path, bad)
    graph = report["graph"]
    assert code == 1 and graph["chunks_failed"] == graph["chunks_tried"] > 0
    assert graph["chunks_extracted"] == 0 and "failed_chunks" not in graph
    assert f"graph: {graph['chunks_failed']} of {graph['chunks_tried']} chunks failed" in report["stages_failed"]
    assert sum(s["step"] == "graph" for s in report["failed_steps"]) == graph["chunks_failed"]
    assert "failed: graph:" in err
    code, again, _ = _build(tmp_path, bad)  # the failed chunks are extracted again, not read back
    assert code == 1 and again["helper"]["calls"] > 0
