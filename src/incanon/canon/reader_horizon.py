"""What a reader who has read up to a position has and has not read: the reader's counterpart of
:class:`incanon.canon.horizon.Horizon` (which is one character's), in the canon layer beside it so
the server, the timeline and the leak audit read the reader's rule from one place.

A reader at R has read every scene up to R, whoever was there, every thought, and every fact
established by then; nothing after R. So:

* **known**: the text of every chunk, scene (title, place, summary, lines) and fact at or before
  R, the work's title and author and the titles of the books begun; every name in use at R of a
  character first seen by then (a secret name not yet revealed as someone of its own), every
  entity introduced by then;
* **hidden**: scenes after R, facts established later, every character's later time points
  (label, description, profile, personality) and later dated segments, names not yet in use,
  characters and entities first seen later.

The tests are :class:`~incanon.canon.horizon.Horizon`'s, word-level (names; stems that only hidden
material uses; chunk ids; fact texts): a paraphrase that shares no hidden word passes. The web
app shows a time point's label only when it tells nothing hidden here (else its position), and the
leak audit reads the timeline a reader at R is sent against it.
"""

from __future__ import annotations

from collections.abc import Iterable

from incanon.canon.horizon import Leaks, neutral_stems, quoted_facts, stems
from incanon.canon.identities import people_as_seen, reader_knows
from incanon.canon.namebook import NameBook
from incanon.canon.names import norm
from incanon.canon.position import Position, end_of_story
from incanon.canon.store import CanonStore
from incanon.canon.tells import label_names_later


class ReaderHorizon:
    """Known and hidden material of a reader at one position (see the module docstring)."""

    def __init__(self, store: CanonStore, work: str, at: Position) -> None:
        self.at = at
        """The reader's position."""
        self._store, self._work = store, work
        scope = store.scope(work, None, at)
        scenes = scope.scenes()
        chunks = scope.chunks()
        facts = scope.facts(include_expired=True)
        info = scope.work
        known_texts = [c.text for c in chunks] + [f.text for f in facts]
        known_texts += [p for s in scenes for p in (s.title, s.location, s.summary)]
        known_texts += [p for s in scenes for m in scope.messages(s.id) for p in (m.speech, m.action, m.thought)]
        known_texts += [info.title, info.author, info.id.replace("-", " ").replace("_", " ")]
        known_texts += [t for b, t in info.books.items() if not b.isdigit() or at.book is None or int(b) <= at.book]
        known_texts = [t for t in known_texts if t]

        characters = store.characters(work)
        entities = store.entities(work)
        # A secret name not yet revealed is someone of its own to the reader (its own entry in the
        # name book), never a name of the person it belongs to.
        secret = {c.name: {s.alias for s in c.secret_names if not reader_knows(s, at)} for c in characters}
        self.book = NameBook(people_as_seen(characters, secret) + [(e.name, e.aliases) for e in entities])
        self.book.attest(known_texts)
        known: set[str] = set()
        self.later: set[str] = set()
        self.not_in_use: set[str] = set()
        for c in characters:
            in_use = {norm(n) for n in (c.name, *c.names_at(at))}
            if c.first_position is not None and c.first_position > at:
                # Named in what was read before the character appears: known by that name.
                self.later |= in_use - self.book.attested
                known |= in_use & self.book.attested
                continue
            known |= in_use
            self.not_in_use |= {norm(a) for a in c.aliases} - in_use
        for e in entities:
            forms = {norm(n) for n in (e.name, *e.aliases)}
            if e.position is not None and e.position > at:
                self.later |= forms - self.book.attested
                known |= forms & self.book.attested
            else:
                known |= forms
        self.not_in_use -= known
        self.known_names: set[str] = known
        """Normalized names a reader at the position knows."""

        hidden_texts = [p for s in scope.future_scenes() for p in (s.title, s.summary)]
        end = end_of_story(at.axis)
        known_ids = {f.id for f in facts}
        self.unknown_facts = [f for f in store.scope(work, None, end).facts(include_expired=True)
                              if f.id not in known_ids]
        hidden_texts += [f.text for f in self.unknown_facts]
        for c in characters:
            hidden_texts += [p for tp in c.time_points if tp.position > at
                             for p in (tp.label, tp.description, tp.profile, tp.personality)]
            hidden_texts += [g.text for g in (*c.profile_segments, *c.personality_segments)
                             if g.position is not None and g.position > at]
        hidden_texts += sorted(self.later | self.not_in_use)
        known_stems = set().union(*(stems(t) for t in known_texts), *(stems(n) for n in known))
        hidden = set().union(*(stems(t) for t in hidden_texts if t))
        self.hidden_stems: set[str] = hidden - known_stems - neutral_stems()
        """Stems that only material after the position uses."""
        visible = set(scope.chunk_ids())
        self.hidden_chunk_ids = set(store.scope(work, None, end).chunk_ids()) - visible
        """Ids of chunks after the position."""

    def leaks(self, text: str, *, chunk_ids: Iterable[str] = (), fact_ids: Iterable[str] = (),
              allowed: str = "") -> Leaks:
        """Everything in ``text`` (and the cited chunk and fact ids) a reader at the position has
        not read. ``allowed``: the person's own words, never counted."""
        found = Leaks()
        for _, _, name in self.book.spans(text):
            if name in self.known_names:
                continue
            (found.names_not_in_use if name in self.not_in_use else found.later_names).append(name)
        own = stems(allowed) if allowed else set()
        found.hidden_terms.extend(sorted((stems(text) & self.hidden_stems) - own))
        found.hidden_chunks.extend(c for c in chunk_ids if c in self.hidden_chunk_ids)
        unknown = {f.id for f in self.unknown_facts}
        found.unknown_facts.extend(f for f in fact_ids if f in unknown)
        found.unknown_facts.extend(i for i in quoted_facts(text, self.unknown_facts) if i not in found.unknown_facts)
        return found

    def tells(self, text: str) -> bool:
        """True when ``text`` names or tells anything a reader at the position has not read."""
        return bool(text) and self.leaks(text).total > 0

    def shown_label(self, label: str, position: Position) -> str:
        """``label`` when it tells nothing beyond the position, else ``position`` (which resolves
        like the label and reveals no event)."""
        if self.tells(label) or label_names_later(self._store, self._work, label, self.at):
            return str(position)  # a label naming what the reader has not reached: the position
        return label

    def clean(self, text: str) -> str:
        """``text`` without the sentences that tell anything beyond the position."""
        from incanon.sentences import split_sentences

        if not self.tells(text):
            return text
        return " ".join(s for s in split_sentences(text) if not self.tells(s))
