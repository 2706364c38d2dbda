"""Sample rows and drill-downs of the run browser, and their filters."""

from __future__ import annotations

import pytest

from incanon.errors import InputError
from incanon.models.types import Usage
from incanon.runs import RunStore
from incanon.runs.records import SampleRecord
from incanon.serve import SampleIndex, SampleQuery, sample_detail, sample_type, summary_row
from incanon.serve.samples import type_function


def record(**fields) -> SampleRecord:
    base = dict(run_id="r", item_id="x", input_hash="h", input={"question": "Q?", "data_type": "future"},
                outputs={"answer": "A."}, scores={"temporal": 1.0},
                extra={"temporal_rationale": "fine", "calls": [{"step": "answer", "messages": [], "output": "A."}],
                       "repaired": []},
                usage=Usage(calls=3, prompt_tokens=100, completion_tokens=20))
    base.update(fields)
    return SampleRecord(**base)


def test_type_comes_from_the_first_known_field():
    assert sample_type(record()) == "future"
    assert sample_type(record(input={"question_type": "fan quiz", "tag": "x"})) == "fan quiz"
    assert sample_type(record(input={}, outputs={"rule": "role-swap"})) == "role-swap"
    assert sample_type(record(input={"data_type": ""})) is None


def test_summary_row_shortens_long_answers_and_counts_tokens():
    row = summary_row(record(outputs={"answer": "word " * 100}))
    assert row["answer"].endswith("…") and len(row["answer"]) == 160
    assert (row["calls"], row["tokens"], row["type"], row["question"]) == (3, 120, "future", "Q?")


def test_detail_pulls_out_rationales_and_calls():
    detail = sample_detail(record())
    assert detail["rationales"] == {"temporal_rationale": "fine"}
    assert detail["calls"][0]["step"] == "answer"
    assert "calls" not in detail["extra"] and "temporal_rationale" not in detail["extra"]
    assert detail["extra"] == {"repaired": []}
    assert detail["answer"] == "A." and detail["usage"]["prompt_tokens"] == 100


@pytest.mark.parametrize("kwargs", [{"status": "done"}, {"limit": 0}, {"limit": 501}, {"offset": -1}])
def test_bad_queries_say_what_is_expected(kwargs):
    with pytest.raises(InputError):
        SampleQuery(**kwargs)


def test_index_filters_pages_and_sees_new_samples(tmp_path):
    from incanon.runs.config import RunConfig

    store = RunStore(tmp_path / "runs.sqlite")
    run = store.create_or_resume(RunConfig(benchmark="b", task="t"))
    kinds = ["future", "past-only", "future", "past-only", "future"]
    for i, kind in enumerate(kinds):
        store.record(record(run_id=run.id, item_id=f"i{i}", input={"question": f"Q{i}", "data_type": kind},
                            status="error" if i == 4 else "ok", error="boom" if i == 4 else None))
    index = SampleIndex(store)
    page = index.page(run.id, SampleQuery(type="future"))
    assert [r["item_id"] for r in page["rows"]] == ["i0", "i2", "i4"]
    assert page["types"] == {"future": 3, "past-only": 2} and page["statuses"] == {"ok": 4, "error": 1}
    assert [r["item_id"] for r in index.page(run.id, SampleQuery(status="error"))["rows"]] == ["i4"]
    assert [r["item_id"] for r in index.page(run.id, SampleQuery(text="q3"))["rows"]] == ["i3"]
    second = index.page(run.id, SampleQuery(offset=2, limit=2))
    assert (second["matched"], [r["item_id"] for r in second["rows"]]) == (5, ["i2", "i3"])
    store.record(record(run_id=run.id, item_id="i5"))
    assert index.page(run.id, SampleQuery())["total"] == 6
    store.close()


def test_nested_questions_and_judge_reasons_of_every_shape():
    dialsim = record(input={"session": "s1"}, outputs={"question": {"question": "Who?", "answer": "(B)",
                                                                    "category": "fan"}}, extra={})
    row = summary_row(dialsim, type_function("dialsim"))
    assert (row["type"], row["question"], row["answer"]) == ("fan", "Who?", "(B)")
    rolerag = record(extra={"rationales": {"ke": "knows it", "kh": "no invention"}, "repaired": []})
    detail = sample_detail(rolerag)
    assert detail["rationales"] == {"ke rationale": "knows it", "kh rationale": "no invention"}
    assert detail["extra"] == {"repaired": []}
    sharp = record(outputs={"answer": "No.", "stance": "AGAINST", "reason": "She refuses the claim."}, extra={})
    assert sample_detail(sharp)["rationales"] == {"reason": "She refuses the claim."}


def test_the_drill_down_lists_each_judge_with_its_score_reply_and_calls():
    call = {"step": "judge", "messages": [{"role": "user", "content": "Judge this."}], "output": "fine\nScore: 1"}
    timechara = record(extra={"temporal_rationale": "fine\nScore: 1", "judge_calls": {"temporal": [call]}})
    detail = sample_detail(timechara)
    assert detail["judges"] == [{"name": "temporal", "score": 1.0, "rationale": "fine\nScore: 1", "calls": [call]}]
    assert "judge_calls" not in detail["extra"]
    demo = record(scores={"spatiotemporal": 0.0}, extra={"rationale": "leaks", "judge_calls": {"judge": [call]}})
    assert sample_detail(demo)["judges"] == [{"name": "judge", "score": 0.0, "rationale": "leaks", "calls": [call]}]
    older = record(extra={"temporal_rationale": "fine"})  # a run from before judges kept their calls
    assert sample_detail(older)["judges"] == [{"name": "temporal", "score": 1.0, "rationale": "fine", "calls": []}]
    long = "Were you there " * 30
    row = summary_row(record(input={"question": long}))
    assert row["question"].endswith("…") and row["question_full"] == long
