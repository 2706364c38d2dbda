"""End to end on the real embedded model (SmolLM2-135M): two items, agent and judges."""

from __future__ import annotations

import json
import os

import pytest

from timechara_helpers import published_rows
from incanon.testing.cli import run_cli


@pytest.mark.slow
def test_eval_two_items_on_the_embedded_model(tmp_path):
    data = tmp_path / "published.jsonl"
    rows = published_rows()[:2]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    personalities = tmp_path / "personalities.json"
    personalities.write_text(json.dumps({r["character"]: "Loyal, clever and quick to worry about friends."
                                         for r in rows}))
    env = dict(os.environ, INCANON_HOME=str(tmp_path))
    res = run_cli(
        # A real model end to end; its answers and verdicts kept short (a 135M model's long
        # rationales took minutes and prove nothing more).
        ["timechara", "eval", "--dataset", str(data), "--model", "embedded?max_tokens=64",
         "--judge", "embedded?max_tokens=96", "--method", "zero-shot", "--no-hallucination-types",
         "--personalities", str(personalities), "--runs", str(tmp_path / "runs.sqlite"), "--json"], env=env, timeout=900,
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    (run,) = doc["runs"]
    assert run["ok"] == 2 and run["failed"] == 0 and run["usage"]["calls"] >= 2 * 4
    (row,) = doc["report"]["rows"]
    assert row["items"] == 2
    for name in ("past-absence", "past-presence"):
        cell = row["cells"][name]
        assert cell["n"] + cell["missing"] == 1
        assert cell["mean"] is None or cell["mean"] in (0.0, 100.0)
    personality = row["cells"]["personality"]
    assert personality["mean"] is None or 1.0 <= personality["mean"] <= 7.0
