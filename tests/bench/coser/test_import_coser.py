"""``coser import``: released per-book JSON into the canon store, positioned by chapter titles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.bench.coser.formats import BookData
from incanon.bench.coser.import_book import import_books, released_places
from incanon.errors import InputError

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "coser" / "final" / "The Wall-Lamps.json"


def _book(*chapters: str | None, convs: int = 1) -> BookData:
    conv = {"scenario": "s", "dialogues": [{"character": "A", "message": "hi"}]}
    return BookData.model_validate({"plots": [{"chapter": c, "conversation": [conv] * convs} for c in chapters]})


def test_positions_follow_chapter_changes_in_plot_order():
    places = released_places(_book("Chapter 1", "Chapter 1.", None, "The Fall", "None", "Chapter 1"))
    assert [p.scenes for p in places] == [["1-1-1"], ["1-1-2"], ["1-1-3"], ["1-2-1"], ["1-2-2"], ["1-3-1"]]
    assert [p.scenes for p in released_places(_book("Act I, Scene 1", convs=2))] == [["1-1-1", "1-1-2"]]


def test_import_keeps_the_held_out_plots_out_unless_asked(tmp_path):
    from incanon.canon import CanonStore

    (summary,) = import_books([EXAMPLE.parent], tmp_path / "canon")
    assert (summary["work"], summary["scenes"], summary["held_out_plots"]) == ("the-wall-lamps", 2, 1)
    with CanonStore.open(tmp_path / "canon") as store:
        assert [str(s.position) for s in store.scenes("the-wall-lamps")] == ["1-1-1", "1-2-1"]
        assert store.character("the-wall-lamps", "Wren Callow").name == "Wren Callow"
    (summary,) = import_books([EXAMPLE], tmp_path / "canon", include_held_out=True)
    assert summary["scenes"] == 3


def test_titles_differing_in_punctuation_do_not_overwrite_each_other(tmp_path):
    data = json.loads(EXAMPLE.read_text())
    for name in ("Wren's Lamps.json", "Wren’s Lamps.json"):
        (tmp_path / name).write_text(json.dumps(data))
    works = [s["work"] for s in import_books([tmp_path], tmp_path / "canon")]
    assert len(set(works)) == 2 and works[0] == "wren-s-lamps"


def test_a_bad_file_leaves_no_store(tmp_path):
    (tmp_path / "bad.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError):
        import_books([EXAMPLE, tmp_path / "bad.json"], tmp_path / "canon")
    assert not (tmp_path / "canon").exists()


def test_plots_without_conversation_make_no_scene(tmp_path):
    from typer.testing import CliRunner

    from incanon.canon import CanonStore
    from incanon.cli.main import app

    conv = {"scenario": "At the well.", "dialogues": [{"character": "Ann", "message": "Water!"}]}
    data = {"plots": [
        {"chapter": "One", "summary": "Ann draws water.", "text": "Ann went to the well.", "conversation": [conv]},
        {"chapter": "One", "summary": "Night falls.", "text": "The night came down.", "conversation": [],
         "key_characters": [{"name": "Ann"}]},
        {"chapter": "One", "summary": "Ann sings.", "text": "Ann sang.", "conversation": [conv, conv]},
        {"chapter": "Two", "summary": "Rain.", "text": "It rained for days.", "conversation": []}],
        "character_datasets": {"Ann": {"profile": "A girl."}}, "split_plot_index": 4}
    path = tmp_path / "Well.json"
    path.write_text(json.dumps(data))
    places = released_places(BookData.model_validate(data))
    assert [p.scenes for p in places] == [["1-1-1"], [], ["1-1-2", "1-1-3"], []]
    # The text of a plot without a scene sits where the chapter's next scene would: never earlier.
    assert [p.text_position for p in places] == ["1-1-1", "1-1-2", "1-1-2", "1-2-1"]
    (summary,) = import_books([path], tmp_path / "canon")
    assert (summary["scenes"], summary["plots_without_conversation"]) == (3, 2)
    with CanonStore.open(tmp_path / "canon") as store:
        assert all(store.messages("well", s.id) for s in store.scenes("well"))
        chunk = {c.id: c for c in store.chunks("well")}["plot-1"]
        assert (str(chunk.position), chunk.scene) == ("1-1-2", None)
    result = CliRunner().invoke(app, ["coser", "import", str(path), "--store", str(tmp_path / "c2")])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "3 scenes in 2 chapters" in text and "2 plots without conversation, so no scene" in text
