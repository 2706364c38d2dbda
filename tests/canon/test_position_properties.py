"""Story positions under Hypothesis: any text is a position or one ``InputError`` whose message is
short and quotes the text only as an escaped excerpt; every position reads back as itself."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incanon.canon.position import MAX_POSITION_CHARS, Position
from incanon.errors import InputError

SETTINGS = settings(max_examples=int(os.environ.get("INCANON_HYPOTHESIS_EXAMPLES", "300")), deadline=None,
                    database=None, print_blob=True)

digits = st.one_of(st.integers(0, 10**6).map(str), st.integers(1, 9000).map(lambda n: "9" * n),
                   st.text("0123456789٠١٢", min_size=1, max_size=30))
texts = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=80),
    st.builds(lambda parts, sep: sep.join(parts), st.lists(digits, min_size=1, max_size=4),
              st.sampled_from(["-", " - ", "--", "/"])),
    st.builds(lambda y, m, d: f"{y}-{m}-{d}", st.text("0123456789", min_size=4, max_size=4),
              st.text("0123456789", min_size=2, max_size=2), st.text("0123456789", min_size=2, max_size=2)),
)


@SETTINGS
@given(text=texts)
def test_any_text_is_a_position_or_one_short_input_error(text):
    try:
        position = Position.parse(text)
    except InputError as exc:
        message = str(exc)
        assert len(message) < 400, f"a {len(message):,}-character message"
        assert not any(ch in message for ch in "\x00\x1b\n\r\x9b"), message
        assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in message), "a lone surrogate in the message"
        if len(text) > 100:
            assert text[:100] not in message, "the message quotes the whole text"
        return
    assert len(text) <= MAX_POSITION_CHARS
    assert Position.parse(str(position)) == position
    assert Position.from_key(position.axis, position.key) == position


@pytest.mark.parametrize("text", ["1-" + "9" * 4301, "9" * 5000, "2024-03-07" + " " * 100])
def test_a_text_longer_than_any_position_is_refused_as_too_long(text):
    with pytest.raises(InputError, match="too long") as caught:
        Position.parse(text)
    assert len(str(caught.value)) < 200
