"""Published DialSim data: JSON read freely, pickles only with trust and only plain data."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from collections import OrderedDict

import pytest

from incanon.bench.dialsim import export_json, load_published, load_script, published_world
from incanon.bench.dialsim.published import parse_script
from incanon.canon import CanonStore
from incanon.errors import IncanonError, InputError

SCRIPT_1 = "Teleplay: Someone\nAna: Morning, Ben.\nBen: Morning! Bread's\nstill warm.\nAna: Lovely."
SCRIPT_2 = "Ben: Cy, meet Ana.\nCy: Hello, Ana.\nAna: Hello."


def _q(default, answer, options, **askers):
    return {"questions": {"default": default, **askers}, "answer": answer, "options": options}


DATA = {
    "1": {
        "1": {"script": SCRIPT_1, "date": "January 1, 2020", "hard_q": {}, "easy_q": {}},
        "2": {"script": SCRIPT_2, "date": "January 3, 2020",
              "hard_q": {
                  "cur": [_q("What does Ben do?", "baker", ["smith", "baker", "miller", "weaver", "I don't know."],
                             Cy="So, what's Ben's trade?")],
                  "fu": [_q("Who is Ben's girlfriend?", "I don't know.", ["Cy", "Dee", "Eve", "Fay", "I don't know."])],
                  "past_cur": [_q("two hop?", "Cy", ["Cy", "Dee", "Eve", "Fay", "I don't know."])],
                  "broken": [{"questions": {}, "answer": "x"}]},
              "easy_q": {"ans_wo_time": {"0": _q("What was warm?", "Bread", ["Bread", "Tea", "Soup", "Milk", "I don't know."])}}},
    },
}


def test_script_lines_continue_without_a_colon_and_credits_are_skipped():
    assert parse_script(SCRIPT_1) == [("Ana", "Morning, Ben."), ("Ben", "Morning! Bread's still warm."), ("Ana", "Lovely.")]


def test_the_layout_becomes_a_dialogue_and_per_session_questions(tmp_path):
    world, questions, skipped = published_world(DATA, work_id="pub", title="Pub")
    assert [s.id for s in world.scenes] == ["1-1", "1-2"] and world.scenes[1].date == "2020-01-03"
    assert skipped == {"unreadable questions": 1}
    by_type = {q.type: q for q in questions}
    assert by_type["cur"].answerable and by_type["cur"].gold_marker == "(B)" and by_type["cur"].category == "one-hop"
    assert by_type["cur"].text_for("Cy") == "So, what's Ben's trade?" and by_type["cur"].text_for("Ana") == "What does Ben do?"
    assert by_type["fu"].category == "unanswerable" and by_type["fu"].gold_marker == "(E)"
    assert by_type["past_cur"].hops == 2 and by_type["past_cur"].category == "two-hop"
    assert by_type["ans_wo_time"].source == "fan" and by_type["ans_wo_time"].category == "fan"
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world)
    assert load_script(store, "pub").main in {"Ana", "Ben"}


def test_a_pickle_needs_the_trust_flag_and_may_hold_plain_data_only(tmp_path):
    path = tmp_path / "friends_dialsim.pickle"
    path.write_bytes(pickle.dumps(OrderedDict(DATA)))
    with pytest.raises(InputError, match="trust"):
        load_published(path)
    assert load_published(path, trust_pickle=True) == DATA
    evil = tmp_path / "evil.pickle"
    evil.write_bytes(pickle.dumps({"1": {"1": {"script": "A: b", "date": "January 1, 2020", "x": ValueError("boom")}}}))
    with pytest.raises(InputError, match="builtins.ValueError"):
        load_published(evil, trust_pickle=True)


def test_json_export_reads_back_without_trust(tmp_path):
    path = tmp_path / "data.pickle"
    path.write_bytes(pickle.dumps({1: {2: {"script": SCRIPT_2, "date": "January 3, 2020", "pair": (1, 2)}}}))
    data = load_published(path, trust_pickle=True)
    out = export_json(data, tmp_path / "data.json")
    assert json.loads(out.read_text()) == {"1": {"2": {"script": SCRIPT_2, "date": "January 3, 2020", "pair": [1, 2]}}}
    assert load_published(out) == data


def test_bad_files_say_what_is_wrong(tmp_path):
    with pytest.raises(IncanonError, match="does not exist"):
        load_published(tmp_path / "missing.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(InputError, match="episodes"):
        load_published(tmp_path / "list.json")


# -- the authors' oracle files, and ingest leaving no trace ------------------------------------

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "dialsim"


def _copy_example(tmp_path, suffix=".json", as_pickle=False):
    for name in ("tiny_dialsim", "tiny_oracle_tkg", "tiny_oracle_fan"):
        data = json.loads((EXAMPLES / f"{name}.json").read_text())
        if as_pickle:
            (tmp_path / f"{name}.pickle").write_bytes(pickle.dumps(data))
        else:
            (tmp_path / f"{name}{suffix}").write_text(json.dumps(data))
    return tmp_path / ("tiny_dialsim.pickle" if as_pickle else f"tiny_dialsim{suffix}")


def _evidence(store_path):
    from incanon.bench.dialsim import read_questions

    return {q.id: q.evidence for q in read_questions(store_path / "dialsim" / "tiny" / "published_questions.jsonl")}


def test_oracle_files_beside_the_script_give_evidence_sessions(tmp_path):
    from incanon.bench.dialsim import ingest

    store = CanonStore.open(tmp_path / "canon")
    report = ingest(store, published=_copy_example(tmp_path))
    assert len(report.oracle_files) == 2 and report.with_evidence == 7
    evidence = _evidence(tmp_path / "canon")
    assert evidence["pub-hard_q-cur-0@1-2"] == ["1-1"], "by position in hard_q[type]"
    assert evidence["pub-hard_q-past_cur-0@2-1"] == ["1-2", "1-1"], "by the question's wording"
    assert evidence["pub-hard_q-fu-0@1-2"] == [], "a future date is no evidence"
    assert evidence["pub-easy_q-ans_w_time-0@2-1"] == ["1-1"], "oracle_fan: the first date"
    assert evidence["pub-easy_q-ans_wo_time-0@1-2"] == ["1-1", "1-2"], "undated fan quiz: the episode so far"


def test_pickled_oracle_files_need_the_trust_flag_and_export_to_json(tmp_path):
    from incanon.bench.dialsim import ingest

    script = _copy_example(tmp_path, as_pickle=True)
    with pytest.raises(InputError, match="trust"):
        ingest(CanonStore.open(tmp_path / "a"), published=script)
    out = tmp_path / "export" / "tiny_dialsim.json"
    report = ingest(CanonStore.open(tmp_path / "b"), published=script, trust_pickle=True, export_json_to=out)
    assert {Path(p).name for p in report.side_files} >= {"tiny_dialsim.json", "tiny_oracle_tkg.json", "tiny_oracle_fan.json"}
    again = ingest(CanonStore.open(tmp_path / "c"), published=out)
    assert again.with_evidence == 7 and _evidence(tmp_path / "c") == _evidence(tmp_path / "b")


def test_oracle_memory_without_evidence_is_an_error(tmp_path, monkeypatch, capsys):
    from dialsim_helpers import cli_exit

    data = json.loads((EXAMPLES / "tiny_dialsim.json").read_text())
    (tmp_path / "tiny_dialsim.json").write_text(json.dumps(data))  # no oracle files beside it
    canon, questions = tmp_path / "canon", tmp_path / "q.jsonl"
    assert cli_exit(["dialsim", "ingest", "--published", str(tmp_path / "tiny_dialsim.json"), "--store", str(canon)],
                    monkeypatch) == 0
    assert cli_exit(["dialsim", "questions", "--store", str(canon), "--out", str(questions)], monkeypatch) == 0
    rules = tmp_path / "m.json"
    rules.write_text('{"default": "(E)"}')
    code = cli_exit(["dialsim", "run", "--store", str(canon), "--questions", str(questions), "--model", f"scripted:{rules}",
                     "--memory", "oracle", "--fast", "--runs", str(tmp_path / "runs.sqlite")], monkeypatch)
    assert code == 2 and "oracle files" in capsys.readouterr().err
    assert not (tmp_path / "runs.sqlite").exists(), "nothing was written"


@pytest.mark.parametrize("content, message", [
    (pickle.dumps({"a": 1}), "pickle"),
    (b"## 2020-01-01\nAna: hi\nBen: caf\xe9 \xff\n", "line 3"),
    (b"", "empty"),
])
def test_a_failed_ingest_leaves_no_store(tmp_path, content, message, monkeypatch, capsys):
    from dialsim_helpers import cli_exit

    script = tmp_path / "script.txt"
    script.write_bytes(content)
    store = tmp_path / "canon"
    assert cli_exit(["dialsim", "ingest", str(script), "--store", str(store)], monkeypatch) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not store.exists(), "no empty store is left behind"


def test_a_failed_published_ingest_leaves_no_store(tmp_path, monkeypatch):
    from dialsim_helpers import cli_exit

    bad = tmp_path / "x_dialsim.json"
    bad.write_text('{"1": {"1": {"script": "A: b"}}}')  # no date
    assert cli_exit(["dialsim", "ingest", "--published", str(bad), "--store", str(tmp_path / "s")], monkeypatch) == 2
    assert not (tmp_path / "s").exists()
