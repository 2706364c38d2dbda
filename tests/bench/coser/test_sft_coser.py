"""SFT export in the released layout: four passes per conversation, Environment and next-speaker
samples, per-sample seeded draws, roles human / assistant, conversations only."""

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


def _kinds(samples):
    return [(s.meta["pass"], s.meta["character"]) for s in samples]


def test_every_speaker_in_four_passes_with_the_released_turns():
    samples = list(book_samples(_book(), SFTOptions(nsp_fraction=0.0)))
    # Speakers by number of messages (Wren 3, Dace 2, Environment 1), in each of the four passes.
    assert _kinds(samples) == [(p, n) for p in range(4) for n in ("Wren Callow", "Dace Morrow", "Environment")]
    with_thoughts = next(s for s in samples if s.meta["thoughts"] and s.meta["character"] == "Wren Callow")
    wren = with_thoughts.conversations
    assert wren[0]["from"] == "system" and "Wren Callow" in wren[0]["value"]
    assert [t["from"] for t in wren[1:]] == ["human", "assistant", "human", "assistant"]
    assert wren[1]["value"] == "===Conversation Start===\n\n"
    # A run of one's own messages: the first with the name, the next appended without it.
    assert wren[2]["value"] == "Wren Callow: [Someone cut it.] (holds up the wick) Look at this.\n\n[He'll lie.] Well?\n\n"
    # Others' thoughts are never shown (a message of thought only leaves "Name: "); the Environment is kept whole.
    assert wren[3]["value"] == ("Dace Morrow: (shrugs) Wicks fray.\n\n"
                                "Environment: A gull screams over the [empty] harbour.\n\nDace Morrow: \n\n")
    assert "Let her think it was me." not in wren[0]["value"]  # never another's motivation
    env = next(s for s in samples if s.meta["character"] == "Environment")
    assert env.meta["template"] == "coser_env_system"
    assert [t["value"] for t in env.conversations if t["from"] == "assistant"] == [
        "Environment: A gull screams over the [empty] harbour.\n\n"]


def test_thoughtless_passes_drop_own_thoughts_and_empty_turns():
    samples = [s for s in book_samples(_book(), SFTOptions(nsp_fraction=0.0)) if not s.meta["thoughts"]]
    dace = next(s for s in samples if s.meta["character"] == "Dace Morrow").conversations
    assert [t["value"] for t in dace if t["from"] == "assistant"] == ["Dace Morrow: (shrugs) Wicks fray.\n\n"]
    assert {s.meta["pass"] for s in samples} == {0, 1}


def test_next_speaker_samples_name_who_acts_and_end_the_chat():
    samples = [s for s in book_samples(_book(), SFTOptions(nsp_fraction=1.0)) if s.meta["character"] == "NSP"]
    assert len(samples) == 4  # one per pass
    turns = samples[0].conversations
    assert [t["value"] for t in turns if t["from"] == "assistant"] == [
        "Wren Callow", "Wren Callow", "Dace Morrow", "Environment", "Dace Morrow", "Wren Callow", "<END CHAT>"]
    assert turns[3]["value"] == "Wren Callow: [Someone cut it.] (holds up the wick) Look at this.\n\n"  # thoughts kept
    assert "<END CHAT>" in turns[0]["value"] and "random" in turns[0]["value"]
    assert not [s for s in book_samples(_book(), SFTOptions(nsp_fraction=0.0)) if s.meta["character"] == "NSP"]


def test_minor_speakers_are_sometimes_random_targets():
    book = _book()
    book.plots[0].conversation[0].dialogues[3].character = "A Gull-Keeper"  # no character dataset
    targets = [t["value"] for seed in range(40)
               for s in book_samples(book, SFTOptions(seed=seed, nsp_fraction=1.0)) if s.meta["character"] == "NSP"
               for t in s.conversations[2::2] if t["from"] == "assistant"]
    share = targets.count("random") / (targets.count("random") + targets.count("A Gull-Keeper"))
    assert 0.15 < share < 0.35  # one time in four, as the reference


def test_draws_are_per_sample_and_seeded():
    book = _book(n_train=12)
    first = [(s.meta.get("template"), s.meta.get("motivation"), s.meta.get("plot"), s.meta.get("experience"))
             for s in book_samples(book, SFTOptions(seed=1))]
    assert first == [(s.meta.get("template"), s.meta.get("motivation"), s.meta.get("plot"), s.meta.get("experience"))
                     for s in book_samples(book, SFTOptions(seed=1))]
    chars = [f for f, s in zip(first, book_samples(book, SFTOptions(seed=1))) if s.meta["character"] == "Wren Callow"]
    assert {c[0] for c in chars} == set(SFT_TEMPLATES)
    for index in (1, 2, 3):  # motivation, plot summary and experience each both ways
        assert {c[index] for c in chars} == {True, False}
    second = [s.conversations[0]["value"] for s in book_samples(book, SFTOptions(seed=2))]
    assert second != [s.conversations[0]["value"] for s in book_samples(book, SFTOptions(seed=1))]


def test_system_prompt_holds_what_was_drawn():
    for s in book_samples(_book(n_train=6), SFTOptions(seed=4, nsp_fraction=0.0)):
        if s.meta["character"] != "Wren Callow":
            continue
        system = s.conversations[0]["value"]
        assert ("I must find out who did it." in system) == s.meta["motivation"]
        assert ("Wren finds a cut wick" in system) == s.meta["plot"]
        assert ("Dace trims wicks." in system) == s.meta["with_profiles"]
        assert "Wren lights lamps." in system and "An apprentice." in system  # own profile, always


def test_split_selects_training_or_held_out_plots():
    book = _book()
    assert {s.meta["i_p"] for s in book_samples(book)} == {0}
    test = list(book_samples(book, SFTOptions(split="test", nsp_fraction=0.0)))
    assert {s.meta["i_p"] for s in test} == {1} and "Held out." in test[0].conversations[0]["value"]
    assert len(list(book_samples(book, SFTOptions(split="all", nsp_fraction=0.0)))) == 24


def test_export_writes_conversations_only(tmp_path):
    options = SFTOptions(nsp_fraction=0.0)
    samples = export_sft([_book()], tmp_path / "sft.jsonl", options)
    lines = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert len(samples) == len(lines) == 12 and all(list(line) == ["conversations"] for line in lines)
    assert {t["from"] for line in lines for t in line["conversations"]} == {"system", "human", "assistant"}
    assert len(export_sft([_book()], tmp_path / "sft.json", options)) == 12
    assert json.loads((tmp_path / "sft.json").read_text()) == lines
