"""SHARP's counterfactual rules, one by one."""

from __future__ import annotations

import random

import pytest
from sharp_helpers import edge

from incanon.bench.sharp import (
    RULE_FUNCTIONS,
    KnowledgeIndex,
    absolute,
    antonym,
    edge_to_claim,
    negation,
    read_assertions,
    sample_assertions_path,
    substitute,
    swap,
)

HAMMER = edge("IsA", "hammer/n", "tool/n", 3.0)
DOG_BARK = edge("CapableOf", "dog/n", "bark/v", 4.0)
WHEEL = edge("PartOf", "wheel/n", "car/n", 2.0)
ICE = edge("HasProperty", "ice/n", "cold/a", 2.0)
SUGAR = edge("HasProperty", "sugar/n", "sweet/a", 2.0)


@pytest.fixture(scope="module")
def sample_index() -> KnowledgeIndex:
    return KnowledgeIndex(read_assertions(sample_assertions_path(), langs="en", min_weight=1.0))


def check_counterfactual(claim, source_edge, rule):
    """Every counterfactual: differs from the fact, labelled, with the source edge kept."""
    fact = edge_to_claim(source_edge)
    assert claim is not None
    assert claim.text != fact.text
    assert claim.label == "counterfactual"
    assert claim.rule == rule
    assert claim.lang == "en"
    assert claim.source.relation == source_edge.relation
    assert claim.source.head == source_edge.head.text
    assert claim.source.tail == source_edge.tail.text
    assert claim.source.weight == source_edge.weight
    assert claim.source.assertion == source_edge.uri
    assert claim.text.endswith(".") and claim.text[0].isupper()


# -- negation ----------------------------------------------------------------------------------


def test_negation():
    claim = negation(HAMMER)
    check_counterfactual(claim, HAMMER, "negation")
    assert claim.text == "A hammer is not a tool."
    assert negation(DOG_BARK).text == "A dog cannot bark."
    assert negation(edge("HasA", "bird/n", "beak/n")).text == "A bird does not have a beak."


def test_negating_a_negative_fact_makes_it_positive():
    penguin = edge("NotCapableOf", "penguin/n", "fly/v")
    assert edge_to_claim(penguin).text == "A penguin cannot fly."
    claim = negation(penguin)
    check_counterfactual(claim, penguin, "negation")
    assert claim.text == "A penguin can fly."


# -- absolute qualifier ------------------------------------------------------------------------


def test_absolute_contradicts_rather_than_strengthens():
    claim = absolute(HAMMER)
    check_counterfactual(claim, HAMMER, "absolute")
    assert claim.text == "Every tool is a hammer."
    assert absolute(DOG_BARK).text == "Dogs can never bark."
    assert absolute(ICE).text == "Ice is never cold."
    assert absolute(WHEEL).text == "Cars never have wheels."
    # "Every hammer is a tool" would merely be stronger, and true: never produced.
    assert absolute(HAMMER).text != "Every hammer is a tool."


def test_absolute_refused_for_near_synonyms():
    drink = edge("IsA", "drink/n", "beverage/n")
    assert absolute(drink) is not None  # nothing known about the pair
    index = KnowledgeIndex([drink, edge("Synonym", "drink/n", "beverage/n")])
    assert absolute(drink, index) is None
    index = KnowledgeIndex([drink, edge("IsA", "beverage/n", "drink/n")])
    assert absolute(drink, index) is None


def test_absolute_not_applicable():
    assert absolute(edge("Antonym", "hot/a", "cold/a")) is None
    assert absolute(edge("NotCapableOf", "penguin/n", "fly/v")) is None


# -- antonym -----------------------------------------------------------------------------------


def test_antonym_from_the_files_antonym_edges():
    index = KnowledgeIndex([SUGAR, edge("Antonym", "sweet/a", "sour/a", 2.0)])
    claim = antonym(SUGAR, index)
    check_counterfactual(claim, SUGAR, "antonym")
    assert claim.text == "Sugar is sour."
    assert "graph" in claim.detail
    # Antonym edges work in both directions.
    lemon = edge("HasProperty", "lemon/n", "sour/a")
    index.add(lemon)
    assert antonym(lemon, index).text == "A lemon is sweet."


def test_antonym_falls_back_to_the_built_in_lexicon():
    claim = antonym(SUGAR, KnowledgeIndex([SUGAR]))  # no Antonym edge for "sweet"
    check_counterfactual(claim, SUGAR, "antonym")
    assert claim.text == "Sugar is bitter."
    assert "lexicon" in claim.detail
    assert antonym(ICE).text == "Ice is hot."  # no index at all


def test_antonym_prefers_the_heaviest_graph_edge():
    index = KnowledgeIndex([ICE, edge("Antonym", "cold/a", "warm/a", 1.0), edge("Antonym", "hot/a", "cold/a", 4.0)])
    assert antonym(ICE, index).text == "Ice is hot."


def test_antonym_replaces_one_word_of_a_phrase():
    fridge = edge("UsedFor", "refrigerator/n", "keep_food_cold/v")
    claim = antonym(fridge)
    check_counterfactual(claim, fridge, "antonym")
    assert claim.text == "A refrigerator is used to keep food hot."


def test_antonym_leaves_nouns_after_determiners_alone():
    owl = edge("CapableOf", "owl/n", "see_in_the_dark/v")
    assert antonym(owl, KnowledgeIndex([owl, edge("Antonym", "bright/a", "dark/a")])) is None


def test_antonym_of_a_verb_must_be_a_verb():
    dinner = edge("HasPrerequisite", "cook_dinner/v", "buy_food/v")
    assert antonym(dinner).text == "To cook dinner, you need to sell food."
    # "clean" as a verb has no verb antonym: "used to dirty teeth" is never made.
    brush = edge("UsedFor", "toothbrush/n", "clean_teeth/v")
    index = KnowledgeIndex([brush, edge("Antonym", "clean/a", "dirty/a")])
    assert antonym(brush, index) is None


def test_antonym_skips_results_the_graph_says_are_true():
    coffee_hot = edge("HasProperty", "coffee/n", "hot/a")
    coffee_cold = edge("HasProperty", "coffee/n", "cold/a")
    index = KnowledgeIndex([coffee_hot, coffee_cold, edge("Antonym", "hot/a", "cold/a")])
    assert antonym(coffee_hot, index) is None


def test_antonym_leaves_abilities_alone():
    # What can cry can usually laugh; a door that can be opened can be closed.
    assert antonym(edge("CapableOf", "baby/n", "cry/v")) is None
    assert antonym(edge("ReceivesAction", "door/n", "opened/v")) is None


def test_antonym_not_applicable():
    assert antonym(edge("IsA", "dog/n", "animal/n")) is None  # nothing to invert
    assert antonym(edge("NotCapableOf", "snail/n", "run_fast/v")) is None  # negative relation
    assert antonym(edge("Antonym", "hot/a", "cold/a")) is None


# -- swap --------------------------------------------------------------------------------------


def test_swap_for_asymmetric_relations():
    claim = swap(HAMMER)
    check_counterfactual(claim, HAMMER, "swap")
    assert claim.text == "A tool is a hammer."
    assert swap(WHEEL).text == "A car is part of a wheel."
    assert swap(edge("MadeOf", "table/n", "wood/n")).text == "Wood is made of tables."


def test_swap_refused_where_it_is_not_false_or_not_grammatical():
    assert swap(DOG_BARK) is None  # symmetric-unknown / verb tail
    assert swap(ICE) is None
    assert swap(edge("UsedFor", "knife/n", "cut_bread/v")) is None
    index = KnowledgeIndex([edge("IsA", "sofa/n", "couch/n"), edge("IsA", "couch/n", "sofa/n")])
    assert swap(edge("IsA", "sofa/n", "couch/n"), index) is None
    assert swap(edge("IsA", "thing/n", "thing/n")) is None


# -- substitute --------------------------------------------------------------------------------


def test_substitute_draws_a_tail_from_another_head(sample_index):
    claim = substitute(DOG_BARK, sample_index, rng=random.Random(1))
    check_counterfactual(claim, DOG_BARK, "substitute")
    assert claim.text.startswith("A dog can ")
    new_tail = claim.detail.split("-> ")[1].split("'")[1]
    donors = [e for e in sample_index.by_relation[("en", "CapableOf")] if e.tail.text == new_tail]
    assert donors and all(d.head.text != "dog" for d in donors)
    # never a kin's ability (dog and cat are both animals), never a known pair
    assert not any(sample_index.siblings(DOG_BARK.head, d.head) for d in donors)
    assert not sample_index.linked(DOG_BARK.head, donors[0].tail)


def test_substitute_is_deterministic_for_a_seed(sample_index):
    a = substitute(DOG_BARK, sample_index, rng=random.Random(5))
    b = substitute(DOG_BARK, sample_index, rng=random.Random(5))
    assert a == b
    texts = {substitute(DOG_BARK, sample_index, rng=random.Random(s)).text for s in range(20)}
    assert len(texts) > 1


def test_substitute_respects_inheritance():
    shark = edge("CapableOf", "shark/n", "bite/v")
    index = KnowledgeIndex([
        shark,
        edge("IsA", "shark/n", "fish/n"),
        edge("CapableOf", "fish/n", "swim/v"),
        edge("CapableOf", "kettle/n", "boil_water/v"),
    ])
    for seed in range(30):
        claim = substitute(shark, index, rng=random.Random(seed))
        assert claim.text == "A shark can boil water."  # "A shark can swim." is inherited, so true


def test_substitute_not_applicable():
    assert substitute(DOG_BARK) is None  # nothing to draw from
    lonely = KnowledgeIndex([DOG_BARK])
    assert substitute(DOG_BARK, lonely) is None
    at = edge("AtLocation", "fork/n", "kitchen/n")
    index = KnowledgeIndex([at, edge("AtLocation", "book/n", "library/n")])
    assert substitute(at, index) is None  # places are too permissive to be surely false
    book = edge("ReceivesAction", "book/n", "read/v")
    index = KnowledgeIndex([book, edge("ReceivesAction", "letter/n", "mailed/v")])
    assert substitute(book, index) is None  # "A book can be mailed." is true


# -- all rules ---------------------------------------------------------------------------------


def test_every_rule_on_the_sample_differs_from_its_fact(sample_index):
    edges = list(read_assertions(sample_assertions_path(), langs="en", min_weight=1.0))
    made = {name: 0 for name in RULE_FUNCTIONS}
    for e in edges:
        fact = edge_to_claim(e)
        for name, rule in RULE_FUNCTIONS.items():
            claim = rule(e, sample_index, rng=random.Random(0))
            if claim is None:
                continue
            made[name] += 1
            assert fact is not None
            assert claim.text != fact.text and claim.rule == name and claim.label == "counterfactual"
            assert "  " not in claim.text and claim.text.endswith(".")
    assert all(count >= 20 for count in made.values()), made


def test_rules_skip_edges_in_other_languages():
    fr = edge("IsA", "/c/fr/chien/n", "/c/fr/animal/n")
    assert all(rule(fr, KnowledgeIndex([fr])) is None for rule in RULE_FUNCTIONS.values())
