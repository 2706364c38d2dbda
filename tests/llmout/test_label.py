"""One label of a fixed set out of free text: keyed, bracketed, alone on a line, or named and not denied."""

import re

from incanon.llmout import is_negated, labelled, named_labels

COLOURS = {"red": "RED", "green": "GREEN", "1": "RED", "2": "GREEN"}


def lookup(token: str) -> str | None:
    return COLOURS.get(token.strip().lower().split(" ")[0])


def test_the_last_keyed_label_wins_then_brackets_then_a_bare_last_line():
    assert labelled("Label: red\nOn reflection, label: green", lookup, keys=("label",)) == "GREEN"
    assert labelled("**Colour type** is 2 (green)", lookup, keys=("colour type", "label")) == "GREEN"
    assert labelled("I think [[red]].", lookup, keys=("label",)) == "RED"
    assert labelled("Long reasoning...\n\n**Red**", lookup, keys=("label",)) == "RED"
    assert labelled("Label: purple", lookup, keys=("label",)) is None
    assert labelled("The sky was red that night, and the grass green and wet.", lookup, keys=("label",)) is None


def test_named_labels_leave_out_the_denied_ones():
    pattern = re.compile(r"\b(red|green)\b", re.IGNORECASE)
    assert named_labels("It is clearly green.", pattern, lookup) == ({"GREEN"}, False)
    assert named_labels("It is not red; it is green.", pattern, lookup) == ({"GREEN"}, True)
    assert named_labels("It isn't really red.", pattern, lookup) == (set(), True)
    assert named_labels("Red or green, hard to say.", pattern, lookup) == ({"RED", "GREEN"}, False)
    assert is_negated("does not FAVOR", 9) and not is_negated("does FAVOR", 5)
