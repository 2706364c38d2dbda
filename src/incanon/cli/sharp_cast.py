"""How ``incanon sharp roles`` and ``eval`` resolve the partners' affection, and what they say about it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from incanon.cli.output import err

HPD_HELP = "Your copy of HPD's JSON files (repeatable): each pair's own affection score, before the relationship word."
HPD_KEY_HELP = "The HPD annotation key holding Harry's affection score, when your release spells it differently."


def resolver(canon: Any, work: str, relations: Optional[Path], mapping_only: bool,
              hpd: Optional[list[Path]] = None, hpd_key: Optional[str] = None) -> Any:
    """The affection resolver: a relations file, the user's HPD files, the canon, the word table."""
    from incanon.bench.sharp import AffectionResolver, load_relations
    from incanon.bench.sharp.hpd import load_hpd

    loaded = load_relations(relations) if relations is not None else None
    return AffectionResolver(
        relations=canon.relations(work),
        mapping=loaded.affection_map() if loaded else AffectionResolver().mapping,
        overrides=list(loaded.entries) if loaded else [],
        use_canon_affection=not mapping_only,
        hpd=load_hpd(list(hpd), affection_key=hpd_key) if hpd else None,
    )


def affection_note_of(cast: Any, hpd: Optional[list[Path]]) -> str:
    """Where the partners' affection came from, on stderr, when HPD files were given."""
    if not hpd:
        return ""
    note = cast.affection_note() or (f"no partner of {cast.main_character} has an HPD pair score: every affection "
                                     "comes from the relationship word or the canon")
    err.print(note, style="yellow", highlight=False, markup=False)
    return note


def warn_unmapped(cast: Any) -> None:
    """Name every relation type the affection mapping left without a level, with its roles."""
    for relation, names in cast.unmapped().items():
        err.print(f"relation type {relation!r} maps to no affection level: drops {', '.join(names)} "
                  "(give it a level in a --relations file's mapping)", highlight=False)
