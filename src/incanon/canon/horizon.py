"""What a character has and has not come across at a position: the material the scoped persona,
the strict method and the leak audit all judge text against.

``Horizon(store, work, character, at)`` splits the work in two:

* **known**: text of scenes the character witnessed up to ``at`` (chunks, dialogue without
  other characters' thoughts, scene titles, places and summaries), facts the scope lets the
  character know, the character's own time points reached by then, names in use;
* **hidden**: everything else that names or tells something: scenes after ``at``, scenes before
  it that the character missed, facts not known, later time points of every character,
  aliases not yet in use, characters and entities first seen later or only in missed scenes.

Two tests read text against it. A *hidden name* is a name (character or entity, any alias) the
character cannot use at ``at``. A *hidden term* is a content word whose stem (Snowball English)
occurs in the compact hidden material (summaries, facts, time-point descriptions) and nowhere in
the known material, the prompt templates or the words of the question: "Stormwren", "betrays"
or "elected" in a whole-story profile read at the end of book 1. Raw chunk text of hidden
scenes is not used for terms (a novel's common words would hide everything); hidden chunks are
counted by id instead. The tests are word-level: a paraphrase that shares no hidden word or
name passes, which is why the strict method also never reads hidden text in the first place.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from incanon.canon.knows import CharacterKnowledge
from incanon.canon.namebook import surname_pattern, surnames
from incanon.canon.names import norm
from incanon.canon.parts import later_parts
from incanon.canon.position import Position, end_of_story
from incanon.canon.reads import select_scenes
from incanon.canon.records import CharacterRecord, FactRecord, RelationRecord
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore
from incanon.canon.tells import Event, EventIndex
from incanon.sentences import split_sentences

_WORD = re.compile(r"[^\W\d_][\w'’-]*[^\W\d_]|[^\W\d_]", re.UNICODE)
_MIN_WORD = 4  # shorter words are function words or too common to say anything on their own


@lru_cache(maxsize=1)
def _stemmer():  # noqa: ANN202 - nltk's stemmer has no public type
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


@lru_cache(maxsize=262144)
def stem(word: str) -> str:
    """The comparison form of a word: case-folded, possessive dropped, Snowball-stemmed."""
    w = word.casefold().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    return _stemmer().stem(w.strip("'-"))


def stems(text: str) -> set[str]:
    """The stems of the content words (``_MIN_WORD`` letters or more) of ``text``."""
    return {stem(w) for w in _WORD.findall(text) if len(w) >= _MIN_WORD}


@lru_cache(maxsize=1)
def neutral_stems() -> frozenset[str]:
    """Stems of the words incanon's own prompt templates use: instructions, not story."""
    from importlib.resources import files

    found: set[str] = set()
    for entry in files("incanon.prompts").iterdir():
        if entry.name.endswith(".j2"):
            found |= stems(entry.read_text(encoding="utf-8"))
    return frozenset(found)


@dataclass(frozen=True)
class Leaks:
    """What one text carries from beyond the character's horizon, by kind."""

    names_not_in_use: list[str] = field(default_factory=list)
    """Aliases used before they come into use (any character's)."""
    later_names: list[str] = field(default_factory=list)
    """Characters and entities first seen after the position."""
    unseen_names: list[str] = field(default_factory=list)
    """Names met only in scenes the character missed (or nowhere the character has been)."""
    hidden_terms: list[str] = field(default_factory=list)
    """Words of future or missed scenes, unknown facts or later time points."""
    hidden_chunks: list[str] = field(default_factory=list)
    """Chunk ids of future or missed scenes (evidence and prompts that cite them)."""
    unknown_facts: list[str] = field(default_factory=list)
    """Fact ids whose text appears though the character does not know them."""

    @property
    def total(self) -> int:
        """How many leaks in all."""
        return sum(len(getattr(self, k)) for k in KINDS)

    def counts(self) -> dict[str, int]:
        """Leaks per kind."""
        return {k: len(getattr(self, k)) for k in KINDS}


KINDS = ("names_not_in_use", "later_names", "unseen_names", "hidden_terms", "hidden_chunks", "unknown_facts")
"""The leak kinds, in report order."""


class Horizon:
    """Known and hidden material of one character at one position (see the module docstring)."""

    def __init__(self, store: CanonStore, work: str, character: str | CharacterRecord, at: str | Position):
        me = store.character(work, character) if isinstance(character, str) else character
        # Held weakly: horizons are cached per store, and a cache must not keep its store alive.
        self._store = weakref.ref(store)
        self.character = me
        """The character."""
        self.scope: KnowledgeScope = store.scope(work, me, at, witnessed_only=True)
        """The character's scope, kept to witnessed scenes."""
        self.at: Position = self.scope.at
        """The position."""
        scope, at_ = self.scope, self.scope.at
        # What the character may know is decided by its knowledge; the horizon turns that into
        # the material text is judged against (hidden names, terms and chunks).
        self.knowledge: CharacterKnowledge = scope.knowledge()
        """The decision point: what the character may know (scenes, chunks, facts, names, relations)."""
        knows = self.knowledge
        self.facts: list[FactRecord] = knows.facts
        """Facts the character knows."""
        self.scenes = knows.scenes
        """Scenes the character witnessed."""
        self.witnessed_ids = set(knows.witnessed_ids)
        self.visible_chunks = set(scope.chunk_ids(witnessed_only=True))
        """Ids of the chunks the character may see."""
        # Knowledge is derived from what the character witnessed or was told, never declared by
        # the character's own texts (time-point labels, descriptions, profiles, personality):
        # those are outputs to audit, and counting them as known would make whatever a profile
        # says known by definition (and launder its words for every other surface).
        known_texts = knows.known_texts()
        names = knows._names_from(known_texts)
        work_info = scope.work
        others = knows.characters
        self.hidden_identities: dict[str, set[str]] = names.hidden_identities
        """Character name → its secret names this character does not know are that character
        (each is someone of its own to them; see ``incanon.canon.identities``)."""
        self.people: list[tuple[str, tuple[str, ...]]] = names.people
        """``(name, aliases)`` per person as this character tells them apart."""
        self.book = names.book
        self.later: set[str] = set(names.later)
        self.not_in_use: set[str] = set(names.not_in_use)
        self.known_names: set[str] = set(names.known)
        """Normalized names the character can use at the position."""
        self._hidden_surnames = self._surnames(others, known_texts, me)
        self._books = len(work_info.books)
        # "a second book from the shelf" in what the character witnessed is story, not a pointer.
        self._known_parts = {p.casefold() for t in known_texts if t
                             for p in later_parts(t, at_, books=self._books)}

        hidden_texts = [p for s in scope.future_scenes() for p in (s.title, s.summary)]
        hidden_texts += [p for s in scope.missed_scenes() for p in (s.title, s.summary)]
        everything = store.scope(work, None, _end(at_)).facts(include_expired=True)
        known_fact_ids = {f.id for f in self.facts}
        self.unknown_facts: list[FactRecord] = [f for f in everything if f.id not in known_fact_ids]
        hidden_texts += [f.text for f in self.unknown_facts]
        for c in others:
            later_points = [tp for tp in c.time_points if tp.position > at_]
            hidden_texts += [p for tp in later_points for p in (tp.description, tp.profile, tp.personality)]
            hidden_texts += [g.text for g in (*c.profile_segments, *c.personality_segments)
                             if g.position is not None and g.position > at_]
        hidden_texts += [n for n in self.not_in_use | self.later]
        known_stems = set().union(*(stems(t) for t in known_texts if t)) if known_texts else set()
        known_stems |= set().union(*(stems(n) for n in self.known_names)) if self.known_names else set()
        self.hidden_stems: set[str] = (
            set().union(*(stems(t) for t in hidden_texts if t)) - known_stems - neutral_stems()
            if hidden_texts else set())
        """Stems that only hidden material uses."""
        # The character knows its relations: their words ("brother") are not hidden terms.
        self.hidden_stems -= set().union(*(stems(r.type) for r in self.relations())) if self.hidden_stems else set()
        all_chunk_ids = store.scope(work, None, _end(at_)).chunk_ids()
        self.hidden_chunk_ids = set(all_chunk_ids) - self.visible_chunks
        """Ids of chunks of future or missed scenes."""

    def _surnames(self, others: list[CharacterRecord], known_texts: list[str], me: CharacterRecord) -> re.Pattern[str] | None:
        """A matcher of the bare surnames of characters the character does not know ("Carew" of
        a Sir Danvers Carew first seen later), each added to ``later`` or left unseen."""
        # People as this character tells them apart: a secret name's surname is its own person's.
        owned = {last: owner for last, owner in surnames(self.people).items()
                 if norm(last) not in self.book.owners}
        every = surname_pattern(owned)
        if every is None:
            return None
        attested = {m.group(0) for t in known_texts if t for m in every.finditer(t)}
        later_owners = {c.name for c in others if norm(c.name) in self.later}
        hidden: list[str] = []
        for last, owner in owned.items():
            if owner == me.name or last in attested or norm(owner) in self.known_names:
                continue
            hidden.append(last)
            if owner in later_owners:
                self.later.add(norm(last))
        return surname_pattern(hidden)

    # -- tests -------------------------------------------------------------------------------
    def hidden_names_in(self, text: str) -> list[str]:
        """Names in ``text`` the character cannot use at the position (bare surnames of people
        it does not know included)."""
        spans = self.book.spans(text)
        found = [n for _, _, n in spans if n not in self.known_names]
        if self._hidden_surnames is not None and text:
            # A surname inside a full name already matched ("Sir Danvers Carew") is that name.
            found += [norm(m.group(0)) for m in self._hidden_surnames.finditer(text)
                      if not any(a <= m.start() < b for a, b, _ in spans)]
        return found

    def leaks(self, text: str, *, chunk_ids: Iterable[str] = (), fact_ids: Iterable[str] = (),
              allowed: str = "") -> Leaks:
        """Everything in ``text`` (and the cited chunk and fact ids) from beyond the horizon.
        ``allowed``: words the user wrote (the question), which are not incanon's to withhold."""
        found = Leaks()
        for name in self.hidden_names_in(text):
            if name in self.not_in_use:
                found.names_not_in_use.append(name)
            elif name in self.later:
                found.later_names.append(name)
            else:
                found.unseen_names.append(name)
        own = stems(allowed) if allowed else set()
        found.hidden_terms.extend(sorted((stems(text) & self.hidden_stems) - own))
        # "dies in book three": a pointer to a later part tells of it without sharing its words.
        found.hidden_terms.extend(p for p in later_parts(text, self.at, books=self._books)
                                  if p.casefold() not in self._known_parts and p not in allowed)
        found.hidden_chunks.extend(c for c in chunk_ids if c in self.hidden_chunk_ids)
        known = {f.id for f in self.facts}
        found.unknown_facts.extend(f for f in fact_ids if f not in known)
        found.unknown_facts.extend(i for i in quoted_facts(text, self.unknown_facts) if i not in found.unknown_facts)
        return found

    def clean(self, text: str, *, names_only: bool = False) -> tuple[str, list[tuple[str, str]]]:
        """``text`` without the sentences that name or tell anything hidden; also the withheld
        sentences with the reason for each. ``names_only``: drop only sentences that name
        someone or something hidden (for text the world dates itself, whose words the audit
        judges)."""
        if not text.strip():
            return text, []
        sentences = split_sentences(text)
        kept: list[str] = []
        dropped: list[tuple[str, str]] = []
        for sentence in sentences:
            why = self.why_hidden(sentence, names_only=names_only)
            if why:
                dropped.append((sentence, why))
            else:
                kept.append(sentence)
        if not dropped:
            return text, []
        return " ".join(kept), dropped

    def why_hidden(self, sentence: str, *, names_only: bool = False) -> str:
        """Why ``sentence`` may not be said at the position ("" when it may); ``names_only``:
        only hidden names count."""
        leaks = self.leaks(sentence)
        if names_only:
            # Text the world dates itself keeps its words, but never a pointer to a later part.
            parts = [p for p in later_parts(sentence, self.at, books=self._books)
                     if p.casefold() not in self._known_parts]
            leaks = Leaks(leaks.names_not_in_use, leaks.later_names, leaks.unseen_names, parts)
        if leaks.names_not_in_use:
            return f"uses a name not yet in use ({', '.join(leaks.names_not_in_use)})"
        if leaks.later_names:
            return f"names someone or something first seen later ({', '.join(leaks.later_names)})"
        if leaks.unseen_names:
            return f"names someone or something the character has not come across ({', '.join(leaks.unseen_names)})"
        if not names_only:
            told = self.events.unperceived(stems(sentence))
            if told:
                return f"tells of an event the character has not perceived ({', '.join(told[:3])})"
        if leaks.hidden_terms:
            return f"tells of later or missed events ({', '.join(leaks.hidden_terms[:4])})"
        if leaks.unknown_facts:
            return "states a fact the character does not know"
        return ""

    @property
    def store(self) -> CanonStore:
        """The store the horizon reads (a closed, dropped store is an error to read)."""
        store = self._store()
        if store is None:
            raise RuntimeError("the canon store of this horizon is gone")
        return store

    @cached_property
    def events(self) -> EventIndex:
        """The work's events (scenes, facts), each marked perceived or not by the character: a
        sentence is known from the event it tells (``incanon.canon.tells``)."""
        scope = self.scope
        # Every scene as the omniscient reader has it (summaries included), marked by the character.
        scenes = select_scenes(scope._conn, scope.work.axis, "s.work_id = ?", [scope._wid])
        known_facts = {f.id for f in self.facts}
        events = [Event(f"scene:{sc.id}", frozenset(stems(f"{sc.title}. {sc.summary}")), sc.id in self.witnessed_ids,
                        sc.position.key) for sc in scenes]
        events += [Event(f"fact:{f.id}", frozenset(stems(f.text)), f.id in known_facts, f.position.key)
                   for f in (*self.facts, *self.unknown_facts)]
        # Names say who, not what happens: two sentences about one person are not one event.
        names = set().union(*(stems(n) for n in self.book.owners)) if self.book.owners else set()
        return EventIndex(events, neutral_stems() | frozenset(names))

    # -- relations ---------------------------------------------------------------------------
    def knows_relation(self, r: RelationRecord) -> bool:
        """True when the character can know relation ``r`` at the position
        (``CharacterKnowledge.may_know_relation``)."""
        return self.knowledge.may_know_relation(r)

    def relations(self) -> list[RelationRecord]:
        """The current relations the character can know (``CharacterKnowledge.relations``:
        computed once per character@position)."""
        return self.knowledge.relations()


def quoted_facts(text: str, facts: Iterable[FactRecord]) -> list[str]:
    """Ids of ``facts`` whose opening (30 to 60 characters, spacing and case aside) ``text`` quotes."""
    folded = " ".join(text.split()).casefold()
    found = []
    for f in facts:
        probe = " ".join(f.text.split()).casefold()[:60]
        if len(probe) >= 30 and probe in folded:
            found.append(f.id)
    return found


def _end(at: Position) -> Position:
    # The omniscient reader's position.
    return end_of_story(at.axis)
