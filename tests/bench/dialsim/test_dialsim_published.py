"""Published DialSim data: JSON read freely, pickles only with trust and only plain data."""

from __future__ import annotations

import json
import pickle
from collections import OrderedDict

import pytest

from incanon.bench.dialsim import export_json, load_published, load_script, published_world
from incanon.bench.dialsim.published import parse_script
from incanon.canon import CanonStore
from incanon.errors import InputError

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
    with pytest.raises(InputError, match="does not exist"):
        load_published(tmp_path / "missing.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(InputError, match="episodes"):
        load_published(tmp_path / "list.json")
