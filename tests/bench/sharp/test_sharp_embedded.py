"""SHARP end to end on the embedded SmolLM2 model: a handful of claims, both modes' pieces."""

from __future__ import annotations

import json
import os

import pytest

from incanon.bench.sharp import write_claims_jsonl
from incanon.testing.cli import run_cli

from sharp_run_helpers import claims_2f_2c


@pytest.mark.slow
def test_embedded_snowballing_run(tmp_path):
    claims = tmp_path / "claims.jsonl"
    write_claims_jsonl(claims_2f_2c()[1:3], claims)  # one factual, one counterfactual claim
    env = dict(os.environ, INCANON_HOME=str(tmp_path))
    res = run_cli(
        ["sharp", "eval", "--model", "embedded", "--detector", "embedded",
         "--mode", "snowballing", "--claims", str(claims), "--partners", "2", "--max-tokens", "40",
         "--concurrency", "1", "--runs", str(tmp_path / "runs.sqlite"), "--json"], env=env, timeout=3000)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    (run,) = doc["runs"]
    assert (run["ran"], run["ok"], run["failed"]) == (6, 6, 0)  # 2 backbone + 2 claims x 2 partners
    assert run["usage"]["calls"] >= 12
    (row,) = doc["report"]["rows"]
    assert row["model"] == "embedded" and row["backbone"] == "embedded"
    # The detector's JSON schema is grammar-enforced on the embedded backend: every answer gets a stance.
    assert row["summary"]["answers"] + row["summary"]["left_out"] == 4
    assert row["backbone_metrics"]["claims"] == 2
    for value in (row["summary"]["sr"], row["summary"]["ar"], row["summary"]["er"]):
        assert value is None or 0.0 <= value <= 1.0
