"""What a character learns in a scene is kept with the scene: reopened from the scenes store (a
new process's connections), the character still has it, also talking alone in the scene; the
canon is never written; and it is known from the story position it was said at (a scene moved
back before a line does not know it yet, and knows it again once back)."""

from __future__ import annotations

from incanon.agents.persona import character_at
from incanon.canon import CanonStore
from incanon.graph import HashEmbedder
from incanon.scenes import SceneSession, ScenesStore, handle

from .conftest import scene, scripted, sent_to

CONFESSION = "Utterly between us: I am Silas Crane."


async def test_a_reopened_scene_keeps_what_each_character_learned(vane, tmp_path):
    before = vane.export_world("vane").model_dump(mode="json")
    session = scene(vane, ["Ord", "Doctor Vane"], "1-2-1")
    await handle(session, "An evening call at the lawyer's.")
    await handle(session, f"/as Doctor Vane {CONFESSION}")
    assert [line.text for line in session.learned("Matthias Ord")] == ["An evening call at the lawyer's.", CONFESSION]
    assert session.learned("Aurel Vane")[-1].speaker == "Matthias Ord"  # what Ord answered, Vane heard
    await handle(session, "/leave Doctor Vane")
    kept = ScenesStore(tmp_path / "scenes.sqlite")
    kept.save(session.scene)
    kept.close()

    # Another connection to the canon, another to the scenes store: as after a restart.
    with CanonStore.open(tmp_path / "canon") as canon:
        kept = ScenesStore(tmp_path / "scenes.sqlite")
        again = SceneSession.reopen(canon, kept.load(session.scene.id), model=scripted(), embedder=HashEmbedder())
        kept.close()
        assert again.present == ["Matthias Ord"] and str(again.position) == "1-2-1"
        assert [line.text for line in again.learned("Matthias Ord")][:2] == ["An evening call at the lawyer's.",
                                                                             CONFESSION]
        # Ord alone in the scene, at the same position: he has heard it, as Vane's words.
        outcome = await handle(again, "Ord sits alone by the fire. What does he make of the evening?")
        assert outcome.kind == "lines" and outcome.lines[1].speaker == "Matthias Ord"
        assert any(f"Aurel Vane: {CONFESSION}" in m for m in sent_to(again, "Matthias Ord"))
        # Scene speech is not canon: the world is as it was, and Ord outside the scene never heard it.
        assert canon.export_world("vane").model_dump(mode="json") == before
        plain = character_at(canon, "vane", "Ord", "1-2-1", warn=False)
        assert "Silas Crane" not in " ".join([plain.profile, plain.time_description, *plain.aliases])


async def test_a_line_is_known_from_where_it_was_said(vane):
    session = scene(vane, ["Ord", "Doctor Vane"], "1-2-1")
    await handle(session, "Rain at the window.")  # Ord answers, at 1-2-1
    early = [line.text for line in session.lines]
    await handle(session, "/at 1-4-1")
    await handle(session, "Ord has read the confession.")  # Vane answers, from his scope at 1-4-1
    await handle(session, "/next Ord")  # and Ord, from his at 1-4-1
    assert [line.at for line in session.lines] == ["1-2-1"] * 2 + ["1-4-1"] * 3

    await handle(session, "/at 1-2-1")  # back before those lines were said
    assert [line.text for line in session.heard("Matthias Ord")] == early
    assert "confession" not in " ".join(t.text for t in session.dialogue_for("Matthias Ord"))
    assert all("confession" not in t.text for t in session.public_turns())
    said = len(sent_to(session, "Aurel Vane"))
    await handle(session, "/next Doctor Vane")
    assert all("confession" not in m for m in sent_to(session, "Aurel Vane")[said:])
    why = await handle(session, "/why Ord")
    # The rain, his own answer and Vane's new one; of them he learned the rain and Vane's.
    assert why.data["heard"] == {"lines": 3, "asides": 0, "learned": 2}

    await handle(session, "/at 1-4-1")  # and known again once the scene is back there
    assert "Ord has read the confession." in [line.text for line in session.heard("Matthias Ord")]
