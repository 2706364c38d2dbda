"""Cards incanon writes pass the V2 spec's own validator (npm ``character-card-utils``), and an
import → export keeps every top-level field: SillyTavern's layout (the V1 fields repeated at the
top, with its own keys), V3 cards with string lorebook ids, and cards incanon builds itself.

Before: SillyTavern's default layout lost its 12 top-level keys (and with them the V1 fallback
that made it valid), a V3 string id went into a V2 card as a string, the export summary counted
the store's entries and not the file's, ``{{char}}`` was read as the name where V3 says the
nickname, and V3 → V3 lost ``modification_date``. The fixtures are written for these tests.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.cards import build_card, import_card, read_card, write_card
from incanon.testing.worlds import mini_world

from .card_validator import validate

_TEXT = {"name": "Hollis Penrake", "description": "{{char}} mends nets on the quay at Gullhaven.",
         "personality": "Slow to speak, quick to laugh.", "scenario": "A grey morning at the harbour.",
         "first_mes": "*looks up from the nets* Mind the hooks.",
         "mes_example": "<START>\n{{user}}: Busy?\n{{char}}: Always, when the boats are in."}
_ENTRY = {"keys": ["nets"], "content": "The nets are tarred every spring.", "extensions": {"position": 0},
          "enabled": True, "insertion_order": 100, "id": 0, "comment": "nets", "selective": False,
          "secondary_keys": [], "constant": False, "position": "before_char"}

#: SillyTavern's layout: the V1 fields and its own keys at the top level, the card in ``data``
#: (this book has no ``extensions``, so only the V1 fallback makes the file valid, as in the wild).
SILLYTAVERN = {
    **_TEXT, "creatorcomment": "Written for incanon's tests.", "avatar": "none", "chat": "Hollis - 2024-1-1 @10h 00m",
    "talkativeness": "0.5", "fav": False, "tags": ["harbour"], "create_date": "2024-1-1 @10h 00m 00s 000ms",
    "spec": "chara_card_v2", "spec_version": "2.0",
    "data": {**_TEXT, "creator_notes": "Written for incanon's tests.", "system_prompt": "",
             "post_history_instructions": "", "tags": ["harbour"], "creator": "", "character_version": "",
             "alternate_greetings": [], "extensions": {"talkativeness": "0.5", "fav": False, "world": "",
                                                       "depth_prompt": {"prompt": "", "depth": 4}},
             "character_book": {"name": "Gullhaven", "entries": [_ENTRY]}},
}

V3_STRING_IDS = {
    "spec": "chara_card_v3", "spec_version": "3.0",
    "data": {**_TEXT, "nickname": "Holly", "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
             "alternate_greetings": [], "group_only_greetings": [], "tags": [], "creator": "", "character_version": "1",
             "extensions": {}, "creation_date": 1700000000, "modification_date": 1700000500,
             "character_book": {"extensions": {}, "entries": [
                 {**_ENTRY, "id": "nets-entry", "use_regex": False},
                 {**_ENTRY, "keys": ["quay"], "content": "The quay floods at spring tides.", "id": 3, "use_regex": False},
                 {**_ENTRY, "keys": ["gulls"], "content": "The gulls take the bait.", "id": "gulls", "use_regex": False}]}},
}


@pytest.fixture()
def store(tmp_path: Path):
    s = CanonStore.open(tmp_path / "canon")
    yield s
    s.close()


def _export(store: CanonStore, doc: dict, tmp_path: Path, version: int, name: str) -> Path:
    source = tmp_path / f"{name}-in.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    card, _ = read_card(source)
    summary = import_card(store, card, work=name, source=str(source))
    return write_card(build_card(store, name, summary.character, "card"), tmp_path / f"{name}-out{version}.json",
                      version=version)


def test_sillytaverns_layout_keeps_its_top_level_and_validates(store, tmp_path):
    source = tmp_path / "original.json"
    source.write_text(json.dumps(SILLYTAVERN), encoding="utf-8")
    out = _export(store, SILLYTAVERN, tmp_path, 2, "gullhaven")
    again = json.loads(out.read_text(encoding="utf-8"))
    for key, value in SILLYTAVERN.items():
        if key != "data":
            assert again[key] == value, key
    verdicts = validate(source, out)
    assert verdicts[str(source)] is None  # the original passes (through the V1 fallback)
    assert verdicts[str(out)] is None, verdicts[str(out)]


def test_a_v3_card_with_string_ids_exports_a_valid_v2_card(store, tmp_path):
    v2 = _export(store, V3_STRING_IDS, tmp_path, 2, "quay")
    entries = json.loads(v2.read_text(encoding="utf-8"))["data"]["character_book"]["entries"]
    ids = [e["id"] for e in entries]
    assert all(isinstance(i, int) for i in ids) and len(set(ids)) == len(ids) and ids[1] == 3
    assert validate(v2)[str(v2)] is None
    v3 = write_card(build_card(store, "quay", "Hollis Penrake", "card"), tmp_path / "again.json", version=3)
    data = json.loads(v3.read_text(encoding="utf-8"))["data"]
    assert [e["id"] for e in data["character_book"]["entries"]] == ["nets-entry", 3, "gulls"]  # V3 keeps its own
    assert data["modification_date"] == 1700000500 and data["creation_date"] == 1700000000


def test_every_card_incanon_builds_validates(store, tmp_path):
    store.import_world(mini_world())
    written = []
    for name, at in (("Wren Callow", "1-3"), ("Ottilie Brand", "2-2-1"), ("Dace Morrow", "3-4")):
        card = build_card(store, "lanterns", name, at)
        written.append(write_card(card, tmp_path / f"{name.split()[0]}.json"))
    verdicts = validate(*written)
    assert all(v is None for v in verdicts.values()), verdicts


def test_char_is_the_nickname_where_v3_asks(store, tmp_path):
    source = tmp_path / "holly.json"
    source.write_text(json.dumps(V3_STRING_IDS), encoding="utf-8")
    card, _ = read_card(source)
    import_card(store, card, work="quay")
    assert store.character("quay", "Hollis Penrake").profile.startswith("Holly mends nets")


def test_the_export_summary_counts_the_entries_in_the_file(tmp_path):
    from incanon.testing.cli import run_cli

    doc = copy.deepcopy(V3_STRING_IDS)
    doc["data"]["character_book"]["entries"][2]["enabled"] = False  # kept in the file, not in the store
    source = tmp_path / "quay.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"), COLUMNS="300")
    store = ["--store", str(tmp_path / "canon")]
    done = run_cli(["canon", "card", "import", str(source), "--work", "quay", *store], env=env)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out.json"
    done = run_cli(["canon", "card", "export", "--work", "quay", "--character", "Hollis Penrake", "--at", "card",
                    "--out", str(out), *store], env=env)
    assert done.returncode == 0, done.stderr
    held = len(json.loads(out.read_text(encoding="utf-8"))["data"]["character_book"]["entries"])
    assert held == 3 and f"{held} lorebook entries" in done.stdout, done.stdout
