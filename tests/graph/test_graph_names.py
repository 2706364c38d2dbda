"""The deterministic stages' name rules."""

from __future__ import annotations

from incanon.graph import core_tokens, fold, similarity, variant_match
from incanon.graph.names import block_keys, is_title_only


def test_fold_is_the_sure_normal_form():
    assert fold("The  Beacon-Tower.") == fold("beacon-tower") == "beacon-tower"
    assert fold("Ottílie BRAND") == "ottilie brand"
    assert fold("The") == "the"


def test_titles_subsets_and_compounds_are_candidates():
    assert core_tokens("Lamp-Mistress Callow") == ("callow",)
    assert variant_match("Provost Hame", "Aldric Hame")
    assert variant_match("Wren", "Wren Callow")
    assert variant_match("Stormwren", "Wren") and variant_match("Wrennie", "Wren Callow")
    assert variant_match("the Provost", "Provost Hame") and is_title_only("the Provost")
    assert variant_match("A. H. Marrow", "Aldric Hame Marrow-Hame")
    assert not variant_match("Dace Morrow", "Ilse Varga")
    assert not variant_match("the Provost", "Captain Rusk")


def test_blocks_and_similarity():
    assert block_keys("Stormwren") & block_keys("Wren")
    assert not block_keys("Harrowmere") & block_keys("Ilse Varga")
    assert similarity("Ottilie Brand", "Otilie Brand") > 0.9 > similarity("Ottilie Brand", "Jory Callow")
