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


def test_sentence_spans_keep_offsets_lines_and_closing_quotes():
    from incanon.sentences import sentence_spans

    text = 'Mr. Hale came at 4 p.m. sharp. "Go!" said Dr. Brand.\nThen he left...  And so on'
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Mr. Hale came at 4 p.m. sharp.", '"Go!" said Dr. Brand.', "Then he left...", "And so on"]
    zh = "他走了。她说：“好！”然后离开了？是的"
    assert [zh[a:b] for a, b in sentence_spans(zh)] == ["他走了。", "她说：“好！”", "然后离开了？", "是的"]
    assert sentence_spans("  \n\n ") == []


def test_coser_plot_location_finds_a_sentence_with_abbreviations():
    from incanon.bench.coser.curate import find_sentence

    text = "The bell rang. Mr. Darcy bowed to Dr. Jones at 3 p.m. exactly. Nobody spoke."
    found = find_sentence(text, "Mr Darcy bowed to Dr Jones at 3 pm exactly.")
    assert found is not None and text[found.start:found.end] == "Mr. Darcy bowed to Dr. Jones at 3 p.m. exactly."


def test_graph_oracle_describes_a_name_by_its_whole_sentence():
    from incanon.canon.world import Character, WorkInfo, World
    from incanon.graph.scripted import WorldOracle

    world = World(work=WorkInfo(id="w", title="W"), characters=[Character(name="Mr. Hale")])
    oracle = WorldOracle(world)
    found = oracle.found("Rain fell. Mr. Hale arrived at 4 p.m. sharp with Dr. Brand. Then tea.")
    assert ("Mr. Hale", "character", "Mr. Hale arrived at 4 p.m. sharp with Dr. Brand.") in found
