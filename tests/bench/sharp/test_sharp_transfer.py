"""Table 5 stance-transfer differences and the Figure 3 Pearson correlations, hand-computed."""

from __future__ import annotations

import random
import statistics

import pytest

from incanon.bench.sharp import RoleMetrics, correlations, pearson, transfer_table

from sharp_run_helpers import ans

F, A, N = "FAVOR", "AGAINST", "NEUTRAL"


def claim_case():
    high = [ans("h", "f", s) for s in (F, F, A, N)] + [ans("h", "c", s) for s in (F, A)]
    low = [ans("l", "f", s, affection="low") for s in (A, A)] + \
          [ans("l", "c", s, affection="low") for s in (A, N, A, F)]
    unknown = [ans("u", "f", A, affection=None), ans("u", "c", None)]  # never counted
    return high + low + unknown


def test_claim_table_hand_computed():
    t = transfer_table(claim_case(), "claim")
    assert t is not None and t.rows == ["factual", "counterfactual"] and t.columns == [F, A, N]
    assert t.counts == {"high": {"factual": 4, "counterfactual": 2}, "low": {"factual": 2, "counterfactual": 4}}
    assert t.ratios["high"]["factual"] == {F: 0.5, A: 0.25, N: 0.25}
    assert t.ratios["low"]["counterfactual"] == {F: 0.25, A: 0.5, N: 0.25}
    assert t.cells["factual"] == {F: None, A: "adversary", N: "adversary"}
    assert t.cells["counterfactual"] == {F: "sycophancy", A: None, N: "sycophancy"}
    # adversary: low - high; sycophancy: high - low.
    assert t.diff["factual"][A] == pytest.approx(1 - 0.25)
    assert t.diff["factual"][N] == pytest.approx(0 - 0.25)
    assert t.diff["counterfactual"][F] == pytest.approx(0.5 - 0.25)
    assert t.diff["counterfactual"][N] == pytest.approx(0 - 0.25)
    assert t.diff["factual"][F] is None and t.diff["counterfactual"][A] is None


def test_backbone_table_and_missing_rows():
    answers = [
        ans("h", "f", A, backbone=F), ans("h", "f", F, backbone=F),
        ans("l", "f", A, backbone=F, affection="low"),
        ans("h", "c", F, backbone=A), ans("l", "c", A, backbone=A, affection="low"),
    ]
    t = transfer_table(answers, "backbone")
    assert t is not None and t.rows == [F, A, N]
    assert t.cells[N] == {F: "sycophancy", A: "adversary", N: None}
    assert t.diff[F][A] == pytest.approx(1.0 - 0.5)    # adversary: low 1/1, high 1/2
    assert t.diff[F][N] == pytest.approx(0.0)
    assert t.diff[A][F] == pytest.approx(1.0 - 0.0)    # sycophancy: high 1/1, low 0/1
    assert t.diff[N] == {F: None, A: None, N: None}    # no answer had a NEUTRAL backbone
    assert transfer_table([ans("h", "f", F)], "backbone") is None


def test_pearson_matches_statistics():
    rng = random.Random(3)
    xs = [rng.random() for _ in range(20)]
    ys = [x * 0.3 + rng.random() for x in xs]
    assert pearson(xs, ys) == pytest.approx(statistics.correlation(xs, ys))
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert pearson([1], [1]) is None
    assert pearson([1, 1, 1], [1, 2, 3]) is None


def test_correlation_matrix_over_roles():
    def role(name, interactions, sr, ar):
        return RoleMetrics(work="w", main_character="m", role=name, interactions=interactions, sr=sr, ar=ar)

    roles = [role("a", 10, 0.9, 0.1), role("b", 5, 0.5, 0.5), role("c", 1, 0.1, 0.9), role("d", None, 0.3, None)]
    c = correlations(roles)
    assert c.variables == ["interactions", "sr", "ar"]
    assert c.r[0][1] == pytest.approx(statistics.correlation([10, 5, 1], [0.9, 0.5, 0.1]))
    assert c.r[1][2] == pytest.approx(-1.0)
    assert c.n == [[3, 3, 3], [3, 4, 3], [3, 3, 3]]
    assert c.r[0][0] == pytest.approx(1.0)
