"""Claims that read right and are what they say: grammar, one script per Chinese claim, and no
"counterfactual" that the graph itself states as a fact (the examples found in review)."""

from __future__ import annotations

from pathlib import Path

import pytest
import zhconv

from incanon.bench.sharp.claims import edge_to_claim
from incanon.bench.sharp.conceptnet import Edge, parse_concept_uri, read_assertions
from incanon.bench.sharp.counterfactual import RULE_FUNCTIONS
from incanon.bench.sharp.knowledge import KnowledgeIndex
from incanon.bench.sharp.sampling import build_claims

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sharp" / "conceptnet_zh_en.csv"


def edge(relation: str, head: str, tail: str, lang: str = "en") -> Edge:
    h = parse_concept_uri(head if head.startswith("/c/") else f"/c/{lang}/{head}")
    t = parse_concept_uri(tail if tail.startswith("/c/") else f"/c/{lang}/{tail}")
    return Edge(uri="", relation=relation, head=h, tail=t, weight=1.0)


@pytest.mark.parametrize(("relation", "head", "tail", "was", "now"), [
    ("HasA", "dog/n", "four_legs/n", "A dog has a four legs.", "A dog has four legs."),
    ("UsedFor", "knife/n", "cutting/v", "A knife is used to cutting.", "A knife is used to cut."),
    ("ReceivesAction", "letter/n", "mail/v", "A letter can be mail.", "A letter can be mailed."),
    ("CapableOf", "cat/n", "catch_mouse/v", "A cat can catch mouse.", "A cat can catch mice."),
])
def test_the_four_ungrammatical_english_claims_now_read_right(relation, head, tail, was, now):
    claim = edge_to_claim(edge(relation, head, tail), "en")
    assert claim is not None and claim.text == now and claim.text != was


@pytest.mark.parametrize(("relation", "head", "tail", "text"), [
    ("ReceivesAction", "food/n", "eaten", "Food can be eaten."),  # already a participle
    ("ReceivesAction", "door/n", "open", "A door can be open."),  # an adjective stays
    ("CapableOf", "person/n", "eat_bread/v", "A person can eat bread."),  # mass noun: no plural
    ("CapableOf", "bird/n", "climb_trees/v", "A bird can climb trees."),  # already plural
    ("CapableOf", "person/n", "go_home/v", "A person can go home."),  # an adverb
    ("HasA", "person/n", "two_eyes/n", "A person has two eyes."),
    ("UsedFor", "knife/n", "cutting", "A knife is used for cutting."),  # a noun -ing form
])
def test_the_fixes_leave_what_was_right_alone(relation, head, tail, text):
    assert edge_to_claim(edge(relation, head, tail), "en").text == text


def _one_script(text: str) -> bool:
    return zhconv.convert(text, "zh-hans") == text or zhconv.convert(text, "zh-tw") == text


def test_a_chinese_claim_is_in_one_script_even_from_a_graph_mixing_them():
    piano = edge("IsA", "/c/zh/鋼琴/n", "/c/zh/樂器/n")  # both traditional, no character of the old list
    swapped = RULE_FUNCTIONS["swap"](piano, KnowledgeIndex([piano]), lang="zh")
    assert swapped.text == "樂器是一種鋼琴。"  # was "樂器是一种鋼琴。"
    mixed = edge("IsA", "/c/zh/钢琴/n", "/c/zh/樂器/n")
    assert edge_to_claim(mixed, "zh").text == "鋼琴是一種樂器。"
    assert edge_to_claim(edge("IsA", "/c/zh/钢琴/n", "/c/zh/乐器/n"), "zh").text == "钢琴是一种乐器。"
    # A traditional concept keeps its own characters (Taiwan's 吃, not 喫).
    assert edge_to_claim(edge("HasSubevent", "/c/zh/吃飯", "/c/zh/拿筷子"), "zh").text == "吃飯的時候會拿筷子。"
    claims = build_claims(list(read_assertions(EXAMPLE, langs="zh")), n=40, seed=3, lang="zh")
    assert claims and all(_one_script(c.text) for c in claims), [c.text for c in claims if not _one_script(c.text)]


def test_a_counterfactual_the_graph_states_as_a_fact_is_refused():
    cannot = edge("NotCapableOf", "/c/zh/狗/n", "/c/zh/跑/v")  # PTT's graph contradicts itself
    can = edge("CapableOf", "/c/zh/狗/n", "/c/zh/跑/v")
    assert RULE_FUNCTIONS["negation"](cannot, KnowledgeIndex([cannot]), lang="zh").text == "狗会跑。"
    assert RULE_FUNCTIONS["negation"](cannot, KnowledgeIndex([cannot, can]), lang="zh") is None
    # The same fact written in the other script is the same fact.
    cannot_fly = edge("NotCapableOf", "/c/zh/鸟/n", "/c/zh/飞/v")
    assert RULE_FUNCTIONS["negation"](cannot_fly, KnowledgeIndex([cannot_fly]), lang="zh").text == "鸟会飞。"
    can_fly = edge("CapableOf", "/c/zh/鳥/n", "/c/zh/飛/v")
    assert RULE_FUNCTIONS["negation"](cannot_fly, KnowledgeIndex([cannot_fly, can_fly]), lang="zh") is None


def test_the_index_treats_the_two_scripts_as_one_concept():
    index = KnowledgeIndex([edge("IsA", "/c/zh/狗/n", "/c/zh/动物/n"), edge("CapableOf", "/c/zh/動物/n", "/c/zh/跑/v")])
    dog, run = parse_concept_uri("/c/zh/狗/n"), parse_concept_uri("/c/zh/跑/v")
    assert index.implied("CapableOf", dog, run)  # a dog can run, because an animal can
    bark = edge("CapableOf", "/c/zh/狗/n", "/c/zh/叫/v")
    donor = edge("CapableOf", "/c/zh/鳥/n", "/c/zh/跑/v")
    index = KnowledgeIndex([bark, donor, edge("IsA", "/c/zh/狗/n", "/c/zh/动物/n"),
                            edge("CapableOf", "/c/zh/動物/n", "/c/zh/跑/v")])
    made = RULE_FUNCTIONS["substitute"](bark, index, lang="zh")
    assert made is None or made.text != "狗会跑。"


def test_a_goal_is_said_as_the_source_says_it_so_its_negation_is_false():
    eat = edge("MotivatedByGoal", "/c/zh/吃飯/v", "/c/zh/餓")
    claim = edge_to_claim(eat, "zh")
    negated = RULE_FUNCTIONS["negation"](eat, KnowledgeIndex([eat]), lang="zh")
    assert claim.text == "人們會因為餓而吃飯。" and negated.text == "人們不會因為餓而吃飯。"
    assert "想餓" not in claim.text + negated.text
