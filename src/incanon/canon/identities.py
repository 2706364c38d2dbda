"""Secret identities: who knows that two names are one person, and from when.

A name is dated by when it comes into use; an *identity* is knowledge. When a character has a
secret name (Edward Hyde of Henry Jekyll), others who hear that name take it for someone else
until they learn who it is. Who knows, at a position:

* the character itself, always;
* the characters its world lists in the secret's ``known_by``, from the start;
* whoever witnessed a scene of ``revealed_in`` by then;
* whoever knows a fact by then that names both the secret name and another name of the person.

A reader who has read up to a position knows once any revealing scene lies at or before it
(``CharacterRecord.shown_names_at``).

Everything that shows a person's names to someone (the persona's "also called", a card's
lorebook keys, the ``/v1/models`` listing) groups a secret name with the person only for those
who know; for everyone else the secret name is someone of its own (``people_as_seen``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from incanon.canon.names import norm
from incanon.canon.position import Position
from incanon.canon.records import CharacterRecord, FactRecord, SecretNameRecord, SceneRecord


def _says(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def told_by_fact(character: CharacterRecord, secret: SecretNameRecord, facts: Iterable[FactRecord]) -> bool:
    """True when one of ``facts`` names ``secret`` and another name of ``character`` together."""
    others = [n for n in (character.name, *character.aliases)
              if n != secret.alias and character.secret(n) is None]
    return any(_says(f.text, secret.alias) and any(_says(f.text, n) for n in others) for f in facts)


def knows_identity(viewer: str, character: CharacterRecord, secret: SecretNameRecord, *,
                   witnessed: set[str], facts: Iterable[FactRecord]) -> bool:
    """True when ``viewer`` (a character's name) knows that ``secret`` names ``character``, given
    the ids of the scenes it witnessed and the facts it knows by the position."""
    if viewer == character.name or viewer in secret.known_by:
        return True
    if any(scene in witnessed for scene in secret.revealed_in):
        return True
    return told_by_fact(character, secret, facts)


def unknown_secrets(viewer: str, characters: Iterable[CharacterRecord], scenes: Iterable[SceneRecord],
                    facts: Iterable[FactRecord]) -> dict[str, set[str]]:
    """Character name → its secret names ``viewer`` does not know are that character, given the
    scenes it witnessed and the facts it knows."""
    witnessed = {s.id for s in scenes}
    facts = list(facts)
    hidden: dict[str, set[str]] = {}
    for c in characters:
        for secret in c.secret_names:
            if not knows_identity(viewer, c, secret, witnessed=witnessed, facts=facts):
                hidden.setdefault(c.name, set()).add(secret.alias)
    return hidden


def people_as_seen(characters: Iterable[CharacterRecord],
                   hidden: dict[str, set[str]]) -> list[tuple[str, tuple[str, ...]]]:
    """``(name, aliases)`` per person as someone sees them who does not know the identities in
    ``hidden`` (see ``unknown_secrets``): each such secret name is a person of its own."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for c in characters:
        secret = hidden.get(c.name, set())
        out.append((c.name, tuple(a for a in c.aliases if a not in secret)))
        out += [(a, ()) for a in c.aliases if a in secret]
    return out


def reader_knows(secret: SecretNameRecord, at: Position) -> bool:
    """True when a reader who has read up to ``at`` knows whose name ``secret`` is."""
    return secret.revealed_at is not None and secret.revealed_at <= at


def joined(names: Iterable[str], character: CharacterRecord) -> list[str]:
    """The secret names of ``character`` that ``names`` (one group shown as one person) puts
    together with another of its names: empty when the group reveals no identity."""
    folded = {norm(n) for n in names}
    secrets = [s.alias for s in character.secret_names if norm(s.alias) in folded]
    public = [n for n in (character.name, *character.aliases)
              if character.secret(n) is None and norm(n) in folded]
    if not secrets or (not public and len(secrets) < 2):
        return []
    return secrets


__all__ = ["joined", "knows_identity", "people_as_seen", "reader_knows", "told_by_fact", "unknown_secrets"]
