"""One sentence splitter that survives abbreviations."""

from incanon.sentences import split_sentences


def test_abbreviations_initials_and_times_do_not_end_sentences():
    text = "Mr. Hale met Dr. Brand at 4 p.m. sharp. J. R. Quill came too. It cost 3.5 crowns!"
    assert split_sentences(text) == ["Mr. Hale met Dr. Brand at 4 p.m. sharp.", "J. R. Quill came too.",
                                     "It cost 3.5 crowns!"]


def test_chinese_and_empty_text():
    assert split_sentences("林晓来了。她说：你好！", "zh") == ["林晓来了。", "她说：你好！"]
    assert split_sentences("   ") == []
    assert split_sentences("One. Two.", "xx") == ["One.", "Two."]  # unknown language: English rules
