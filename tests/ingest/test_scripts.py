"""Sizes of text without spaces, and the numbers of Chinese and Japanese headings."""

from __future__ import annotations

import pytest

from incanon.ingest.scripts import cjk_number, describe_size, text_size, unspaced


@pytest.mark.parametrize("token, value", [
    ("一", 1), ("十", 10), ("十二", 12), ("二十", 20), ("一百二十", 120), ("一百零五", 105), ("一二零", 120),
    ("一一八", 118), ("〇一", 1), ("廿三", 23), ("卅", 30), ("两百", 200), ("１２", 12), ("12", 12),
    ("壹佰贰拾", 120), ("一千二百三十四", 1234),
])
def test_cjk_numbers_in_every_form_real_headings_use(token: str, value: int) -> None:
    assert cjk_number(token) == value


def test_a_word_that_is_no_number() -> None:
    assert cjk_number("甲") is None and cjk_number("") is None


def test_size_counts_spaced_words_and_half_a_word_per_character() -> None:
    assert text_size("The lamp burned low.") == 4
    assert text_size("灯火低垂，街上无人。") == 4  # 8 characters, punctuation counts nothing
    assert text_size("灯火 lamp 低垂") == 3
    assert describe_size("灯火低垂，街上无人。") == "8 characters"
    assert describe_size("The lamp burned low.") == "4 words"
    assert unspaced("灯火低垂，街上无人。") and not unspaced("The lamp burned low.")
