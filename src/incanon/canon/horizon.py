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
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from incanon.canon.identities import people_as_seen, unknown_secrets
from incanon.canon.namebook import NameBook, surname_pattern, surnames
from incanon.canon.names import norm
from incanon.canon.parts import later_parts
from incanon.canon.position import Position, end_of_story
from incanon.canon.records import CharacterRecord, FactRecord, RelationRecord
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore
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
        self.character = me
        """The character."""
        self.scope: KnowledgeScope = store.scope(work, me, at, witnessed_only=True)
        """The character's scope, kept to witnessed scenes."""
        self.at: Position = self.scope.at
        """The position."""
        scope, at_ = self.scope, self.scope.at
        self.facts: list[FactRecord] = scope.facts()
        """Facts the character knows."""
        self.scenes = scope.scenes(witnessed_only=True)
        """Scenes the character witnessed."""
        self.witnessed_ids = {s.id for s in self.scenes}
        dialogue = [m for s in self.scenes for m in scope.messages(s.id)]
        chunks = scope.chunks(witnessed_only=True)
        self.visible_chunks = {c.id for c in chunks}
        """Ids of the chunks the character may see."""
        # Knowledge is derived from what the character witnessed or was told, never declared by
        # the character's own texts (time-point labels, descriptions, profiles, personality):
        # those are outputs to audit, and counting them as known would make whatever a profile
        # says known by definition (and launder its words for every other surface).
        known_texts = [c.text for c in chunks] + [f.text for f in self.facts]
        known_texts += [p for s in self.scenes for p in (s.title, s.location, s.summary)]
        known_texts += [p for m in dialogue for p in (m.speech, m.action, m.thought)]
        # The work's title, author and id, and the titles of the books reached, are the reader's
        # labels of where the character stands, not story the character could not know.
        work_info = scope.work
        known_texts += [work_info.title, work_info.author, work_info.id.replace("-", " ").replace("_", " ")]
        known_texts += [t for b, t in work_info.books.items()
                        if not b.isdigit() or at_.book is None or int(b) <= at_.book]

        others = store.characters(work)
        entities = store.entities(work)
        self.hidden_identities: dict[str, set[str]] = unknown_secrets(me.name, others, self.scenes, self.facts)
        """Character name → its secret names this character does not know are that character
        (each is someone of its own to them; see ``incanon.canon.identities``)."""
        self.people: list[tuple[str, tuple[str, ...]]] = people_as_seen(others, self.hidden_identities)
        """``(name, aliases)`` per person as this character tells them apart."""
        self.book = NameBook(self.people + [(e.name, e.aliases) for e in entities])
        self.book.attest(t for t in known_texts if t)
        met = {p for s in self.scenes for p in s.participants} | {f.subject for f in self.facts}
        self.later: set[str] = set()
        self.not_in_use: set[str] = set()
        known: set[str] = {norm(me.name), *(norm(a) for a in me.names_at(at_))}
        for c in others:
            in_use = {norm(n) for n in (c.name, *c.names_at(at_))}
            self.not_in_use |= {norm(a) for a in c.aliases} - in_use
            attested = in_use & self.book.attested
            if c.first_position is not None and c.first_position > at_:
                # Mentioned in what the character saw before appearing: known by that name.
                self.later |= in_use - attested
                known |= attested
                continue
            if c.name == me.name:
                continue
            if c.name in met and not self.hidden_identities.get(c.name):
                # Met in a scene: known by name. Not when the person may have been met under a
                # secret name the character does not know is theirs (the scene lists the person).
                attested.add(norm(c.name))
            if norm(c.name) in attested:
                # Knowing "Tobias Venn" is knowing "Tobias" and "Venn": aliases made of the
                # known full name's own words.
                words = set(norm(c.name).split())
                attested |= {a for a in in_use if set(a.split()) <= words}
            known |= attested
        for e in entities:
            forms = {norm(n) for n in (e.name, *e.aliases)}
            if e.position is not None and e.position > at_:
                self.later |= forms - self.book.attested
                known |= forms & self.book.attested
            elif e.name in met or e.position is None:
                # Met, or known from the start by the world's own dating (common knowledge of
                # the setting, like the town's lighthouse).
                known |= forms & self.book.attested | {norm(e.name)}
            else:
                known |= forms & self.book.attested
        # The other ends of the character's own relations held from the start (a master, a
        # sister): the world's structure says the character knows them, whatever text says.
        for r in self.scope.relations():
            if r.valid_from is None and me.name in (r.source, r.target):
                other = r.target if r.source == me.name else r.source
                record = next((c for c in others if c.name == other), None)
                if record is not None and (record.first_position is None or record.first_position <= at_):
                    known |= {norm(n) for n in (record.name, *record.names_at(at_))}
        self.known_names: set[str] = known - self.not_in_use
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
        if leaks.hidden_terms:
            return f"tells of later or missed events ({', '.join(leaks.hidden_terms[:4])})"
        if leaks.unknown_facts:
            return "states a fact the character does not know"
        return ""

    # -- relations ---------------------------------------------------------------------------
    def knows_relation(self, r: RelationRecord) -> bool:
        """True when the character can know relation ``r`` at the position: both ends are known
        to them, and it was established in a scene they witnessed, or is their own relation held
        from the start, or a known fact names both ends."""
        if r.valid_to is not None and r.valid_to <= self.at:
            return False
        if r.valid_from is not None and r.valid_from > self.at:
            return False
        me = self.character.name
        ends = (r.source, r.target)
        if any(e != me and norm(e) not in self.known_names for e in ends):
            return False
        if r.valid_from is not None:
            at_scene = [s for s in self._scenes_at(r.valid_from)]
            if at_scene and any(s in self.witnessed_ids for s in at_scene):
                return True
            if at_scene:
                return self._fact_names_both(r)
        if me in ends and r.valid_from is None:
            return True
        return self._fact_names_both(r)

    def _scenes_at(self, pos: Position) -> list[str]:
        cached = getattr(self, "_scene_pos", None)
        if cached is None:
            every = self.scope.scenes(witnessed_only=False)
            cached = {}
            for s in every:
                cached.setdefault(s.position.key, []).append(s.id)
            self._scene_pos = cached
        return cached.get(pos.key, [])

    def _fact_names_both(self, r: RelationRecord) -> bool:
        a, b = norm(r.source), norm(r.target)
        owners = self.book.owners
        for f in self.facts:
            said = {owners.get(n, n) for n in self.book.mentions(f.text)} | {f.subject}
            said_norm = {norm(x) for x in said}
            if a in said_norm and b in said_norm:
                return True
        return False

    def relations(self) -> list[RelationRecord]:
        """The current relations the character can know (see ``knows_relation``). Computed once
        per horizon: it depends only on the character and the position, and a server asks for
        it on every in-canon request (the horizon itself is cached per character@position)."""
        cached = getattr(self, "_relations", None)
        if cached is None:
            cached = self._relations = [r for r in self.scope.relations() if self.knows_relation(r)]
        return list(cached)


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
