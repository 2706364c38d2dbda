"""DialSim through the one driver: each setting is a run of ``run_setting`` (resumed after its
last stored session), a repetition as an item is the whole replay a Ray worker makes, and the dry
run is the settings' question plans."""

from __future__ import annotations

from incanon.bench.dialsim import RunSetup, SimConfig
from incanon.bench.dialsim.benchmark import DialSim, Grid
from incanon.models import ScriptedModel
from incanon.runs import RunItem, RunStore, run_defaults
from incanon.runs.driver import RunSettings, estimate, evaluate


def _answer(messages):
    return "(A)" if "Jory" in messages[-1].content else "(E)"


def _bench(script, questions, grid: Grid, built: list[tuple[str, float]] | None = None) -> DialSim:
    def setting(memory: str, limit: float) -> RunSetup:
        if built is not None:
            built.append((memory, limit))
        return RunSetup(script=script, questions=questions, agent_model=ScriptedModel(default=_answer),
                        models={"agent": "scripted"}, memory=memory, runs=grid.repetitions,
                        config=SimConfig(fast=True, time_limit=limit, seed=grid.seed))

    return DialSim(script, questions, grid, setting)


async def test_each_setting_is_a_run_resumed_when_run_again(tmp_path, sample_script, sample_questions):
    script = sample_script.first(3)
    grid = Grid(memories=["recent", "bm25-session"], limits=[0.0], model="scripted", repetitions=2)
    heard: list[str] = []
    bench = _bench(script, sample_questions, grid)
    bench.announce = lambda label, outcome: heard.append(f"{label}: {outcome.status}")
    settings = RunSettings(store=RunStore(tmp_path / "runs.sqlite"), progress=False)
    done = await evaluate(bench, settings)
    assert done.methods == ["recent, no limit", "bm25-session, no limit"]
    assert heard == ["recent, no limit: finished", "bm25-session, no limit: finished"]
    assert [o.simulated for o in done.results] == [[0, 1], [0, 1]]
    assert [o.run_id for o in done.results] == [bench.config(m).run_id for m in done.methods]
    assert len(list(settings.store.samples(done.run_ids[0]))) == 2 * len(script.dialogue)
    assert [s.memory for s in done.report().settings] == ["recent", "bm25-session"]
    again = await evaluate(_bench(script, sample_questions, grid), settings)
    assert [o.skipped for o in again.results] == [[0, 1], [0, 1]] and again.run_ids == done.run_ids


async def test_a_repetition_as_an_item_is_the_replay_the_run_stores(tmp_path, sample_script, sample_questions):
    script = sample_script.first(4)
    grid = Grid(memories=["bm25-session"], limits=[0.0], model="scripted", seed=3)
    bench = _bench(script, sample_questions, grid)
    (item,) = bench.items()
    assert item == RunItem(id="repetition-0", input={"seed": 3})
    method = bench.methods()[0]
    replay = await bench.score(bench.agent(method), item)
    done = await evaluate(bench, RunSettings(store=RunStore(tmp_path / "runs.sqlite"), progress=False))
    stored = {s.item_id: s.outputs for s in done.store.samples(done.run_ids[0])}
    replayed = {r["session"]: r for r in replay.outputs["sessions"]}
    assert list(replayed) == [s.id for s in script.dialogue]
    for session, record in replayed.items():
        asked = record["question"]
        assert (asked or {}).get("question_id") == (stored[session]["question"] or {}).get("question_id"), session
        assert (asked or {}).get("status") == (stored[session]["question"] or {}).get("status"), session


def test_the_dry_run_builds_no_setting_and_follows_the_shard(sample_script, sample_questions):
    built: list[tuple[str, float]] = []
    grid = Grid(memories=["bm25-session", "bm25-summary"], limits=[0.0, 6.0], model="scripted", repetitions=4)
    bench = _bench(sample_script, sample_questions, grid, built)
    whole = estimate(bench)
    sessions = len(sample_script.dialogue)
    assert whole.samples == 4 * sessions and built == []
    labels = [row.label for row in whole.rows]
    assert "agent: session summaries (bm25-summary @ 6s)" in labels and len(set(labels)) == len(labels)
    with run_defaults(shard="2/4"):
        assert estimate(bench).samples == sessions  # one repetition of four
