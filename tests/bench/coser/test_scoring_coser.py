"""Score formula, flaw coercion and aggregation on hand-computed cases."""

from __future__ import annotations

import pytest

from incanon.bench.coser.scoring import (
    DIMENSIONS, actor_rounds, aggregate, canonical_dimension, case_score, coerce_flaws, coerce_severity,
    dimension_score, dimension_slug,
)


@pytest.mark.parametrize(("severities", "rounds", "expected"), [
    ([3, 4], 10, 80.0),          # 100 - 5 * (7 - 3)
    ([], 10, 100.0),             # 115 before the upper clamp
    ([5] * 10, 0, 0.0),          # -150 before the lower clamp
    ([4], 13, 99.5),             # 100 - 5 * (4 - 3.9)
    ([3, 3, 4], 10, 65.0),       # a Storyline Consistency case of CoSER's released gpt-4o file
    ([4, 3, 2, 3], 14, 61.0),    # its Anthropomorphism case with 14 actor rounds
    ([], 0, 100.0),
])
def test_dimension_score(severities, rounds, expected):
    assert dimension_score(severities, rounds) == pytest.approx(expected)


@pytest.mark.parametrize(("raw", "expected"), [
    (3, 3), (2.6, 3), ("4", 4), ("4 (severe)", 4), ("severity: 2/5", 2), (12, 10), (0, 1), (-3, 1),
    (None, None), (True, None), ("high", None), (float("nan"), None),
])
def test_coerce_severity(raw, expected):
    assert coerce_severity(raw) == expected


def test_coerce_flaws_leniently_reads_text_and_defaults_missing_severity_to_one():
    flaws = coerce_flaws([
        {"Instance": "talks like an assistant", "Type": "Self-identity", "Severity": "5"},
        {"instance": "no severity given", "type": "Emotional Depth"},
        "a flaw written as text",
        42,
    ], lenient=True)
    assert [(f.instance, f.type, f.severity, f.defaulted) for f in flaws] == [
        ("talks like an assistant", "Self-identity", 5, False),
        ("no severity given", "Emotional Depth", 1, True),
        ("a flaw written as text", "", 1, True),
    ]
    assert coerce_flaws({"instance": "one", "severity": 2})[0].severity == 2
    assert coerce_flaws(None) == []


def test_actor_rounds_skip_environment_and_nsp():
    messages = [{"role": "A", "content": "x"}, {"role": "Environment", "content": "wind"},
                {"role": "NSP", "content": "B"}, {"role": "B", "content": "y"}, {"character": "A", "message": "z"}]
    assert actor_rounds(messages) == 3


def test_case_score_needs_all_four_dimensions():
    scores = dict(zip(DIMENSIONS, (80.0, 60.0, 70.0, 90.0)))
    assert case_score(scores) == pytest.approx(75.0)
    assert case_score({**scores, "Character Fidelity": None}) is None
    assert case_score({}) is None


def test_aggregate_means_per_dimension_then_their_mean():
    a = {**dict(zip(DIMENSIONS, (80.0, 60.0, 70.0, 90.0))), "bleu": 10.0, "rouge_l": 20.0}
    b = {**dict(zip(DIMENSIONS, (60.0, 40.0, None, 70.0))), "bleu": 4.0, "rouge_l": None}
    agg = aggregate([a, b])
    assert agg.cases == 2 and agg.judged == 1
    assert agg.dimensions == {"Storyline Consistency": 70.0, "Anthropomorphism": 50.0,
                              "Character Fidelity": 70.0, "Storyline Quality": 80.0}
    assert agg.average == pytest.approx((70 + 50 + 70 + 80) / 4)
    assert agg.bleu == pytest.approx(7.0) and agg.rouge_l == pytest.approx(20.0)
    empty = aggregate([])
    assert empty.cases == 0 and empty.average is None and empty.bleu is None


def test_dimension_names():
    assert dimension_slug("Storyline Consistency") == "storyline_consistency"
    assert canonical_dimension("storyline-consistency") == "Storyline Consistency"
    assert canonical_dimension(" CHARACTER fidelity ") == "Character Fidelity"
    assert canonical_dimension("Fidelity") is None


def test_coerce_flaws_counts_severities_as_the_reference_sums_them():
    # gca_judging: a missing (or null) severity becomes 1; the sum keeps int values only.
    flaws = coerce_flaws([
        {"instance": "a", "severity": 0},
        {"instance": "b", "severity": "4"},
        {"instance": "c", "severity": 4.0},
        {"instance": "d", "severity": None},
        {"instance": "e"},
        {"instance": "f", "Severity": 5},
        {"instance": "g", "severity": 7},
    ])
    assert [f.severity for f in flaws] == [0, 0, 0, 1, 1, 1, 7]
    assert [f.uncounted for f in flaws] == [False, True, True, False, False, False, False]
    assert [f.defaulted for f in flaws] == [False, False, False, True, True, True, False]
    assert dimension_score([f.severity for f in flaws], 0) == pytest.approx(50.0)


def test_no_length_penalty_drops_the_round_credit():
    assert dimension_score([3, 2], 10, length_credit=0.0) == pytest.approx(75.0)
    assert dimension_score([3, 2], 10) == pytest.approx(90.0)
