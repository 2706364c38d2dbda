"""Build a Character Card V2 from what a character knows at one story position.

Every field comes from dated canon seen through the knowledge scope (see ``knowledge``):

* ``description``: the scoped builder's profile as of the position (``incanon.canon.persona_at``),
  the character's latest time-point description, the known facts about
  themself, and their own relations current at that position (type and affection only:
  relation descriptions are undated prose);
* ``personality``: the scoped builder's (``incanon.canon.persona_at``): as of the position, or
  the whole-work text without the sentences that name or tell anything hidden there;
* ``scenario``: the place and summary of the latest summarized scene the character witnessed;
* ``first_mes``: a greeting that fits the position: the setting of the latest witnessed scene in
  which the character speaks (its place and summary, as narration in ``*...*``), then the first
  line they say there (see ``greeting``);
* ``mes_example``: the character's own latest exchanges of witnessed dialogue;
* ``character_book``: one entry per character or entity they have come across, keyed by the
  names they know it by, holding the known facts about it (or, lacking any, the first
  sentences of witnessed text that mention it).

``extensions.incanon`` records the work, character, position and scope counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from incanon.canon.names import NARRATORS, norm
from incanon.canon.persona import persona_at
from incanon.canon.records import FactRecord, RelationRecord, SceneRecord
from incanon.canon.store import CanonStore
from incanon.cards.knowledge import Acquaintance, Knowledge, gather
from incanon.cards.model import BookEntry, CardData, CardV2, CharacterBook
from incanon.sentences import split_sentences

#: Where incanon keeps its own data inside a card's (and an entry's) ``extensions``.
EXTENSION = "incanon"


@dataclass(frozen=True)
class CardOptions:
    """How much dialogue and text a card carries."""

    examples: int = 3
    """Example exchanges (someone speaks, the character answers) in ``mes_example``."""
    mentions: int = 2
    """Sentences of witnessed text for an entry that has no known fact."""


def _tie(r: RelationRecord) -> str:
    feeling = f" ({r.affection} affection)" if r.affection else ""
    return f"{r.source} → {r.target}: {r.type}{feeling}"


def _bullets(title: str, lines: list[str]) -> str:
    return title + "\n" + "\n".join(f"- {line}" for line in lines) if lines else ""


def _when(k: Knowledge) -> str:
    tp = k.time_point
    return tp.label if tp is not None and tp.position == k.scope.at else f"story position {k.scope.at}"


def _description(k: Knowledge, profile: str = "") -> str:
    name, tp = k.character.name, k.time_point
    if tp is None:
        head = f"{name} in {k.scope.work.title}, as of story position {k.scope.at}."
    elif tp.position == k.scope.at:
        head = tp.description or f"{name} at {tp.label}."
    else:
        head = f"Earlier, at {tp.label}: {tp.description}" if tp.description else ""
    parts = [profile, head, _bullets(f"Known facts about {name}:", [f.text for f in k.own_facts]),
             _bullets(f"{name}'s ties at this point:", [_tie(r) for r in k.ties])]
    kept: list[str] = []
    for part in parts:
        # A card imported back holds its whole description as the profile: say each part once.
        if part and not any(part in earlier for earlier in kept):
            kept.append(part)
    return "\n\n".join(kept)


def _setting(scene: SceneRecord) -> str:
    """A scene's place and summary as one line of narration ("" when it has neither)."""
    if scene.location and scene.summary:
        return f"{scene.location}. {scene.summary}"
    return scene.summary or scene.location


def _scenario(k: Knowledge) -> str:
    """Where the character last was: the latest witnessed scene that has a summary."""
    for scene in reversed(k.scenes):
        if scene.summary:
            return _setting(scene)
    return ""


def greeting(setting: str, line: str) -> str:
    """A card greeting: the setting as ``*narration*``, a blank line, then the line spoken."""
    setting = setting.strip().replace("*", "")
    narration = f"*{setting[0].upper()}{setting[1:]}*" if setting else ""
    return "\n\n".join(part for part in (narration, line.strip()) if part)


def split_greeting(text: str) -> tuple[str, str]:
    """(setting, line) of a greeting written by ``greeting``; ("", text) for any other text."""
    match = _GREETING.match(text.strip())
    return (match.group(1).strip(), match.group(2).strip()) if match else ("", text.strip())


_GREETING = re.compile(r"\*([^*\n]+)\*\n\n(.+)", re.DOTALL)


def _greeting(k: Knowledge) -> str:
    """The latest witnessed scene where the character speaks, set as narration, with their first
    line there (a line alone, like "So the crier says.", reads out of context as a greeting)."""
    me = k.character.name
    for scene in reversed(k.scenes):
        said = [m.speech.strip() for m in k.dialogue[scene.id] if m.speaker == me and m.speech.strip()]
        if said:
            return greeting(_setting(scene) or _scenario(k), said[0])
    return greeting(_scenario(k), "")  # not spoken yet: the setting alone ("" without one)


def _examples(k: Knowledge, count: int) -> str:
    me, exchanges = k.character.name, []
    narrators = {norm(n) for n in NARRATORS}
    for s in k.scenes:
        said = [(m.speaker, m.speech.strip()) for m in k.dialogue[s.id] if m.speech.strip()]
        for (a, line_a), (b, line_b) in zip(said, said[1:]):
            if b == me and a != me and norm(a) not in narrators:
                exchanges.append((line_a, line_b))
    chosen = exchanges[-count:] if count > 0 else []
    return "\n".join(f"<START>\n{{{{user}}}}: {q}\n{{{{char}}}}: {r}" for q, r in chosen)


def _witnessed_texts(k: Knowledge) -> list[tuple[str, str]]:
    """(cache key, text) of what the character saw and heard: text, then dialogue, then scene summaries."""
    texts = [(f"chunk:{c.id}", c.text) for c in k.chunks]
    texts += [(f"line:{s.id}:{m.order}", m.speech) for s in k.scenes for m in k.dialogue[s.id] if m.speech]
    texts += [(f"scene:{s.id}", s.summary) for s in k.scenes if s.summary]
    return texts


def _mentions(k: Knowledge, who: Acquaintance, count: int, texts: list[tuple[str, str]],
              cache: dict[str, list[str]]) -> list[str]:
    """The first ``count`` sentences of ``texts`` that name ``who`` by a known name."""
    keys = {norm(key) for key in who.keys}
    found: list[str] = []
    for key, text in texts:
        if not keys & set(k.names.mentions(text)):
            continue
        if key not in cache:
            cache[key] = split_sentences(text)
        for sentence in cache[key]:
            if keys & set(k.names.mentions(sentence)) and sentence not in found:
                found.append(sentence)
                if len(found) >= count:
                    return found
    return found


def _entry(who: Acquaintance, lines: list[str], facts: list[FactRecord], order: int, from_text: bool) -> BookEntry:
    return BookEntry(
        keys=who.keys, content="\n".join(lines), enabled=True, insertion_order=order, case_sensitive=False,
        name=who.keys[0], id=order, comment=who.keys[0], selective=False, secondary_keys=[], constant=False,
        position="before_char",
        extensions={EXTENSION: {"kind": who.kind, "type": who.type, "facts": [f.id for f in facts],
                                "from_text": from_text}},
    )


def _book(k: Knowledge, options: CardOptions) -> tuple[CharacterBook, int]:
    entries: list[BookEntry] = []
    empty = 0
    cache: dict[str, list[str]] = {}
    texts = _witnessed_texts(k)
    for who in k.acquaintances:
        lines = [f.text for f in who.facts] + [_tie(r) for r in who.ties]
        from_text = not lines
        if from_text:
            lines = _mentions(k, who, options.mentions, texts, cache)
        if not lines:
            empty += 1  # known by name only: an entry would say nothing
            continue
        entries.append(_entry(who, lines, who.facts, len(entries), from_text))
    book = CharacterBook(name=f"{k.character.name} at {_when(k)}", entries=entries,
                         extensions={EXTENSION: {"work": k.scope.work.id, "at": str(k.scope.at)}})
    return book, empty


def build_card(store: CanonStore, work: str, character: str, at: str,
               options: CardOptions | None = None) -> CardV2:
    """The card of ``character`` (name or alias) at ``at`` (position or time-point label)."""
    options = options or CardOptions()
    k = gather(store, work, character, at)
    name, title, when = k.character.name, k.scope.work.title, _when(k)
    # The personality comes from the one scoped builder, like every prompt's persona.
    persona = persona_at(store, work, k.character, k.scope.at)
    personality = persona.personality
    dropped = sum(1 for w in persona.withheld if w.field == "personality")
    book, empty = _book(k, options)
    in_card = [f.id for f in k.own_facts] + [i for e in book.entries for i in e.extensions[EXTENSION]["facts"]]
    scope = k.scope.describe()
    record: dict[str, Any] = {
        "work": k.scope.work.id, "work_title": title, "character": name, "at": str(k.scope.at), "when": when,
        "scope": {"visible": scope["visible"], "hidden": scope["hidden"]},
        "card": {
            "facts": len(in_card), "entries": len(book.entries), "names_dated": k.dated,
            "withheld": {**k.withheld, "personality_sentences": dropped, "entries_without_content": empty},
        },
    }
    data = CardData(
        name=name,
        description=_description(k, persona.profile),
        personality=personality,
        scenario=_scenario(k),
        first_mes=_greeting(k),
        mes_example=_examples(k, options.examples),
        creator_notes=(
            f"{name} as of {when} in {title}, made by incanon from its canon store. The card holds only "
            f"what {name} knows at that point: {len(in_card)} known facts, {len(book.entries)} lorebook entries; "
            f"nothing that happens later and nothing from scenes {name} was not at."
        ),
        system_prompt=(
            "{{original}}\n\n"
            f"You play {{{{char}}}} as of {when} in {title}. {{{{char}}}} knows what the description, the "
            "lorebook and the conversation show and what they lived through up to this point, nothing more. "
            "Events after this point have not happened for {{char}}: never hint at them or invent them."
        ),
        character_book=book,
        tags=[title, "incanon", "point-in-time"],
        creator="incanon",
        character_version=f"{k.scope.work.id}@{k.scope.at}",
        extensions={EXTENSION: record},
    )
    card = CardV2(data=data)
    if k.character.card:
        return _from_source(k.character.card, card, book)
    return card


def _from_source(stored: str, built: CardV2, book: CharacterBook) -> CardV2:
    """The card a character was imported from, every field as it was read, with incanon's record
    in ``extensions.incanon`` and the lorebook entries the store knows beyond the card appended
    (a third-party card survives import and export whole)."""
    import copy
    import json

    source = json.loads(stored)
    doc = source.get("document") or {}
    from_card = set((source.get("facts") or {}))
    data = copy.deepcopy(doc["data"] if isinstance(doc.get("data"), dict) else doc)
    extensions = data.get("extensions") if isinstance(data.get("extensions"), dict) else {}
    data["extensions"] = {**extensions, EXTENSION: built.data.extensions[EXTENSION]}
    beyond = [e for e in book.entries if not set(e.extensions[EXTENSION]["facts"]) & from_card]
    if beyond:
        lore = data.get("character_book") if isinstance(data.get("character_book"), dict) else None
        if lore is None:
            lore = data["character_book"] = {"entries": [], "extensions": {}}
        entries = lore.setdefault("entries", [])
        taken = {e.get("id") for e in entries if isinstance(e, dict)}
        next_id = max((i for i in taken if isinstance(i, int)), default=-1) + 1
        for entry in beyond:
            added = entry.model_dump(mode="json", exclude_none=True)
            added["id"], next_id = next_id, next_id + 1
            added["insertion_order"] = added["id"]
            entries.append(added)
    card = CardV2(data=CardData.model_validate(data))
    card._exact = data
    if isinstance(doc.get("data"), dict):  # a V2 or V3 document: its other top-level keys too
        card._top = {k: copy.deepcopy(v) for k, v in doc.items() if k not in ("spec", "spec_version", "data")}
    return card
