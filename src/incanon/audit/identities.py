"""The identity check: no surface tells someone that two names are one person before they know it.

Two findings, both of which fail the audit:

* **joined**: a surface shows a secret name grouped with another name of its person (as one
  lorebook entry's keys, or one ``/v1/models`` entry's names) for someone who does not know it
  there. Who knows is decided from the world's structure alone (``known_by``, the revealing
  scenes and who witnessed them, told facts that name both names): the same rule the world file
  states, not the horizon code the served surfaces are built with. A reader at a point knows once
  a revealing scene lies at or before it.
* **undated**: a character's alias looks like a second identity (a full name sharing no word with
  the person's other names) that the story first uses on its own and later names beside another
  of the person's names, but the store neither marks it secret nor dates it to that point.
  That is the shape of a helper grouping "Edward Hyde" with "Henry Jekyll" as if everyone knew:
  mark the alias ``"secret": true`` with where it is revealed, or date it with ``"from"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from incanon.canon.names import norm
from incanon.canon.position import Position
from incanon.canon.records import CharacterRecord
from incanon.canon.store import CanonStore
from incanon.canon.world import Character, World


@dataclass(frozen=True)
class IdentityFinding:
    """One identity told too early (``joined``) or a grouping the store does not date (``undated``)."""

    kind: str
    surface: str
    """``card``, ``models`` or ``store`` (undated)."""
    character: str
    """Whose surface it is (the person whose names are grouped, for ``undated``)."""
    at: str
    names: tuple[str, ...]
    detail: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"kind": self.kind, "surface": self.surface, "character": self.character, "at": self.at,
                "names": list(self.names), "detail": self.detail}


class _Structure:
    """Who knows which identity, read from the world file's structure only."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.scene_at = {s.id: Position.parse(s.position) for s in world.scenes}

    def viewer_knows(self, viewer: str, person: Character, alias: str, at: Position) -> bool:
        secret = person.secret_names[alias]
        if viewer == person.name or viewer in secret.known_by:
            return True
        witnessed = {s.id for s in self.world.scenes if viewer in s.participants and self.scene_at[s.id] <= at}
        if witnessed & set(secret.revealed_in):
            return True
        others = [n for n in (person.name, *person.aliases) if n not in person.secret_names]
        for f in self.world.facts:
            if f.position and Position.parse(f.position) > at:
                continue
            told = f.public or viewer in f.known_by or (f.scene is not None and f.scene in witnessed)
            if told and _says(f.text, alias) and any(_says(f.text, n) for n in others):
                return True
        return False

    def reader_knows(self, person: Character, alias: str, at: Position) -> bool:
        return any(self.scene_at[s] <= at for s in person.secret_names[alias].revealed_in if s in self.scene_at)


def _says(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def _grouped(names: list[str], person: Character) -> list[str]:
    """The secret names of ``person`` that ``names`` (shown as one person) joins to another."""
    folded = {norm(n) for n in names}
    secret = [a for a in person.secret_names if norm(a) in folded]
    public = [n for n in (person.name, *person.aliases) if n not in person.secret_names and norm(n) in folded]
    return secret if secret and (public or len(secret) > 1) else []


def _card_groups(store: CanonStore, work: str, viewer: str, at: Position) -> list[list[str]]:
    from incanon.cards.build import build_card

    data = build_card(store, work, viewer, str(at)).model_dump(mode="json")
    entries = (data["data"].get("character_book") or {}).get("entries", [])
    return [list(e.get("keys") or []) + list(e.get("secondary_keys") or []) for e in entries]


def _model_groups(store: CanonStore, work: str, record: CharacterRecord, label: str, at: Position) -> list[list[str]]:
    from incanon.serve.model_list import model_entry

    entry = model_entry(store, store.work(work), record, label, at, methods=("in-canon",))
    info = entry["incanon"]
    return [[info["character"], *info.get("names", [])]]


def identity_check(store: CanonStore, work: str, points: list[tuple[CharacterRecord, str, Position]]) -> list[IdentityFinding]:
    """Identity findings of ``work`` at the audit ``points`` (see the module docstring)."""
    world = store.export_world(work)
    findings = undated_identities(world)
    people = [c for c in world.characters if c.secret_names]
    if not people:
        return findings
    known = _Structure(world)
    for record, label, at in points:
        for group in _card_groups(store, work, record.name, at):
            for person in people:
                told = [a for a in _grouped(group, person) if not known.viewer_knows(record.name, person, a, at)]
                if told:
                    findings.append(IdentityFinding("joined", "card", record.name, str(at), tuple(group),
                                                    f"groups {', '.join(told)} with {person.name}, which "
                                                    f"{record.name} does not know at {at}"))
        for group in _model_groups(store, work, record, label, at):
            for person in people:
                told = [a for a in _grouped(group, person) if not known.reader_knows(person, a, at)]
                if told:
                    findings.append(IdentityFinding("joined", "models", record.name, str(at), tuple(group),
                                                    f"lists {', '.join(told)} as {person.name} before a reader at "
                                                    f"{at} has read the reveal"))
    return findings


def _words(name: str) -> set[str]:
    return {w for w in re.findall(r"\w+", name.casefold()) if len(w) > 2}


def undated_identities(world: World) -> list[IdentityFinding]:
    """Aliases that look like a second identity the story states later than the store dates them."""
    findings: list[IdentityFinding] = []
    chunks = sorted(world.chunks, key=lambda c: Position.parse(c.position).key)
    for person in world.characters:
        names = [person.name, *person.aliases]
        for alias in person.aliases:
            if alias in person.secret_names or len(_words(alias)) < 2:
                continue
            # Another identity: a full name sharing no word with any other name of the person.
            if any(_words(alias) & _words(n) for n in names if n != alias):
                continue
            since = Position.parse(person.alias_from[alias]) if alias in person.alias_from else None
            alone = False  # the story has used the name on its own, as someone of its own
            for chunk in chunks:
                pos = Position.parse(chunk.position)
                says_alias = _says(chunk.text, alias)
                together = says_alias and any(_says(chunk.text, n) for n in names if n != alias)
                if not together:
                    alone = alone or says_alias
                    continue
                # A name introduced beside the person's own ("they called Mara the Harbour
                # Keeper") is a name given; one used alone first and named beside the person
                # later is a second identity. Dated by the world to that point or later: known.
                if not alone or (since is not None and pos <= since):
                    break
                when = f"from {since}" if since is not None else "from the start"
                findings.append(IdentityFinding(
                    "undated", "store", person.name, str(pos), (person.name, alias),
                    f"{alias!r} is one of {person.name}'s names {when}, but the story uses it alone before chunk "
                    f"{chunk.id!r} at {pos} names both; if the story reveals they are one person, mark the alias "
                    f'{{"name": {alias!r}, "secret": true, "revealed_in": [...]}}, else date it with "from"'))
                break
    return findings


__all__ = ["IdentityFinding", "identity_check", "undated_identities"]
