"""Affection from the user's HPD files: each pair's own score first, the relationship word only
where HPD has none, and a count of each. The fixture is in HPD's layout with invented content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.bench.sharp import AffectionResolver
from incanon.bench.sharp.cast import Cast, Partner
from incanon.bench.sharp.hpd import load_hpd
from incanon.canon.records import RelationRecord
from incanon.errors import InputError

MAIN = "Harry Potter"


def _pair(name: str, mine: int | None, theirs: int | None, **binary: int) -> dict:
    entry = {"name": name, **binary, "Harry's familiarity with him": 5, "His familiarity with Harry": 5}
    if mine is not None:
        entry["Harry's affection to him"] = mine
    if theirs is not None:
        entry["His affection to Harry"] = theirs
    return entry


HPD = {
    "dialogue-2": {  # listed first, told later: the later dialogue wins
        "Position": "Chapter9-1", "Speakers": ["Vernon", "Harry"], "Scene": "A made-up kitchen.",
        "Dialogue": ["Vernon: A line we wrote.", "Harry: Another."],
        "Relations With Harry": {"Vernon": _pair("Vernon Dursley", -4, -6, family=1)},
    },
    "dialogue-1": {
        "Position": "Chapter1-1", "Speakers": ["Vernon", "Petunia", "Ron"], "Scene": "A made-up hall.",
        "Dialogue": ["Ron: Hello."],
        "Relations With Harry": {
            "Vernon": _pair("Vernon Dursley", 2, -1, family=1),
            "Petunia": _pair("Petunia Dursley", None, -3, family=1),  # only the other direction
            "Ron": _pair("Ron Weasley", 9, 9, friend=1),
            "Colin": _pair("Colin Creevey", 0, 6),  # HPD's "neither"
        },
    },
    "dialogue-3": {"Position": "Chapter9-2", "Speakers": ["Nobody"], "Relations With Harry": None},
}


def _relation(target: str, kind: str) -> RelationRecord:
    return RelationRecord(source=MAIN, target=target, type=kind, description="", affection=None, weight=1.0,
                          valid_from=None, valid_to=None)


@pytest.fixture()
def hpd_file(tmp_path: Path) -> Path:
    path = tmp_path / "en_train_set.json"
    path.write_text(json.dumps(HPD), encoding="utf-8")
    return path


def test_each_pairs_own_score_comes_before_the_relationship_word(hpd_file):
    relations = [_relation("Vernon Dursley", "uncle"), _relation("Petunia Dursley", "aunt"),
                 _relation("Ron Weasley", "friend"), _relation("Dudley Dursley", "cousin"),
                 _relation("Colin Creevey", "friend")]
    words = AffectionResolver(relations=relations)
    assert words.resolve(MAIN, "Vernon Dursley").affection == "high"  # "uncle": family, so high
    scored = AffectionResolver(relations=relations, hpd=load_hpd(hpd_file))
    vernon = scored.resolve(MAIN, "Vernon Dursley")
    assert (vernon.affection, vernon.source, vernon.direction) == ("low", "hpd", "forward")
    assert vernon.relation == "HPD -4 (dialogue-2)"  # the story's later dialogue, not the file's order
    petunia = scored.resolve(MAIN, "Petunia Dursley")
    assert (petunia.affection, petunia.direction) == ("low", "reverse")
    assert scored.resolve(MAIN, "Ron Weasley").affection == "high"
    assert scored.resolve(MAIN, "Colin Creevey").affection is None  # a score of 0: no level, no word table
    dudley = scored.resolve(MAIN, "Dudley Dursley")
    assert (dudley.affection, dudley.source) == ("high", "mapping")  # no pair score: the word
    # By the annotation's own key too, and only for HPD's main character.
    assert scored.resolve(MAIN, "Vernon").affection == "low"
    assert scored.resolve("Hermione Granger", "Ron Weasley").source != "hpd"


def test_the_cast_says_how_many_came_from_each(hpd_file):
    def partner(name: str, source: str) -> Partner:
        return Partner(name=name, interactions=3, affection="high", affection_source=source)

    cast = Cast(work="hp", main_character=MAIN, at="7-36", chosen_by="user", centrality=1.0,
                partners=[partner("Vernon Dursley", "hpd"), partner("Ron Weasley", "hpd"),
                          partner("Dudley Dursley", "mapping")])
    assert cast.affection_note() == ("affection of 2 of 3 partners from HPD pair scores; 1 from the relationship "
                                     "word (no HPD pair score): Dudley Dursley")
    assert Cast(work="hp", main_character=MAIN, at="1", chosen_by="user", centrality=1.0,
                partners=[partner("Dudley Dursley", "mapping")]).affection_note() == ""


def test_a_file_not_in_the_layout_is_named_with_the_dialogue_and_field(tmp_path, hpd_file):
    bad = json.loads(hpd_file.read_text())
    bad["dialogue-1"]["Relations With Harry"]["Ron"]["Harry's affection to him"] = "very"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.json.*dialogue-1, 'Relations With Harry', 'Ron', \"Harry's affection to him\""):
        load_hpd(path)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"dialogue-1": {"Relations With Harry": {}}}), encoding="utf-8")
    with pytest.raises(InputError, match="no pair affection score"):
        load_hpd(empty)
    listed = tmp_path / "list.json"
    listed.write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="HPD's layout"):
        load_hpd(listed)


def test_a_release_spelling_the_key_otherwise_can_name_it(tmp_path):
    odd = {"dialogue-1": {"Relations With Harry": {"Vernon": {"name": "Vernon Dursley", "affection_h2o": -5}}}}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(odd), encoding="utf-8")
    assert load_hpd(path, affection_key="affection_h2o").score("Vernon Dursley").score == -5


def test_the_cli_counts_the_sources_on_stderr(tmp_path, hpd_file, capsys, monkeypatch):
    import sys

    from incanon.cli.main import main

    # The sample world's main character is not Harry: HPD's scores say nothing there, and it says so.
    monkeypatch.setattr(sys, "argv", ["incanon", "sharp", "roles", "--hpd", str(hpd_file)])
    with pytest.raises(SystemExit) as stop:
        main()
    assert (stop.value.code or 0) == 0
    assert "no partner of Wren Callow has an HPD pair score" in capsys.readouterr().err


def test_roles_on_a_harry_canon_take_hpd_scores_and_count_the_rest(tmp_path, hpd_file, capsys, monkeypatch):
    import sys

    from incanon.cli.main import main

    people = ["Harry Potter", "Vernon Dursley", "Dudley Dursley", "Ron Weasley"]
    world = {
        "work": {"id": "hp", "title": "A made-up Harry story", "axis": "chapter"},
        "characters": [{"name": n, "first_position": "1-1"} for n in people],
        "scenes": [{"id": f"1-{i}", "position": f"1-{i}", "title": f"Scene {i}", "participants": people,
                    "speakers": people} for i in range(1, 4)],
        "relations": [{"source": "Harry Potter", "target": "Vernon Dursley", "type": "uncle", "description": ""},
                      {"source": "Harry Potter", "target": "Dudley Dursley", "type": "cousin", "description": ""},
                      {"source": "Harry Potter", "target": "Ron Weasley", "type": "friend", "description": ""}],
    }
    (tmp_path / "hp.json").write_text(json.dumps(world), encoding="utf-8")
    for argv in (["canon", "import", str(tmp_path / "hp.json"), "--store", str(tmp_path / "canon")],
                 ["sharp", "roles", "--store", str(tmp_path / "canon"), "--character", MAIN, "--hpd", str(hpd_file)]):
        monkeypatch.setattr(sys, "argv", ["incanon", *argv])
        with pytest.raises(SystemExit) as stop:
            main()
        assert (stop.value.code or 0) == 0
    captured = capsys.readouterr()
    assert ("affection of 2 of 3 partners from HPD pair scores; 1 from the relationship word (no HPD pair score): "
            "Dudley Dursley") in " ".join(captured.err.split())
    rows = {line.split()[1] + " " + line.split()[2]: line for line in captured.out.splitlines() if "partner" in line}
    assert " low " in rows["Vernon Dursley"] and "[hpd]" in rows["Vernon Dursley"]
    assert " high " in rows["Dudley Dursley"] and "[mapping]" in rows["Dudley Dursley"]
