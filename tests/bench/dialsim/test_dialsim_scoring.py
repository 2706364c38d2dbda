"""Multiple-choice markers, exact match and the judge."""

from __future__ import annotations

import pytest

from incanon.bench.dialsim import AnswerJudge, markers_in, score_mc
from incanon.bench.dialsim.formats import render_question, strip_choices
from incanon.bench.dialsim.scoring import exact_match, score_exact_only
from incanon.models import ScriptedModel


@pytest.mark.parametrize("answer, strict, lenient", [
    ("(B)", "correct", "correct"),
    ("(B) Paul", "correct", "correct"),
    ("The answer is (b).", "wrong", "correct"),  # the reference wants the marker as written
    ("( B ) Paul", "wrong", "correct"),
    ("(B) and (b)", "correct", "correct"),  # the gold marker's own lower case is not another option
    ("(B) Paul, I'm sure: (B).", "correct", "correct"),
    ("(C)", "wrong", "wrong"),
    ("(E) I don't know.", "wrong", "wrong"),
    ("(B) or maybe (C)", "ambiguous", "ambiguous"),
    ("(B) or maybe (c)", "ambiguous", "ambiguous"),
    ("(B) or maybe ( C )", "correct", "ambiguous"),  # the reference sees no spaced marker
    ("Not (A), so (B).", "ambiguous", "ambiguous"),
    ("B", "wrong", "wrong"),
    ("Paul", "wrong", "wrong"),
    ("", "wrong", "wrong"),
])
def test_mc_marker_rule_strict_as_the_reference_and_lenient(answer, strict, lenient):
    assert score_mc(answer, "(B)").verdict == strict
    assert score_mc(answer, "(B)", lenient=True).verdict == lenient


def test_ambiguous_counts_as_not_correct_and_lists_the_markers():
    score = score_mc("(A) and (D)", "(A)")
    assert score.verdict == "ambiguous" and score.correct is False
    assert markers_in("(a) then ( D ) then (A)") == ["(A)", "(D)"]


def test_gold_marker_must_be_a_marker():
    with pytest.raises(ValueError):
        score_mc("(A)", "A")


@pytest.mark.parametrize("answer, gold, lenient, strict", [
    ("I do not know", "I don't know.", True, False),
    ("i don't know", "I don't know.", True, False),
    ("The baker.", "baker", True, False),
    ("baker.", "baker", True, True),  # the reference also takes the gold answer with a full stop
    ("I don't know.", "I don't know.", True, True),
    ("Ben", "Ben Callow", False, False),
    ("", "", False, False),
])
def test_exact_match(answer, gold, lenient, strict):
    assert exact_match(answer, gold) is lenient
    assert exact_match(answer, gold, lenient=False) is strict


async def test_open_answers_go_to_the_judge_unless_they_match_exactly():
    judge_model = ScriptedModel(rules=[(r"Given answer: the smith", "Same person. Score: 1")], default="No. Score: 0")
    judge = AnswerJudge(judge_model)
    assert (await judge.score("Who?", "Cy", "Cy")).method == "exact"
    assert (await judge.score("Who?", "Cy", "Cy.")).method == "exact"
    assert len(judge_model.calls) == 0
    yes = await judge.score("What is Cy's job?", "smith", "the smith on the corner")
    assert yes.verdict == "correct" and yes.method == "judge"
    no = await judge.score("What is Cy's job?", "smith", "a baker")
    assert no.verdict == "wrong"


async def test_a_judge_without_a_verdict_leaves_the_answer_unjudged_not_wrong():
    judge = AnswerJudge(ScriptedModel(default="I cannot decide."))
    score = await judge.score("Who?", "Cy", "maybe Ben")
    assert score.verdict == "unjudged" and score.correct is None
    assert score_exact_only("maybe Ben", "Cy").verdict == "unjudged"


def test_formats():
    options = ["Ben", "Cy", "Dee", "Ana", "I don't know."]
    mc = render_question("Who is Ben seeing?", options, "mc")
    assert mc.splitlines()[1:] == ["(A) Ben", "(B) Cy", "(C) Dee", "(D) Ana", "(E) I don't know."]
    assert strip_choices(mc) == "Who is Ben seeing?"
    assert render_question("Who is Ben seeing?", options, "mc-nl") == \
        "Who is Ben seeing? Is it Ben, Cy, Dee or Ana, or don't you know?"
    assert render_question("Who is Ben seeing?", options, "open") == "Who is Ben seeing?"
