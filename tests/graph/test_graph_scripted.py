"""The ground-truth oracle that stands in for a model in offline graph builds."""

from __future__ import annotations

from incanon.graph.scripted import _relation_sentence


def test_relation_sentences_read_as_english():
    assert _relation_sentence("Wren", "mentor", "Ottilie") == "Wren is mentor to Ottilie."
    assert _relation_sentence("Wren", "member of", "the Guild") == "Wren is member of the Guild."
    assert _relation_sentence("Ilse", "in love with", "Dace") == "Ilse is in love with Dace."
