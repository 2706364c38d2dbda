"""The perception stage of ``canon build``: the narrator of a first-person book, the helper's
marked passages placed in the scene and in its chunks, and profile prompts that carry only what
the character perceived (``incanon.canonbuild.perception``)."""

from __future__ import annotations

import asyncio
import json

import pytest

from incanon.canonbuild.cast import Cast, CastMember
from incanon.canonbuild.perception import choose_narrator, chunk_units, label_scenes
from incanon.canonbuild.profiles import write_sheets
from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.canonbuild.timepoints import PlannedPoint
from incanon.canon.world import Chunk
from incanon.errors import IncanonError
from incanon.models import ScriptedModel
from incanon.templates import default_library

THOUGHT = "I knew then that the thing I had built had done it"
LETTER = "Dear Elias, come home."
TRIAL = (f"Nell stood in the dock. \u201cI never touched him,\u201d she said. I looked at my father. {THOUGHT}, "
         "and I held my tongue. My father wept.")
STUDY = f"My father sat at his desk and wrote: {LETTER} He sealed it."
HOME = "At home I opened his letter and read it twice. I went up to my room and slept."


def _scenes() -> list[ExtractedScene]:
    return [ExtractedScene(1, 1, 0, 0, STUDY, "Oren writes to Elias.", [], ["Oren"], 1),
            ExtractedScene(1, 2, 0, 0, TRIAL, f"Elias keeps silent: {THOUGHT}.", ["Nell"], ["Elias", "Nell", "Oren"], 1),
            ExtractedScene(1, 3, 0, 0, HOME, "Elias reads the letter.", [], ["Elias"], 1),
            ExtractedScene(1, 4, 0, 0, "In the morning I walked to the mill.", "", [], ["Elias"], 1)]


def _cast() -> Cast:
    return Cast([CastMember("Elias Marr", ["Elias"], scenes=["1-2-1", "1-3-1"]),
                 CastMember("Oren Marr", ["Oren"], scenes=["1-1-1", "1-2-1"]),
                 CastMember("Nell Ashby", ["Nell"], scenes=["1-2-1"])])


def _helper() -> ScriptedModel:
    return ScriptedModel([
        (r"who perceives what[\s\S]*My father sat at his desk",
         json.dumps({"units": [{"text": LETTER, "mode": "document", "by": "Oren", "known_by": ["Elias"],
                                "read_in": "1-3-1"}]})),
        (r"who perceives what[\s\S]*Nell stood in the dock",
         json.dumps({"units": [{"text": "My father wept.", "mode": "action", "by": "Oren"},
                               {"text": "a passage the scene does not hold", "mode": "thought", "by": "Nell"}]})),
        (r"who perceives what", json.dumps({"units": []})),
        (r"character sheet", json.dumps({"profile": "p", "personality": "q", "situation": "s"})),
    ])


def test_the_narrator_of_a_first_person_book_is_the_one_present_throughout() -> None:
    assert choose_narrator(_scenes(), _cast(), None)[0] == "Elias Marr"
    assert choose_narrator(_scenes(), _cast(), "Nell")[0] == "Nell Ashby"
    with pytest.raises(IncanonError, match="--narrator 'Tam' is no character"):
        choose_narrator(_scenes(), _cast(), "Tam")


def test_marked_passages_are_placed_and_bad_ones_counted() -> None:
    scenes, cast = _scenes(), _cast()
    result = asyncio.run(label_scenes(scenes, cast, "Elias Marr", "The Wound Man", _helper(), default_library()))
    assert (result.asked, result.failed, result.dropped) == (4, 0, 1)
    trial, study, home = scenes[1], scenes[0], scenes[2]
    assert THOUGHT in result.perceived(trial, "Elias Marr")
    nell = result.perceived(trial, "Nell Ashby")
    assert THOUGHT not in nell and "I never touched him" in nell and "My father wept." in nell
    assert result.perceived(study, "Oren Marr") == LETTER  # narration of a first-person book: the narrator's


def test_units_follow_the_chunks_they_fall_in() -> None:
    scenes, cast = _scenes(), _cast()
    result = asyncio.run(label_scenes(scenes, cast, "Elias Marr", "t", _helper(), default_library()))
    half = len("My father sat at his desk and wrote: Dear Elias,")
    chunks = [Chunk(id="1-1-1#0", position="1-1-1", scene="1-1-1", text=STUDY[:half]),
              Chunk(id="1-1-1#1", position="1-1-1", scene="1-1-1", text=STUDY[half:])]
    placed = chunk_units(chunks, {s.id: s for s in scenes}, result)
    assert [[u.text for u in c.units] for c in placed] == [["Dear Elias,"], [" come home."]]
    assert all(u.mode == "document" and u.known_by == ["Elias Marr"] and u.from_ == "1-3-1"
               for c in placed for u in c.units)


@pytest.mark.parametrize("who", ["Oren Marr", "Nell Ashby"])
def test_profile_prompts_carry_only_what_the_character_perceived(who: str) -> None:
    scenes, cast = _scenes(), _cast()
    helper = _helper()
    result = asyncio.run(label_scenes(scenes, cast, "Elias Marr", "t", helper, default_library()))
    member = cast.owner(who)
    asyncio.run(write_sheets(member, [PlannedPoint("1-2-1", "the trial", "even")], scenes, "t", helper,
                             default_library(), perception=result))
    prompt = helper.calls[-1].messages[0].content
    assert "character sheet" in prompt and "I never touched him" in prompt
    assert THOUGHT not in prompt  # neither in the text nor in the (narrator's) summary


def test_without_perception_the_thought_reaches_the_profile_prompt() -> None:
    # The plant: the stage left out, the raw scene text goes to the helper (the check above can fail).
    scenes, cast = _scenes(), _cast()
    helper = _helper()
    asyncio.run(write_sheets(cast.owner("Nell"), [PlannedPoint("1-2-1", "the trial", "even")], scenes, "t", helper,
                             default_library()))
    assert THOUGHT in helper.calls[-1].messages[0].content
