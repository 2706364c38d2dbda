"""The published TimeChara format: every time point placed, the authors' files read, evaluate.py's
printout reproduced, and all eight methods run on a fixture covering the four series."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from incanon.agents import CharacterAt, decide_temporal
from incanon.agents.published_examples import PublishedExamples, example_key
from incanon.bench.timechara import CharacterResolver, load_items
from incanon.bench.timechara.authors import evaluate_printout, read_authors_output
from incanon.bench.timechara.published import SERIES, read_period
from incanon.canon import Position
from incanon.errors import InputError
from incanon.testing.cli import run_cli

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "timechara"
DATASET = EXAMPLES / "published" / "validation.json"
METHODS = "zero-shot,zero-shot-cot,few-shot,self-refine,rag,rag-cutoff,narrative-experts,narrative-experts-rag-cutoff"


def _periods() -> list[tuple[str, str, str]]:
    """Every (series, character, period) of the published set, written as rows write them."""
    out = []
    years = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th"]
    hp = SERIES["harry_potter"]
    for character in hp.pronouns:
        for day, positions in hp.days.items():
            for n in range(len(positions)):
                out.append(("harry_potter", character, f"{years[n]}-year" + ("" if day == "attheendofthescene"
                                                                              else f" / {_day(day)}")))
    for slug in ("the_lord_of_the_rings", "twilight", "hunger_games"):
        series = SERIES[slug]
        raw = json.loads((Path(__file__).resolve().parents[3] / "src/incanon/data/timechara/periods.json")
                         .read_text())["series"][slug]["moments"]
        for character, moments in raw.items():
            for moment, position in moments.items():
                out.append((slug, character, f"{position.split('-')[0]} / {moment}"))
            for book in series.book_ends:
                out.append((slug, character, str(book)))
    return out


def _day(key: str) -> str:
    return {"onthe1stofseptember": "on the 1st of September", "onhalloween": "on Halloween",
            "onchristmas": "on Christmas"}[key]


def test_all_219_time_points_are_placed_at_their_series_depth():
    periods = _periods()
    assert len(periods) == 219  # the paper's count (Appendix F)
    for series, character, period in periods:
        placed = read_period(series, character, period)
        assert len(str(placed.position).split("-")) == len(SERIES[series].levels)
    frodo = read_period("the_lord_of_the_rings", "Frodo Baggins", "1 / at Bilbo Baggins's Farewell party")
    assert frodo.position == Position.parse("1-1-1") and frodo.book_title == "The Fellowship of the Ring"
    assert read_period("the_lord_of_the_rings", "Gandalf", "3").position == Position.parse("3-6-9")
    with pytest.raises(InputError, match="not one of Bella Swan's time points"):
        read_period("twilight", "Bella Swan", "4 / at Christmas, 2006")


def test_fixture_covers_four_series_and_every_row_is_placed():
    items = load_items(DATASET)
    assert {i.series for i in items} == set(SERIES)
    assert {i.data_type for i in items} == {"future", "past-absence", "past-presence", "past-only"}
    resolver = CharacterResolver()
    for item in items:
        who = resolver(item)
        assert who.levels == list(SERIES[item.series].levels)


def test_the_temporal_expert_compares_at_the_series_depth():
    frodo = CharacterAt(work_title="The Lord of the Rings", character="Frodo Baggins", levels=["volume", "book", "chapter"],
                        position=Position.parse("1-1-11"), time_label="at Weathertop")
    same = decide_temporal("It is the Weathertop attack.\nvolume 1 - book 1 - chapter 11\nvolume 1 - book 1 - chapter 11", frodo)
    assert same.status == "past" and same.period == Position.parse("1-1-11")
    later = decide_temporal("Position: volume 2 - book 4 - chapter 1\nRelative: future", frodo)
    assert later.status == "future" and later.basis == "period"
    # Two numbers for a three-level series is no period (the authors' rule): the expert's word decides.
    short = decide_temporal("book 1 - chapter 11\nRelative: past", frodo)
    assert short.period is None and short.status == "past"


def test_authors_few_shot_layout(tmp_path):
    (tmp_path / "twilight.json").write_text(json.dumps({
        "Bella Swan-1-at the moment when Bella first confirm Edward's true nature as a vampire": "Question: a\nResponse: b"}))
    examples = PublishedExamples(tmp_path)
    assert example_key("Hermione Granger", "2nd-year / on Halloween") == "Hermione Granger-2-on Halloween"
    assert example_key("Frodo Baggins", "1") == "Frodo Baggins-1-at the end of the scene"
    key, block = examples.block("Bella Swan", "1 / at the moment when Bella first confirmed Edward's true nature as a vampire")
    assert block.startswith("Question: a")
    with pytest.raises(InputError, match="no few-shot examples for 'Bella Swan-2-at Volterra'"):
        examples.block("Bella Swan", "2 / at Volterra")


def test_evaluate_printout_of_the_authors_files(tmp_path):
    items = load_items(DATASET)
    rows = read_authors_output(EXAMPLES / "authors" / "evaluated.json", len(items))
    text = evaluate_printout(items, rows, source="evaluated.json")
    # The same lines evaluate.py prints for these files (checked against its own functions).
    assert text.splitlines() == [
        "", "*** Spatiotemporal Scores ***", "",
        "future (max 1.0): 2/5 (=0.4)", "past-absence (max 1.0): 3/4 (=0.75)",
        "past-presence (max 1.0): 2/4 (=0.5)", "past-only (max 1.0): 7/7 (=1.0)",
        "", "Total (max 1.0): 14/20 (=0.7)",
        "", "*** Personality Scores ***", "", "", "Total (max 7.0): 120/20 (=6.0)"]
    assert evaluate_printout(items, rows, source="x", reparse=True) == text  # final lines agree with the stored scores
    data = json.loads((EXAMPLES / "authors" / "evaluated.json").read_text())
    data[3]["temporal_score"] = "."  # what extract_score returns when the last line has no digit
    data[3]["temporal_eval"] = "Consistent overall.\nScore: 1\n."
    bad = tmp_path / "evaluated.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"row 3\): temporal_score is '\.'.*--reparse"):
        evaluate_printout(items, read_authors_output(bad, len(items)), source=str(bad))
    assert "past-only (max 1.0): 7/7" in evaluate_printout(items, read_authors_output(bad, len(items)),
                                                           source=str(bad), reparse=True, reading="incanon")
    data[5]["data_idx"] = 7
    bad.write_text(json.dumps(data))
    with pytest.raises(InputError, match="data_idx 7 where 5 was expected"):
        read_authors_output(bad, len(items))


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, INCANON_HOME=str(home))
    return run_cli(["timechara", *args], env=env, timeout=300)


def test_all_eight_methods_on_four_series_with_no_failed_item(tmp_path):
    store = tmp_path / "books"
    for series in SERIES:
        res = _cli("index", str(EXAMPLES / "books" / series), "--series", series, "--store", str(store), home=tmp_path)
        assert res.returncode == 0, res.stderr
    common = ["--dataset", str(DATASET), "--personalities", str(EXAMPLES / "personality"),
              "--judge", f"scripted:{EXAMPLES / 'judge.json'}", "--runs", str(tmp_path / "runs.sqlite"), "--json"]
    res = _cli("eval", *common, "--model", f"scripted:{EXAMPLES / 'agent.json'}", "--method", METHODS,
               "--examples", str(EXAMPLES / "few_shot"), "--store", str(store), home=tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [(r["ok"], r["failed"]) for r in doc["runs"]] == [(20, 0)] * 8
    assert all(r["failed"] == 0 and r["judged"] == 20 for r in doc["report"]["runs"])
    from incanon.runs import RunStore

    config = RunStore(tmp_path / "runs.sqlite").get_run(doc["runs"][0]["run_id"]).config
    assert config.params["agent_params"]["temperature"] == 0.2 and config.params["judge_params"]["top_p"] == 0.95
    assert config.params["persona"] == "paper" and config.params["protocol"] == "paper"
    (experts,) = [e for e in doc["report"]["experts"] if e["method"] == "narrative-experts"]
    assert experts["future"]["n"] == 5 and experts["absence"]["n"] == 4
    recorded = _cli("eval", *common, "--responses", str(EXAMPLES / "authors" / "generated.json"),
                    "--method", "authors-zero-shot", home=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    assert json.loads(recorded.stdout)["runs"][0]["ok"] == 20
    # Every item failing (few-shot without examples for these periods) exits non-zero and says so.
    empty = tmp_path / "few_shot"
    empty.mkdir()
    (empty / "x.json").write_text(json.dumps({"Nobody-1-at the end of the scene": "Question: q\nResponse: r"}))
    failed = _cli("eval", *common, "--model", f"scripted:{EXAMPLES / 'agent.json'}", "--method", "few-shot",
                  "--examples", str(empty), home=tmp_path)
    assert failed.returncode == 2 and "no item was judged: 20 of 20 items failed" in failed.stderr
    report = json.loads(failed.stdout)["report"]
    assert report["runs"][0]["failed"] == 20 and report["runs"][0]["failed_ids"][:2] == ["00000", "00001"]


def test_the_third_hunger_games_book_is_named_as_published_and_the_difference_is_documented() -> None:
    # The authors' data writes "Mocking Jay"; incanon keeps the published title under both
    # protocols, and docs/timechara.md says so with its size (8 of 224 prompts).
    from pathlib import Path

    from incanon.bench.timechara.published import series_info

    hunger = series_info("hunger_games")
    assert hunger is not None and hunger.books[3] == "Mockingjay"
    guide = (Path(__file__).resolve().parents[3] / "docs" / "timechara.md").read_text(encoding="utf-8")
    row = next(line for line in guide.splitlines() if "Mocking Jay" in line)
    assert "8 prompts" in row and "224" in row
