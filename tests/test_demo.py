import json
import os
import sys

import pytest

from incanon.canon import CanonStore
from incanon.demo import DEMO_TYPES, demo_rows, plan_demo, run_demo
from incanon.models import ScriptedModel, load_chat_model
from incanon.sample import sample_world
from incanon.testing.cli import run_cli


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = CanonStore.open(tmp_path_factory.mktemp("canon"))
    s.import_world(sample_world())
    return s


def test_plan_asks_three_kinds_at_two_time_points_with_types_from_the_canon(store):
    record, questions = plan_demo(store, "lanterns")
    points = sorted({q.at.key for q in questions})
    assert len(points) == 2 and len(questions) == 6
    for q in questions:
        assert q.data_type in DEMO_TYPES
        present = record.name in q.scene.participants
        if q.data_type == "future":
            assert q.scene.position > q.at
        else:
            assert q.scene.position <= q.at
            assert present == (q.data_type == "past-presence")
        # The canon's knowledge scope agrees with the plan.
        scope = store.scope("lanterns", record.name, q.at)
        assert scope.is_known_time(q.scene.position) == (q.data_type != "future")
        if q.data_type != "future":
            assert scope.witnessed(q.scene.id) == present


def test_plan_for_named_character_and_unknown_character(store):
    from incanon.errors import NotFoundError

    record, _ = plan_demo(store, "lanterns", "Stormwren")  # an alias resolves
    assert record.name == "Wren Callow"
    with pytest.raises(NotFoundError, match="unknown character"):
        plan_demo(store, "lanterns", "Nobody")


async def test_run_demo_with_scripted_models_then_resume(tmp_path):
    agent = ScriptedModel(default="I cannot speak of that.")
    judge = ScriptedModel(default="It stays within what she knows.\nScore: 1")
    kwargs = dict(store_dir=tmp_path / "canon", runs_path=tmp_path / "runs.sqlite",
                  agent_model=load_chat_model(agent), judge_model=load_chat_model(judge),
                  model_specs={"agent": "scripted-a", "judge": "scripted-j"}, progress=False)
    result, runs, record = await run_demo(**kwargs)
    rows = demo_rows(runs, result.run_id)
    assert len(rows) == 6 and all(r["status"] == "ok" and r["score"] == 1 for r in rows)
    assert len(agent.calls) == 6 and len(judge.calls) == 6
    # The judge saw the label built from the canon, naming the character and the time point.
    assert record.name in judge.calls[0].messages[0].content
    again, runs2, _ = await run_demo(**kwargs)
    assert again.run_id == result.run_id
    assert len(agent.calls) == 6  # resumed: nothing re-asked
    assert len(demo_rows(runs2, again.run_id)) == 6


@pytest.mark.slow
def test_demo_end_to_end_on_the_embedded_model(tmp_path):
    env = dict(os.environ, INCANON_HOME=str(tmp_path))
    res = run_cli(["demo", "--json"], env=env, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(res.stdout)
    assert doc["models"] == {"agent": "embedded", "judge": "embedded"}
    assert len(doc["items"]) == 6
    assert {r["data_type"] for r in doc["items"]} == set(DEMO_TYPES)
    for row in doc["items"]:
        assert row["status"] == "ok" and row["answer"].strip()
        assert row["score"] in (0, 1, None)
    assert (tmp_path / "runs.sqlite").is_file()


@pytest.mark.slow
def test_a_demo_whose_every_answer_failed_is_a_failed_run_and_a_failed_command(tmp_path, monkeypatch, capsys):
    from incanon.cli.main import main
    from incanon.runs import RunStore

    monkeypatch.setenv("INCANON_HOME", str(tmp_path / "home"))
    silent = tmp_path / "silent.json"
    silent.write_text('{"rules": []}', encoding="utf-8")  # no rule, no default: every call fails
    runs = tmp_path / "runs.sqlite"
    monkeypatch.setattr(sys, "argv", ["incanon", "demo", "--model", f"scripted:{silent}", "--judge", f"scripted:{silent}",
                                      "--runs", str(runs), "--store", str(tmp_path / "canon"), "--no-cache"])
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "every sample of run demo-" in err and "recorded as failed" in err and "Traceback" not in err
    with RunStore(runs, read_only=True) as store:
        (info,) = store.runs()
        assert info.status == "failed"
