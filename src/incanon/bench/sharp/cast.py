"""The cast of one SHARP evaluation: a main character at a story position and its partner roles.

``select_cast`` picks the main character by degree centrality (or takes the one given), places
them at a position (given, else their last time point, else the end of the work), counts their
interactions with everyone up to that position and keeps the most frequent partners whose
affection level is known (see :mod:`incanon.bench.sharp.affection`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, Field

from incanon.bench.sharp.affection import Affection, AffectionResolver, RelationEntry
from incanon.bench.sharp.roles import Unit, interaction_graph, main_character
from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError, NotFoundError


class Partner(BaseModel):
    """A role that puts claims to the main character."""

    name: str
    interactions: int
    """Interactions with the main character up to the cast's position."""
    affection: Affection | None
    """The main character's affection toward this role (None: unknown)."""
    relation: str = ""
    """The relation type the affection was read from."""
    affection_source: str = "none"
    """file, hpd (the pair's score in HPD), canon (the ground-truth annotation), mapping (a type
    mapped) or none."""
    direction: str = ""
    """forward (main → role) or reverse (role → main, when only that relation exists)."""


class Cast(BaseModel):
    """A main character at a position with its partner roles."""

    work: str
    main_character: str
    at: str
    """The story position (persona, knowledge scope, interactions and affection are read there)."""
    chosen_by: Literal["user", "degree-centrality"]
    centrality: float
    """The main character's degree centrality in the interaction graph up to ``at``."""
    unit: str = "scenes"
    partners: list[Partner] = Field(default_factory=list)
    left_out: list[Partner] = Field(default_factory=list)
    """Characters who interacted with the main character but were not chosen (too few
    interactions, unknown affection, or beyond the partner limit)."""

    def affection_note(self) -> str:
        """Where the chosen partners' affection came from, when some came from HPD pair scores
        ("" otherwise): how many from HPD, how many from the relationship word (no pair score)."""
        sources = [p.affection_source for p in self.partners]
        if "hpd" not in sources:
            return ""
        words = [p.name for p in self.partners if p.affection_source == "mapping"]
        others = len(sources) - sources.count("hpd") - len(words)
        return (f"affection of {sources.count('hpd')} of {len(sources)} partners from HPD pair scores; "
                f"{len(words)} from the relationship word (no HPD pair score)" + (f": {', '.join(words)}" if words else "")
                + (f"; {others} from a relations file or the canon's annotation" if others else ""))

    def unmapped(self) -> dict[str, list[str]]:
        """Relation type → the roles it leaves out: types the affection mapping does not cover
        ("师叔", "commander"), so those roles have no level and count in no CRF."""
        found: dict[str, list[str]] = {}
        for p in self.left_out:
            if p.affection is None and p.relation:
                found.setdefault(p.relation, []).append(p.name)
        return found


def _canonical(store: CanonStore, work: str, name: str) -> str:
    try:
        return store.character(work, name).name
    except NotFoundError:
        return name


def canonical_entries(store: CanonStore, work: str, entries: list[RelationEntry]) -> list[RelationEntry]:
    """Relations-file entries with aliases replaced by canonical character names."""
    return [RelationEntry(_canonical(store, work, e.source), _canonical(store, work, e.target), e.type, e.affection)
            for e in entries]


def default_position(store: CanonStore, work: str, character: str) -> Position:
    """The character's last time point, else the position of the work's last scene."""
    record = store.character(work, character)
    if record.time_points:
        return max(record.time_points, key=lambda tp: tp.position.key).position
    scenes = store.scenes(work)
    if not scenes:
        raise NotFoundError(f"work {work!r} has no scenes and {record.name} no time points: give --at")
    return max(scenes, key=lambda s: s.position.key).position


def select_cast(
    store: CanonStore,
    work: str,
    *,
    character: str | None = None,
    at: str | Position | None = None,
    partners: int = 8,
    min_interactions: int = 1,
    unit: Unit = "scenes",
    resolver: AffectionResolver | None = None,
    require_affection: bool = True,
) -> Cast:
    """The main character (given, or by degree centrality) at ``at`` and up to ``partners``
    partner roles, most interactions first. With ``require_affection`` (default) roles of
    unknown affection are left out, since they can count in no CRF."""
    if partners < 1:
        raise ConfigError(f"the number of partner roles must be at least 1, got {partners}")
    resolver = resolver or AffectionResolver(relations=store.relations(work))
    resolver = replace(resolver, overrides=canonical_entries(store, work, resolver.overrides))
    if character:
        main = store.character(work, character).name
        chosen: Literal["user", "degree-centrality"] = "user"
    else:
        until = store.resolve_position(work, at) if at is not None else None
        main = main_character(interaction_graph(store, work, until=until, unit=unit))
        chosen = "degree-centrality"
    position = store.resolve_position(work, at, main) if at is not None else default_position(store, work, main)
    graph = interaction_graph(store, work, until=position, unit=unit)
    chosen_partners: list[Partner] = []
    left_out: list[Partner] = []
    for name, count in graph.partners(main):
        finding = resolver.resolve(main, name, position)
        partner = Partner(name=name, interactions=count, affection=finding.affection, relation=finding.relation,
                          affection_source=finding.source, direction=finding.direction)
        usable = count >= min_interactions and (finding.affection is not None or not require_affection)
        (chosen_partners if usable and len(chosen_partners) < partners else left_out).append(partner)
    if not chosen_partners:
        unmapped = {p.relation for p in left_out if p.affection is None and p.relation}
        hint = (f"; relation types with no affection level: {', '.join(sorted(unmapped))} (map them in a "
                "--relations file)" if unmapped else "")
        raise NotFoundError(
            f"{main} has no partner role at {position} with at least {min_interactions} interaction(s)"
            + (" and a known affection level (add relations, or allow unknown levels)" if require_affection else "")
            + hint)
    return Cast(work=work, main_character=main, at=str(position), chosen_by=chosen,
                centrality=graph.degree_centrality().get(main, 0.0), unit=unit,
                partners=chosen_partners, left_out=left_out)


def _cjk_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for ch in letters if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff") / len(letters)


def script_language(store: CanonStore, work: str) -> str:
    """``zh`` when the work's own text (title, profiles, scene summaries) is mostly Chinese
    characters, else ``en``: what the report shows as the script's language unless the user
    names it (``--script-lang``)."""
    record = store.work(work)
    parts = [record.title, record.description]
    parts += [f"{c.name} {c.profile}" for c in store.characters(work)]
    parts += [f"{s.title} {s.summary}" for s in store.scenes(work)[:200]]
    return "zh" if _cjk_share(" ".join(parts)) > 0.3 else "en"
