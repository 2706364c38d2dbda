"""One short scene simulated end to end on the real embedded model (SmolLM2-135M)."""

from __future__ import annotations

import json
import os

import pytest
from incanon.testing.cli import run_cli

CASE = {
    "book": "Pride and Prejudice", "i_c": 0, "tag": "id",
    "scenario": "Mr Bennet's study, late afternoon. He holds a letter from Mr Collins.",
    "key_characters": [{"name": "Elizabeth Bennet", "thought": "I dread what the letter says about Mr Darcy."},
                       {"name": "Mr Bennet", "thought": "This letter promises fine sport."}],
    "dialogues": [{"character": "Mr Bennet", "message": "[Amused.] Lizzy, come into my room."},
                  {"character": "Elizabeth Bennet", "message": "[Dread.] (follows him) What is it, Papa?"},
                  {"character": "Mr Bennet", "message": "I have received a letter that astonished me."}],
    "speaking_characters_w_env": ["Mr Bennet", "Elizabeth Bennet", "Environment"],
    "major_characters": ["Mr Bennet", "Elizabeth Bennet"],
    "plot": {"summary": "Mr Collins writes about rumours of an engagement.", "i_p": 70, "key_characters": []},
    "character_profiles": {"Mr Bennet": "A sardonic father of five.", "Elizabeth Bennet": "His witty second daughter."},
}


@pytest.mark.slow
def test_one_short_scene_on_the_embedded_model(tmp_path):
    (tmp_path / "test.json").write_text(json.dumps([CASE]))
    env = dict(os.environ, INCANON_HOME=str(tmp_path))
    res = run_cli(
        ["coser", "simulate", "--test", str(tmp_path / "test.json"),
         "--model", "embedded", "--nsp-model", "embedded", "--env-model", "embedded", "--continue-from", "1",
         "--max-rounds", "5", "--max-tokens", "48", "--frequency-penalty", "0.5",
         "--runs", str(tmp_path / "runs.sqlite"), "--json"], env=env, timeout=1800,
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    run = doc["run"]
    assert (run["ok"], run["failed"]) == (1, 0)
    # One original message, four generated ones; an end predicted before round 5 is ignored,
    # so the cap ends the scene: 4 message calls and 3 predictions.
    assert run["usage"]["calls"] == 4 + 3
    (row,) = doc["table"]
    assert 0.0 <= row["BLEU"] <= 100.0 and 0.0 <= row["ROUGE-L"] <= 100.0
    from incanon.runs import RunStore

    (sample,) = RunStore(tmp_path / "runs.sqlite").samples(run["run_id"])
    messages = sample.outputs["messages"]
    assert len(messages) == 5 and messages[0]["source"] == "original"
    assert all(m["role"] in ("Mr Bennet", "Elizabeth Bennet", "Environment") for m in messages)
    assert all(a["role"] != b["role"] for a, b in zip(messages, messages[1:]))
    assert sample.scores["actor_rounds"] == sum(m["role"] != "Environment" for m in messages)
