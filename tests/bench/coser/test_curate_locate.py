"""Locating a plot's raw text when the edition breaks sentences over lines and blank lines."""

from __future__ import annotations

from incanon.bench.coser.curate.locate import find_sentence, locate_plot

# Our own text, laid out as a wrapped edition with blank lines inside the last sentence.
TEXT = """The ferry left at dawn, and Wren stood at the rail the whole way
across. Nobody spoke to her. The purser, a thin man with a cough, came
by twice with tea that nobody wanted. The whole purpose of his day was to keep the

passengers quiet; his only pleasure was gossip and

cards.

The second crossing was rougher."""


def test_the_last_sentence_keeps_its_words_after_blank_lines():
    span = locate_plot(TEXT, "The ferry left at dawn, and Wren stood at the rail the whole way across.",
                       "The whole purpose of his day was to keep the passengers quiet; his only pleasure was gossip and cards.")
    assert span is not None
    assert TEXT[span[0]:span[1]].endswith("gossip and\n\ncards.")


def test_a_run_stops_at_a_sentence_end():
    # A sentence ending in a full stop does not run on into the next paragraph.
    found = find_sentence(TEXT, "Nobody spoke to her.")
    assert found is not None and TEXT[found.start:found.end] == "Nobody spoke to her."
    wrapped = find_sentence(TEXT, "The purser, a thin man with a cough, came by twice with tea that nobody wanted.")
    assert wrapped is not None and TEXT[wrapped.start:wrapped.end].endswith("nobody wanted.")
    assert not TEXT[wrapped.start:wrapped.end].endswith("keep the")
