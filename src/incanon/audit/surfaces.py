"""What each surface of incanon sends for one character at one position, as text to audit.

* ``prompt``: every message of every model call a method makes for a question (the persona, the
  passages, the experts' prompts, the hints);
* ``evidence``: the ``incanon`` evidence field a ``/v1`` client and the web app receive;
* ``models``: the character@point entry of ``GET /v1/models``, as listed without a reader
  position (the point by its position) and to a reader at that point (by its label);
* ``timeline``: the web app's timeline as a reader at the point is sent it (every stop, scene
  title, participant, time-point label, alias and book title up to there), read against what
  such a reader has read (:class:`~incanon.canon.reader_horizon.ReaderHorizon`), not against the
  character's horizon: it is shown to a person, who has read the scenes the character missed;
* ``card``: the Character Card exported at the position;
* ``timepoint``: the store's own texts of the character as of the position (labels, descriptions,
  profiles and personalities of the time points reached, dated segments begun): the world's
  claims about what the character is, read like any other text, since the builders show them
  (cleaned of hidden names) and a claim is not knowledge.

Each surface comes back as ``Sent``: its text, and the chunk and fact ids it cites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from incanon.agents.base import Agent, Reply, Turn
from incanon.agents.persona import character_at
from incanon.canon.persona import persona_at
from incanon.canon.position import Position
from incanon.canon.records import CharacterRecord
from incanon.canon.store import CanonStore


@dataclass
class Sent:
    """What one surface sends: text, plus the ids of chunks and facts it carries."""

    text: str
    chunk_ids: list[str] = field(default_factory=list)
    fact_ids: list[str] = field(default_factory=list)
    question: str = ""
    """The user's words in it (never counted as a leak)."""
    horizon: Any = None
    """What to read it against instead of the character's horizon (a reader's, for what is
    shown to a person); None: the character's."""


#: Keys whose values are identifiers and labels of incanon's own, not story text: the ids are
#: audited as ids (chunk and fact ids), the rest says nothing about the story.
METADATA_KEYS = frozenset({
    "id", "at", "position", "scene", "label", "method", "step", "work", "source", "kind", "type", "sources",
    "role", "facts", "chunks", "context", "object", "owned_by", "created", "spec", "model", "embedder", "status",
    "basis", "claimed", "period", "witnessed_only", "methods", "in_scope", "shown", "score", "mode",
})


_REFERENCE = re.compile(r"[\w.-]+:[\w#.~-]+")


def story_text(value: Any, key: str = "") -> str:
    """The string values of a JSON-able value, keys and identifiers left out (see
    ``METADATA_KEYS``), one per line."""
    if key in METADATA_KEYS:
        return ""
    if isinstance(value, str):
        # "fact:f-hame-provost", "chunk:1-2-3#0": references, audited by id, not as words.
        return "" if _REFERENCE.fullmatch(value) else value
    if isinstance(value, dict):
        return "\n".join(t for k, v in value.items() if (t := story_text(v, str(k))))
    if isinstance(value, (list, tuple)):
        return "\n".join(t for v in value if (t := story_text(v)))
    return ""


def _read_ids(reply: Reply) -> tuple[list[str], list[str]]:
    """Chunk ids that reached any of the method's calls, and the fact ids it used."""
    chunks: list[str] = []
    for key in ("retrieved", "expert_context"):
        chunks += [r["id"] for r in reply.details.get(key) or [] if isinstance(r, dict) and "id" in r]
    facts = [c.removeprefix("fact:") for c in reply.context if c.startswith("fact:")]
    chunks += [c for c in reply.context if not c.startswith("fact:")]
    return list(dict.fromkeys(chunks)), facts


async def method_surfaces(agent: Agent, store: CanonStore, work: str, record: CharacterRecord,
                          position: Position, question: str) -> tuple[Sent, Sent]:
    """The ``prompt`` and ``evidence`` surfaces of ``agent`` answering ``question``."""
    from incanon.chat.evidence import build_evidence

    who = character_at(store, work, record.name, position, warn=False)
    reply = await agent.respond(who, [Turn(speaker="user", text=question)])
    chunks, facts = _read_ids(reply)
    prompt = "\n\n".join(m.content for call in reply.calls for m in call.messages)
    by_id = {}

    def lookup(chunk_id: str) -> Any:
        if not by_id:
            by_id.update({c.id: c for c in store.chunks(work)})
        return by_id.get(chunk_id)

    evidence = build_evidence(reply, who, lookup)
    shown = evidence.model_dump(mode="json")
    cited = [c.id for c in evidence.chunks]
    return (Sent(prompt, chunks, facts, question),
            Sent(story_text(shown), cited, facts, question))


def models_surface(store: CanonStore, work: str, record: CharacterRecord, label: str, position: Position) -> Sent:
    """The ``/v1/models`` entry of ``record`` at ``label``, as the server lists it without a
    reader position (first) and to a reader at ``position``."""
    from incanon.serve.model_list import model_entry
    from incanon.serve.reader import ReaderView

    info = store.work(work)
    texts = []
    for view in (ReaderView(), ReaderView(at=position)):
        entry = model_entry(store, info, record, label, position, methods=("in-canon",), view=view)
        # The id and the label are what every model picker shows: read as text like the rest.
        texts += [entry["id"], entry["incanon"]["at"], story_text(entry)]
    return Sent("\n".join(texts))


def every_string(value: Any) -> str:
    """Every string in a JSON-able value, one per line: ids, positions and labels included (a
    menu shows them all)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(t for v in value.values() if (t := every_string(v)))
    if isinstance(value, (list, tuple)):
        return "\n".join(t for v in value if (t := every_string(v)))
    return ""


def timeline_surface(store: CanonStore, work: str, position: Position) -> Sent:
    """The timeline a reader at ``position`` is sent, every string of it, to be read against
    that reader's horizon (kept per store and position: every character at a point shares it)."""
    return _reader_timeline(store, store.data_version(), work, position)


@lru_cache(maxsize=64)
def _reader_timeline(store: CanonStore, generation: tuple[int, int], work: str, position: Position) -> Sent:
    from incanon.serve.reader import ReaderView
    from incanon.canon.reader_horizon import ReaderHorizon
    from incanon.serve.timeline import timeline

    sent = timeline(store, work, ReaderView(at=position))
    sent.pop("reader")  # the reader's own choices: positions, which tell no event
    return Sent(every_string(sent), horizon=ReaderHorizon(store, work, position))


def card_surface(store: CanonStore, work: str, record: CharacterRecord, position: Position) -> Sent:
    """The card exported at ``position`` (its data, lorebook included)."""
    from incanon.cards.build import build_card

    card = build_card(store, work, record.name, str(position))
    data = card.model_dump(mode="json")
    facts = [i for e in (data["data"].get("character_book") or {}).get("entries", [])
             for i in (e.get("extensions", {}).get("incanon", {}).get("facts", []))]
    return Sent(story_text(data), [], facts)


def persona_surface(store: CanonStore, work: str, record: CharacterRecord, position: Position) -> Sent:
    """The scoped persona itself (what every method's system prompt is built from)."""
    persona = persona_at(store, work, record, position)
    return Sent(story_text({k: v for k, v in persona.to_dict().items() if k != "withheld"}))


def timepoint_surface(record: CharacterRecord, position: Position) -> Sent:
    """The stored texts of ``record`` dated at or before ``position``, as the world gives them."""
    texts = [t for tp in record.time_points if tp.position <= position
             for t in (tp.label, tp.description, tp.profile, tp.personality)]
    texts += [g.text for g in (*record.profile_segments, *record.personality_segments)
              if g.position is None or g.position <= position]
    return Sent("\n".join(t for t in texts if t.strip()))
