"""Answerability against the canon: present at the evidence, and asked after it."""

from __future__ import annotations

import random

import pytest

from dialsim_helpers import TINY_TKG, tiny_store
from incanon.bench.dialsim import IDK, Knowledge, load_script, parse_fan_quiz, quads_from_rows, tkg_questions
from incanon.bench.dialsim.distractors import distractor_pool, pick_distractors
from incanon.bench.dialsim.fanquiz import fan_questions


@pytest.fixture
def tiny(tmp_path):
    store = tiny_store(tmp_path)
    script = load_script(store, "tiny", "Ana")
    return store, script, Knowledge(store, script)


def test_knowledge_needs_presence_and_a_strictly_later_question(tiny):
    _, script, know = tiny
    assert [s.id for s in script.dialogue] == ["session-1", "session-3", "session-4", "session-5"]
    assert know.heard("session-1", "session-3")
    assert not know.heard("session-2", "session-3"), "Ana was not there"
    assert not know.heard("session-3", "session-3"), "the answer may come after the question"
    assert not know.heard("session-4", "session-3"), "the future"


def _by(questions, session, type_=None, text=None):
    return [q for q in questions if q.session == session and (type_ is None or q.type == type_)
            and (text is None or text in q.texts["default"])]


def test_one_hop_answerable_unseen_and_future(tiny):
    _, script, know = tiny
    questions, _ = tkg_questions(quads_from_rows(TINY_TKG, script), script, know)
    [job] = _by(questions, "session-3", "cur", "What does Ben do for a living?")
    assert job.answerable and job.answer == "baker" and job.evidence == ["session-1"]
    [unseen] = _by(questions, "session-3", "unseen", "What does Cy do for a living?")
    assert not unseen.answerable and unseen.answer == IDK and unseen.gold_marker == "(E)"
    assert "smith" in unseen.options, "the value Ana could not know is the tempting wrong choice"
    future = _by(questions, "session-1", "fu", "girlfriend of Ben")
    assert future and future[0].answer == IDK and {"Cy", "Dee"} & set(future[0].options)
    assert not _by(questions, "session-3", text="girlfriend of Ben"), "stated in the asking session: left out"


def test_dated_questions_and_tense_follow_the_asking_date(tiny):
    _, script, know = tiny
    questions, _ = tkg_questions(quads_from_rows(TINY_TKG, script), script, know)
    [past] = _by(questions, "session-4", "past", "boyfriend of Cy")
    assert past.texts["default"] in ("Who was the boyfriend of Cy on February 1, 2020?",
                                     "Who was the boyfriend of Cy in February 2020?") and past.answer == "Ben"
    [now] = _by(questions, "session-4", "cur", "boyfriend of Cy")
    assert now.texts["default"] == "Who is the boyfriend of Cy?"
    [job] = _by(questions, "session-4", "past", "Ben do for a living")
    assert job.texts["default"] in ("What did Ben do for a living on January 1, 2020?",
                                     "What did Ben do for a living in January 2020?"), "never 'in 2020', the asking year"


def test_a_character_who_heard_only_an_older_value_gets_no_present_tense_question(tiny):
    _, script, know = tiny
    rows = TINY_TKG + [["Cy", "job", "farrier", "session-1"]]
    questions, report = tkg_questions(quads_from_rows(rows, script), script, know)
    assert not _by(questions, "session-3", "cur", "Cy do for a living")
    assert report.skipped["heard only an older value"] >= 1


def test_two_hop_questions_need_both_hops_heard(tiny):
    _, script, know = tiny
    questions, _ = tkg_questions(quads_from_rows(TINY_TKG, script), script, know)
    [chain] = _by(questions, "session-4", "past_past", "Cy had a boyfriend on February 1, 2020.")
    assert chain.hops == 2 and chain.answer == "baker" and chain.category == "two-hop"
    assert "What did that boyfriend do for a living" in chain.texts["default"]
    missed = _by(questions, "session-5", "unseen", "Ben had a girlfriend on February 1, 2020.")
    assert missed and all(q.hops == 2 and q.answer == IDK for q in missed), "the girlfriend's job was said without Ana"
    assert not _by(questions, "session-4", text="Who is the boyfriend of that girlfriend"), "answers itself"


def test_distractors_prefer_the_subjects_other_values_and_never_a_true_one(tiny):
    _, script, know = tiny
    questions, _ = tkg_questions(quads_from_rows(TINY_TKG, script), script, know)
    [q] = _by(questions, "session-5", "cur", "girlfriend of Ben")
    assert q.answer == "Dee" and "Cy" in q.options, "Ben's former girlfriend is the most tempting wrong answer"
    quads = quads_from_rows(TINY_TKG, script).quads
    tiers = distractor_pool(quads, "Ben", "girlfriend", people=["Ana", "Ben", "Cy"])
    assert tiers[0] == ["Cy", "Dee"]
    chosen = pick_distractors(tiers, ["Dee", "Ben"], 3, random.Random(0))
    assert chosen[0] == "Cy" and "Dee" not in chosen and "Ben" not in chosen and len(set(chosen)) == len(chosen)


def test_generation_is_seeded(tiny):
    _, script, know = tiny
    tkg = quads_from_rows(TINY_TKG, script)
    first = [q.model_dump() for q in tkg_questions(tkg, script, know)[0]]
    assert first == [q.model_dump() for q in tkg_questions(tkg, script, know)[0]]


def _quiz(**extra):
    base = {"id": "q", "question": "What does Cy make?", "answer": "Horseshoes",
            "options": ["Horseshoes", "Bread", "Rope", "Glass"], "evidence": ["session-2"]}
    return parse_fan_quiz([{**base, **extra}])


def test_fan_quiz_answerability(tiny):
    _, script, know = tiny
    missed = fan_questions(_quiz(question_with_time="What did Cy make {time}?"), script, know)
    assert {(q.session, q.type) for q in missed} == {
        ("session-1", "before_event_unans"),
        *[(s, t) for s in ("session-3", "session-4", "session-5") for t in ("dont_know_unans", "dont_know_unans_time")]}
    assert all(not q.answerable and q.answer == IDK for q in missed)
    assert any(q.texts["default"] == "What did Cy make on January 5, 2020?" for q in missed)
    heard = fan_questions(_quiz(evidence=["session-1"], answer="Bread"), script, know)
    assert {(q.session, q.type) for q in heard} == {(s, "ans_wo_time") for s in ("session-3", "session-4", "session-5")}
    assert all(q.answer == "Bread" and q.gold_marker != "(E)" for q in heard)


def test_fan_quiz_partly_heard_evidence_and_episodes(tiny):
    _, script, know = tiny
    assert fan_questions(_quiz(evidence=["session-1", "session-2"], sufficient="all"), script, know) == []
    either = fan_questions(_quiz(evidence=["session-1", "session-2"]), script, know)
    assert {q.session for q in either} == {"session-3", "session-4", "session-5"} and all(q.answerable for q in either)
    only = fan_questions(_quiz(evidence=["session-1"], episode=["session-3"]), script, know)
    assert {q.session for q in only} == {"session-3"}


def test_fan_quiz_with_several_evidence_scenes_is_answerable_after_the_first_one_witnessed(tiny):
    """The paper's Appendix C: when one scene is enough, the question is answerable after the
    first evidence scene the main character saw, not only after the last evidence scene."""
    _, script, know = tiny
    any_scene = fan_questions(_quiz(evidence=["session-1", "session-4"]), script, know)
    assert {q.session for q in any_scene if q.answerable} == {"session-3", "session-4", "session-5"}
    every_scene = fan_questions(_quiz(evidence=["session-1", "session-4"], sufficient="all"), script, know)
    assert {q.session for q in every_scene if q.answerable} == {"session-5"}
    missed_first = fan_questions(_quiz(evidence=["session-2", "session-4"]), script, know)
    assert {q.session for q in missed_first if q.answerable} == {"session-5"}, "session 2 was not witnessed"
    assert not any(q.session == "session-3" for q in missed_first), "after unseen evidence, more to come: left out"


def test_fan_quiz_rows_are_checked():
    from incanon.errors import InputError

    with pytest.raises(InputError, match="not among the options"):
        _quiz(answer="Nails")
    with pytest.raises(InputError, match="4 options"):
        _quiz(options=["A", "B"])
    with pytest.raises(InputError, match="placeholder"):
        _quiz(question_with_time="no time here")
