"""Everything a card may say about a character at a position, read through the knowledge scope.

``gather`` asks the character's knowledge (``incanon.canon.knows.CharacterKnowledge``, the one
decision point every prompt also uses) what the character knows: facts, witnessed scenes and
their dialogue, witnessed text, the characters and entities they know of and by which names,
and their relations. It decides nothing itself; it only arranges those answers for a card.
Nothing here reads the store's undated prose (profiles, entity and relation descriptions): it
is written from the whole work and would carry later events into the card.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from incanon.canon.names import norm
from incanon.canon.records import (
    CharacterRecord,
    ChunkRecord,
    FactRecord,
    MessageRecord,
    RelationRecord,
    SceneRecord,
    TimePointRecord,
)
from incanon.canon.knows import CharacterKnowledge
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore
from incanon.cards.names import USER_NAME, NameBook


@dataclass
class Acquaintance:
    """A character or entity the card's character has come across, with what they know of it."""

    name: str
    kind: str
    """``character`` or ``entity``."""
    type: str
    """The entity type (``character`` for characters)."""
    keys: list[str]
    """The names the character knows it by that the story's text uses (``_keys``)."""
    facts: list[FactRecord] = field(default_factory=list)
    """Known facts whose subject it is, in story order."""
    ties: list[RelationRecord] = field(default_factory=list)
    """The character's own current relations toward it."""


@dataclass
class Knowledge:
    """What ``character`` knows at ``scope.at``."""

    scope: KnowledgeScope
    character: CharacterRecord
    facts: list[FactRecord]
    """Every fact the scope lets the character know."""
    own_facts: list[FactRecord]
    """Known facts about the character themself."""
    ties: list[RelationRecord]
    """The character's own relations current at the position, toward someone they know."""
    scenes: list[SceneRecord]
    """Witnessed scenes, in story order."""
    dialogue: dict[str, list[MessageRecord]]
    """Witnessed scene id → its messages (with only the character's own thoughts)."""
    chunks: list[ChunkRecord]
    """Text the character witnessed (scene-tied chunks of missed scenes left out)."""
    time_point: TimePointRecord | None
    """The character's latest named time point at or before the position."""
    acquaintances: list[Acquaintance]
    """Other characters first, then entities, in the work's order."""
    names: NameBook
    dated: bool
    """True when the work has story text to date names by (else every alias counts as known)."""
    withheld: dict[str, int]
    """What is in the work by the position but was left out, by kind."""

    @property
    def known_names(self) -> set[str]:
        """Normalized names the card may use: the names the character knows at the position."""
        return set(self.scope.knowledge().known_names)


def gather(store: CanonStore, work: str, character: str, at: str) -> Knowledge:
    """What ``character`` (name or alias) knows at ``at`` (position or time-point label) in ``work``."""
    me = store.character(work, character)
    scope = store.scope(work, me, at)
    knows = scope.knowledge()
    pos = scope.at
    facts = knows.facts
    scenes = knows.scenes
    dialogue = knows.dialogue()
    chunks = scope.chunks(witnessed_only=True)
    # The time points as the scoped builder shows them (labels that tell more replaced by their
    # positions, descriptions cleaned).
    from incanon.canon.persona import persona_at

    points = list(persona_at(store, work, me, pos, text=False).reached)
    latest = max(points, key=lambda tp: tp.position.key, default=None)

    withheld = {"characters": 0, "entities": 0}
    people: list[Acquaintance] = []
    for c in knows.characters:
        if c.name in (me.name, USER_NAME):
            continue
        forms = knows.person_forms(c)
        if forms:
            people.append(Acquaintance(c.name, "character", "character", _keys(knows, forms)))
        elif c.first_position is None or c.first_position <= pos:
            withheld["characters"] += 1
        for alias in sorted(knows.hidden_identities.get(c.name, set()), key=c.aliases.index):
            # Known by this name only, as someone else: an entry of its own, never its owner's facts.
            if knows.knows_name(alias):
                people.append(Acquaintance(alias, "character", "character", [alias]))
    things: list[Acquaintance] = []
    for e in knows.every_entity:
        forms = knows.entity_forms(e)
        if forms:
            things.append(Acquaintance(e.name, "entity", e.type, _keys(knows, forms)))
        elif e.position is None or e.position <= pos:
            withheld["entities"] += 1
    acquaintances = people + things

    by_name = {a.name: a for a in acquaintances}
    own_facts = []
    for f in facts:
        if f.subject == me.name:
            own_facts.append(f)
        elif f.subject in by_name:
            by_name[f.subject].facts.append(f)
    # The character's own ties: the relations it knows that start from it (toward someone it
    # knows of, by the rule of relations).
    ties = [r for r in knows.relations() if r.source == me.name and r.target in by_name]
    for r in ties:
        by_name[r.target].ties.append(r)
    in_force = scope.relations_in_force()
    withheld["relations"] = sum(1 for r in in_force if r.source == me.name) - len(ties)
    return Knowledge(scope, me, facts, own_facts, ties, scenes, dialogue, chunks, latest,
                     acquaintances, knows.names.book, knows.names.dated, withheld)


def _keys(knows: CharacterKnowledge, forms: list[str]) -> list[str]:
    """A lorebook entry's keys: of the names the character knows it by (``forms``, canonical
    first), those the text it witnessed or was told uses, else the first (the canonical name when
    known). Keys trigger on the words of a chat, so they stay with the words of the story; a work
    with no story text to date names by keys every name the character knows."""
    if not knows.names.dated:
        return forms
    attested = knows.names.book.attested
    return [f for f in forms if norm(f) in attested] or forms[:1]
