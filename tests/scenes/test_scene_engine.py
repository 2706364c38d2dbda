"""The scene engine: each character built by the scoped builder, hearing only what was said while
it was there; asides; names as each knows them; next speakers by the user, round robin or
CoSER's prediction; a whole scene moved in story time."""

from __future__ import annotations

import re

import pytest

from incanon.agents.persona import character_at
from incanon.errors import InputError, ModelError, NotFoundError
from incanon.scenes import SceneSession, handle

from .conftest import NEUTRAL, scene, scripted, sent_to

C2 = "Ord took the will of Aurel Vane from his safe. Every penny was to go to Silas Crane"


def _said(text: str, messages: list[str]) -> bool:
    return any(text in m for m in messages)


def _linked(messages: list[str]) -> list[str]:
    """Sentences that put Silas Crane beside Vane, other than the will Ord read himself (c2)."""
    found = []
    for text in messages:
        for sentence in re.split(r"(?<=[.!?])\s+|\n", text.replace(C2, "")):
            if "Silas Crane" in sentence and "Vane" in sentence:
                found.append(sentence)
    return found


async def test_each_character_is_the_scoped_builders(lanterns):
    session = scene(lanterns, ["Wren", "Ottilie"], "1-1-1")
    for name in ("Wren Callow", "Ottilie Brand"):
        built = character_at(lanterns, "lanterns", name, "1-1-1", warn=False)
        member = session.members[name].who
        assert (member.aliases, member.profile, member.personality) == (built.aliases, built.profile, built.personality)
    await handle(session, "The lamp-room is cold tonight.")
    await handle(session, "/next Wren")
    systems = [m for m in sent_to(session, "Wren Callow") if m.startswith("You are Wren Callow")]
    assert systems and all("Stormwren" not in s and "Lamp-Mistress Callow" not in s for s in systems)
    assert all("You are in a scene with Ottilie Brand" in s for s in systems)


async def test_a_character_hears_only_what_was_said_while_it_was_there(vane):
    session = scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1")
    session.narrate("Rain at the window.")
    session.leave("Tull")
    session.speak_as("Doctor Vane", "The salts are ready in the laboratory.")
    session.enter("Tull")
    await session.next("Tull")
    await session.next("Ord")
    tull = "\n".join(sent_to(session, "Bram Tull"))
    ord_ = sent_to(session, "Matthias Ord")
    assert "Rain at the window." in tull and "salts" not in tull
    assert _said("Aurel Vane: The salts are ready in the laboratory.", ord_)
    assert [line.heard_by for line in session.lines[:2]] == [
        ["Matthias Ord", "Aurel Vane", "Bram Tull"], ["Matthias Ord", "Aurel Vane"]]
    assert [(c.character, c.present) for c in session.scene.cast] == [("Bram Tull", False), ("Bram Tull", True)]


async def test_an_aside_is_heard_by_the_one_it_is_addressed_to(vane):
    session = scene(vane, ["Ord", "Tull"], "1-2-1")
    outcome = await handle(session, "/to Tull The door in the lane is open again.")
    assert outcome.kind == "lines" and outcome.lines[0].heard_by == ["Bram Tull"]
    await handle(session, "/next Ord")
    await handle(session, "/next Tull")
    assert all("door in the lane is open" not in m for m in sent_to(session, "Matthias Ord"))
    assert _said("(Only you hear this.) The door in the lane is open again.", sent_to(session, "Bram Tull"))


async def test_the_secret_stays_vanes_until_he_says_it_in_the_scene(vane):
    session = scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1")
    await handle(session, "An evening call at the lawyer's; Tull is by the fire.")
    await handle(session, "/next Doctor Vane")
    await handle(session, "/next Ord")
    before = sent_to(session, "Matthias Ord")
    assert before and not _linked(before)
    assert all("In secret you are also" not in m for m in before)
    assert _said("Aurel Vane: I would rather not say.", before)  # Ord knows him by his own name
    # Vane himself knows, and his own prompt says so.
    assert any("In secret you are also Silas Crane" in m for m in sent_to(session, "Aurel Vane"))

    said = len(before)
    await handle(session, "/as Doctor Vane Utterly between us: I am Silas Crane.")
    await handle(session, "/next Ord")
    after = sent_to(session, "Matthias Ord")[said:]
    assert _said("Aurel Vane: Utterly between us: I am Silas Crane.", after)  # heard, as what Vane said
    assert all("In secret you are also" not in m for m in after)
    # Tull has never met Vane: he hears a stranger say it, and no name of Vane's reaches him.
    tull = sent_to(session, "Bram Tull")
    assert _said("Stranger: Utterly between us: I am Silas Crane.", tull)
    assert all("Vane" not in m for m in tull)


async def test_a_name_said_in_the_scene_is_known_from_then_on(vane):
    session = scene(vane, ["Tull", "Doctor Vane"], "1-2-1")
    assert session.labels("Bram Tull") == {"Aurel Vane": "Stranger"}
    session.narrate("Ord introduces Doctor Vane to his cousin.")
    assert session.labels("Bram Tull") == {"Aurel Vane": "Doctor Vane"}
    assert session.labels("Aurel Vane") == {"Bram Tull": "Stranger"}


async def test_round_robin_and_the_users_choice(vane):
    session = scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1")
    outcome = await handle(session, "Rain at the window.")
    assert [(line.speaker, line.chosen) for line in outcome.lines] == [
        ("narrator", ""), ("Matthias Ord", "round-robin")]
    assert (await handle(session, "/next")).lines[0].speaker == "Aurel Vane"
    assert (await handle(session, "/next Ord")).lines[0].chosen == "user"
    assert (await handle(session, "/as Tull Morning, cousin.")).lines[1].speaker == "Matthias Ord"


async def test_the_next_speaker_is_coser_s_prediction(vane):
    model = scripted(("Who acts next", "Bram Tull"))
    session = scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1", model, order="nsp")
    session.aside("Tull", "Only Tull hears this.")
    outcome = await handle(session, "Rain at the window.")
    line = outcome.lines[1]
    assert (line.speaker, line.chosen) == ("Bram Tull", "next-speaker prediction")
    (nsp,) = [c for c in model.calls if c.messages[-1].content.rstrip().endswith("Answer with the choice only.")]
    assert nsp.messages[0].content.startswith("You direct a role-playing scene")  # CoSER's template, unchanged
    assert "Matthias Ord, Aurel Vane, Bram Tull" in nsp.messages[0].content
    assert "Only Tull hears this." not in nsp.messages[-1].content  # the predictor hears no aside
    assert "Narrator: Rain at the window." in nsp.messages[-1].content


async def test_an_unclear_prediction_falls_back_as_coser_does(vane):
    picks = []
    for _ in range(2):
        session = scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1", scripted(("Who acts next", "the butler")),
                        order="nsp", scene_id="fixed")
        line = (await handle(session, "Rain at the window.")).lines[1]
        assert line.chosen == "random pick (no speaker named)"
        picks.append(line.speaker)
    assert picks[0] == picks[1]  # seeded by the scene and the line: the same pick on a rerun
    session = scene(vane, ["Ord", "Tull"], "1-2-1", scripted(("Who acts next", "END")), order="nsp")
    session.speak_as("Ord", "Good night, cousin.")
    line = await session.next()
    assert (line.speaker, line.chosen) == ("Bram Tull", "round-robin (the predictor would end the scene here)")


async def test_moving_the_scene_builds_everyone_again_and_keeps_what_they_heard(vane):
    session = scene(vane, ["Ord", "Doctor Vane"], "1-2-1")
    await handle(session, "Rain at the window.")
    outcome = await handle(session, "/at 1-4-1")
    assert outcome.kind == "moved" and outcome.message == "the scene is now at 1-4-1"
    assert {str(m.who.position) for m in session.members.values()} == {"1-4-1"}
    assert session.members["Matthias Ord"].who.time_label == "the confession"
    assert [s.at for s in session.scene.stops] == ["1-2-1", "1-4-1"]
    await handle(session, "/next Ord")
    assert _said("Rain at the window.", sent_to(session, "Matthias Ord"))
    bad = await handle(session, "/at 9-9")
    assert bad.kind == "error" and "after the end of the story" in bad.message and session.scene.at == "1-4-1"


async def test_a_setting_gives_the_place_the_position_and_the_cast(vane):
    session = SceneSession(vane, setting="s1", model=scripted())
    assert (session.present, str(session.position)) == (["Matthias Ord", "Bram Tull"], "1-1-1")
    session = scene(vane, ["Ord", "Doctor Vane"], "1-2-1", setting="s2")
    assert session.place("Matthias Ord") == "Ord's office"
    assert "You are in a scene (Ord's office) with Aurel Vane." in session.staged("Matthias Ord").time_description
    with pytest.raises(InputError, match="lies after the scene's position"):
        scene(vane, ["Ord", "Doctor Vane"], "1-2-1", setting="s4")


@pytest.mark.parametrize(("characters", "at", "error", "message"), [
    (["Ord"], "1-2-1", InputError, "a scene has 2 to 4 characters, got 1"),
    (["Ord", "Matthias Ord"], "1-2-1", InputError, "Matthias Ord is named twice"),
    (["Ord", "Nobody"], "1-2-1", NotFoundError, "unknown character 'Nobody'"),
    (["Ord", "Tull"], "9-9", NotFoundError, "after the end of the story"),
    (["Ord", "Tull"], "teatime", NotFoundError, "unknown story position 'teatime'"),
])
def test_a_wrong_scene_is_one_clear_line(vane, characters, at, error, message):
    with pytest.raises(error) as caught:
        scene(vane, characters, at)
    assert message in str(caught.value) and "\n" not in str(caught.value)


async def test_a_failed_answer_takes_its_line_back(vane):
    model = scripted()
    session = scene(vane, ["Ord", "Tull"], "1-2-1", model, options={"experts": False})
    model.queue.append(ModelError("the server went away"))
    outcome = await handle(session, "Rain at the window.")
    assert outcome.kind == "error" and outcome.message == "the server went away"
    assert session.lines == []
    assert (await handle(session, "Rain at the window.")).lines[1].text == NEUTRAL
    assert (await handle(session, "/as Nobody hello")).kind == "error"
    assert (await handle(session, "/frobnicate")).message == "unknown command /frobnicate; /help lists the commands"


async def test_the_dialogue_alternates_and_a_reply_is_only_its_speakers(vane):
    session = scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1", scripted(
        default="Matthias Ord: A wet night.\nBram Tull: It is, cousin.\nNarrator: The fire dies."))
    session.narrate("Rain at the window.")
    session.speak_as("Tull", "Cold, too.")
    session.speak_as("Ord", "Sit by the fire.")
    session.speak_as("Ord", "Both of you.")
    turns = session.dialogue_for("Matthias Ord")
    assert [t.speaker for t in turns] == ["user", "Matthias Ord", "user"]
    assert turns[0].text == "Rain at the window.\n\nBram Tull: Cold, too."
    assert turns[1].text == "Sit by the fire.\n\nBoth of you."
    line = await session.next("Ord")
    assert line.text == "A wet night."  # his own name taken off, the others' lines he wrote cut
    assert session.replies[line.index].calls[-1].output.startswith("Matthias Ord: A wet night.")
