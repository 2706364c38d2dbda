"""Check every reference of a ``World`` and resolve it to row positions, before any write.

``plan_import`` walks the world in its field order and stops at the first problem with an
``InputError`` whose message starts with the JSON path (``scenes[3].participants[1]: unknown
character 'Bob' (known: Alice, Cara)``). What it returns is a ``Plan``: every row to insert, with
references as indexes into the plan's own lists, which the importer turns into row ids.

Names resolve case-insensitively through canonical names and aliases; every name must mean one
thing (two characters cannot share an alias). Records link by canonical names after import, so
an export spells every reference with the canonical name.
"""

from __future__ import annotations

import json

import datetime as _dt
from dataclasses import dataclass, field
from typing import NoReturn

from incanon.canon.names import OUTSIDE_SPEAKERS, did_you_mean, listing, norm
from incanon.canon.position import Axis, Position
from incanon.canon.world import SCHEMA_VERSION as WORLD_SCHEMA_VERSION
from incanon.canon.unit_plan import plan_units
from incanon.canon.world import World
from incanon.errors import InputError

#: A relation endpoint or fact subject: ("c", character index) or ("e", entity index).
Ref = tuple[str, int]

_AXIS_FORMS = {
    Axis.CHAPTER: "book-chapter[-scene] like '2-5' or '2-5-3'",
    Axis.DATE: "an ISO date like '2024-03-07'",
}


# "0", "0-0", "0-0-0": parse as positions, but no scene happens before book 1 begins.
_BEFORE_STORY = frozenset(Position.chapter_pos(0, *rest).key for rest in ((), (0,), (0, 0)))


def axis_forms(axis: Axis) -> str:
    """How positions on ``axis`` are written, for error messages."""
    return _AXIS_FORMS[axis]


@dataclass
class Plan:
    """Rows to insert, references given as indexes into these lists (see module docstring)."""

    world: World
    characters: list[int | None] = field(default_factory=list)  # first_key per character
    names: list[tuple[int, int, str, str, int, int | None]] = field(default_factory=list)  # ..., from_key
    time_points: list[tuple[int, str, int, str, int, str, str, str]] = field(default_factory=list)
    segments: list[tuple[int, str, int, int | None, str, list[str]]] = field(default_factory=list)  # (char, kind, ord, from, text, tells)
    scenes: list[int] = field(default_factory=list)  # pos_key per scene
    participants: list[tuple[int, int, int, int, int | None, int | None]] = field(default_factory=list)
    messages: list[tuple[int, int, int | None, str, str, str, str]] = field(default_factory=list)
    chunks: list[tuple[int, int | None]] = field(default_factory=list)  # (pos_key, scene index)
    chunk_units: list[str] = field(default_factory=list)  # JSON of each chunk's perceived units
    narrator: str | None = None  # canonical name of a first-person narrator
    entities: list[tuple[str, int | None]] = field(default_factory=list)  # (norm, pos_key)
    entity_aliases: list[tuple[int, int, str, str]] = field(default_factory=list)
    relations: list[tuple[Ref, Ref, int | None, int | None]] = field(default_factory=list)
    facts: list[tuple[Ref, int, int | None, int | None]] = field(default_factory=list)
    known_by: list[tuple[int, int, int]] = field(default_factory=list)
    probes: list[tuple[int, int]] = field(default_factory=list)  # (character index, at_key)
    secrets: list[tuple[int, str, str, int | None]] = field(default_factory=list)  # (char, alias norm, json, revealed_key)


class _Checker:
    def __init__(self, world: World, source: str | None):
        self.world = world
        self.source = source
        self.axis = world.work.axis
        self.plan = Plan(world)
        self.char_by_norm: dict[str, int] = {}
        self.entity_by_norm: dict[str, int] = {}
        self.scene_by_id: dict[str, int] = {}
        self.fact_ids: set[str] = set()

    # -- helpers ---------------------------------------------------------------------------
    def fail(self, path: str, message: str) -> NoReturn:
        error = InputError(f"{path}: {message}", source=self.source)
        error.where = path
        raise error

    def position(self, path: str, text: str) -> int:
        try:
            pos = Position.parse(text)
        except InputError as exc:
            self.fail(path, str(exc))
        if pos.axis is not self.axis:
            self.fail(
                path,
                f"{text!r} is a {pos.axis} position but work {self.world.work.id!r} uses the "
                f"{self.axis} axis (expected {axis_forms(self.axis)})",
            )
        return pos.key

    def opt_position(self, path: str, text: str | None) -> int | None:
        return None if text is None else self.position(path, text)

    def nonblank(self, path: str, value: str, what: str) -> None:
        if not value.strip():
            self.fail(path, f"{what} must not be empty")

    def character(self, path: str, name: str) -> int:
        idx = self.char_by_norm.get(norm(name))
        if idx is None:
            known = [c.name for c in self.world.characters]
            self.fail(
                path,
                f"unknown character {name!r} (known: {listing(known)}){did_you_mean(name, known)}",
            )
        return idx

    def ref(self, path: str, name: str) -> Ref:
        key = norm(name)
        # A character wins over an entity of the same name (entities of type 'character' may
        # repeat a character's name in a knowledge graph).
        if key in self.char_by_norm:
            return ("c", self.char_by_norm[key])
        if key in self.entity_by_norm:
            return ("e", self.entity_by_norm[key])
        chars = [c.name for c in self.world.characters]
        ents = [e.name for e in self.world.entities]
        self.fail(
            path,
            f"unknown character or entity {name!r} (characters: {listing(chars)}; "
            f"entities: {listing(ents)}){did_you_mean(name, chars + ents)}",
        )

    def scene(self, path: str, scene_id: str | None) -> int | None:
        if scene_id is None:
            return None
        if scene_id not in self.scene_by_id:
            self.fail(
                path,
                f"unknown scene {scene_id!r} (known: {listing(self.scene_by_id)})"
                f"{did_you_mean(scene_id, self.scene_by_id)}",
            )
        return self.scene_by_id[scene_id]

    def unique_id(self, path: str, value: str, seen: dict[str, int] | set[str], what: str) -> None:
        self.nonblank(path, value, f"{what} id")
        if value in seen:
            self.fail(path, f"duplicate {what} id {value!r}")

    # -- sections --------------------------------------------------------------------------
    def work(self) -> None:
        w = self.world.work
        self.nonblank("work.id", w.id, "work id")
        self.nonblank("work.title", w.title, "work title")

    def characters(self) -> None:
        owner: dict[str, str] = {}  # norm → canonical name owning it (for error messages)
        for i, ch in enumerate(self.world.characters):
            path = f"characters[{i}]"
            self.nonblank(f"{path}.name", ch.name, "character name")
            first = self.opt_position(f"{path}.first_position", ch.first_position)
            self.plan.characters.append(first)
            for j, alias in [(-1, ch.name), *enumerate(ch.aliases)]:
                apath = f"{path}.name" if j < 0 else f"{path}.aliases[{j}]"
                self.nonblank(apath, alias, "alias")
                key = norm(alias)
                if key in self.char_by_norm:
                    if self.char_by_norm[key] == i:
                        self.fail(apath, f"{alias!r} repeats a name of the same character")
                    self.fail(apath, f"{alias!r} is already a name of {owner[key]!r}")
                self.char_by_norm[key] = i
                owner[key] = ch.name
                start = ch.alias_from.get(alias) if j >= 0 else None
                since = self.opt_position(f"{path}.aliases[{j}].from", start)
                self.plan.names.append((i, j, alias, key, int(j < 0), since))
            for kind in ("profile", "personality"):
                for j, seg in enumerate(getattr(ch, f"{kind}_segments")):
                    since = self.opt_position(f"{path}.{kind}_segments[{j}].from", seg.from_)
                    self.plan.segments.append((i, kind, j, since, seg.text, seg.tells))
            labels: set[str] = set()
            for j, tp in enumerate(ch.time_points):
                tpath = f"{path}.time_points[{j}]"
                self.nonblank(f"{tpath}.label", tp.label, "time point label")
                key = norm(tp.label)
                if key in labels:
                    self.fail(f"{tpath}.label", f"duplicate time point label {tp.label!r}")
                labels.add(key)
                pos = self.position(f"{tpath}.position", tp.position)
                if j and pos < self.plan.time_points[-1][4]:
                    # Time points are the character's story in order; a reversed pair would make
                    # "as of the later point" mean the earlier one.
                    previous = ch.time_points[j - 1]
                    self.fail(f"{tpath}.position", f"{tp.position!r} comes before the previous time point "
                              f"{previous.label!r} at {previous.position!r}; list time points in story order")
                self.plan.time_points.append((i, key, j, tp.label, pos, tp.description, tp.profile, tp.personality))

    def story_end(self) -> None:
        """A character cannot first appear after everything the world tells of: its scenes,
        chunks, facts, relations, entities, probes and the other characters' time points. (A
        world may be an excerpt that keeps the whole cast; a position past all of it is a typo.)"""
        told = [*self.plan.scenes, *(key for key, _ in self.plan.chunks), *(at for _, at in self.plan.probes),
                *(key for _, key in self.plan.entities if key is not None),
                *(k for _, start, end, _ in self.plan.facts for k in (start, end) if k is not None),
                *(k for _, _, start, end in self.plan.relations for k in (start, end) if k is not None)]
        points: dict[int, list[int]] = {}
        for char, _, _, _, pos, *_ in self.plan.time_points:
            points.setdefault(char, []).append(pos)
        for i, (ch, first) in enumerate(zip(self.world.characters, self.plan.characters)):
            others = [pos for char, keys in points.items() if char != i for pos in keys]
            if first is None or not (told or others):
                continue
            last = max([*told, *others])
            if first > last:
                end = Position.from_key(self.axis, last)
                self.fail(f"characters[{i}].first_position",
                          f"{ch.first_position!r} is after the end of the story (the last position the world "
                          f"tells of is {str(end)!r})")

    def scene_ids(self) -> None:
        for i, sc in enumerate(self.world.scenes):
            self.unique_id(f"scenes[{i}].id", sc.id, self.scene_by_id, "scene")
            self.scene_by_id[sc.id] = i

    def chunks(self) -> None:
        narrator = self.world.work.narrator
        if narrator is not None:
            self.plan.narrator = self.world.characters[self.character("work.narrator", narrator)].name
        seen: set[str] = set()
        for i, ck in enumerate(self.world.chunks):
            path = f"chunks[{i}]"
            self.unique_id(f"{path}.id", ck.id, seen, "chunk")
            seen.add(ck.id)
            key = self.position(f"{path}.position", ck.position)
            self.plan.chunks.append((key, self.scene(f"{path}.scene", ck.scene)))
            self.plan.chunk_units.append(plan_units(self, path, ck))

    def scenes(self) -> None:
        for i, sc in enumerate(self.world.scenes):
            path = f"scenes[{i}]"
            key = self.position(f"{path}.position", sc.position)
            if self.axis is Axis.CHAPTER and key in _BEFORE_STORY:
                self.fail(f"{path}.position", f"{sc.position!r} is before the story begins (book, chapter and scene "
                          "count from 1, as in '1-1-1')")
            self.plan.scenes.append(key)
            if sc.date is not None:
                try:
                    _dt.date.fromisoformat(sc.date)
                except ValueError:
                    self.fail(f"{path}.date", f"invalid date {sc.date!r} (expected YYYY-MM-DD)")
            rows: dict[int, list] = {}
            for j, name in enumerate(sc.participants):
                c = self.character(f"{path}.participants[{j}]", name)
                if c in rows:
                    self.fail(f"{path}.participants[{j}]", f"{name!r} is listed twice")
                rows[c] = [i, c, 1, 0, j, None]
            for j, name in enumerate(sc.speakers):
                c = self.character(f"{path}.speakers[{j}]", name)
                if c not in rows:
                    self.fail(f"{path}.speakers[{j}]", f"speaker {name!r} is not among the participants")
                if rows[c][3]:
                    self.fail(f"{path}.speakers[{j}]", f"{name!r} is listed twice")
                rows[c][3], rows[c][5] = 1, j
            self.plan.participants.extend(tuple(r) for r in rows.values())  # type: ignore[misc]
            narrators = {norm(n): n for n in OUTSIDE_SPEAKERS}
            for j, msg in enumerate(sc.messages):
                mpath = f"{path}.messages[{j}].speaker"
                if norm(msg.speaker) in narrators:
                    speaker_idx, speaker = None, narrators[norm(msg.speaker)]
                else:
                    speaker_idx = self.character(mpath, msg.speaker)
                    speaker = self.world.characters[speaker_idx].name
                    if speaker_idx not in rows:
                        self.fail(mpath, f"{msg.speaker!r} speaks but is not among the participants")
                self.plan.messages.append(
                    (i, j, speaker_idx, speaker, msg.speech, msg.action, msg.thought)
                )

    def secret_names(self) -> None:
        """Secret identities: each revealing scene and each character in the know exists."""
        for i, ch in enumerate(self.world.characters):
            for alias, secret in ch.secret_names.items():
                j = ch.aliases.index(alias)
                path = f"characters[{i}].aliases[{j}]"
                keys = []
                for k, scene_id in enumerate(secret.revealed_in):
                    scene = self.scene(f"{path}.revealed_in[{k}]", scene_id)
                    if scene is not None:
                        keys.append(self.plan.scenes[scene])
                known = []
                for k, name in enumerate(secret.known_by):
                    who = self.character(f"{path}.known_by[{k}]", name)
                    if who == i:
                        self.fail(f"{path}.known_by[{k}]", f"{name!r} is the character itself, who always knows its own names")
                    known.append(self.world.characters[who].name)
                payload = json.dumps({"revealed_in": list(secret.revealed_in), "known_by": known}, ensure_ascii=False)
                self.plan.secrets.append((i, norm(alias), payload, min(keys, default=None)))

    def entities(self) -> None:
        for i, en in enumerate(self.world.entities):
            path = f"entities[{i}]"
            self.plan.entities.append((norm(en.name), self.opt_position(f"{path}.position", en.position)))
            for j, alias in [(-1, en.name), *enumerate(en.aliases)]:
                apath = f"{path}.name" if j < 0 else f"{path}.aliases[{j}]"
                self.nonblank(apath, alias, "entity name")
                key = norm(alias)
                if key in self.entity_by_norm:
                    other = self.world.entities[self.entity_by_norm[key]].name
                    self.fail(apath, f"{alias!r} is already a name of entity {other!r}")
                if key in self.char_by_norm and en.type != "character":
                    self.fail(
                        apath,
                        f"{alias!r} is already a character name (only entities of type "
                        "'character' may repeat one)",
                    )
                self.entity_by_norm[key] = i
                if j >= 0:
                    self.plan.entity_aliases.append((i, j, alias, key))

    def relations(self) -> None:
        for i, rel in enumerate(self.world.relations):
            path = f"relations[{i}]"
            src = self.ref(f"{path}.source", rel.source)
            tgt = self.ref(f"{path}.target", rel.target)
            if src == tgt:
                self.fail(f"{path}.target", f"a relation from {rel.source!r} to itself (source and target are "
                          "the same)")
            self.nonblank(f"{path}.type", rel.type, "relation type")
            start = self.opt_position(f"{path}.valid_from", rel.valid_from)
            end = self.opt_position(f"{path}.valid_to", rel.valid_to)
            if start is not None and end is not None and end <= start:
                self.fail(f"{path}.valid_to", f"{rel.valid_to!r} must come after valid_from {rel.valid_from!r}")
            self.plan.relations.append((src, tgt, start, end))

    def facts(self) -> None:
        for i, fact in enumerate(self.world.facts):
            path = f"facts[{i}]"
            self.unique_id(f"{path}.id", fact.id, self.fact_ids, "fact")
            self.fact_ids.add(fact.id)
            subject = self.ref(f"{path}.subject", fact.subject)
            key = self.position(f"{path}.position", fact.position)
            end = self.opt_position(f"{path}.valid_to", fact.valid_to)
            if end is not None and end <= key:
                self.fail(f"{path}.valid_to", f"{fact.valid_to!r} must come after position {fact.position!r}")
            scene = self.scene(f"{path}.scene", fact.scene)
            self.plan.facts.append((subject, key, end, scene))
            seen: set[int] = set()
            for j, name in enumerate(fact.known_by):
                c = self.character(f"{path}.known_by[{j}]", name)
                if c in seen:
                    self.fail(f"{path}.known_by[{j}]", f"{name!r} is listed twice")
                seen.add(c)
                self.plan.known_by.append((i, c, j))

    def segment_tells(self) -> None:
        for i, ch in enumerate(self.world.characters):
            for kind in ("profile", "personality"):
                for j, seg in enumerate(getattr(ch, f"{kind}_segments")):
                    for k, told in enumerate(seg.tells):
                        if told not in self.scene_by_id and told not in self.fact_ids:
                            self.fail(f"characters[{i}].{kind}[{j}].tells[{k}]",
                                      f"unknown scene or fact id {told!r} (a segment tells of scenes and facts)")

    def probes(self) -> None:
        for i, probe in enumerate(self.world.probes):
            path = f"probes[{i}]"
            c = self.character(f"{path}.character", probe.character)
            at = self.position(f"{path}.at", probe.at)
            if probe.event not in self.scene_by_id and probe.event not in self.fact_ids:
                self.fail(f"{path}.event", f"unknown scene or fact id {probe.event!r}")
            self.plan.probes.append((c, at))


def plan_import(world: World, *, source: str | None = None) -> Plan:
    """Validate every reference of ``world``; return the rows to write.

    Raises ``InputError`` naming the JSON path of the first problem and what was expected.
    """
    if world.schema_version > WORLD_SCHEMA_VERSION:
        raise InputError(
            f"schema_version: world format version {world.schema_version} is newer than this "
            f"incanon reads (version {WORLD_SCHEMA_VERSION})",
            source=source,
        )
    check = _Checker(world, source)
    check.work()
    check.characters()
    check.scene_ids()  # chunks and facts refer to scenes listed after them
    check.chunks()
    check.scenes()
    check.secret_names()  # after scenes: a secret is revealed in them
    check.entities()
    check.relations()
    check.facts()
    check.segment_tells()
    check.probes()
    check.story_end()  # last: it needs every position the world gives
    return check.plan
