"""Building items from a canon store: every data type, ground truth from the canon, failures."""

from __future__ import annotations

import json
from collections import Counter

from incanon.bench.timechara import STRUCTURED_TEMPLATES, BuildOptions, build_items
from incanon.canon import Position
from incanon.models import ScriptedModel, load_chat_model, unwrap

from timechara_helpers import HELPER_RULES, helper_model

MAIN = ["Wren Callow", "Dace Morrow", "Sefa Quill"]


async def test_sample_world_yields_all_four_types_and_fake_items(store, helper):
    result = await build_items(store, "lanterns", helper, options=BuildOptions(characters=MAIN))
    kinds = Counter((i.question_generation, i.data_type) for i in result.items)
    assert {dt for _, dt in kinds} == {"future", "past-absence", "past-presence", "past-only"}
    for cell in [("fact_structured", "future"), ("fact_structured", "past-presence"),
                 ("fact_structured", "past-absence"), ("fact_freeform", "future"),
                 ("fact_freeform", "past-only"), ("fake_freeform", "past-only")]:
        assert kinds[cell] > 0, cell
    fakes = [i for i in result.items if i.is_fake]
    assert all(i.fake_method == "3. change the location" and "chapel" in i.question for i in fakes)
    assert all(i.answer.startswith("They did not") for i in fakes)
    assert result.report.scenes_used == result.report.scenes_total == 40
    assert not result.report.failures
    assert sum(result.report.counts.values()) == len(result.items)


async def test_every_data_type_agrees_with_the_canon(store, helper):
    result = await build_items(store, "lanterns", helper, options=BuildOptions(characters=MAIN))
    scenes = {s.id: s for s in store.scenes("lanterns")}
    for item in result.items:
        scene = scenes[item.scene]
        character = store.character("lanterns", item.character)
        at = Position.parse(item.character_position)
        assert at in {tp.position for tp in character.time_points}
        assert item.participants == list(scene.participants)  # the canon's list, not the helper's
        assert item.question_period == str(scene.position)
        if item.data_type == "future":
            assert scene.position > at, item.id  # never an event the character has already lived
            assert item.temporal_label.startswith("Future:")
        else:
            assert scene.position <= at, item.id
            assert item.temporal_label.startswith("Past:")
        if item.data_type == "past-absence":
            assert item.character not in scene.participants, item.id
            assert item.spatial_label.startswith("Absence:")
        if item.data_type == "past-presence":
            assert item.character in scene.participants, item.id
            assert item.spatial_label.startswith("Presence:")
        if item.data_type in ("future", "past-only"):
            assert item.spatial_label == "-"
        if item.question_generation == "fact_structured":
            assert item.data_type != "past-only"
        else:
            assert item.data_type in ("future", "past-only")


async def test_helper_claims_about_participants_are_reported_not_used(store, helper):
    result = await build_items(store, "lanterns", helper, options=BuildOptions(characters=MAIN))
    # The scripted helper lists six people for every scene; scene 1-1-2 has two.
    assert "Dace Morrow" in result.report.participant_mismatches["1-1-2"]
    absent = [i for i in result.items if i.scene == "1-1-2" and i.data_type == "past-absence"]
    assert {i.character for i in absent} == {"Dace Morrow"}


async def test_structured_questions_use_the_templates_and_labels_quote_the_scene(store, helper):
    result = await build_items(store, "lanterns", helper, options=BuildOptions(characters=MAIN))
    starts = {t.text.split("{event}")[0] for t in STRUCTURED_TEMPLATES}
    structured = [i for i in result.items if i.is_structured]
    assert all(any(i.question.startswith(s) for s in starts) for i in structured)
    assert all("lamplighters quarrelled over the wall" in i.question for i in structured)
    past = next(i for i in result.items if i.scene == "1-1-1" and i.data_type == "past-presence")
    assert "Moment:" in past.temporal_label and "Lamphouse on Wick Lane" in past.temporal_label
    freeform = next(i for i in result.items if i.question_generation == "fact_freeform" and i.data_type == "past-only")
    assert "Answer: The wall." in freeform.temporal_label
    assert all(i.personality_label for i in result.items)


async def test_build_is_deterministic_for_a_seed(store):
    first = await build_items(store, "lanterns", helper_model(), options=BuildOptions(characters=MAIN, seed=3))
    again = await build_items(store, "lanterns", helper_model(), options=BuildOptions(characters=MAIN, seed=3,
                                                                                      concurrency=1))
    other = await build_items(store, "lanterns", helper_model(), options=BuildOptions(characters=MAIN, seed=4))
    assert [i.row() for i in first.items] == [i.row() for i in again.items]
    assert [i.row() for i in first.items] != [i.row() for i in other.items]


async def test_gold_is_regenerated_while_the_judge_rejects_it(store):
    judge = ScriptedModel(queue=["Score: 0", "Score: 1"], default="Score: 1")
    helper = helper_model()
    result = await build_items(store, "lanterns", helper, judge_model=judge,
                               options=BuildOptions(characters=["Wren Callow"], freeform=False, fake=False,
                                                    concurrency=1))
    retried = [i for i in result.items if i.gold_attempts == 2]
    assert len(retried) == 1 and retried[0].gold_consistent is True
    gold_calls = [c for c in helper.calls if "Write the character's answer" in c.messages[-1].content]
    epochs = Counter(c.params.epoch for c in gold_calls)
    assert epochs[1] == 1  # the retry is a new sample (its own cache entry), not a replay


async def test_gold_that_never_passes_is_recorded_with_bounded_attempts(store):
    judge = ScriptedModel(default="It contradicts the label.\nScore: 0")
    result = await build_items(store, "lanterns", helper_model(), judge_model=judge,
                               options=BuildOptions(characters=["Sefa Quill"], freeform=False, fake=False,
                                                    gold_attempts=2))
    assert result.items and all(i.gold_consistent is False and i.gold_attempts == 2 for i in result.items)
    assert set(result.report.gold_inconsistent) == {i.id for i in result.items}


async def test_unreadable_helper_output_is_repaired_or_recorded(store):
    # Scene 1-1-1: prose first, JSON on the repair turn. Scene 1-1-2: never JSON.
    state = {"repaired": 0}

    def event(messages):
        text = messages[-1].content
        if "could not be read" in text:
            state["repaired"] += 1
            if "1-1-2" in messages[0].content:
                return "I really cannot say."
            return json.dumps({"event_summary": "Ottilie announced the Equinox trial.", "participants": []})
        if "story position 1-1-1" in text or "story position 1-1-2" in text:
            return "Well, it is a lovely scene."
        return HELPER_RULES[0][1](messages)

    helper = helper_model(extra=[(r"could not be read|Summarize the scene as a single event", event)])
    result = await build_items(store, "lanterns", helper, options=BuildOptions(characters=MAIN))
    assert state["repaired"] == 2
    assert "1-1-2" in result.report.skipped and "1-1-1" not in result.report.skipped
    failure = next(f for f in result.report.failures if f.scene == "1-1-2")
    assert failure.step == "event" and "I really cannot say." in failure.raw
    assert any(i.event_summary == "Ottilie announced the Equinox trial." for i in result.items)
    assert not any(i.scene == "1-1-2" for i in result.items)


async def test_every_helper_call_is_cached(store, tmp_path):
    backend = helper_model()
    model = load_chat_model(backend, cache=tmp_path / "cache.sqlite")
    options = BuildOptions(characters=["Wren Callow"])
    first = await build_items(store, "lanterns", model, options=options)
    calls = len(unwrap(model).calls)
    again = await build_items(store, "lanterns", model, options=options)
    assert calls > 0 and len(unwrap(model).calls) == calls
    assert [i.row() for i in first.items] == [i.row() for i in again.items]


async def test_scenes_without_enough_dialogue_are_skipped(store, helper):
    result = await build_items(store, "lanterns", helper,
                               options=BuildOptions(characters=MAIN, min_turns=26, freeform=False, fake=False))
    # Only the longest dialogue sessions have 26+ spoken lines.
    assert 0 < result.report.scenes_used < 10
    assert all("fewer than 26" in why for why in result.report.skipped.values())
