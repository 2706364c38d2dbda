"""Character Card V3: a V3 card (JSON or a PNG's ``ccv3`` chunk) imports, and incanon exports V3
with V3's own fields and V2's ``chara`` chunk beside it."""

from __future__ import annotations

import json
from pathlib import Path

from incanon.canon import CanonStore
from incanon.cards import build_card, import_card, read_card, write_card
from incanon.cards.png import read_chunks, text_chunks
from incanon.sample import sample_world

ROOT = Path(__file__).resolve().parents[2]
V3_CARD = ROOT / "examples" / "cards" / "tamsin.v3.json"


def test_a_v3_card_reads_and_imports_with_its_own_fields_kept(tmp_path: Path) -> None:
    card, version = read_card(V3_CARD)
    assert version == 3 and card.data.name == "Tamsin Reave"
    extra = card.data.model_extra or {}
    assert extra["nickname"] == "Tam" and extra["group_only_greetings"] == ["Two of you? Fare's doubled."]
    assert card.data.character_book.entries[1].model_extra["use_regex"] is True
    with CanonStore.open(tmp_path / "canon") as store:
        summary = import_card(store, card, work="ferry", source=str(V3_CARD))
        assert summary.character == "Tamsin Reave"
        assert "Brackwater" in store.character("ferry", "Tamsin Reave").profile


def test_v3_export_as_json_and_png_round_trips(tmp_path: Path) -> None:
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(sample_world())
        card = build_card(store, "lanterns", "Wren Callow", "1-3")
    doc = json.loads(write_card(card, tmp_path / "wren.json", version=3).read_text(encoding="utf-8"))
    assert (doc["spec"], doc["spec_version"]) == ("chara_card_v3", "3.0")
    data = doc["data"]
    assert data["group_only_greetings"] == [] and data["assets"][0]["uri"] == "ccdefault:"
    assert isinstance(data["creation_date"], int) and data["modification_date"] >= data["creation_date"]
    assert all(e["use_regex"] is False for e in data["character_book"]["entries"])
    back, version = read_card(tmp_path / "wren.json")
    assert version == 3 and back.data.description == card.data.description
    png = write_card(card, tmp_path / "wren.png", version=3)
    keywords = [k for k, _ in text_chunks(read_chunks(png.read_bytes(), "wren.png"))]
    assert keywords == ["chara", "ccv3"]  # V2 readers keep working
    from_png, version = read_card(png)
    assert version == 3 and from_png.data.name == "Wren Callow"
    assert from_png.data.character_book.entries == back.data.character_book.entries
