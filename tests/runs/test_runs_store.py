"""RunStore: round trip, upserts, summaries, lookup, concurrent readers."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import statistics

import pytest

from incanon.errors import InputError, NotFoundError
from incanon.models.types import Usage
from incanon.runs import RunConfig, RunStore, SampleRecord, mean_sem


def _sample(run_id: str, item: str, **kw) -> SampleRecord:
    base = dict(run_id=run_id, item_id=item, input_hash="h1", input={"q": item})
    base.update(kw)
    return SampleRecord(**base)


def test_round_trip(store, config):
    info = store.create_or_resume(config)
    assert info.id == config.run_id and not info.resumed and info.status == "running"
    sample = _sample(info.id, "a", outputs={"answer": "yes", "nested": [1, {"k": None}]},
                     scores={"acc": 1.0, "judge": None}, extra={"why": "ok"},
                     usage=Usage(calls=2, prompt_tokens=10, completion_tokens=5, cost=0.01))
    assert store.record(sample) == 1
    [back] = list(store.samples(info.id))
    assert back.model_dump(exclude={"started", "finished"}) == sample.model_dump(exclude={"started", "finished"})
    assert store.done_ids(info.id) == {("a", 0)}
    again = store.create_or_resume(config)
    assert again.resumed and again.id == info.id and again.ok == 1


def test_values_are_json_not_pickle(store, store_path, config):
    run_id = store.create_or_resume(config).id
    store.record(_sample(run_id, "a", outputs={"t": "x"}, scores={"s": 0.5}))
    raw = sqlite3.connect(store_path)
    row = raw.execute("SELECT input, outputs, scores, usage FROM samples").fetchone()
    assert [json.loads(v) for v in row][:3] == [{"q": "a"}, {"t": "x"}, {"s": 0.5}]
    (cfg,) = raw.execute("SELECT config FROM runs").fetchone()
    assert json.loads(cfg)["benchmark"] == "demo"
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_upsert_keeps_one_row_and_counts_attempts(store, store_path, config):
    run_id = store.create_or_resume(config).id
    assert store.record(_sample(run_id, "a", status="error", error_type="ValueError", error="x")) == 1
    assert store.record(_sample(run_id, "a", status="error", error_type="ValueError", error="x")) == 2
    assert store.record(_sample(run_id, "a", outputs={"y": 1})) == 3
    # A changed input is a different item under the same id: its attempts restart.
    assert store.record(_sample(run_id, "a", input_hash="h2", outputs={"y": 2})) == 1
    assert store.record(_sample(run_id, "a", epoch=1)) == 1
    rows = sqlite3.connect(store_path).execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    assert rows == 2
    assert store.sample_states(run_id) == {("a", 0): ("ok", "h2"), ("a", 1): ("ok", "h1")}


def test_summary_means_sem_usage_errors(store, config):
    run_id = store.create_or_resume(config).id
    values = [0.0, 1.0, 1.0, 0.5, 0.25]
    for k, v in enumerate(values):
        store.record(_sample(run_id, f"i{k}", scores={"acc": v, "maybe": None if k % 2 else 2},
                             usage=Usage(calls=1, prompt_tokens=3, latency_s=0.5)))
    store.record(_sample(run_id, "bad1", status="error", error_type="ModelError", error="down",
                         usage=Usage(calls=1)))
    store.record(_sample(run_id, "bad2", status="error", error_type="ModelError", error="down"))
    store.record(_sample(run_id, "bad3", status="error", error_type="KeyError", error="k"))
    s = store.summary(run_id)
    assert (s.ok, s.failed) == (5, 3)
    acc = {x.name: x for x in s.scores}["acc"]
    assert acc.n == 5 and math.isclose(acc.mean, statistics.mean(values))
    assert math.isclose(acc.sem, statistics.stdev(values) / math.sqrt(5))
    maybe = {x.name: x for x in s.scores}["maybe"]
    assert (maybe.n, maybe.mean, maybe.sem, maybe.missing) == (3, 2.0, 0.0, 2)
    assert s.usage == Usage(calls=6, prompt_tokens=15, latency_s=2.5)
    assert s.errors == {"ModelError": 2, "KeyError": 1}
    assert acc.format(2) == f"{statistics.mean(values):.2f} ± {statistics.stdev(values) / math.sqrt(5):.2f}"


def test_mean_sem_edge_cases():
    assert mean_sem(0, 0, 0) == (None, None)
    assert mean_sem(1, 3.0, 9.0) == (3.0, None)
    assert mean_sem(3, 3.0, 3.0) == (1.0, 0.0)


def test_runs_list_and_resolve(store):
    a = store.create_or_resume(RunConfig(benchmark="alpha")).id
    b = store.create_or_resume(RunConfig(benchmark="beta", seeds=[1])).id
    c = store.create_or_resume(RunConfig(benchmark="beta", seeds=[2])).id
    assert {r.id for r in store.runs()} == {a, b, c}
    assert store.resolve(a) == a
    assert store.resolve("alp") == a
    with pytest.raises(InputError, match="ambiguous"):
        store.resolve("beta")
    with pytest.raises(NotFoundError) as exc:
        store.resolve("gamma")
    assert a in str(exc.value) and b in str(exc.value)


def test_fresh_starts_a_new_run(store, config):
    first = store.create_or_resume(config)
    second = store.create_or_resume(config, fresh=True)
    assert second.id != first.id and second.id.startswith(first.id) and not second.resumed
    assert store.create_or_resume(config).id == first.id


def test_missing_store_is_not_created(tmp_path):
    with pytest.raises(NotFoundError):
        RunStore(tmp_path / "nope.sqlite", create=False)
    assert not (tmp_path / "nope.sqlite").exists()


def test_reader_sees_commits_while_writer_is_open(store, store_path, config):
    run_id = store.create_or_resume(config).id
    reader = RunStore(store_path, create=False)
    for k in range(3):
        store.record(_sample(run_id, f"i{k}"))
        assert len(reader.done_ids(run_id)) == k + 1
    # A reader holding an open read transaction does not block the writer (WAL).
    raw = sqlite3.connect(store_path)
    raw.execute("BEGIN")
    raw.execute("SELECT COUNT(*) FROM samples").fetchone()
    store.record(_sample(run_id, "i9"))
    raw.execute("COMMIT")
    reader.close()


def test_dead_process_shows_interrupted(store, store_path, config):
    run_id = store.create_or_resume(config).id
    with sqlite3.connect(store_path) as raw:
        raw.execute("UPDATE runs SET pid = 2147483000 WHERE id = ?", (run_id,))
    assert store.get_run(run_id).status == "interrupted"


def test_finish_accumulates_totals(store, config):
    run_id = store.create_or_resume(config).id
    store.finish(run_id, "interrupted", spent=Usage(calls=2), elapsed_s=1.0)
    store.create_or_resume(config)
    store.finish(run_id, "finished", spent=Usage(calls=3), elapsed_s=2.0)
    info = store.get_run(run_id)
    assert info.status == "finished"
    assert info.totals["spent"]["calls"] == 5 and info.totals["elapsed_s"] == 3.0
    assert info.totals["sessions"] == 2


def test_resume_notes_on_changed_templates(store):
    c1 = RunConfig(benchmark="demo", templates={"judge": "aaa"}, package_version="0.0.1")
    store.create_or_resume(c1)
    c2 = RunConfig(benchmark="demo", templates={"judge": "bbb"})
    info = store.create_or_resume(c2)
    assert info.resumed and any("judge" in n for n in info.notes)
    assert any("0.0.1" in n for n in info.notes)


def test_resume_refuses_a_run_another_live_process_holds(store, store_path, config):
    from incanon.runs.store import RunBusyError

    run_id = store.create_or_resume(config).id
    with sqlite3.connect(store_path) as raw:
        raw.execute("UPDATE runs SET pid = ? WHERE id = ?", (os.getppid(), run_id))
    with pytest.raises(RunBusyError, match=f"process {os.getppid()}"):
        store.create_or_resume(config)
    with sqlite3.connect(store_path) as raw:
        raw.execute("UPDATE runs SET pid = ? WHERE id = ?", (os.getpid(), run_id))
    assert not store.create_or_resume(config).notes  # ours: resumed without a word
