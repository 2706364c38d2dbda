"""English claims read right: the forbidden-pattern check (``lang.en_check``) catches the
ungrammatical claims found in review, and a sample of 200 claims drawn from a ConceptNet-format
graph of our own (the assertion CSV layout, with the phrases that produced them) passes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.bench.sharp.claims import edge_to_claim
from incanon.bench.sharp.conceptnet import read_assertions
from incanon.bench.sharp.lang.en_check import problems, ungrammatical
from incanon.bench.sharp.sampling import build_claims

from sharp_helpers import cn_line, edge

FOUND = ["An umbrella is used for a staying dry.", "People eat because they want a hungry.",
         "Getting married involves exchange rings.", "To bake a cake, you do not need a preheat the oven.",
         "People do not study because they want a pass an exam.", "Playing football does not involve a scoring a goal.",
         "A person wants a to be happy.", "An eating too much can cause a stomachache.",
         "People run because they want a leave healthy."]
"""The eight ungrammatical claims of the review (six of a sample of 40, two outside it), and one
the antonym rule made from "stay healthy" while these were fixed."""

RIGHT = ["A dog has four legs.", "A knife is used for cutting.", "A rolling pin is used to flatten dough.",
         "A wedding involves a ring.", "Give a dog a bone.", "A building is a structure.", "A person wants good food.",
         "An hour is a unit of time.", "Honey is made by bees.", "A child wants to play."]

EDGES = [  # (relation, head, tail): the phrases behind FOUND, and more of the same shapes
    ("UsedFor", "umbrella/n", "staying_dry"), ("MotivatedByGoal", "eat", "hungry"),
    ("HasSubevent", "getting_married", "exchange_rings"), ("HasPrerequisite", "bake_a_cake", "preheat_the_oven"),
    ("MotivatedByGoal", "study", "pass_an_exam"), ("HasSubevent", "playing_football", "scoring_a_goal"),
    ("Desires", "person/n", "to_be_happy"), ("Causes", "eating_too_much", "stomachache"),
    ("Desires", "child/n", "happy"), ("UsedFor", "oven/n", "baking_bread"), ("UsedFor", "towel/n", "drying_off"),
    ("HasSubevent", "going_to_school", "learn_things"), ("HasSubevent", "cooking_dinner", "wash_the_dishes"),
    ("HasPrerequisite", "drive_a_car", "start_the_engine"), ("HasPrerequisite", "sleep", "close_your_eyes"),
    ("MotivatedByGoal", "run", "stay_healthy"), ("MotivatedByGoal", "work", "earn_money"),
    ("MotivatedByGoal", "drink_water", "thirsty"), ("Desires", "dog/n", "to_go_outside"),
    ("CausesDesire", "hunger", "eating_food"), ("CausesDesire", "cold", "to_wear_a_coat"),
    ("Causes", "running_a_marathon", "tiredness"), ("Causes", "reading_in_the_dark", "eye_strain"),
    ("HasFirstSubevent", "cook/v", "turn_on_the_stove/v"), ("HasLastSubevent", "eat/v", "wash_up/v"),
    ("CapableOf", "bird/n", "build_nests/v"), ("CapableOf", "cat/n", "catch_mouse/v"),
    ("UsedFor", "rolling_pin/n", "flatten_dough/v"), ("UsedFor", "pen/n", "writing"),
    ("AtLocation", "fish/n", "sea/n"), ("AtLocation", "book/n", "library/n"), ("HasA", "bird/n", "tail/n"),
    ("HasA", "dog/n", "four_legs/n"), ("IsA", "dog/n", "animal/n"), ("IsA", "oak/n", "tree/n"),
    ("HasProperty", "ice/n", "cold/a"), ("HasProperty", "sugar/n", "sweet/a"), ("PartOf", "wheel/n", "car/n"),
    ("MadeOf", "window/n", "glass/n"), ("ReceivesAction", "letter/n", "mail/v"), ("CreatedBy", "honey/n", "bees/n"),
    ("Desires", "student/n", "good_grades/n"), ("HasSubevent", "wedding/n", "ring/n"),
    ("HasPrerequisite", "buy_a_house", "save_money"), ("UsedFor", "ladder/n", "climb/v"),
    ("Antonym", "hot/a", "cold/a"), ("Antonym", "happy/a", "sad/a"), ("Antonym", "stay/v", "leave/v"),
]

SAMPLE = Path(__file__).resolve().parents[3] / "src" / "incanon" / "data" / "conceptnet" / "sample_assertions.csv"


def test_the_check_catches_every_claim_found_in_review():
    for sentence in FOUND:
        assert problems(sentence), sentence


def test_the_check_leaves_grammatical_sentences_alone():
    assert ungrammatical(RIGHT) == {}


@pytest.mark.parametrize(("relation", "head", "tail", "now"), [
    ("UsedFor", "umbrella/n", "staying_dry", "An umbrella is used to stay dry."),
    ("MotivatedByGoal", "eat", "hungry", "People eat because they are hungry."),
    ("HasSubevent", "getting_married", "exchange_rings", "Getting married involves exchanging rings."),
    ("HasPrerequisite", "bake_a_cake", "preheat_the_oven", "To bake a cake, you need to preheat the oven."),
    ("MotivatedByGoal", "study", "pass_an_exam", "People study because they want to pass an exam."),
    ("HasSubevent", "playing_football", "scoring_a_goal", "Playing football involves scoring a goal."),
    ("Desires", "person/n", "to_be_happy", "A person wants to be happy."),
    ("Causes", "eating_too_much", "stomachache", "Eating too much can cause a stomachache."),
    ("MotivatedByGoal", "run", "leave_healthy", "People run because they want to leave healthy."),
])
def test_the_templates_now_say_them_right(relation, head, tail, now):
    claim = edge_to_claim(edge(relation, head, tail), "en")
    assert claim is not None and claim.text == now and not problems(now)


def test_a_sample_of_200_english_claims_has_no_ungrammatical_one(tmp_path: Path):
    path = tmp_path / "assertions.csv"
    path.write_text("\n".join(cn_line(*e) for e in EDGES) + "\n", encoding="utf-8")
    ours = list(read_assertions(path, langs="en"))
    claims = build_claims(ours + list(read_assertions(SAMPLE, langs="en")), 200, seed=3, separate_edges=False)
    assert len(claims) == 200
    assert ungrammatical(c.text for c in claims) == {}
    # Every form every edge of ours can take (facts, negations, absolutes), not only those drawn.
    from incanon.bench.sharp.counterfactual import RULE_FUNCTIONS
    from incanon.bench.sharp.knowledge import KnowledgeIndex

    index = KnowledgeIndex(ours)
    texts = {c.text for c in (edge_to_claim(e, "en") for e in ours) if c is not None}
    for rule in RULE_FUNCTIONS.values():
        texts |= {c.text for c in (rule(e, index, lang="en") for e in ours) if c is not None}
    assert len(texts) > 100 and ungrammatical(texts) == {}
