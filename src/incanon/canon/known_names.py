"""The name side of what a character knows at a position: which names of the work it can use,
which are later, not in use yet, or someone's secret (see :mod:`incanon.canon.knows`, whose
decision this is part of)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from incanon.canon.identities import people_as_seen, unknown_secrets
from incanon.canon.namebook import NameBook
from incanon.canon.names import norm

if TYPE_CHECKING:
    from incanon.canon.knows import CharacterKnowledge


@dataclass(frozen=True)
class Names:
    """The name side of a character's knowledge at a position (see the module docstring)."""

    book: NameBook
    """Every name of the work as this character tells people apart, with ``attested`` set to
    the names found in what the character witnessed or was told."""
    people: list[tuple[str, tuple[str, ...]]]
    """``(name, aliases)`` per person as this character tells them apart."""
    hidden_identities: dict[str, set[str]]
    """Character name → its secret names this character does not know are that character."""
    known: frozenset[str]
    """Normalized names the character can use."""
    later: frozenset[str]
    """Normalized names of characters and entities first seen after the position, not attested."""
    not_in_use: frozenset[str]
    """Normalized aliases (anyone's) not in use at the position."""
    dated: bool
    """True when the work has story text to date names by (book text, or dialogue that a card
    import did not write)."""


def names_known(knows: CharacterKnowledge, texts: list[str], *, dated: bool) -> Names:
    """The names ``knows``' character can use at its position, and why others are hidden, from
    ``texts`` (what it witnessed and was told: ``CharacterKnowledge.known_texts``); ``dated``: the
    work has story text to date names by."""
    me, at = knows.character, knows.at
    others, entities = knows.characters, knows.every_entity
    hidden = unknown_secrets(me.name, others, knows.scenes, knows.facts)
    people = people_as_seen(others, hidden)
    book = NameBook(people + [(e.name, e.aliases) for e in entities])
    book.attest(texts)
    met = {p for s in knows.scenes for p in s.participants} | {f.subject for f in knows.facts}
    later: set[str] = set()
    not_in_use: set[str] = set()
    known: set[str] = {norm(me.name), *(norm(a) for a in me.names_at(at))}
    for c in others:
        in_use = {norm(n) for n in (c.name, *c.names_at(at))}
        not_in_use |= {norm(a) for a in c.aliases} - in_use
        attested = in_use & book.attested
        if c.first_position is not None and c.first_position > at:
            # Mentioned in what the character saw before appearing: known by that name.
            later |= in_use - attested
            known |= attested
            continue
        if c.name == me.name:
            continue
        if c.name in met and not hidden.get(c.name):
            # Met in a scene: known by name. Not when the person may have been met under a
            # secret name the character does not know is theirs (the scene lists the person).
            attested.add(norm(c.name))
        if norm(c.name) in attested:
            # Knowing "Tobias Venn" is knowing "Tobias" and "Venn": aliases made of the
            # known full name's own words.
            words = set(norm(c.name).split())
            attested |= {a for a in in_use if set(a.split()) <= words}
        if attested and not dated:
            # No story text dates names: someone known is known by every name in use
            # (a secret one the character does not know stays someone else's).
            attested |= in_use - {norm(a) for a in hidden.get(c.name, ())}
        known |= attested
    for e in entities:
        forms = {norm(n) for n in (e.name, *e.aliases)}
        if e.position is not None and e.position > at:
            later |= forms - book.attested
            found = forms & book.attested
        elif e.name in met or e.position is None:
            # Met, or known from the start by the world's own dating (common knowledge of
            # the setting, like the town's lighthouse).
            found = forms & book.attested | {norm(e.name)}
        else:
            found = forms & book.attested
        known |= forms if found and not dated else found
    # The other ends of the character's own relations held from the start (a master, a
    # sister): the world's structure says the character knows them, whatever text says.
    by_name = {c.name: c for c in others}
    for r in knows.scope.relations_in_force():
        if r.valid_from is None and me.name in (r.source, r.target):
            record = by_name.get(r.target if r.source == me.name else r.source)
            if record is not None and (record.first_position is None or record.first_position <= at):
                known |= {norm(n) for n in (record.name, *record.names_at(at))}
    return Names(book, people, hidden, frozenset(known - not_in_use), frozenset(later),
                 frozenset(not_in_use), dated)
