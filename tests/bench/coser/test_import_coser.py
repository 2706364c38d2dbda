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
