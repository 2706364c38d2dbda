"""A card never groups a secret name with its person for a character who does not know it yet."""

from __future__ import annotations

from pathlib import Path

from incanon.canon import CanonStore
from incanon.cards.build import build_card

from tests.canon.secret_world import secret_world


def _entries(store: CanonStore, who: str, at: str) -> list[list[str]]:
    data = build_card(store, "vane", who, at).model_dump(mode="json")
    return [e["keys"] for e in data["data"]["character_book"]["entries"]]


def test_the_lawyer_knows_two_men_until_the_confession(tmp_path: Path) -> None:
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(secret_world())
    early = _entries(store, "Matthias Ord", "1-2-1")
    assert ["Silas Crane"] in early
    assert not any("Silas Crane" in keys and "Aurel Vane" in keys for keys in early)
    late = _entries(store, "Matthias Ord", "1-4-1")
    assert any(keys[:1] == ["Aurel Vane"] and "Silas Crane" in keys for keys in late)
    # A card is read by a person before anyone plays it: his own shows the name once a reader at
    # its point has read the reveal.
    assert "Silas Crane" not in str(build_card(store, "vane", "Aurel Vane", "1-2-1").model_dump(mode="json"))
    assert "Silas Crane" in str(build_card(store, "vane", "Aurel Vane", "1-3-1").model_dump(mode="json"))
