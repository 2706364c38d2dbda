"""The two readings of a judge's text: the authors' (the paper protocol) and incanon's; the
protocol picks one for live judging and for ``rescore --reparse``, and the count of items the two
disagree on is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.agents import CharacterAt
from incanon.bench.timechara import Judges, TimeCharaItem, judge_answer, load_items
from incanon.bench.timechara.authors import evaluate_printout, read_authors_output, readings_disagree
from incanon.bench.timechara.scoring import authors_extract, authors_reading, incanon_reading, reading_for
from incanon.canon import Position
from incanon.errors import ConfigError, InputError
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

from timechara_helpers import published_row

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "timechara"
DATASET = EXAMPLES / "published" / "validation.json"

BINARY, LIKERT = {0, 1}, (1, 7)

# (judge text, scale, authors' extract_score, incanon's reading). The authors' column is what their
# function returns: an int, or the text's last character as a str when the last line has no
# standalone digit 0-7.
CASES = [
    ("Score: 1 (the event is in chapter 5)", BINARY, 5, 1),
    ("Score: 0 out of 1", BINARY, 1, 0),
    ("6/7", LIKERT, 7, 6),
    ("Final score - 6/7", LIKERT, 7, 6),
    ("Score: 3 (Harry is 11 in book 1)", LIKERT, 1, 3),
    ("Score: one", BINARY, "e", 1),
    ("Score: 0\nThe character knows nothing of it.", BINARY, ".", 0),
    ("Consistent overall.\nScore: 1\n.", BINARY, ".", 1),
    ("The response scores 10 out of 10", LIKERT, "0", None),
    ("The answer is consistent.\n1", BINARY, 1, 1),
    ("Inconsistent: reveals the future.\nScore: 0", BINARY, 0, 0),
    ("**Score**: 1", BINARY, 1, 1),
    ("Reasoning... a score of 0 would be wrong.\n1", BINARY, 1, 1),
    ("I give it a 5.", LIKERT, 5, 5),
    ("[[6]]", LIKERT, 6, 6),
    ("score = 1/1", BINARY, 1, 1),
    ("Rating: 4\n", LIKERT, 4, 4),
    ("Score: 7", LIKERT, 7, 7),
    ("Personality: 6. Temporal: 1", LIKERT, 1, 1),
]


@pytest.mark.parametrize(("text", "scale", "authors", "incanon"), CASES)
def test_both_readings_of_judge_texts(text, scale, authors, incanon):
    assert authors_extract(text) == authors
    assert authors_reading(text, scale) == (authors if isinstance(authors, int) else None)
    assert incanon_reading(text, scale) == incanon


def test_the_protocol_picks_the_reading():
    assert reading_for("paper") == "authors"
    assert reading_for("incanon") == "incanon"
    assert reading_for("paper", "incanon") == "incanon"
    with pytest.raises(ConfigError, match="score reading"):
        reading_for("paper", "guess")


def _judge_model() -> ScriptedModel:
    return ScriptedModel([
        (r"captures a character's personality", "In character.\n6/7"),
        (r"Past:", "Consistent.\nScore: 1 (the event is in chapter 5)"),
        (r"Classify the main error", "Type: temporal"),
    ])


WHO = CharacterAt(work_title="Harry Potter", character="Hermione Granger", position=Position.parse("2-8"),
                  time_label="2nd year, Halloween", personality="Clever.")


@pytest.mark.parametrize(("reading", "temporal", "personality"), [("authors", 5.0, 7.0), ("incanon", 1.0, 6.0)])
async def test_live_judging_reads_the_chosen_way(reading, temporal, personality):
    item = TimeCharaItem.model_validate(published_row(data_type="past-only", spatial_label="-",
                                                      temporal_label="Past: she can recall it."))
    outcome = await judge_answer(item, WHO, "I remember.", Judges.on(_judge_model(), PromptLibrary(), False,
                                                                     reading=reading))
    assert outcome.scores["temporal"] == temporal  # the authors keep a 5 from a 0/1 judge
    assert outcome.scores["personality"] == personality
    assert outcome.extra["score_reading"] == reading
    assert sorted(outcome.extra["readings_disagree"]) == ["personality", "temporal"]


def _authors_file(tmp_path: Path) -> tuple[list, Path]:
    """The example evaluation file (the authors' evaluated.json layout) with three judge texts
    the readings disagree on; the stored scores are the authors' values, as evaluate.py stores them."""
    data = json.loads((EXAMPLES / "authors" / "evaluated.json").read_text())
    items = load_items(DATASET)
    past_only = [i for i, it in enumerate(items) if it.data_type == "past-only"]
    a, b = past_only[:2]
    data[a]["temporal_eval"], data[a]["temporal_score"] = "Consistent.\nScore: 1 (the event is in chapter 5)", 5
    data[b]["temporal_eval"], data[b]["temporal_score"] = "Inconsistent.\nScore: 0 out of 1", 1
    data[b]["personality_eval"], data[b]["personality_score"] = "Mostly in character.\n6/7", 7
    path = tmp_path / "evaluated.json"
    path.write_text(json.dumps(data))
    return items, path


def test_reparse_follows_the_reading_and_disagreements_are_counted(tmp_path):
    items, path = _authors_file(tmp_path)
    rows = read_authors_output(path, len(items))
    stored = evaluate_printout(items, rows, source="x")
    assert evaluate_printout(items, rows, source="x", reparse=True, reading="authors") == stored
    incanon = evaluate_printout(items, rows, source="x", reparse=True, reading="incanon")
    assert "past-only (max 1.0): 11/7" in stored  # 7/7 with a 5 in place of a 1
    assert "past-only (max 1.0): 6/7" in incanon
    assert readings_disagree(items, rows) == 2


def test_an_authors_reading_that_is_not_a_number_is_named(tmp_path):
    data = json.loads((EXAMPLES / "authors" / "evaluated.json").read_text())
    data[3]["temporal_eval"] = "Consistent overall.\nScore: 1\n."
    path = tmp_path / "evaluated.json"
    path.write_text(json.dumps(data))
    items = load_items(DATASET)
    rows = read_authors_output(path, len(items))
    with pytest.raises(InputError, match=r"row 3\).*gives '\.'.*--score-reading incanon"):
        evaluate_printout(items, rows, source="x", reparse=True, reading="authors")
    assert evaluate_printout(items, rows, source="x", reparse=True, reading="incanon")


def test_rescore_cli_reports_the_disagreements(tmp_path):
    from typer.testing import CliRunner

    from incanon.cli.timechara import app

    _, path = _authors_file(tmp_path)
    runner = CliRunner()
    for args, expected in (([], "11/7"), (["--reparse", "--protocol", "incanon"], "6/7"),
                           (["--reparse", "--score-reading", "incanon"], "6/7"), (["--reparse"], "11/7")):
        result = runner.invoke(app, ["rescore", str(path), "--dataset", str(DATASET), "--json", *args])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert f"past-only (max 1.0): {expected}" in doc["printout"]
        assert doc["readings_disagree"] == 2 and doc["rows"] == 20
