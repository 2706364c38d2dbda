"""``NameBook.attest`` finds exactly the names its word-start regex finds, text by text.

The regex (``_starts``: every name at every word start, the longest that matches there winning)
is the definition; ``attest`` finds the same set without running it over megabytes of text.
Generated names share words and prefixes ("Tobias", "Tobias Venn"), carry punctuation and case
and spacing variants; generated texts use them next to word characters, across lines, and across
the boundary between two texts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incanon.canon.names import norm
from incanon.canon.namebook import NameBook

WORDS = ["tobias", "venn", "Mr.", "O'Hara", "the", "flood", "of", "1170", "Éloïse", "wick", "x_y", "Ann"]
GLUE = [" ", "  ", "\n", ", ", ".", "-", "_", "a", "'", "\u00a0", ""]


def reference(book: NameBook, texts: list[str]) -> set[str]:
    """The definition: the regex over each text on its own."""
    assert book._starts is not None
    return {norm(m.group(1)) for t in texts if t for m in book._starts.finditer(t)}


names = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join), min_size=1, max_size=8)


@st.composite
def texts_for(draw: st.DrawFn, forms: list[str]) -> list[str]:
    pieces = st.one_of(st.sampled_from(forms), st.sampled_from(WORDS),
                       st.sampled_from(forms).map(str.upper), st.sampled_from(forms).map(lambda f: f.replace(" ", "\n ")))
    texts = []
    for _ in range(draw(st.integers(1, 4))):
        parts = draw(st.lists(st.tuples(pieces, st.sampled_from(GLUE)), max_size=8))
        texts.append("".join(p + g for p, g in parts))
    return texts


@settings(max_examples=300, deadline=None)
@given(data=st.data(), forms=names)
def test_attest_finds_what_the_regex_finds(data: st.DataObject, forms: list[str]) -> None:
    book = NameBook([(forms[0], forms[1:])])
    texts = data.draw(texts_for(forms))
    book.attest(texts)
    assert book.attested == reference(book, texts)


def test_examples_of_the_rule() -> None:
    book = NameBook([("Tobias Venn", ["Tobias", "Venn"]), ("the flood", ["flood of 1170"])])
    book.attest(["Tobias Venn came."])
    # At "Tobias" the longer name wins; "Venn" starts a word of its own.
    assert book.attested == {"tobias venn", "venn"}
    book.attest(["TOBIAS\n  was late", "the flood of 1170"])
    assert book.attested == {"tobias venn", "venn", "tobias", "the flood", "flood of 1170"}
    other = NameBook([("Tobias Venn", ["Tobias"])])
    other.attest(["Tobias", "Venn said"])  # no name spans two texts
    assert other.attested == {"tobias"}
    glued = NameBook([("Ann", [])])
    glued.attest(["Anne and Annabel", "x_Ann", "Ann_x"])
    assert glued.attested == set()


def test_a_planted_difference_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: an attest that lets a shorter name win where a longer one
    matches differs from the regex on a plain example."""
    import incanon.canon.namebook as namebook

    monkeypatch.setattr(namebook, "_occurs", lambda blob, form, longer: re.search(
        rf"(?<!\w){re.escape(form)}(?!\w)", blob) is not None)
    book = NameBook([("Tobias Venn", ["Tobias"])])
    texts = ["Tobias Venn came."]
    book.attest(texts)
    assert book.attested != reference(book, texts)
