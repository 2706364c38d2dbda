"""What one character may know at one story position: the one place that decides.

``CharacterKnowledge`` (built by ``knowledge_of(scope)`` or ``KnowledgeScope.knowledge()``, one per
character@position and kept until the store changes) answers, for character C at position P:

* **time**: ``may_know_time(pos)``: ``pos <= P`` (what happens at P is past).
* **scene**: ``may_know_scene(id)``: C was present at the scene and it lies at or before P
  (*witnessed*).
* **chunk**: ``chunk_view(chunk)``: of a chunk at or before P, the units C perceived
  (``incanon.canon.perception``): speech and actions of a scene C witnessed (or of a chunk tied to
  no scene), C's own thoughts, speech and writings, what C is listed as knowing (a letter read,
  from when it is read), and narration when the narrator is C or narration is third person.
  ``may_know_chunk``: C perceived something of it.
* **fact**: ``may_know_fact(fact)``: begun by P, not ended (``P < valid_to``; ended ones with
  ``include_expired``), and public, or established in a witnessed scene, or told to C
  (``known_by``).
* **name**: ``knows_name(name)``: C can use the name at P. C's own names in use; another
  person's names in use at P that occur in what C witnessed or was told (*attested*); the
  canonical name of someone C met (a participant of a witnessed scene or the subject of a known
  fact) unless they may have been met under a secret name C does not know is theirs, with the
  aliases made of that name's own words; every name of the other end of C's own relations held
  from the start; an undated entity's canonical name (common knowledge of the setting). An alias
  not in use at P is never known. In a work with no story text to date names by (a card
  import), someone C knows of is known by all their names in use.
* **identity**: ``hidden_identities``: the secret names C does not know are someone's (see
  ``incanon.canon.identities``); to C each is a person of its own.
* **person / entity**: ``knows_person(c)`` / ``may_know_entity(e)``: introduced by P (or the
  subject of a fact C knows), and C knows at least one of its names.
* **relation**: ``may_know_relation(r)``: in force at P (``valid_from <= P < valid_to``; ended
  ones with ``include_ended``), both ends introduced by P and known to C by their canonical
  names, and established in a scene C witnessed, or C's own relation held from the start, or a
  known fact names both ends.

Knowledge is derived from what C witnessed and was told, never declared by C's own texts
(profiles, time-point labels): those are outputs to audit.

Fast paths. Where a question is asked of thousands of rows it is answered over columns, by the
same rule: SQL (``KnowledgeScope._chunk_cond``: chunk listings and counts; ``_fact_cond``, the
rule for facts in SQL, kept as the property test's independent statement of it) and numpy
(``chunk_order.search_ordered``: vector search; ``fact_table.facts_in_scope`` and ``scope_mask``:
the fact list and count).
Relations and entities are narrowed by SQL to candidates (in force, ends introduced) and decided
here. ``tests/canon/test_knowledge_paths.py`` checks on generated worlds that every path (these,
``retrieval.within``, ``Horizon`` and the card's ``gather``) gives the same answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np

from incanon.canon.known_names import Names, names_known
from incanon.canon.names import CARD_SCENE_PREFIX, norm
from incanon.canon.position import Position
from incanon.canon.perception import Unit, view
from incanon.canon.reads import plain_rows, select_characters, select_entities, select_messages
from incanon.canon.records import (
    CharacterRecord,
    EntityRecord,
    FactRecord,
    MessageRecord,
    RelationRecord,
    SceneRecord,
)
from incanon.errors import InputError

if TYPE_CHECKING:
    from incanon.canon.scope import KnowledgeScope

_CACHED = 256  # character@positions kept per store (a server asks for the same few again and again)


class Placed(Protocol):
    """Anything at a story position, tied to a scene or not (a chunk, a retrieved chunk)."""

    @property
    def position(self) -> Position: ...

    # A chunk also has an ``id`` (its ext id), by which its perceived view is found.

    @property
    def scene(self) -> str | None: ...


class CharacterKnowledge:
    """What one character may know at one position: every path decides through this object or
    is a documented fast path of it (see the module docstring for the rules)."""

    def __init__(self, scope: KnowledgeScope):
        if scope.character is None:
            raise InputError("knowledge is a character's: the omniscient reader's scope has only the time filter")
        self.scope: KnowledgeScope = scope.witnessed_view()
        """The character's scope, kept to witnessed scenes."""
        self.character: CharacterRecord = scope.character
        """The character."""
        self.at: Position = scope.at
        """The position."""
        self.scenes: list[SceneRecord] = self.scope.scenes(witnessed_only=True)
        """The scenes the character witnessed, in story order."""
        self.witnessed_ids: frozenset[str] = frozenset(s.id for s in self.scenes)
        """Ids of the witnessed scenes."""
        self.witnessed_rows: np.ndarray = np.array([s.row_id for s in self.scenes], dtype=np.int64)
        """Row ids of the witnessed scenes (for the SQL and numpy fast paths)."""

    # -- time, scenes, chunks, facts -------------------------------------------------------
    def may_know_time(self, position: Position) -> bool:
        """True when ``position`` is at or before the character's (past, not future)."""
        return position <= self.at

    def may_know_scene(self, scene_id: str) -> bool:
        """True when the character witnessed the scene by the position."""
        return scene_id in self.witnessed_ids

    def may_know_chunk(self, chunk: Placed) -> bool:
        """True when the character perceived some of ``chunk``: at or before the position, and
        a unit of it perceived (``chunk_view``)."""
        if not self.may_know_time(chunk.position):
            return False
        chunk_id = getattr(chunk, "id", None)
        if chunk_id is None:  # a bare placed thing: witnessing alone
            return chunk.scene is None or chunk.scene in self.witnessed_ids
        return chunk_id in self._perceived

    def chunk_view(self, chunk: Placed) -> str:
        """The text of ``chunk`` the character perceived ("" when nothing, or when it lies after
        the position); pieces not next to each other are joined by ``perception.GAP``."""
        if not self.may_know_time(chunk.position):
            return ""
        return self.perceived_text(getattr(chunk, "id", ""))

    @cached_property
    def _perceived(self) -> dict[str, tuple[int, str]]:
        # Chunk id -> (row id, the text perceived), for every chunk at or before the position of
        # which the character perceived anything, in story order: read once per knowledge.
        s = self.scope
        witnessed = set(self.witnessed_ids)
        name, at = self.character.name, self.at.key
        found: dict[str, tuple[int, str]] = {}
        for rid, ext_id, text, units, scene in plain_rows(
                s._conn, "SELECT k.id, k.ext_id, k.text, k.units, sc.ext_id FROM chunks k LEFT JOIN scenes sc"
                " ON sc.id = k.scene_id WHERE k.work_id = ? AND k.pos_key <= ? ORDER BY k.pos_key, k.ord",
                [s._wid, at]):
            seen = scene is None or scene in witnessed
            if units is None:
                got = text if seen else ""
            else:
                got = view(text, [Unit.from_json(d) for d in json.loads(units)], name, at, seen)
            if got:
                found[ext_id] = (rid, got)
        return found

    @cached_property
    def chunk_views(self) -> dict[int, str]:
        """Chunk row id → the text the character perceived of it, for every chunk at or before
        the position of which it perceived anything (in story order)."""
        return dict(self._perceived.values())

    def perceived(self, chunk_id: str) -> bool:
        """True when the character perceived something of chunk ``chunk_id`` by the position."""
        return chunk_id in self._perceived

    def perceived_text(self, chunk_id: str) -> str:
        """What the character perceived of chunk ``chunk_id`` by the position ("" for nothing)."""
        return self._perceived.get(chunk_id, (0, ""))[1]

    @cached_property
    def perceived_rows(self) -> np.ndarray:
        """Row ids of the chunks the character perceived something of (for the fast paths)."""
        return np.array(sorted(self.chunk_views), dtype=np.int64)

    def may_know_fact(self, fact: FactRecord, *, include_expired: bool = False) -> bool:
        """True when the character knows ``fact`` at the position (``include_expired``: also a
        fact that has stopped being true by then)."""
        if not self.may_know_time(fact.position):
            return False
        if not include_expired and fact.valid_to is not None and fact.valid_to <= self.at:
            return False
        return fact.public or fact.scene in self.witnessed_ids or self.character.name in fact.known_by

    @cached_property
    def facts(self) -> list[FactRecord]:
        """The facts the character knows, in story order (the numpy fast path of ``may_know_fact``)."""
        return self.scope.facts()

    # -- what the character read and heard -------------------------------------------------
    def dialogue(self) -> dict[str, list[MessageRecord]]:
        """Witnessed scene id → its messages, with only the character's own thoughts."""
        cid = self.character.row_id
        return {s.id: select_messages(self.scope._conn, s.row_id, s.id, thoughts_of=cid) for s in self.scenes}

    def known_texts(self) -> list[str]:
        """What the character witnessed or was told, as texts: witnessed chunks, known facts,
        witnessed scenes' titles, places and summaries, dialogue without others' thoughts, and the
        reader's labels of where the character stands (the work's title, author and id, the
        titles of the books reached). Read anew on each call (a novel's text is not kept)."""
        texts = [c.text for c in self.scope.chunks(witnessed_only=True)] + [f.text for f in self.facts]
        texts += [p for s in self.scenes for p in (s.title, s.location, s.summary)]
        texts += [p for ms in self.dialogue().values() for m in ms for p in (m.speech, m.action, m.thought)]
        work, at = self.scope.work, self.at
        texts += [work.title, work.author, work.id.replace("-", " ").replace("_", " ")]
        texts += [t for b, t in work.books.items() if not b.isdigit() or at.book is None or int(b) <= at.book]
        return [t for t in texts if t]

    # -- names -----------------------------------------------------------------------------
    @cached_property
    def characters(self) -> list[CharacterRecord]:
        """Every character of the work (who exists is not knowledge; what is known of them is)."""
        s = self.scope
        return select_characters(s._conn, s.work.axis, "c.work_id = ?", [s._wid])

    @cached_property
    def every_entity(self) -> list[EntityRecord]:
        """Every entity of the work, in import order."""
        s = self.scope
        return select_entities(s._conn, s.work.axis, "e.work_id = ?", [s._wid])

    @cached_property
    def names(self) -> Names:
        """The names the character can use, and why others are hidden (built on first use)."""
        return self._names(self.known_texts())

    def _names_from(self, known_texts: list[str]) -> Names:
        """``names``, built from ``known_texts`` (what ``known_texts()`` just returned) when not
        built yet: the horizon reads the texts too, and a novel's text is read once."""
        if "names" not in self.__dict__:
            self.__dict__["names"] = self._names(known_texts)
        return self.names

    def _names(self, texts: list[str]) -> Names:
        return names_known(self, texts, dated=self._dated())

    def _dated(self) -> bool:
        s = self.scope
        row = s._conn.execute(
            "SELECT EXISTS (SELECT 1 FROM chunks WHERE work_id = :w) OR EXISTS (SELECT 1 FROM messages m"
            " JOIN scenes sc ON sc.id = m.scene_id WHERE sc.work_id = :w AND substr(sc.ext_id, 1, :n) != :p)",
            {"w": s._wid, "n": len(CARD_SCENE_PREFIX), "p": CARD_SCENE_PREFIX}).fetchone()
        return bool(row[0])

    @property
    def known_names(self) -> frozenset[str]:
        """Normalized names the character can use at the position."""
        return self.names.known

    @property
    def hidden_identities(self) -> dict[str, set[str]]:
        """Character name → its secret names this character does not know are that character."""
        return self.names.hidden_identities

    def knows_name(self, name: str) -> bool:
        """True when the character can use ``name`` (any spelling of case and spacing)."""
        return norm(name) in self.names.known

    def known_forms(self, name: str, aliases: Iterable[str]) -> list[str]:
        """The forms among ``name`` and ``aliases`` the character can use, in that order."""
        known = self.names.known
        return [f for f in (name, *aliases) if norm(f) in known]

    @cached_property
    def _subjects(self) -> frozenset[str]:
        # Whom the known facts are about: a fact told makes its subject known of, even one the
        # story introduces later ("the Provost" named in a public notice before he appears).
        return frozenset(f.subject for f in self.facts)

    def person_forms(self, c: CharacterRecord) -> list[str]:
        """The names of ``c`` the character knows them by, canonical first (its secret names the
        character does not know are theirs left out); [] when the character does not know of them."""
        if c.first_position is not None and c.first_position > self.at and c.name not in self._subjects:
            return []
        secret = self.hidden_identities.get(c.name, set())
        return self.known_forms(c.name, (a for a in c.aliases if a not in secret))

    def knows_person(self, c: CharacterRecord) -> bool:
        """True when the character knows of ``c`` (see the module docstring)."""
        return bool(self.person_forms(c))

    def entity_forms(self, e: EntityRecord) -> list[str]:
        """The names of ``e`` the character knows it by; [] when it does not know of it."""
        if e.position is not None and e.position > self.at and e.name not in self._subjects:
            return []
        return self.known_forms(e.name, e.aliases)

    def may_know_entity(self, e: EntityRecord) -> bool:
        """True when the character knows of entity ``e`` (see the module docstring)."""
        return bool(self.entity_forms(e))

    def entities(self) -> list[EntityRecord]:
        """The entities the character knows of, in import order."""
        cached = self.__dict__.get("_entities")
        if cached is None:
            cached = self.__dict__["_entities"] = [e for e in self.every_entity if self.may_know_entity(e)]
        return list(cached)

    # -- relations -------------------------------------------------------------------------
    @cached_property
    def _introduced(self) -> dict[str, Position | None]:
        # A relation's end is a character when one has the name (references resolve that way).
        starts: dict[str, Position | None] = {e.name: e.position for e in self.every_entity}
        starts.update({c.name: c.first_position for c in self.characters})
        return starts

    def _is_introduced(self, name: str) -> bool:
        start = self._introduced.get(name)
        return start is None or start <= self.at

    def may_know_relation(self, r: RelationRecord, *, include_ended: bool = False) -> bool:
        """True when the character can know relation ``r`` at the position (see the module
        docstring); ``include_ended``: also one that has stopped being true by then."""
        if r.valid_from is not None and r.valid_from > self.at:
            return False
        if not include_ended and r.valid_to is not None and r.valid_to <= self.at:
            return False
        ends = (r.source, r.target)
        if not all(self._is_introduced(e) for e in ends):
            return False
        me = self.character.name
        if any(e != me and not self.knows_name(e) for e in ends):
            return False
        if r.valid_from is not None:
            at_scene = self._scenes_at.get(r.valid_from.key, [])
            if at_scene:
                return any(s in self.witnessed_ids for s in at_scene) or self._fact_names_both(r)
        if me in ends and r.valid_from is None:
            return True
        return self._fact_names_both(r)

    @cached_property
    def _scenes_at(self) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for s in self.scope.scenes(witnessed_only=False):
            found.setdefault(s.position.key, []).append(s.id)
        return found

    @cached_property
    def _said(self) -> dict[str, set[int]]:
        # Normalized canonical name → the known facts about it (their subject, or a name they
        # use), by index: a relation is told when one fact names both of its ends.
        owners = self.names.book.owners
        found: dict[str, set[int]] = {}
        for i, f in enumerate(self.facts):
            for name in {norm(owners.get(n, n)) for n in self.names.book.mentions(f.text)} | {norm(f.subject)}:
                found.setdefault(name, set()).add(i)
        return found

    def _fact_names_both(self, r: RelationRecord) -> bool:
        said = self._said
        return not said.get(norm(r.source), set()).isdisjoint(said.get(norm(r.target), ()))

    def relations(self, *, include_ended: bool = False) -> list[RelationRecord]:
        """The relations the character can know at the position, in import order. Computed once
        per character@position: a server asks for them on every in-canon request."""
        key = "_relations_all" if include_ended else "_relations"
        cached = self.__dict__.get(key)
        if cached is None:
            candidates = self.scope.relations_in_force(current_only=not include_ended)
            cached = self.__dict__[key] = [r for r in candidates
                                           if self.may_know_relation(r, include_ended=include_ended)]
        return list(cached)


def knowledge_of(scope: KnowledgeScope) -> CharacterKnowledge:
    """The ``CharacterKnowledge`` of the scope's character at its position, kept on the store's
    cache until the store's content changes (so a store is never kept alive by it)."""
    if scope.character is None:
        raise InputError("knowledge is a character's: the omniscient reader's scope has only the time filter")
    cache = cast("dict[tuple[int, int, int], tuple[tuple[int, int], CharacterKnowledge]]", scope._cache.knowledge)
    conn = scope._conn
    stamp = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
    key = (scope._wid, scope.character.row_id, scope.at.key)
    known = cache.get(key)
    if known is not None and known[0] == stamp:
        return known[1]
    if len(cache) >= _CACHED:
        cache.clear()
    made = CharacterKnowledge(scope)
    cache[key] = (stamp, made)
    return made


__all__ = ["CharacterKnowledge", "Names", "Placed", "knowledge_of"]
