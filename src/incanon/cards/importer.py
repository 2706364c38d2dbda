"""Add a character from a V3, V2 or V1 card to a work of the canon store.

What goes where:

* the card itself, as it was read, onto the character: exported again, it comes back whole
  (every field, unknown extension keys, lorebook settings, entry ids and order);
* ``name`` → the character, V3's ``nickname`` → one of its names; ``description`` → its profile,
  and the description of a time point ``card`` at the import position; ``personality`` → its
  personality;
* ``mes_example`` → one scene per ``<START>`` block, the front end's user speaking as
  ``{{user}}``, a speaker who is no character; ``alternate_greetings`` then ``first_mes`` → one scene each, the last
  (``first_mes``) carrying its ``*setting*`` narration, else ``scenario``, as its summary (a
  ``scenario`` unlike that setting is one more scene after it);
* each enabled lorebook entry → an entity named by its ``name`` (else its first key) with the
  other keys as aliases, and one fact holding its content without V3 ``@@`` decorators, known to
  the character; keys that are regular expressions are triggers, never names (the ``in-canon``
  method puts the facts of the entries a question fires first: ``incanon.cards.lorebook``). An
  entry named like the character itself gives a fact about the character.

Everything is placed at one story position: ``--at``, else where an incanon card was exported
(``extensions.incanon.at``), else the start of the axis (other cards have no story time). ``{{char}}`` / ``<BOT>`` in texts become the character's name (V3's ``nickname`` when set, as V3 asks). The work is written
in one transaction: a card that is wrong anywhere writes nothing.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, get_args

from incanon.canon.names import norm
from incanon.canon.position import Axis, Position
from incanon.canon.store import CanonStore
from incanon.canon.world import Character, Entity, EntityType, Fact, Scene, TimePoint, Utterance, WorkInfo, World
from incanon.cards.build import EXTENSION, split_greeting
from incanon.cards.lorebook import is_regex_entry, strip_decorators
from incanon.cards.model import CardV2
from incanon.cards.names import CARD_SCENE_PREFIX, USER_NAME
from incanon.errors import InputError
from incanon.logs import NOTICE

#: Where a card's facts and scenes go when neither ``--at`` nor the card gives a position: the
#: start of the story.
AXIS_START = {Axis.CHAPTER: "1-1-1", Axis.DATE: "0001-01-01"}
#: The time-point label of an imported character.
CARD_POINT = "card"
#: Lorebook entries from which an import says what it is doing (a second or more of work).
BIG_BOOK = 2_000

log = logging.getLogger(__name__)

_CHAR = re.compile(r"\{\{char\}\}|<bot>", re.IGNORECASE)
_USER = re.compile(r"\{\{user\}\}|<user>", re.IGNORECASE)
_ENTITY_TYPES = set(get_args(EntityType))


@dataclass
class ImportSummary:
    """What an import added, and what it left out (said on stderr by the CLI)."""

    work: str
    character: str
    at: str
    created_work: bool
    facts: int = 0
    entities: int = 0
    scenes: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary."""
        return dict(self.__dict__)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "card"


def parse_examples(text: str, name: str) -> list[list[tuple[str, str]]]:
    """``mes_example`` as blocks of (speaker, line): ``{{user}}``/``<USER>`` lines are the user's,
    ``{{char}}``/``<BOT>``/``NAME:`` lines the character's; other lines continue the last one."""
    blocks: list[list[tuple[str, str]]] = []
    speaker_re = re.compile(rf"^\s*(\{{\{{user\}}\}}|<user>|\{{\{{char\}}\}}|<bot>|{re.escape(name)})\s*:\s?(.*)$",
                            re.IGNORECASE)
    current: list[tuple[str, str]] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.strip().casefold() == "<start>":
            if current:
                blocks.append(current)
            current = []
            continue
        m = speaker_re.match(line)
        if m:
            who = USER_NAME if _USER.fullmatch(m.group(1)) else name
            current.append((who, m.group(2)))
        elif current and line.strip():
            who, said = current[-1]
            current[-1] = (who, f"{said}\n{line}")
    if current:
        blocks.append(current)
    return [[(who, said.strip()) for who, said in block if said.strip()] for block in blocks if block]


class _Names:
    """Every name already used in the world, so the card's additions never collide with one."""

    def __init__(self, world: World):
        self.owner: dict[str, tuple[str, str]] = {}  # norm → (kind, canonical name)
        for c in world.characters:
            for n in [c.name, *c.aliases]:
                self.owner.setdefault(norm(n), ("character", c.name))
        for e in world.entities:
            for n in [e.name, *e.aliases]:
                self.owner.setdefault(norm(n), ("entity", e.name))

    def take(self, name: str, kind: str, owner: str) -> bool:
        if norm(name) in self.owner:
            return False
        self.owner[norm(name)] = (kind, owner)
        return True


def _base_world(store: CanonStore, card: CardV2, work: str, merge: bool) -> tuple[World, bool]:
    if work in {w.id for w in store.works()}:
        if not merge:
            raise InputError(
                f"work {work!r} is already in the store; add --merge to add the character to it "
                "(the work is re-imported: its embeddings and knowledge graph must be rebuilt)")
        return store.export_world(work), False
    meta = card.data.extensions.get(EXTENSION)
    title = meta.get("work_title") if isinstance(meta, dict) else None
    # A card that does not say which story it is from: the work is what the user named it, not
    # the character.
    info = WorkInfo(id=work, title=title if isinstance(title, str) and title.strip() else work)
    return World(work=info), True


def _exported_at(card: CardV2, axis: Axis) -> str | None:
    """The position an incanon card was exported at (``extensions.incanon.at``), when it is one
    on ``axis``: the character comes back where it stood, not at the start of the story."""
    meta = card.data.extensions.get(EXTENSION)
    at = meta.get("at") if isinstance(meta, dict) else None
    if not isinstance(at, str):
        return None
    try:
        pos = Position.parse(at)
    except InputError:
        return None
    return str(pos) if pos.axis is axis else None


def import_card(store: CanonStore, card: CardV2, *, work: str, at: str | None = None,
                merge: bool = False, source: str | None = None) -> ImportSummary:
    """Add the card's character (and its lorebook) to ``work``, creating the work if needed."""
    world, created = _base_world(store, card, work, merge)
    axis = world.work.axis
    pos = Position.parse(at if at is not None else (_exported_at(card, axis) or AXIS_START[axis]))
    if pos.axis is not axis:
        raise InputError(f"--at {at!r} is not a position on work {work!r}'s {axis} axis")
    where = str(pos)
    d = card.data
    name = d.name.strip()
    names = _Names(world)
    if norm(name) in names.owner:
        kind, owner = names.owner[norm(name)]
        raise InputError(f"work {work!r} already has a {kind} named {owner!r}; nothing was imported",
                         source=source, where="data.name")
    names.take(name, "character", name)
    summary = ImportSummary(work=work, character=name, at=where, created_work=created)

    nickname = d.model_extra.get("nickname") if d.model_extra else None
    # V3: "{{char}} should be replaced with the nickname" when the card has one.
    called = nickname.strip() if isinstance(nickname, str) and nickname.strip() else name
    fill = lambda text: _CHAR.sub(lambda _: called, text)  # noqa: E731
    aliases = []
    if isinstance(nickname, str) and nickname.strip() and norm(nickname) != norm(name):
        # V3: {{char}} stands for the nickname; the character answers to it.
        if names.take(nickname.strip(), "character", name):
            aliases.append(nickname.strip())
        else:
            summary.notes.append(f"nickname {nickname.strip()!r} already names something else; not an alias")
    source_card = {"document": card.document or card.model_dump(mode="json", exclude_none=True), "facts": {}}
    world.characters.append(Character(
        name=name, aliases=aliases, profile=fill(d.description), personality=fill(d.personality),
        first_position=where,
        time_points=[TimePoint(label=CARD_POINT, position=where, description=fill(d.description))],
        card=source_card,
    ))
    tag = _slug(name)
    scene_ids = {s.id for s in world.scenes}

    def add_scene(suffix: str, lines: list[tuple[str, str]], summary_text: str = "") -> None:
        sid, n = f"{CARD_SCENE_PREFIX}{tag}-{suffix}", 2
        while sid in scene_ids:
            sid, n = f"{CARD_SCENE_PREFIX}{tag}-{suffix}-{n}", n + 1
        scene_ids.add(sid)
        # The front end's user speaks in example dialogue but is no character of the work.
        people = list(dict.fromkeys(who for who, _ in lines if who != USER_NAME)) or [name]
        world.scenes.append(Scene(id=sid, position=where, title=f"{name}: {suffix}", summary=summary_text,
                                  participants=people, speakers=[w for w in people if any(w == x for x, _ in lines)],
                                  messages=[Utterance(speaker=who, speech=fill(said)) for who, said in lines]))
        summary.scenes += 1

    examples = parse_examples(d.mes_example, name)
    for i, block in enumerate(examples, 1):
        add_scene(f"example-{i}", block)
    for i, greeting in enumerate(d.alternate_greetings, 1):
        if greeting.strip():
            add_scene(f"greeting-{i + 1}", [(name, greeting)])
    # A greeting written as "*setting*" + line (incanon's own) keeps its setting as the scene's
    # summary; the card's scenario, when it says something else, is a scene of its own after it,
    # so a card exported again has the same greeting and scenario.
    setting, line = split_greeting(d.first_mes)
    setting, scenario = fill(setting), fill(d.scenario.strip())
    if _uncapitalized(setting) == _uncapitalized(scenario):
        setting = scenario  # the greeting capitalizes the scenario's first letter
    if line or setting:
        add_scene("greeting", [(name, line)] if line else [], setting or scenario)
    if scenario and (setting != scenario if setting else not line):
        add_scene("scenario", [], scenario)

    big = _big_book(card)
    if big:
        log.log(NOTICE, "%s: %s lorebook entries: building their entities and facts", source or name, f"{big:,}")
    _add_book(world, card, names, name, where, tag, fill, summary, source, source_card["facts"])
    if big:
        log.log(NOTICE, "%s: writing %s entities and %s facts to the canon store", source or name,
                f"{summary.entities:,}", f"{summary.facts:,}")
    store.import_world(world, replace=not created, source=source)
    ignored = [f for f in ("system_prompt", "post_history_instructions", "creator_notes") if getattr(d, f).strip()]
    if ignored:
        summary.notes.append(f"not imported (no place in the canon store): {', '.join(ignored)}")
    return summary


def _big_book(card: CardV2) -> int:
    """The card's lorebook entries when there are enough to take seconds (said on stderr), else 0."""
    book = card.data.character_book
    entries = len(book.entries) if book is not None else 0
    return entries if entries >= BIG_BOOK else 0


def _uncapitalized(text: str) -> str:
    return text[:1].lower() + text[1:]


def _add_book(world: World, card: CardV2, names: _Names, name: str, where: str, tag: str, fill: Any,
              summary: ImportSummary, source: str | None, origin: dict[str, int]) -> None:
    book = card.data.character_book
    if book is None:
        return
    entities = {e.name: e for e in world.entities}
    skipped = {"disabled": 0, "empty": 0, "aliases": 0}
    fact_ids = {f.id for f in world.facts}
    for i, entry in enumerate(book.entries):
        keys = [k.strip() for k in entry.keys if k.strip()]
        label = (entry.name or "").strip() or (keys[0] if keys else "")
        if is_regex_entry(entry) and not (entry.name or "").strip():
            # A pattern names nothing: the entry's comment, else its place in the book.
            label = (entry.comment or "").strip() or f"lorebook entry {i + 1}"
        if not entry.enabled:
            skipped["disabled"] += 1
            continue
        if not label or not entry.content.strip():
            skipped["empty"] += 1
            continue
        kind, subject = names.owner.get(norm(label), ("", ""))
        if not subject:
            meta = entry.extensions.get(EXTENSION)
            etype = meta.get("type") if isinstance(meta, dict) else None
            entity = Entity(name=label, type=etype if etype in _ENTITY_TYPES else "concept", position=where)
            names.take(label, "entity", label)
            world.entities.append(entity)
            entities[label] = entity
            subject, kind = label, "entity"
            summary.entities += 1
        if kind == "entity" and subject in entities and not is_regex_entry(entry):
            # A regular expression is a trigger, not a name: never an alias.
            for key in keys:
                if norm(key) == norm(subject):
                    continue
                if names.take(key, "entity", subject):
                    entities[subject].aliases.append(key)
                elif names.owner[norm(key)] != ("entity", subject):
                    skipped["aliases"] += 1
        fid, n = f"card-{tag}-{i}", 2
        while fid in fact_ids:
            fid, n = f"card-{tag}-{i}-{n}", n + 1
        fact_ids.add(fid)
        world.facts.append(Fact(id=fid, subject=subject, text=fill(strip_decorators(entry.content)),
                                position=where, known_by=[name]))
        origin[fid] = i
        summary.facts += 1
    if skipped["disabled"]:
        summary.notes.append(f"skipped {skipped['disabled']} disabled lorebook entries")
    if skipped["empty"]:
        summary.notes.append(f"skipped {skipped['empty']} lorebook entries with no name, key or content")
    if skipped["aliases"]:
        summary.notes.append(f"left out {skipped['aliases']} lorebook keys already naming something else")

