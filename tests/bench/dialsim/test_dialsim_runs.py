"""Runs: one sample per session per repetition, resumable, reported like Tables 3-4."""

from __future__ import annotations

import pytest

from incanon.bench.dialsim import DialsimReport, RunSetup, SimConfig, run_setting, settings_from_runs
from incanon.models import ScriptedModel
from incanon.runs import RunStore


def _setup(script, questions, model, **extra):
    return RunSetup(script=script, questions=questions, agent_model=model, models={"agent": "scripted"},
                    memory=extra.pop("memory", "bm25-session"),
                    config=SimConfig(fast=True, time_limit=extra.pop("time_limit", 6.0)), **extra)


def _answer(messages):
    return "(A)" if "Jory" in messages[-1].content else "(E)"


async def test_every_session_is_stored_and_a_finished_run_is_not_simulated_again(tmp_path, sample_script, sample_questions):
    store = RunStore(tmp_path / "runs.sqlite")
    script = sample_script.first(4)
    model = ScriptedModel(default=_answer)
    first = await run_setting(_setup(script, sample_questions, model, runs=3), store)
    assert first.simulated == [0, 1, 2] and not first.resumed
    samples = list(store.samples(first.run_id))
    assert len(samples) == 12 and {s.item_id for s in samples} == {s.id for s in script.dialogue}
    assert all(s.outputs["question"]["status"] in ("correct", "wrong") for s in samples)
    calls = len(model.calls)
    again = await run_setting(_setup(script, sample_questions, model, runs=3), store)
    assert again.run_id == first.run_id and again.resumed and again.skipped == [0, 1, 2] and again.simulated == []
    assert len(model.calls) == calls
    more = await run_setting(_setup(script, sample_questions, model, runs=4), store)
    assert more.run_id != first.run_id, "a different number of repetitions is a different setting"


async def test_a_repetition_with_an_error_is_simulated_again_on_resume(tmp_path, sample_script, sample_questions):
    store = RunStore(tmp_path / "runs.sqlite")
    script = sample_script.first(3)
    flaky = {"fail": True}

    def answer(messages):
        if flaky["fail"] and "Hello." not in messages[-1].content:
            raise RuntimeError("connection reset")
        return "(E)"

    first = await run_setting(_setup(script, sample_questions, ScriptedModel(default=answer), runs=2), store)
    errors = [s for s in store.samples(first.run_id) if s.status == "error"]
    assert len(errors) == 6 and all("connection reset" in s.error for s in errors)
    assert first.status == "failed" and store.get_run(first.run_id).status == "failed"
    flaky["fail"] = False
    second = await run_setting(_setup(script, sample_questions, ScriptedModel(default=answer), runs=2), store)
    assert second.simulated == [0, 1]
    assert all(s.status == "ok" for s in store.samples(first.run_id))
    questions_before = [s.outputs["question"]["question_id"] for s in store.samples(first.run_id)]
    assert len(questions_before) == 6


async def test_the_report_gives_accuracy_with_std_over_runs_and_by_type(tmp_path, sample_script, sample_questions):
    store = RunStore(tmp_path / "runs.sqlite")
    script = sample_script.first(5)
    ids = []
    for memory, limit in (("bm25-session", 6.0), ("recent", 6.0), ("bm25-session", 0.0)):
        outcome = await run_setting(_setup(script, sample_questions, ScriptedModel(default=_answer), runs=3,
                                           memory=memory, time_limit=limit), store)
        ids.append(outcome.run_id)
    settings = settings_from_runs(store, ids)
    first = settings[0]
    assert first.memory == "bm25-session" and first.time_limit == 6.0 and len(first.per_run) == 3
    assert first.questions == 15 and sum(c.n for c in first.by_category.values()) == 15
    assert first.std is not None and first.answer_time["count"] == 15 and first.update_time["count"] > 0
    text = DialsimReport(settings=settings).markdown()
    assert "## With a time limit" in text and "## Without a time limit" in text
    assert "| model | bm25-session | recent |" in text
    assert "unanswerable" in text and "update mean" in text


async def test_an_interrupted_repetition_resumes_after_its_last_saved_session(tmp_path, sample_script, sample_questions):
    import pytest

    script = sample_script.first(6)
    for memory in ("bm25-utterance", "bm25-summary", "recent"):
        reference_store = RunStore(tmp_path / f"reference-{memory}.sqlite")
        whole = await run_setting(_setup(script, sample_questions, ScriptedModel(default=_answer), memory=memory),
                                  reference_store)
        expected = {s.item_id: s.outputs["question"] for s in reference_store.samples(whole.run_id)}

        asked: list[str] = []

        def dies_at_the_fourth_question(messages):
            if "Hello." not in messages[-1].content and "(A)" in messages[-1].content:
                asked.append(messages[-1].content)
                if len(asked) == 4:
                    raise KeyboardInterrupt  # the process is killed while session 4 runs
            return _answer(messages)

        store = RunStore(tmp_path / f"runs-{memory}.sqlite")
        with pytest.raises(KeyboardInterrupt):
            await run_setting(_setup(script, sample_questions, ScriptedModel(default=dies_at_the_fourth_question),
                                     memory=memory), store)
        saved = [s.item_id for s in store.samples(whole.run_id)]
        assert len(saved) == 3

        model = ScriptedModel(default=_answer)
        resumed = await run_setting(_setup(script, sample_questions, model, memory=memory), store)
        assert resumed.resumed and resumed.simulated == [0]
        assert any("resumes after session" in note and "3 of 6" in note for note in resumed.notes), resumed.notes
        questions = [c for c in model.calls if "(A)" in c.messages[-1].content]
        assert len(questions) == 3, "only the sessions after the last saved one are asked again"
        got = {s.item_id: s.outputs["question"] for s in store.samples(whole.run_id)}
        # The same questions, and the memory put back retrieves exactly what an unbroken run did.
        assert {k: (q or {}).get("retrieved") for k, q in got.items()} == \
            {k: (q or {}).get("retrieved") for k, q in expected.items()}
        assert {k: (q or {}).get("question_id") for k, q in got.items()} == \
            {k: (q or {}).get("question_id") for k, q in expected.items()}


@pytest.mark.timeout(120)
def test_kill_9_mid_repetition_then_resume_after_the_last_saved_session(tmp_path, sample_canon):
    import asyncio
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    import dialsim_kill_worker as worker

    sessions, runs = 8, tmp_path / "runs.sqlite"
    proc = subprocess.Popen([sys.executable, worker.__file__, str(sample_canon.path), str(runs), str(sessions)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    saved = 0
    while saved < 3:
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, "the worker stored no session"
        time.sleep(0.02)
        if not runs.exists():
            continue  # connecting would create it empty, before the worker does
        try:
            with sqlite3.connect(f"file:{runs}?mode=ro", uri=True, timeout=5) as db:
                saved = db.execute("SELECT COUNT(*) FROM samples WHERE status = 'ok'").fetchone()[0]
        except sqlite3.OperationalError:
            saved = 0
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    store = RunStore(runs)
    (run,) = store.runs()
    kept = sum(1 for s in store.samples(run.id) if s.status == "ok")
    assert 3 <= kept < sessions
    model = ScriptedModel(default=worker.answer)
    resumed = asyncio.run(run_setting(worker.setup(str(sample_canon.path), sessions, model), store))
    assert any(f"({kept} of {sessions} sessions already done)" in n for n in resumed.notes), resumed.notes
    reference = RunStore(tmp_path / "reference.sqlite")
    whole_model = ScriptedModel(default=worker.answer)
    whole = asyncio.run(run_setting(worker.setup(str(sample_canon.path), sessions, whole_model), reference))
    asked = lambda m: [c for c in m.calls if "Hello." not in c.messages[-1].content]  # noqa: E731
    assert 0 < len(asked(model)) < len(asked(whole_model)), "the saved sessions are not asked again"
    retrieved = lambda s: {x.item_id: (x.outputs.get("question") or {}).get("retrieved") for x in s.samples(whole.run_id)}  # noqa: E731
    assert whole.run_id == run.id and retrieved(store) == retrieved(reference)
