"""SFT export: ShareGPT shape, one sample per character per conversation, thoughts, options, templates."""

from __future__ import annotations

import json

from incanon.bench.coser.formats import BookData
from incanon.bench.coser.sft import SFT_TEMPLATES, SFTOptions, book_samples, export_sft


def _book(n_train: int = 1) -> BookData:
    conv = {
        "scenario": "Dawn on the Sea Wall.",
        "topic": "The dark lamp",
        "key_characters": [{"name": "Wren Callow", "thought": "I must find out who did it."},
                           {"name": "Dace Morrow", "motivation": "Let her think it was me."}],
        "dialogues": [
            {"character": "Wren Callow", "message": "[Someone cut it.] (holds up the wick) Look at this."},
            {"character": "Wren Callow", "message": "[He'll lie.] Well?"},
            {"character": "Dace Morrow", "message": "[Say nothing.] (shrugs) Wicks fray."},
            {"character": "Environment", "message": "A gull screams over the [empty] harbour."},
            {"character": "Dace Morrow", "message": "[Careful.]"},
            {"character": "Wren Callow", "message": "Not like this."},
        ],
    }
    plot = {"summary": "Wren finds a cut wick and suspects Dace.",
            "key_characters": [{"name": "Wren Callow", "description": "An apprentice.", "summary": "s"},
                               {"name": "Dace Morrow", "description": "Her rival.", "summary": "s"}],
            "conversation": [conv]}
    held = {"summary": "Later.", "conversation": [dict(conv, scenario="Held out.")]}
    return BookData.model_validate({
        "title": "The Wall-Lamps", "plots": [plot] * n_train + [held], "split_plot_index": n_train,
        "character_datasets": {"Wren Callow": {"profile": "Wren lights lamps."},
                               "Dace Morrow": {"profile": "Dace trims wicks."}},
    })


def test_one_sample_per_character_in_sharegpt_shape():
    samples = list(book_samples(_book()))
    assert [s["meta"]["character"] for s in samples] == ["Wren Callow", "Dace Morrow"]
    wren = samples[0]["conversations"]
    assert wren[0]["from"] == "system" and "Wren Callow" in wren[0]["value"]
    roles = [t["from"] for t in wren[1:]]
    assert roles == ["human", "gpt", "human", "gpt"]  # adjacent turns of one side are joined
    assert wren[2]["value"] == "[Someone cut it.] (holds up the wick) Look at this.\n\n[He'll lie.] Well?"
    # Others' thoughts are never shown; Environment is narration and kept whole.
    assert wren[3]["value"] == ("Dace Morrow: (shrugs) Wicks fray.\n\n"
                                "Environment: A gull screams over the [empty] harbour.")
    assert "I must find out who did it." in wren[0]["value"]  # own motivation
    assert "Let her think it was me." not in wren[0]["value"]  # never the other's


def test_without_thoughts_drops_own_thoughts_and_empty_turns():
    samples = list(book_samples(_book(), SFTOptions(thoughts=False)))
    dace = samples[1]["conversations"]
    gpt = [t["value"] for t in dace if t["from"] == "gpt"]
    assert gpt == ["(shrugs) Wicks fray."]  # "[Careful.]" alone left nothing to say
    assert all("[" not in t["value"] for t in dace[1:] if not t["value"].startswith("Environment"))
    assert samples[1]["meta"]["thoughts"] is False


def test_profiles_and_plot_are_optional():
    plain = list(book_samples(_book()))[0]["conversations"][0]["value"]
    full = list(book_samples(_book(), SFTOptions(with_profiles=True, with_plot=True)))[0]["conversations"][0]["value"]
    assert "Dace trims wicks." not in plain and "Wren finds a cut wick" not in plain
    assert "Dace trims wicks." in full and "Her rival." in full and "Wren finds a cut wick" in full
    assert "Wren lights lamps." in plain  # the character's own profile is always there


def test_templates_vary_by_sample_and_are_seeded():
    book = _book(n_train=12)
    first = [s["meta"]["template"] for s in book_samples(book, SFTOptions(seed=1))]
    assert first == [s["meta"]["template"] for s in book_samples(book, SFTOptions(seed=1))]
    assert len(set(first)) >= 3 and set(first) <= set(SFT_TEMPLATES)
    assert first != [s["meta"]["template"] for s in book_samples(book, SFTOptions(seed=2))]
    systems = {s["conversations"][0]["value"] for s in book_samples(book, SFTOptions(seed=1))
               if s["meta"]["character"] == "Wren Callow"}
    assert len(systems) >= 3


def test_split_selects_training_or_held_out_plots():
    book = _book()
    assert {s["meta"]["i_p"] for s in book_samples(book)} == {0}
    test = list(book_samples(book, SFTOptions(split="test")))
    assert {s["meta"]["i_p"] for s in test} == {1} and "Held out." in test[0]["conversations"][0]["value"]
    assert len(list(book_samples(book, SFTOptions(split="all")))) == 4


def test_export_writes_json_or_jsonl(tmp_path):
    n = export_sft([_book()], tmp_path / "sft.jsonl")
    lines = (tmp_path / "sft.jsonl").read_text().splitlines()
    assert n == len(lines) == 2 and json.loads(lines[0])["conversations"][0]["from"] == "system"
    assert export_sft([_book()], tmp_path / "sft.json") == 2
    assert len(json.loads((tmp_path / "sft.json").read_text())) == 2
