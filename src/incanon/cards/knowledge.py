"""Everything a card may say about a character at a position, read through the knowledge scope.

``gather`` asks the ``KnowledgeScope`` what the character knows (facts, witnessed scenes and their
dialogue, witnessed text, entities introduced so far) and decides which other characters and
entities the character has come across: met in a witnessed scene, the subject of a known fact,
or named in what they have seen or heard. Nothing here reads the store's undated prose
(profiles, entity and relation descriptions): it is written from the whole work and would
carry later events into the card.
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
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore
from incanon.canon.identities import people_as_seen, unknown_secrets
from incanon.cards.names import CARD_SCENE_PREFIX, USER_NAME, NameBook


@dataclass
class Acquaintance:
    """A character or entity the card's character has come across, with what they know of it."""

    name: str
    kind: str
    """``character`` or ``entity``."""
    type: str
    """The entity type (``character`` for characters)."""
    keys: list[str]
    """The names the character knows it by, canonical first when attested."""
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
        """Normalized names the card may use: every key of every acquaintance, the character's
        own attested names, and every attested name."""
        names = {norm(k) for a in self.acquaintances for k in a.keys}
        names.add(norm(self.character.name))
        return names | self.names.attested


def _texts(scenes: list[SceneRecord], dialogue: dict[str, list[MessageRecord]], chunks: list[ChunkRecord],
           facts: list[FactRecord]) -> list[str]:
    # What the character witnessed or was told; its own time-point texts are outputs, never
    # evidence of what it knows.
    texts = [c.text for c in chunks] + [f.text for f in facts]
    texts += [part for s in scenes for part in (s.title, s.location, s.summary)]
    texts += [part for ms in dialogue.values() for m in ms for part in (m.speech, m.action, m.thought)]
    return [t for t in texts if t]


def gather(store: CanonStore, work: str, character: str, at: str) -> Knowledge:
    """What ``character`` (name or alias) knows at ``at`` (position or time-point label) in ``work``."""
    me = store.character(work, character)
    scope = store.scope(work, me, at)
    pos = scope.at
    facts = scope.facts()
    scenes = scope.scenes(witnessed_only=True)
    dialogue = {s.id: scope.messages(s.id) for s in scenes}
    chunks = scope.chunks(witnessed_only=True)
    # The time points as the scoped builder shows them (labels that tell more replaced by their
    # positions, descriptions cleaned).
    from incanon.canon.persona import persona_at

    points = list(persona_at(store, work, me, pos, text=False).reached)
    latest = max(points, key=lambda tp: tp.position.key, default=None)

    characters = [c for c in store.characters(work) if c.name != me.name]
    all_entities = store.entities(work)
    # A secret name the character does not know is someone's is a person of its own to it.
    secrets = unknown_secrets(me.name, characters, scenes, facts)
    names = NameBook([(me.name, me.aliases), *people_as_seen(characters, secrets),
                      *((e.name, e.aliases) for e in all_entities)])
    dated = _has_story_text(store, work)
    if dated:
        names.attest(_texts(scenes, dialogue, chunks, facts))
    else:
        names.attest_all()

    subjects = {f.subject for f in facts}
    met = {p for s in scenes for p in s.participants}
    withheld = {"characters": 0, "entities": 0}
    people: list[Acquaintance] = []
    for c in characters:
        if c.name == USER_NAME or (c.first_position is not None and c.first_position > pos):
            continue
        secret = secrets.get(c.name, set())
        aliases = tuple(a for a in c.aliases if a not in secret)
        named = any(norm(n) in names.attested for n in [c.name, *aliases])
        if c.name in met or c.name in subjects or named:
            people.append(Acquaintance(c.name, "character", "character", _keys(names, c.name, aliases, dated)))
        else:
            withheld["characters"] += 1
        for alias in (a for a in c.aliases if a in secret):
            # Known by this name only, as someone else: an entry of its own, never its owner's facts.
            if norm(alias) in names.attested or not dated:
                people.append(Acquaintance(alias, "character", "character", [alias]))
    in_scope = {e.name for e in scope.entities()}
    things: list[Acquaintance] = []
    for e in all_entities:
        if e.name not in in_scope and e.name not in subjects:
            continue
        named = any(norm(n) in names.attested for n in [e.name, *e.aliases])
        if e.name in subjects or named:
            things.append(Acquaintance(e.name, "entity", e.type, _keys(names, e.name, e.aliases, dated)))
        else:
            withheld["entities"] += 1
    acquaintances = people + things

    by_name = {a.name: a for a in acquaintances}
    own_facts = []
    for f in facts:
        if f.subject == me.name:
            own_facts.append(f)
        elif f.subject in by_name:
            by_name[f.subject].facts.append(f)
    ties = [r for r in scope.relations() if r.source == me.name and r.target in by_name]
    for r in ties:
        by_name[r.target].ties.append(r)
    withheld["relations"] = sum(1 for r in scope.relations() if r.source == me.name) - len(ties)
    return Knowledge(scope, me, facts, own_facts, ties, scenes, dialogue, chunks, latest,
                     acquaintances, names, dated, withheld)


def _has_story_text(store: CanonStore, work: str) -> bool:
    """True when the work has text to date names by: book chunks, or dialogue other than what a
    card import wrote (greetings and example dialogue are not story time)."""
    counts = store.counts(work)
    if counts["chunks"]:
        return True
    from_cards = sum(len(store.messages(work, s.id)) for s in store.scenes(work) if s.id.startswith(CARD_SCENE_PREFIX))
    return counts["messages"] > from_cards


def _keys(names: NameBook, name: str, aliases: tuple[str, ...], dated: bool) -> list[str]:
    return names.keys_for(name, aliases) if dated else [name, *aliases]
