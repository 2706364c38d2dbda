"""The leak audit on scene prompts: every prompt a character's turn sent, read against that
character's horizon (word check) and by planted canaries, is clean on the sample world and the
Jekyll-like world at an early point; a planted leak (another character's later scene put into a
character's situation) is caught by both, so the check is seen to fail."""

from __future__ import annotations

from incanon.audit.run import QUESTIONS
from incanon.canon import CanonStore
from incanon.canon.horizon import KINDS
from incanon.scenes import SceneSession, handle
from incanon.scenes.audit import audit_scene, canary_scene

from .conftest import scene

#: A scene where every character speaks several times: open questions from the narrator (the
#: audit's own), a line spoken for one, an aside, turns by order and by name.
SCRIPT = [QUESTIONS[0], "/next", QUESTIONS[1], "/next", "/as {a} Tell me what you know of this place.",
          "/to {b} Someone is listening at the door.", "/next {b}", "/next {a}"]


async def _play(session: SceneSession) -> SceneSession:
    a, b = session.present[:2]
    for line in SCRIPT:
        outcome = await handle(session, line.format(a=a, b=b))
        assert outcome.kind == "lines", outcome.message
    return session


def _total(session: SceneSession) -> tuple[int, dict[str, int], int]:
    findings = audit_scene(session)
    counts = {k: sum(f.leaks.counts()[k] for f in findings) for k in KINDS}
    return sum(counts.values()), counts, len(findings)


class PlantedLeak(SceneSession):
    """A broken builder: Wren's situation is told the summary of a later scene she was not in
    (Ottilie and Dace at the marsh hut, 2-2-2)."""

    def staged(self, name):  # noqa: ANN001, ANN201 - the override under test
        who = super().staged(name)
        if name != "Wren Callow":
            return who
        later = self.store.scene(self.work, "2-2-2")
        return who.model_copy(update={"time_description": f"{who.time_description} {later.title}. {later.summary}"})


async def test_a_two_character_scene_at_an_early_point_sends_nothing_beyond_either_horizon(lanterns):
    session = await _play(scene(lanterns, ["Wren", "Ottilie"], "1-1-1"))
    total, counts, turns = _total(session)
    assert turns >= 6 and {line.speaker for line in session.lines if line.written_by == "model"} == {
        "Wren Callow", "Ottilie Brand"}
    assert total == 0, counts


async def test_the_canary_check_finds_nothing_out_of_scope_in_the_scene(lanterns):
    async def play(copy: CanonStore) -> SceneSession:
        return await _play(scene(copy, ["Wren", "Ottilie"], "1-1-1"))

    report = await canary_scene(lanterns, "lanterns", play)
    assert report.planted > 100 and report.checked >= 6
    assert report.found == []


async def test_the_secret_world_scene_is_clean_by_both_checks(vane):
    session = await _play(scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1"))
    total, counts, _ = _total(session)
    assert total == 0, counts

    async def play(copy: CanonStore) -> SceneSession:
        return await _play(scene(copy, ["Ord", "Doctor Vane", "Tull"], "1-2-1"))

    assert (await canary_scene(vane, "vane", play)).found == []


async def test_a_planted_leak_is_caught_by_both_checks(lanterns):
    from incanon.graph import HashEmbedder
    from .conftest import scripted

    def broken(store: CanonStore) -> SceneSession:
        return PlantedLeak(store, characters=["Wren", "Ottilie"], at="1-1-1", model=scripted(),
                           embedder=HashEmbedder(), order="round-robin")

    session = await _play(broken(lanterns))
    findings = audit_scene(session)
    wren = [f for f in findings if f.character == "Wren Callow"]
    assert wren and all(f.leaks.total > 0 for f in wren)
    assert all(f.leaks.total == 0 for f in findings if f.character == "Ottilie Brand")

    async def play(copy: CanonStore) -> SceneSession:
        return await _play(broken(copy))

    report = await canary_scene(lanterns, "lanterns", play)
    assert report.found and {f.character for f in report.found} == {"Wren Callow"}
    assert {f.canary.where for f in report.found} == {"2-2-2"}
