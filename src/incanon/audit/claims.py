"""The world's own claims read against the story: dates and lists a world states that the story's
text and events contradict.

A surface check can only find what the structure calls hidden; a world that dates a later name
from the start, or lists someone at a scene they were not at, makes the structure itself wrong.
These checks read each claim against what the story tells, and name the claim, why it is wrong
and where it was written:

* **alias dated too early**: a name in use from the start (no ``from``) that shares no word with
  the canonical name, while the story's text first uses it after the character appears;
* **relation dated too early**: a relation whose description tells events (by rare words shared
  with scene summaries and facts, ``incanon.canon.tells``) that all happen after it begins;
* **label names a later event**: a time point's label whose words are all words of events, and
  the events holding them all happen after the point;
* **sentence tells a later event**: a sentence of a time point's description, profile or
  personality, or of a dated segment begun by then, made mostly of the words of an event after
  the point (the persona withholds it; the claim is still wrong);
* **present but never named**: a character listed present at a scene whose text never names
  them and in which they do not speak (a first-person narrator is present unnamed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from incanon.canon.horizon import neutral_stems, stems
from incanon.canon.persona import horizon_at
from incanon.canon.position import Position
from incanon.canon.records import CharacterRecord
from incanon.canon.store import CanonStore
from incanon.canon.tells import EventIndex, label_names_later, story_events
from incanon.sentences import split_sentences

#: Words of a name that say nothing about whose it is.
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "doctor", "sir", "lady", "lord", "madam", "master",
                     "captain", "the", "old", "young", "little", "father", "mother", "uncle", "aunt", "of"})


@dataclass(frozen=True)
class Claim:
    """A claim of the world that the story contradicts."""

    kind: str
    item: str
    """What is claimed (the alias, relation, label, sentence or listing)."""
    why: str
    where: str
    """Where the world states it (character, time point, relation, scene)."""
    character: str = ""
    at: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)


#: Words that tell of an event as pending (a threat, a plan, a promise) rather than as done
#: (English; other languages are read without this rule).
_FORESHADOW = re.compile(r"\b(will|would|shall|going to|due|plans?|planning|promis\w*|threat\w*|intends?|"
                         r"hopes?|unless|if|or else|fears?|afraid)\b", re.IGNORECASE)


def _words(name: str) -> set[str]:
    return {w for w in re.findall(r"\w+", name.casefold()) if w not in _TITLES}


def _name_pattern(names: Sequence[str]) -> re.Pattern[str] | None:
    forms = sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True)
    if not forms:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(f) for f in forms) + r")(?!\w)", re.IGNORECASE)


def _well_after(later: Position, start: Position) -> bool:
    """Two chapters or a book after ``start`` (a month on a date axis): a nickname the text first
    writes a scene or a chapter after the character appears may well have been in use all along."""
    if later.axis != "chapter":
        return later.key - start.key > 30
    if (later.book or 0) != (start.book or 0):
        return (later.book or 0) > (start.book or 0)
    return (later.chapter or 0) - (start.chapter or 0) >= 2


def alias_claims(store: CanonStore, work: str) -> list[Claim]:
    """Aliases in use from the start that the story first uses later (see the module docstring)."""
    chunks = sorted(store.chunks(work), key=lambda c: c.position.key)
    found = []
    for c in store.characters(work):
        mine = _words(c.name)
        dated = {a for a, since in zip(c.aliases, c.alias_from) if since is not None}
        for alias in c.aliases:
            if alias in dated or c.secret(alias) is not None or _words(alias) & mine:
                continue
            pattern = _name_pattern([alias])
            first = next((k for k in chunks if pattern is not None and pattern.search(k.text)), None)
            start = c.first_position
            if first is not None and start is not None and _well_after(first.position, start):
                found.append(Claim("alias dated too early", f"{c.name}: {alias!r}",
                                   f"in use from the start, but the story first uses it at {first.position} "
                                   f"(chunk {first.id}); {c.name} appears at {start}",
                                   f"characters[{c.name}].aliases", c.name))
    return found


def relation_claims(store: CanonStore, work: str, events: EventIndex | None = None) -> list[Claim]:
    """Relations whose description tells only events after the relation begins."""
    events = events or story_events(store, work)
    axis = store.work(work).axis
    intro: dict[str, int | None] = {c.name: c.first_position.key if c.first_position else None
                                    for c in store.characters(work)}
    intro.update({e.name: e.position.key if e.position else None for e in store.entities(work)})
    found = []
    for r in store.relations(work):
        said = stems(f"{r.type.replace('_', ' ')}. {r.description}")
        told = events.told(said)
        rare = [e for e in told if events.rare_shared(said, e)]
        # A relation begins when it says, or when its later end is first seen; what its
        # description tells at or after its end is how it ends, not when it begins.
        ends = [intro.get(r.source), intro.get(r.target), r.valid_from.key if r.valid_from is not None else None]
        start = max((k for k in ends if k is not None), default=None)
        stop = r.valid_to.key if r.valid_to is not None else None
        if rare and all(e.position is not None and (start is None or _well_after(Position.from_key(axis, e.position),
                                                                                  Position.from_key(axis, start)))
                        and (stop is None or e.position < stop) for e in rare):
            first = min(rare, key=lambda e: e.position or 0)
            when = "from the start" if r.valid_from is None else f"from {r.valid_from}"
            found.append(Claim("relation dated too early", f"{r.source} → {r.target} ({r.type})",
                               f"holds {when}, but what it tells happens at {Position.from_key(axis, first.position)} "
                               f"({first.id})", f"relations[{r.source} → {r.target}]"))
    return found


def point_claims(store: CanonStore, work: str, points: Sequence[tuple[CharacterRecord, str, Position]],
                 events: EventIndex | None = None) -> list[Claim]:
    """Labels and texts of each character's time points read against what it perceived there."""
    events = events or story_events(store, work)
    labels = story_events(store, work, names=True)
    found = []
    for record, label, position in points:
        horizon = horizon_at(store, work, record, position)
        where = f"{record.name}@{label or position}"
        if label and label_names_later(store, work, label, position):
            later = labels.naming(stems(label))
            if later:
                found.append(Claim("label names a later event", label,
                                   f"its words belong to {later[0].id}, after the point ({position})",
                                   f"time point {where}", record.name, str(position)))
        texts = [(f"{name} of the time point", getattr(tp, name)) for tp in record.time_points
                 if tp.position == position for name in ("description", "profile", "personality")]
        texts += [(f"dated {kind}", g.text) for kind in ("profile", "personality")
                  for g in getattr(record, f"{kind}_segments")
                  if (g.position is None or g.position <= position) and not g.tells]
        for what, text in texts:
            for sentence in split_sentences(text) if text.strip() else []:
                if _FORESHADOW.search(sentence):
                    continue  # a threat, plan or promise of what comes: told as pending, not as done
                # Only what lies ahead: a sentence may tell, in its own words, a deed of the
                # character's in a scene the world does not list it at; a later event is a spoiler.
                told = [e.id for e in horizon.events.unperceived_events(stems(sentence), strict=True)
                        if e.position is not None and e.position > position.key]
                if told:
                    found.append(Claim("sentence tells a later event", sentence,
                                       f"tells {', '.join(told[:3])}, after {record.name}'s point ({position})",
                                       f"{what} {where}", record.name, str(position)))
    return found


def presence_claims(store: CanonStore, work: str) -> list[Claim]:
    """Characters listed present at a scene whose text never names them."""
    narrator = store.work(work).narrator
    by_scene: dict[str, list[str]] = {}
    for k in store.chunks(work):
        if k.scene is not None:
            by_scene.setdefault(k.scene, []).append(k.text)
    people = {c.name: c for c in store.characters(work)}
    found = []
    for s in store.scenes(work):
        texts = by_scene.get(s.id)
        if not texts:
            continue
        text = "\n".join([*texts, s.title, s.summary])
        for name in s.participants:
            c = people.get(name)
            if c is None or name == narrator or name in s.speakers:
                continue
            forms = [c.name, *c.aliases, *(w for w in c.name.split() if w.casefold() not in _TITLES and len(w) > 2)]
            pattern = _name_pattern(forms)
            if pattern is not None and not pattern.search(text):
                found.append(Claim("present but never named", f"{name} at scene {s.id}",
                                   "listed present, but the scene's text never names them and they do not speak",
                                   f"scenes[{s.id}].participants", name, str(s.position)))
    return found


def claim_check(store: CanonStore, work: str, points: Sequence[tuple[CharacterRecord, str, Position]]) -> list[Claim]:
    """Every claim of the work that the story contradicts (see the module docstring)."""
    events = story_events(store, work)
    return [*alias_claims(store, work), *relation_claims(store, work, events),
            *point_claims(store, work, points, events), *presence_claims(store, work)]


__all__ = ["Claim", "alias_claims", "claim_check", "point_claims", "presence_claims", "relation_claims"]
