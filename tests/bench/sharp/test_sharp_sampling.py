"""build_claims: balance, seeds, duplicates, separate edges, shortfall, reports."""

from __future__ import annotations

import logging
from collections import Counter

import pytest
from sharp_helpers import edge

from incanon.bench.sharp import RULES, BuildReport, build_claims, read_assertions, sample_assertions_path
from incanon.errors import ConfigError


@pytest.fixture(scope="module")
def edges():
    return list(read_assertions(sample_assertions_path(), langs="en", min_weight=1.0))


def norm(text: str) -> str:
    return text.casefold().rstrip(".")


def test_balanced_labels_and_rules(edges):
    claims = build_claims(edges, n=100, seed=1)
    assert len(claims) == 100
    labels = Counter(c.label for c in claims)
    assert labels == {"factual": 50, "counterfactual": 50}
    rules = Counter(c.rule for c in claims if c.label == "counterfactual")
    assert rules == {rule: 10 for rule in RULES}
    assert all(c.rule is None for c in claims if c.label == "factual")


def test_uneven_split_stays_within_one(edges):
    claims = build_claims(edges, n=37, seed=2, ratio=0.5)
    labels = Counter(c.label for c in claims)
    assert len(claims) == 37 and abs(labels["factual"] - labels["counterfactual"]) <= 1
    per_rule = Counter(c.rule for c in claims if c.rule)
    assert max(per_rule.values()) - min(per_rule.values()) <= 1


def test_ratio_and_rule_subset(edges):
    claims = build_claims(edges, n=40, seed=3, ratio=0.25, rules=["negation", "swap"])
    labels = Counter(c.label for c in claims)
    assert labels == {"factual": 30, "counterfactual": 10}
    assert Counter(c.rule for c in claims if c.rule) == {"negation": 5, "swap": 5}
    assert all(c.label == "factual" for c in build_claims(edges, n=10, seed=3, ratio=0.0))
    assert all(c.label == "counterfactual" for c in build_claims(edges, n=10, seed=3, ratio=1.0))


def test_same_seed_same_claims_same_order(edges):
    a = build_claims(edges, n=60, seed=11)
    b = build_claims(edges, n=60, seed=11)
    assert [c.model_dump() for c in a] == [c.model_dump() for c in b]
    # and regardless of the order the edges arrive in
    c = build_claims(list(reversed(edges)), n=60, seed=11)
    assert [x.text for x in c] == [x.text for x in a]


def test_different_seed_different_claims(edges):
    a = [c.text for c in build_claims(edges, n=60, seed=11)]
    b = [c.text for c in build_claims(edges, n=60, seed=12)]
    assert a != b
    assert set(a) != set(b)


def test_labels_are_interleaved_not_blocked(edges):
    labels = [c.label for c in build_claims(edges, n=60, seed=4)]
    assert labels[:30] != ["factual"] * 30 and labels[:30] != ["counterfactual"] * 30


def test_no_duplicate_texts(edges):
    for seed in range(5):
        claims = build_claims(edges, n=250, seed=seed)
        texts = [norm(c.text) for c in claims]
        assert len(texts) == len(set(texts))
        assert len({c.id for c in claims}) == len(claims)


def test_duplicate_edges_give_one_claim():
    dog = edge("IsA", "dog/n", "animal/n", 1.0)
    dog_again = edge("IsA", "dog/n", "animal/n", 3.0)
    report = BuildReport()
    claims = build_claims([dog, dog_again], n=4, seed=0, ratio=0.0, report=report)
    assert [c.text for c in claims] == ["A dog is an animal."]
    assert claims[0].source.weight == 3.0  # the heavier duplicate wins
    assert report.skipped["duplicate"] == 1


def test_fact_and_its_counterfactual_come_from_different_edges(edges):
    claims = build_claims(edges, n=250, seed=5)
    sources = Counter(c.source.assertion for c in claims)
    assert max(sources.values()) == 1


def test_shared_edges_can_be_allowed(edges):
    claims = build_claims(edges, n=250, seed=5, separate_edges=False)
    per_edge = Counter(c.source.assertion for c in claims)
    assert max(per_edge.values()) == 2  # a fact and one counterfactual at most
    for assertion, count in per_edge.items():
        if count == 2:
            labels = {c.label for c in claims if c.source.assertion == assertion}
            assert labels == {"factual", "counterfactual"}


def test_report_counts_what_was_skipped(edges):
    report = BuildReport()
    build_claims(edges, n=20, seed=0, report=report)
    assert report.edges == len(edges)
    assert report.skipped["excluded_relation"] >= 20  # Antonym and Synonym edges
    assert report.skipped["no_template"] >= 5  # RelatedTo edges
    assert report.candidates == len(edges) - sum(report.skipped.values())
    assert report.made["fact"] == 10 and report.shortfall == 0

    everything = list(read_assertions(sample_assertions_path()))
    report = BuildReport()
    build_claims(everything, n=20, seed=0, report=report)
    assert report.skipped["language"] >= 10


def test_relation_filter_and_exclusions(edges):
    claims = build_claims(edges, n=20, seed=0, relations=["/r/IsA"])
    assert {c.source.relation for c in claims} == {"IsA"}
    antonyms = build_claims(edges, n=6, seed=0, ratio=0.0, relations=["Antonym"], exclude_relations=[])
    assert all(c.text.startswith("The opposite of") for c in antonyms) and len(antonyms) == 6


def test_scarce_rule_hands_its_share_to_others(caplog):
    # No antonym applies and nothing is asymmetric: negation and absolute take over.
    small = [edge("CapableOf", f"animal_{i}/n", f"do_thing_{i}/v") for i in range(30)]
    report = BuildReport()
    claims = build_claims(small, n=20, seed=0, report=report)
    assert len(claims) == 20
    rules = Counter(c.rule for c in claims if c.rule)
    assert sum(rules.values()) == 10
    assert rules["antonym"] == 0 and rules["swap"] == 0
    assert report.shortfall == 0


def test_too_few_edges_warns_and_returns_what_it_can(caplog):
    few = [edge("IsA", "dog/n", "animal/n"), edge("IsA", "oak/n", "tree/n")]
    report = BuildReport()
    with caplog.at_level(logging.WARNING, logger="incanon.bench.sharp.sampling"):
        claims = build_claims(few, n=10, seed=0, report=report)
    assert len(claims) == 2
    assert report.shortfall == 8
    assert "asked for 10 claims" in caplog.text


def test_bad_arguments_are_config_errors(edges):
    with pytest.raises(ConfigError, match="unknown or missing counterfactual rules"):
        build_claims(edges, n=10, rules=["nonsense"])
    with pytest.raises(ConfigError):
        build_claims(edges, n=10, ratio=1.5)
    with pytest.raises(ConfigError):
        build_claims(edges, n=-1)
    assert build_claims(edges, n=0) == []


def test_same_seed_same_claims_across_processes():
    # Set iteration order changes with PYTHONHASHSEED; the claims must not.
    import subprocess
    import sys

    code = (
        "from incanon.bench.sharp import *\n"
        "e = read_assertions(sample_assertions_path(), langs='en', min_weight=1.0)\n"
        "print('|'.join(c.text for c in build_claims(e, n=80, seed=7)))\n"
    )
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={"PYTHONHASHSEED": str(h), "PATH": ""}).stdout
        for h in (1, 2)
    }
    assert len(outputs) == 1
