"""English relation templates, grammar helpers and the language registry."""

from __future__ import annotations

import pytest
from sharp_helpers import edge

from incanon.bench.sharp import (
    Forms,
    Language,
    available_languages,
    edge_to_claim,
    get_language,
    parse_concept_uri,
    register_language,
)
from incanon.bench.sharp.lang._en_grammar import NP, article, gerund, pluralize, third_person
from incanon.errors import ConfigError


def fact(rel: str, head: str, tail: str) -> str:
    claim = edge_to_claim(edge(rel, head, tail))
    assert claim is not None, (rel, head, tail)
    return claim.text


@pytest.mark.parametrize(
    ("rel", "head", "tail", "expected"),
    [
        ("IsA", "dog/n", "animal/n", "A dog is an animal."),
        ("IsA", "hour/n", "unit_of_time/n", "An hour is a unit of time."),
        ("IsA", "scissors/n", "tool/n", "Scissors are a tool."),
        ("IsA", "milk/n", "drink/n", "Milk is a drink."),
        ("IsA", "soccer/n", "sport/n", "Soccer is a sport."),
        ("UsedFor", "knife/n", "cut_bread/v", "A knife is used to cut bread."),
        ("UsedFor", "car/n", "transportation/n", "A car is used for transportation."),
        ("UsedFor", "umbrella/n", "stay_dry/v", "An umbrella is used to stay dry."),
        ("CapableOf", "dog/n", "bark/v", "A dog can bark."),
        ("HasProperty", "lemon/n", "sour/a", "A lemon is sour."),
        ("HasProperty", "ice/n", "cold/a", "Ice is cold."),
        ("AtLocation", "fork/n", "kitchen/n", "You can find a fork in a kitchen."),
        ("AtLocation", "book/n", "shelf/n", "You can find a book on a shelf."),
        ("AtLocation", "student/n", "school/n", "You can find a student at school."),
        ("AtLocation", "lion/n", "zoo/n", "You can find a lion at a zoo."),
        ("AtLocation", "cloud/n", "sky/n", "You can find a cloud in the sky."),
        ("AtLocation", "sky/n", "cloud/n", "You can find the sky in a cloud."),
        ("PartOf", "wheel/n", "car/n", "A wheel is part of a car."),
        ("HasA", "bird/n", "wing/n", "A bird has wings."),
        ("HasA", "bird/n", "beak/n", "A bird has a beak."),
        ("Desires", "cat/n", "chase_mice/v", "A cat wants to chase mice."),
        ("Desires", "plant/n", "sunlight/n", "A plant wants sunlight."),
        ("MadeOf", "table/n", "wood/n", "A table is made of wood."),
        ("MadeOf", "house/n", "brick/n", "A house is made of bricks."),
        ("HasPrerequisite", "bake_a_cake/v", "have_an_oven/v", "To bake a cake, you need to have an oven."),
        ("HasPrerequisite", "drive_a_car/v", "license/n", "To drive a car, you need a license."),
        ("CausesDesire", "hunger/n", "eat/v", "Hunger makes you want to eat."),
        ("MotivatedByGoal", "study/v", "pass_an_exam/v", "People study because they want to pass an exam."),
        ("MotivatedByGoal", "brush_your_teeth/v", "prevent_cavities/v",
         "People brush their teeth because they want to prevent cavities."),
        ("ReceivesAction", "ball/n", "kicked/v", "A ball can be kicked."),
        ("CreatedBy", "honey/n", "bee/n", "Honey is made by bees."),
        ("CreatedBy", "cake/n", "baker/n", "A cake is made by a baker."),
        ("Causes", "smoking/n", "cancer/n", "Smoking can cause cancer."),
        ("Causes", "run/v", "get_tired/v", "Running can make you get tired."),
        ("Causes", "virus/n", "disease/n", "A virus can cause a disease."),
        ("HasSubevent", "eat/v", "chew/v", "Eating involves chewing."),
        ("HasFirstSubevent", "go_to_sleep/v", "close_your_eyes/v",
         "The first thing you do when you go to sleep is close your eyes."),
        ("HasLastSubevent", "take_a_shower/v", "dry_off/v", "The last thing you do when you take a shower is dry off."),
        ("LocatedNear", "pillow/n", "blanket/n", "A pillow is often found near a blanket."),
        ("SymbolOf", "dove/n", "peace/n", "A dove is a symbol of peace."),
        ("NotCapableOf", "penguin/n", "fly/v", "A penguin cannot fly."),
        ("NotDesires", "cat/n", "take_a_bath/v", "A cat does not want to take a bath."),
        ("Antonym", "hot/a", "cold/a", "The opposite of hot is cold."),
        ("Synonym", "big/a", "large/a", "Big means the same as large."),
    ],
)
def test_each_relation_renders_a_sentence(rel, head, tail, expected):
    assert fact(rel, head, tail) == expected


def test_negated_and_absolute_forms():
    en = get_language("en")
    c = parse_concept_uri
    assert en.forms("IsA", c("/c/en/hammer/n"), c("/c/en/tool/n")) == Forms(
        "A hammer is a tool.", "A hammer is not a tool.", "Every tool is a hammer."
    )
    assert en.forms("CapableOf", c("/c/en/dog/n"), c("/c/en/bark/v")) == Forms(
        "A dog can bark.", "A dog cannot bark.", "Dogs can never bark."
    )
    assert en.forms("UsedFor", c("/c/en/knife/n"), c("/c/en/cut_bread/v")).absolute == "Knives are never used to cut bread."
    assert en.forms("HasProperty", c("/c/en/ice/n"), c("/c/en/cold/a")).absolute == "Ice is never cold."
    assert en.forms("PartOf", c("/c/en/wheel/n"), c("/c/en/car/n")).absolute == "Cars never have wheels."
    assert en.forms("HasA", c("/c/en/bird/n"), c("/c/en/beak/n")).negated == "A bird does not have a beak."
    assert en.forms("HasA", c("/c/en/bird/n"), c("/c/en/beak/n")).absolute == "No bird has a beak."
    assert en.forms("MotivatedByGoal", c("/c/en/study/v"), c("/c/en/learn/v")).absolute == (
        "Nobody ever studies because they want to learn."
    )
    assert en.forms("NotCapableOf", c("/c/en/penguin/n"), c("/c/en/fly/v")).negated == "A penguin can fly."
    assert en.forms("Antonym", c("/c/en/hot/a"), c("/c/en/cold/a")).absolute is None


def test_unknown_relation_or_other_language_gives_no_claim():
    assert edge_to_claim(edge("RelatedTo", "dog/n", "bone/n")) is None
    assert edge_to_claim(edge("dbpedia/genre", "jazz/n", "music/n")) is None
    assert edge_to_claim(edge("IsA", "/c/fr/chien/n", "/c/fr/animal/n")) is None
    assert edge_to_claim(edge("Synonym", "dog/n", "/c/fr/chien/n")) is None
    assert edge_to_claim(edge("MotivatedByGoal", "money/n", "buy_food/v")) is None  # needs a verb head


def test_factual_claim_records_its_source():
    e = edge("IsA", "dog/n", "animal/n", weight=2.5)
    claim = edge_to_claim(e)
    assert claim.label == "factual" and claim.rule is None and claim.lang == "en"
    assert claim.source.relation == "IsA"
    assert (claim.source.head, claim.source.tail, claim.source.weight) == ("dog", "animal", 2.5)
    assert claim.source.assertion == e.uri
    assert claim.source.head_uri == "/c/en/dog/n"
    assert len(claim.id) == 16 and edge_to_claim(e).id == claim.id


@pytest.mark.parametrize(
    ("word", "expected"),
    [("apple", "an"), ("dog", "a"), ("hour", "an"), ("honest man", "an"), ("unicorn", "a"),
     ("university", "a"), ("umbrella", "an"), ("euro", "a"), ("one-way street", "a"), ("egg", "an")],
)
def test_article(word, expected):
    assert article(word) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [("dog", "dogs"), ("box", "boxes"), ("church", "churches"), ("city", "cities"), ("day", "days"),
     ("knife", "knives"), ("person", "people"), ("fish", "fish"), ("child", "children"), ("potato", "potatoes"),
     ("snowman", "snowmen"), ("human", "humans")],
)
def test_pluralize(word, expected):
    assert pluralize(word) == expected


def test_noun_phrases_and_verb_forms():
    assert NP.of("cup of tea").pl == "cups of tea"
    assert NP.of("water").a == "water" and NP.of("water").pl_be == "is"
    assert NP.of("scissors").a == "scissors" and NP.of("scissors").be == "are"
    assert NP.of("happiness").kind == "mass"
    assert NP.of("sky").a == "the sky" and NP.of("sky").pl_be == "is"
    assert NP.of("building").kind == "count"
    assert NP.of(parse_concept_uri("/c/en/play_tennis/v")).text == "playing tennis"
    assert [gerund(v) for v in ("run", "make tea", "swim", "open", "lie", "see", "read")] == [
        "running", "making tea", "swimming", "opening", "lying", "seeing", "reading"]
    assert [third_person(v) for v in ("study hard", "go", "watch tv", "play", "have fun")] == [
        "studies hard", "goes", "watches tv", "plays", "has fun"]


def test_verb_phrase_is_guessed_when_the_uri_has_no_pos():
    assert fact("UsedFor", "knife", "cut_bread") == "A knife is used to cut bread."
    assert fact("UsedFor", "car", "transportation") == "A car is used for transportation."


def test_registry_unknown_language_is_a_config_error():
    with pytest.raises(ConfigError, match="no claim templates for language 'tlh'"):
        get_language("tlh")
    assert "en" in available_languages()


def test_a_new_language_registers_its_own_templates():
    toy = Language(code="xx", name="Shouty", antonyms={"HOT": "COLD"}, end_mark="!")

    @toy.relation("IsA")
    def _is_a(head, tail):
        return Forms(f"{head.text.upper()} IS {tail.text.upper()}", f"{head.text.upper()} IS NOT {tail.text.upper()}")

    register_language(toy)
    try:
        assert get_language("xx") is toy
        claim = edge_to_claim(edge("IsA", "/c/xx/dog/n", "/c/xx/animal/n"), lang="xx")
        assert claim.text == "DOG IS ANIMAL!" and claim.lang == "xx"
        assert edge_to_claim(edge("UsedFor", "/c/xx/dog/n", "/c/xx/hunt/v"), lang="xx") is None
        assert "xx" in available_languages()
    finally:
        from incanon.bench.sharp import templates

        templates._REGISTRY.pop("xx", None)
