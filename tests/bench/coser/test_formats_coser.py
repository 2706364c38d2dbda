"""CoSER formats: loaders on hand-written files in the published layout, message markup, JSON repair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.bench.coser.files import load_book, load_books, load_test_set, write_book, write_test_set
from incanon.bench.coser.formats import BookData, TestSample, format_message, parse_message, remove_thoughts
from incanon.llmout import JSONRepairError, looks_truncated, repair_json
from incanon.errors import InputError, NotFoundError

# A book file as CoSER publishes it: the refined motivation under "thought", one plot's
# conversation given as an object, a prominence as text, a chapter of "None".
PUBLISHED = {
    "plots": [
        {
            "text": "The lamps went out one by one.",
            "summary": "Wren and Dace quarrel over the Sea-Wall round.",
            "prominence": "85",
            "key_characters": [
                {"name": "Wren Callow", "description": "An apprentice lamplighter.", "summary": "Wren wants the round."},
                {"character": "Dace Morrow", "description": "Her rival.", "summary": "Dace mocks her."},
            ],
            "chapter": "Chapter 1: Oil and Wick",
            "conversation": [
                {
                    "scenario": "Morning in the Lamphouse.",
                    "topic": "Who gets the Sea-Wall round",
                    "key_characters": [
                        {"name": "Wren Callow", "thought": "I will not let him win."},
                        {"name": "Dace Morrow", "motivation": "She is always late."},
                    ],
                    "dialogues": [
                        {"character": "Dace Morrow", "message": "[She's late again.] (snips a wick) That's the one you'll get."},
                        {"character": "Wren Callow", "message": "[Don't rise to it.] Keep it. I trim my own."},
                        {"character": "Environment", "message": "The cane raps once on the floorboards."},
                    ],
                    "i_c": 0,
                }
            ],
            "state": "finished",
            "i_chunk": 0,
            "i_p": 0,
        },
        {
            "text": "",
            "summary": "Sefa gives Wren a glass chimney.",
            "prominence": 40,
            "key_characters": [{"name": "Sefa Quill", "description": "A glassblower.", "summary": "Sefa is generous."}],
            "chapter": "None",
            "conversation": {
                "scenario": "The glassworks.",
                "topic": "A gift",
                "key_characters": [{"name": "Sefa Quill", "thought": "She must win."}],
                "dialogues": [{"name": "Sefa Quill", "message": "It's a gift."}],
            },
        },
    ],
    "character_datasets": {
        "Wren Callow": {
            "profile": "Wren Callow is an apprentice lamplighter of Harrowmere.",
            "plots": [{"name": "Wren Callow", "description": "An apprentice.", "summary": "Wants the round.", "i_p": 0}],
            "conversations": [{"name": "Wren Callow", "thought": "I will not let him win.", "i_p": 0, "i_c": 0}],
            "utterances": [{"character": "Wren Callow", "message": "Keep it.", "i_p": 0, "i_c": 0, "i_u": 1}],
        },
        "Sefa Quill": {"profile": None, "plots": [], "conversations": [], "utterances": []},
    },
    "split_plot_index": 1,
}

TEST_SET = [
    {
        "book": "The Wall-Lamps",
        "plot": {"summary": "Wren and Dace quarrel.", "key_characters": [{"name": "Wren Callow", "description": "x", "summary": "y"}],
                 "chapter": "Chapter 1", "i_p": 7},
        "i_c": 2,
        "scenario": "Morning in the Lamphouse.",
        "topic": "The round",
        "key_characters": [{"name": "Wren Callow", "thought": "I will not let him win."},
                           {"name": "Dace Morrow", "motivation": "She is always late."}],
        "dialogues": [{"character": "Dace Morrow", "message": "[Late.] You're late."},
                      {"character": "Wren Callow", "message": "I'm late."},
                      {"character": "Dace Morrow", "message": "Spare me."},
                      {"character": "Environment", "message": "Wind."}],
        "character_profiles": {"Wren Callow": "An apprentice.", "Dace Morrow": "A rival."},
        "speaking_characters_w_env": ["Dace Morrow", "Wren Callow", "Environment"],
        "major_characters": ["Dace Morrow", "Wren Callow"],
    }
]


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_published_book_loads_with_every_variant(tmp_path):
    book = load_book(_write(tmp_path / "The Wall-Lamps.json", PUBLISHED))
    assert book.title == "The Wall-Lamps"
    first, second = book.plots
    assert first.prominence == 85 and first.chapter == "Chapter 1: Oil and Wick"
    assert [c.name for c in first.key_characters] == ["Wren Callow", "Dace Morrow"]
    conv = first.conversation[0]
    # The published "thought" and the evaluator's "motivation" land in the same field.
    assert conv.motivation_of("Wren Callow") == "I will not let him win."
    assert conv.motivation_of("Dace Morrow") == "She is always late."
    assert conv.speakers == ["Dace Morrow", "Wren Callow", "Environment"]
    assert second.chapter is None and len(second.conversation) == 1
    assert second.conversation[0].dialogues[0].character == "Sefa Quill"
    assert book.split_index == 1 and book.train_plots == [first] and book.test_plots == [second]
    assert book.character_datasets["Wren Callow"].conversations[0].motivation == "I will not let him win."
    assert book.character_datasets["Wren Callow"].plots[0].experience == "Wants the round."
    assert book.profiles()["Sefa Quill"] == ""


def test_both_motivation_names_when_both_present_prefer_the_filled_one():
    from incanon.bench.coser.formats import ConversationCharacter

    assert ConversationCharacter.model_validate({"name": "A", "motivation": "", "thought": "T"}).motivation == "T"
    assert ConversationCharacter.model_validate({"name": "A", "motivation": "M", "thought": "T"}).motivation == "M"


def test_written_book_uses_the_released_names_and_reloads(tmp_path):
    book = load_book(_write(tmp_path / "B.json", PUBLISHED))
    path = write_book(book, tmp_path / "out" / "B.json")
    raw = json.loads(path.read_text())
    assert list(raw)[:3] == ["plots", "character_datasets", "split_plot_index"]
    kc = raw["plots"][0]["conversation"][0]["key_characters"][0]
    assert kc == {"name": "Wren Callow", "motivation": "I will not let him win.", "i_p": 0, "i_c": 0}
    pc = raw["plots"][0]["key_characters"][0]
    assert pc == {"name": "Wren Callow", "description": "An apprentice lamplighter.",
                  "experience": "Wren wants the round.", "i_p": 0}
    assert raw["plots"][0]["conversation"][0]["dialogues"][1]["i_u"] == 1
    assert raw["character_datasets"]["Wren Callow"]["conversations"][0]["motivation"] == "I will not let him win."
    again = load_book(path)
    assert again.plots[0].key_characters[0].summary == "Wren wants the round."
    assert again.plots[0].conversation[0].motivation_of("Wren Callow") == "I will not let him win."
    assert json.loads(write_book(again, tmp_path / "twice" / "B.json").read_text()) == raw  # a fixed point
    assert load_books(tmp_path / "out")[0].title == "B"


def test_default_split_is_the_last_ten_percent():
    book = BookData.model_validate({"plots": [{"summary": str(i)} for i in range(20)]})
    assert book.split_index == 18 and len(book.test_plots) == 2


def test_test_set_reads_thought_as_motivation(tmp_path):
    (sample,) = load_test_set(_write(tmp_path / "test.json", TEST_SET))
    assert sample.motivation_of("Wren Callow") == "I will not let him win."
    assert sample.plot.i_p == 7 and sample.i_c == 2 and sample.id == "The Wall-Lamps#7-2"
    assert sample.major_characters == ["Dace Morrow", "Wren Callow"]
    path = write_test_set([sample], tmp_path / "again.json")
    assert load_test_set(path)[0].model_dump() == sample.model_dump()


def test_test_sample_derives_speakers_and_major_characters():
    row = {k: v for k, v in TEST_SET[0].items() if k not in ("speaking_characters_w_env", "major_characters")}
    row["character_profiles"] = {"Wren Callow": "An apprentice."}
    sample = TestSample.model_validate(row)
    assert sample.speaking_characters_w_env == ["Dace Morrow", "Wren Callow", "Environment"]
    assert sample.major_characters == ["Wren Callow"]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"plots": "none"}, "plots"),
        ({"character_datasets": {}}, "plots"),
        ({"plots": [{"conversation": [{"dialogues": [{"character": "A", "message": 3}]}]}]},
         "plots[0].conversation[0].dialogues[0].message"),
        ({"plots": [{"key_characters": [{"description": "no name"}]}]}, "plots[0].key_characters[0].name"),
        ({"plots": [], "split_plot_index": "half"}, "split_plot_index"),
    ],
)
def test_bad_book_file_names_file_and_field(tmp_path, data, where):
    path = _write(tmp_path / "bad.json", data)
    with pytest.raises(InputError) as info:
        load_book(path)
    assert str(path) in str(info.value) and where in str(info.value)


def test_malformed_and_missing_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"plots": [}', encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.json \(line 1[^)]*\): invalid JSON"):
        load_book(broken)
    with pytest.raises(NotFoundError):
        load_book(tmp_path / "absent.json")
    with pytest.raises(InputError, match=r"expected a JSON list"):
        load_test_set(_write(tmp_path / "t.json", {"book": "x"}))
    bad_row = [dict(TEST_SET[0], dialogues=[{"character": "A", "message": ["x"]}])]
    with pytest.raises(InputError, match=r"\[0\]\.dialogues\[0\]\.message"):
        load_test_set(_write(tmp_path / "t2.json", bad_row))


@pytest.mark.parametrize(("change", "where"), [
    (lambda row: row.pop("dialogues"), r"\[0\]\.dialogues\): missing field 'dialogues'"),
    (lambda row: row.update(dialogues=[]), r"\[0\]\.dialogues\): 'dialogues' must be a non-empty list"),
    (lambda row: row.pop("scenario"), r"\[0\]\.scenario\): missing field 'scenario'"),
    (lambda row: row["dialogues"][1].pop("message"), r"\[0\]\.dialogues\[1\]\.message\): missing field 'message'"),
    (lambda row: row["dialogues"][0].pop("character"), r"\[0\]\.dialogues\[0\]\.character\): missing field"),
])
def test_test_cases_missing_what_the_evaluator_reads_are_rejected(tmp_path, change, where):
    import copy

    row = copy.deepcopy(TEST_SET[0])
    change(row)
    with pytest.raises(InputError, match=where):
        load_test_set(_write(tmp_path / "t.json", [row]))


@pytest.mark.parametrize("content", [
    "[" * 100_000 + "]" * 100_000,
    '[{"n": ' + "9" * 100_000 + "}]",
    '[{"x": NaN}]',
    "",
])
def test_hostile_json_is_one_input_error(tmp_path, content):
    path = tmp_path / "hostile.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError):
        load_test_set(path)
    with pytest.raises(InputError):
        load_book(path)


# --- messages -----------------------------------------------------------------------------------


def test_message_channels():
    msg = parse_message('[I must hide it] (steps back) "Never."')
    assert (msg.thought, msg.action, msg.speech) == ("I must hide it", "steps back", "Never.")
    assert [s.channel for s in msg.segments] == ["thought", "action", "speech"]
    assert remove_thoughts('[I must hide it] (steps back) "Never."') == '(steps back) "Never."'


def test_message_interleaving_nesting_and_unclosed():
    msg = parse_message("[Fear.] Go. (turns (slowly)) [Again.] Now!")
    assert msg.thought == "Fear. Again." and msg.action == "turns (slowly)" and msg.speech == "Go. Now!"
    assert remove_thoughts("[a] hello [b] there") == "hello there"
    assert parse_message("Wait (she trails off").action == "she trails off"
    assert parse_message("【怕】（后退）不。").thought == "怕"
    assert parse_message("").segments == []


def test_format_message_puts_thought_first():
    assert format_message(speech="Never.", action="steps back", thought="Hide it") == "[Hide it] (steps back) Never."
    assert format_message(speech="Hi") == "Hi"


# --- JSON repair --------------------------------------------------------------------------------


def test_repair_fences_commas_and_literals():
    got = repair_json('Sure!\n```json\n{"a": [1, 2,], "b": None,}\n```\nAnything else?')
    assert got.value == {"a": [1, 2], "b": None} and not got.truncated
    assert {"surrounding text", "trailing comma", "python literal"} <= set(got.fixes)


def test_repair_unescaped_quotes_inside_strings():
    got = repair_json('{"message": "He said "stop", then left", "n": 1}')
    assert got.value == {"message": 'He said "stop", then left', "n": 1}


def test_repair_truncated_answer_keeps_complete_items():
    text = '{"plots": [{"summary": "one", "state": "finished"}, {"summary": "tw'
    assert looks_truncated(text)
    got = repair_json(text)
    assert got.truncated and got.value == {"plots": [{"summary": "one", "state": "finished"}]}


def test_repair_gives_up_on_text_without_json():
    with pytest.raises(JSONRepairError):
        repair_json("I cannot help with that.")
    with pytest.raises(JSONRepairError):
        repair_json('{"k"')
