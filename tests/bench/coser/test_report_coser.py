"""The Table 2 report: splits by domain, markdown, and rows from runs in the store."""

from __future__ import annotations

import pytest

from incanon.bench.coser.report import COLUMNS, CaseScores, GcaReport, model_row, report_from_runs
from incanon.bench.coser.scoring import DIMENSIONS
from incanon.errors import InputError
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run_items


def scores(sc, an, cf, sq, bleu=10.0, rouge=20.0):
    return {**dict(zip(DIMENSIONS, (sc, an, cf, sq))), "bleu": bleu, "rouge_l": rouge}


def test_model_row_splits_and_markdown():
    row = model_row("gpt-x", [
        CaseScores(case_id="a", domain="in-domain", scores=scores(60, 50, 40, 80)),
        CaseScores(case_id="b", domain="out-of-domain", scores=scores(70, 40, 60, 90, bleu=2.0, rouge=4.0)),
        CaseScores(case_id="c", domain=None, scores=scores(80, 60, None, 70)),
    ])
    assert row.splits["all"].cases == 3 and row.splits["all"].judged == 2
    assert row.splits["all"].dimensions["Character Fidelity"] == pytest.approx(50.0)
    assert row.splits["in-domain"].average == pytest.approx(57.5)
    assert row.splits["out-of-domain"].bleu == pytest.approx(2.0)
    report = GcaReport(rows=[row, model_row("unjudged", [CaseScores(case_id="a", scores={"bleu": 1.0})])],
                       notes=["a note"])
    text = report.markdown()
    assert "| Model | Storyline Consistency | Anthropomorphism | Character Fidelity | Storyline Quality | Average | BLEU | ROUGE-L |" in text
    assert "## All cases" in text and "## In-domain" in text and "## Out-of-domain" in text
    assert "| gpt-x | 70.00 | 50.00 | 50.00 | 80.00 | 62.50 | 7.33 | 14.67 | 2 judged, 0 failed, 1 unjudged |" in text
    assert "| unjudged | – | – | – | – | – | 1.00 | – | 0 judged, 0 failed, 1 unjudged |" in text
    assert text.rstrip().endswith("- a note")
    table = report.table()
    assert list(table[0])[: len(COLUMNS) + 1] == ["model", *COLUMNS]
    assert report.table("in-domain")[0]["Average"] == pytest.approx(57.5)


async def _run(store, benchmark, dataset, rows, models):
    config = RunConfig(benchmark=benchmark, dataset=dataset, models=models,
                       params={"simulation": {"continue_from": 2}} if benchmark == "coser-gca" else {"continue_from": 2})
    items = [RunItem(id=cid, input={"domain": domain}) for cid, domain, _ in rows]
    by_id = {cid: s for cid, _, s in rows}
    result = await run_items(items, lambda item: ItemOutcome(scores=by_id[item.id]), store=store, config=config,
                             progress=False)
    return result.run_id


async def test_report_from_runs(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    models = {"actor": "openai:actor-x", "nsp": "n", "env": "e"}
    sim = await _run(store, "coser-gca", {"test": "t"}, [("a", "in-domain", {"bleu": 5.0, "rouge_l": 9.0}),
                                                         ("b", "out-of-domain", {"bleu": 3.0, "rouge_l": 7.0})], models)
    unjudged = report_from_runs(store, [sim])
    (row,) = unjudged.rows
    assert row.label == "openai:actor-x k=2" and row.splits["all"].bleu == pytest.approx(4.0)
    assert "has not been judged yet" in unjudged.notes[0]
    judged = await _run(store, "coser-judge", {"source_run": sim},
                        [("a", "in-domain", scores(60, 50, 40, 80)), ("b", "out-of-domain", scores(70, 40, None, 90))],
                        {**models, "critic": "c"})
    for ref in (sim, judged, judged[:20]):
        (row,) = report_from_runs(store, [ref]).rows
        assert row.run_id == judged and row.source_run == sim and row.critic == "c"
        assert row.splits["all"].judged == 1
        assert row.splits["in-domain"].average == pytest.approx(57.5)
    other = await _run(store, "demo", {}, [("a", None, {})], {})
    with pytest.raises(InputError, match="not a CoSER"):
        report_from_runs(store, [other])
