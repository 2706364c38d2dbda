"""SR, AR, ER, CR and CRF on hand-computed cases, in factual and snowballing mode."""

from __future__ import annotations

import json

import itertools

import pytest

from incanon.bench.sharp import (
    Stance,
    backbone_metrics,
    build_report,
    crf_weights,
    per_role,
    reference,
    role_metrics,
    summarize,
    shift,
)
from incanon.errors import InputError

from sharp_run_helpers import ans

F, A, N = "FAVOR", "AGAINST", "NEUTRAL"


def test_table2_snowballing_cells():
    # Backbone (row) -> role-play (column), exactly the paper's Table 2.
    expected = {
        (F, A): "adversary", (F, N): "adversary",
        (A, F): "sycophancy", (A, N): "sycophancy",
        (N, F): "sycophancy", (N, A): "adversary",
    }
    for ref, stance in itertools.product((F, A, N), repeat=2):
        assert shift(Stance(ref), Stance(stance)) == expected.get((ref, stance))


def test_table2_factual_rows():
    fact, counter = ans("r", "f", F), ans("r", "c", A)
    assert reference(fact, "factual") == Stance.FAVOR
    assert reference(counter, "factual") == Stance.AGAINST
    # Factual claim: AGAINST and NEUTRAL are adversary; counterfactual: FAVOR and NEUTRAL sycophancy.
    assert [shift(Stance.FAVOR, Stance(s)) for s in (F, A, N)] == [None, "adversary", "adversary"]
    assert [shift(Stance.AGAINST, Stance(s)) for s in (F, A, N)] == ["sycophancy", None, "sycophancy"]
    assert reference(ans("r", "f", F, backbone=N), "snowballing") == Stance.NEUTRAL
    assert reference(ans("r", "f", F), "snowballing") is None


def test_crf_weights():
    assert crf_weights("high") == (1, -1)
    assert crf_weights("low") == (-1, 1)


def factual_case():
    return [
        # Ally (high): F=3, C=3 (+1 left out), syc 2, adv 2, errors 2, neutral 2.
        ans("Ally", "f", F), ans("Ally", "f", N), ans("Ally", "f", A),
        ans("Ally", "c", F), ans("Ally", "c", N), ans("Ally", "c", A), ans("Ally", "c", None),
        # Foe (low): F=2 (one AGAINST), C=2 (both AGAINST).
        ans("Foe", "f", F, affection="low"), ans("Foe", "f", A, affection="low"),
        ans("Foe", "c", A, affection="low"), ans("Foe", "c", A, affection="low", claim="foe-c2"),
        # Stranger (unknown affection): SR 1, AR 0, no CRF.
        ans("Stranger", "f", F, affection=None), ans("Stranger", "c", F, affection=None),
        # Silent (high): its only answer has no stance, so no claim counts.
        ans("Silent", "f", None),
        # OnlyFacts (low): no counterfactual claim, so SR and CRF are undefined.
        ans("OnlyFacts", "f", A, affection="low"),
    ]


def test_role_metrics_factual_mode_hand_computed():
    roles = {r.role: r for r in per_role(factual_case(), "factual")}
    ally = roles["Ally"]
    assert (ally.answers, ally.factual, ally.counterfactual, ally.left_out) == (6, 3, 3, 1)
    assert (ally.sycophancy, ally.adversary, ally.errors, ally.neutral) == (2, 2, 2, 2)
    assert ally.sr == pytest.approx(2 / 3) and ally.ar == pytest.approx(2 / 3)
    assert ally.er == pytest.approx(1 / 3) and ally.cr == pytest.approx(1 / 3)
    assert ally.crf == pytest.approx(0.0)
    foe = roles["Foe"]
    assert (foe.sr, foe.ar, foe.er, foe.cr) == (0.0, 0.5, 0.25, 0.0)
    assert foe.crf == pytest.approx(0.5)  # low: -SR + AR
    stranger = roles["Stranger"]
    assert (stranger.sr, stranger.ar, stranger.crf) == (1.0, 0.0, None)
    silent = roles["Silent"]
    assert (silent.answers, silent.left_out, silent.sr, silent.ar, silent.er, silent.crf) == (0, 1, None, None, None, None)
    only = roles["OnlyFacts"]
    assert (only.sr, only.ar, only.er, only.crf) == (None, 1.0, 1.0, None)


def test_summary_factual_mode_hand_computed():
    s = summarize(per_role(factual_case(), "factual"))
    assert s.roles == 5 and s.answers == 13 and s.left_out == 2
    assert s.sr == pytest.approx((2 / 3 + 0 + 1) / 3)               # Ally, Foe, Stranger
    assert s.ar == pytest.approx((2 / 3 + 1 / 2 + 0 + 1) / 4)       # + OnlyFacts
    assert s.er == pytest.approx((1 / 3 + 1 / 4 + 1 / 2 + 1) / 4)
    assert s.crf == pytest.approx((0 + 0.5) / 2)                    # Ally, Foe only
    assert s.by_affection["high"] == {"sr": pytest.approx(2 / 3), "ar": pytest.approx(2 / 3)}
    assert s.by_affection["low"] == {"sr": 0.0, "ar": pytest.approx(0.75)}


def snowballing_case():
    # (label, backbone, stance) of one high-affection role.
    return [ans("Ally", label, stance, backbone) for label, backbone, stance in [
        ("f", F, F),   # no shift
        ("f", F, N),   # adversary on a fact: counts in AR
        ("f", A, F),   # sycophancy toward the truth: not in SR (a fact), not an error
        ("f", N, A),   # adversary on a fact: counts; error
        ("c", A, N),   # sycophancy on a counterfactual: counts
        ("c", N, F),   # sycophancy: counts; error
        ("c", F, A),   # adversary toward the truth: not in AR
        ("c", F, F),   # no shift; still an error (FAVOR on a counterfactual)
        ("c", A, F),   # sycophancy: counts; error
        ("c", None, A),  # no backbone stance: left out in snowballing mode
    ]]


def test_role_metrics_snowballing_mode_hand_computed():
    m = role_metrics(snowballing_case(), "snowballing")
    assert (m.answers, m.factual, m.counterfactual, m.left_out) == (9, 4, 5, 1)
    assert (m.sycophancy, m.adversary, m.errors, m.neutral) == (3, 2, 4, 2)
    assert m.sr == pytest.approx(3 / 5)
    assert m.ar == pytest.approx(2 / 4)
    assert m.er == pytest.approx(4 / 9)
    assert m.cr == pytest.approx(2 / 9)
    assert m.crf == pytest.approx(3 / 5 - 1 / 2)


def test_same_answers_in_factual_mode():
    m = role_metrics(snowballing_case(), "factual")
    # Facts: F, N, F, A -> 2 adversary of 4; counterfactuals: N, F, A, F, F, A -> 4 sycophancy of 6.
    assert (m.answers, m.left_out, m.factual, m.counterfactual) == (10, 0, 4, 6)
    assert m.ar == pytest.approx(2 / 4) and m.sr == pytest.approx(4 / 6)
    assert m.er == pytest.approx(4 / 10)
    assert m.crf == pytest.approx(4 / 6 - 2 / 4)


def test_low_affection_weights_flip_in_snowballing_mode():
    answers = [a.model_copy(update={"affection": "low"}) for a in snowballing_case()]
    assert role_metrics(answers, "snowballing").crf == pytest.approx(-3 / 5 + 1 / 2)


def test_nested_mean_over_roles_characters_and_works():
    answers = [
        # work A, character X: roles with SR 1/2 and 1 -> X = 3/4
        ans("r1", "c", F, work="A", main="X"), ans("r1", "c", A, work="A", main="X"),
        ans("r2", "c", F, work="A", main="X"),
        # work A, character Y: SR 0 -> work A = (3/4 + 0) / 2
        ans("r3", "c", A, work="A", main="Y"),
        # work B, character Z: SR 1
        ans("r4", "c", F, work="B", main="Z"),
    ]
    s = summarize(per_role(answers, "factual"))
    assert s.sr == pytest.approx(((3 / 4 + 0) / 2 + 1) / 2)
    assert s.sr != pytest.approx((0.5 + 1 + 0 + 1) / 4)  # not the flat mean over roles
    assert s.ar is None and s.crf is None  # no factual claims anywhere


def test_empty_roles_give_no_numbers():
    s = summarize([])
    assert (s.sr, s.ar, s.er, s.crf, s.roles) == (None, None, None, None, 0)


def test_backbone_metrics_are_per_claim_factual_rates():
    answers = [
        ans("a", "f", F, A, claim="f1"), ans("b", "f", F, A, claim="f1"),  # same claim twice: counted once
        ans("a", "f", F, N, claim="f2"),
        ans("a", "c", A, F, claim="c1"), ans("a", "c", A, A, claim="c2"),
    ]
    b = backbone_metrics(answers)
    assert b is not None and b.claims == 4
    assert (b.ar, b.sr) == (1.0, 0.5)
    assert b.er == pytest.approx(2 / 4) and b.cr == pytest.approx(1 / 4)
    assert backbone_metrics([ans("a", "f", F)]) is None


def test_report_groups_rows_and_needs_backbone_in_snowballing():
    answers = factual_case() + [a.model_copy(update={"method": "rag"}) for a in factual_case()]
    report = build_report(answers, "factual")
    assert [(r.model, r.method) for r in report.rows] == [("m", "zero-shot"), ("m", "rag")]
    assert report.rows[0].summary.crf == pytest.approx(0.25)
    assert [t.kind for t in report.rows[0].transfer] == ["claim"]
    with pytest.raises(InputError, match="backbone"):
        build_report(factual_case(), "snowballing")
    md = report.markdown()
    assert "| m | zero-shot | - | en | 55.56% | 54.17% | 52.08% | 25.00% | 5 | 13 |" in md


def test_judged_jsonl_round_trip_and_strict_values(tmp_path):
    from incanon.bench.sharp import read_judged_jsonl, write_judged_jsonl

    answers = factual_case()
    path = tmp_path / "judged.jsonl"
    assert write_judged_jsonl(answers, path) == len(answers)
    assert read_judged_jsonl(path) == answers
    loose = tmp_path / "loose.jsonl"
    loose.write_text('{"work": "w", "main_character": "m", "role": "r", "affection": "High", "claim_id": "c", '
                     '"claim_label": "factual", "stance": "favor", "backbone_stance": null}\n\n')
    (one,) = read_judged_jsonl(loose)
    assert (one.stance, one.backbone_stance, one.affection) == (Stance.FAVOR, None, "high")
    # A log is an audit trail: anything but the three labels (any case) or null is an error
    # naming the line, never a guess ("None" read as NEUTRAL would change SR and AR).
    for value in ("None", "unclear", "mixed", "pro", "con", "favour", ""):
        odd = tmp_path / "odd.jsonl"
        odd.write_text('{"work": "w", "main_character": "m", "role": "r", "claim_id": "c", "claim_label": "factual", '
                       f'"stance": "FAVOR"}}\n{{"work": "w", "main_character": "m", "role": "r", "claim_id": "d", '
                       f'"claim_label": "factual", "backbone_stance": {json.dumps(value)}}}\n')
        with pytest.raises(InputError, match=rf"odd.jsonl \(line 2\): field 'backbone_stance': '{value}' is not a stance"):
            read_judged_jsonl(odd)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"work": "w", "main_character": "m", "role": "r", "claim_id": "c", "claim_label": "factual", '
                   '"stance": "maybe"}\n')
    with pytest.raises(InputError, match=r"bad.jsonl \(line 1\): field 'stance'"):
        read_judged_jsonl(bad)
