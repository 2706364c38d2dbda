"""Event time per sentence on a biography: a description dated by its first sentence must not
carry its later ones, and an undated mention takes the date of its surroundings."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from incanon.canon import CanonStore, Position
from incanon.canon.position import Axis
from incanon.cli.main import app
from incanon.graph import GraphDB, GraphView
from incanon.graph.sentdates import dated, sentence_key, surrounding_key, visible_part

# Our own invented biography, plain text: background chunks with no story position.
BIOGRAPHY = """Maren Holt was born in 1867 in the port town of Sellby.
Her father kept the harbour light. She learned to read the tide tables as a child.
In 1903 she married the shipwright Anders Vik.
The Harbour Symphony, written for the new pier, made her name.
She founded the Sellby Singing School in 1911 and died in 1934.
"""

MAREN = ("Born in 1867 in Sellby; her father kept the harbour light. She read tide tables as a child. "
         "In 1903 she married Anders Vik. She founded the Sellby Singing School in 1911. She died in 1934.")
EXTRACTION = {
    "entities": [
        {"name": "Maren Holt", "type": "character", "description": MAREN, "when": "1867"},
        {"name": "Anders Vik", "type": "character", "description": "A shipwright, married to Maren Holt.",
         "when": "1903"},
        {"name": "Harbour Symphony", "type": "event", "description": "A symphony for the new pier.", "when": ""},
    ],
    "relations": [{"source": "Maren Holt", "target": "Harbour Symphony", "strength": 7,
                   "description": "Maren Holt wrote the Harbour Symphony, which made her name.", "when": ""}],
}


def _year(y: int) -> int:
    return Position.parse(f"{y}-01-01").key


def test_sentences_are_dated_and_undated_ones_take_the_previous_date():
    parts = dated(MAREN, Axis.DATE, _year(1867))
    assert [key for _, key in parts] == [_year(1867)] * 3 + [_year(1903), _year(1911), _year(1934)]
    assert visible_part(MAREN, Axis.DATE, _year(1867), _year(1880)) == (
        "Born in 1867 in Sellby; her father kept the harbour light. She read tide tables as a child.")
    assert sentence_key("In 1903 he recalled his 1867 debut.", Axis.DATE) == _year(1903)  # the latest date
    assert sentence_key("She had 12 pupils at 3 schools.", Axis.DATE) is None
    assert sentence_key("By mid-1819 she had finished it.", Axis.DATE) == _year(1819)  # a hyphen before the year
    assert sentence_key("In 1903 she married.", Axis.CHAPTER) is None
    assert surrounding_key(BIOGRAPHY, "Harbour Symphony", Axis.DATE) == _year(1903)  # the sentence before
    assert surrounding_key(BIOGRAPHY, "Singing School", Axis.DATE) == _year(1911)  # its sentence's first date
    assert surrounding_key("The Harbour Symphony was played. It was 1905.", "Harbour Symphony", Axis.DATE) is None
    # A paragraph is the limit: an opening summary's dates do not date the next paragraph.
    summary = "Maren Holt (1867-1934) wrote music; her letters appeared in 1950.\n\nShe grew up in Sellby. In 1903 she wed."
    assert surrounding_key(summary, "Sellby", Axis.DATE) is None
    assert surrounding_key(summary, "Maren Holt", Axis.DATE) == _year(1867)
    assert surrounding_key(BIOGRAPHY, "Nowhere", Axis.DATE) is None


def _build(tmp_path: Path) -> Path:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [
        {"match": "missing from your answer", "response": json.dumps({"entities": [], "relations": []})},
        {"match": "list the entities", "response": json.dumps(EXTRACTION)}], "default": "A summary."}))
    (tmp_path / "maren.txt").write_text(BIOGRAPHY, encoding="utf-8")
    store = tmp_path / "canon"
    result = CliRunner().invoke(app, ["graph", "build", str(tmp_path / "maren.txt"), "--store", str(store),
                                      "--work", "maren", "--axis", "date", "--character", "Maren Holt",
                                      "--helper", f"scripted:{rules}", "--no-cache", "--gleanings", "0"])
    assert result.exit_code == 0, result.output
    return store


def _view(store: CanonStore, at: str) -> GraphView:
    return GraphView(GraphDB(store, "maren"), store.scope("maren", "Maren Holt", at))


def test_a_biography_read_at_1880_tells_nothing_of_later_years(tmp_path: Path):
    with CanonStore.open(_build(tmp_path)) as store:
        early = _view(store, "1880-01-01")
        maren = early.node(early.find("Maren Holt"))
        assert "1867" in maren.description and "tide tables" in maren.description
        assert not any(y in maren.description for y in ("1903", "1911", "1934", "Anders"))
        assert early.find("Anders Vik") is None  # its own time is 1903
        # The symphony's mention has no time: its chunk sentence follows "In 1903 ...".
        assert early.find("Harbour Symphony") is None
        me = early.find("Maren Holt")
        assert all(e.target != "Harbour Symphony" and e.source != "Harbour Symphony" for e in early.edges_of(me))
        later = _view(store, "1905-06-01")
        assert later.find("Harbour Symphony") is not None
        assert "1903" in later.node(later.find("Maren Holt")).description
        assert "1911" not in later.node(later.find("Maren Holt")).description
        whole = GraphView(GraphDB(store, "maren"))
        assert "1934" in whole.node(whole.find("Maren Holt")).description


def test_a_sentence_spanning_a_life_dates_nothing_by_its_first_date():
    from incanon.graph.sentdates import spans_a_life

    opening = "Tobiah Quell (1812–1889) was a cartographer, best known for the Atlas and the Meridian Society."
    text = opening + "\n\nIn 1861 he published the Atlas. He founded the Meridian Society in 1875 with Corin Vale."
    assert spans_a_life(opening, Axis.DATE) and not spans_a_life("From 1841 to 1843 he travelled.", Axis.DATE)
    assert surrounding_key(text, "Atlas", Axis.DATE) == _year(1861)  # its own sentence, not 1812
    assert surrounding_key(text, "Meridian Society", Axis.DATE) == _year(1875)
    assert surrounding_key(text, "Tobiah Quell", Axis.DATE) == _year(1812)  # the span in brackets is its own
    # Named only in the summary: true by the end of what it spans, never from its start.
    assert surrounding_key(opening, "Atlas", Axis.DATE) == _year(1889)
    # The clause naming it may date it.
    both = "In 1861 he published the Atlas, and in 1875 he founded the Meridian Society."
    assert surrounding_key(both, "Atlas", Axis.DATE) == _year(1861)
    assert surrounding_key(both, "Meridian Society", Axis.DATE) == _year(1875)
