"""The canary check: a leak audit that does not share the cleaner's word test.

In a scratch copy of a work, every piece of text that could be hidden from someone gets a unique
made-up marker (a *canary*): each scene's title, summary and lines, each chunk, each fact, every
time point of every character (label, description, profile, personality), every relation and
entity, and every alias that comes into use later. Every surface incanon serves is then rebuilt
from the copy for each character × time point, and every marker found in it is looked up.

Whether a marker is a leak is decided from the store's structure alone, never from the text:

* every marker the decision (``CharacterKnowledge``, read on the planted copy) gives the
  character is visible: chunks as it perceived them (a marker per perceived unit: speech, deeds,
  thoughts, narration, letters), witnessed scenes' titles and summaries and their dialogue with
  only its own thoughts, the facts, relations and entities it knows, the names it can use;
* a time point's marker is visible once the point is reached;
* every other marker is hidden.

So a word-level cleaner that misses a mis-scoped passage, a later label shown in a listing, or
an alias used too early is caught here even when the words themselves pass.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.canon.perception import StatedUnit, place_units
from incanon.canon.world import Chunk, ChunkUnit, World

_MARK = re.compile(r"qzx(\d+)kv")


@dataclass(frozen=True)
class Canary:
    """What one marker was planted in, and what decides who may see it."""

    kind: str
    """``scene``, ``thought``, ``chunk``, ``fact``, ``time point``, ``relation``, ``entity`` or ``alias``."""
    where: str
    """The item (scene id, chunk id, fact id, ``character@label`` ...)."""
    position: Position | None
    scene: str | None = None
    speaker: str = ""
    public: bool = False
    known_by: tuple[str, ...] = ()


@dataclass
class CanaryFinding:
    """A planted marker found on a surface where the character may not see it."""

    surface: str
    method: str
    character: str
    at: str
    canary: Canary

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"surface": self.surface, "method": self.method, "character": self.character, "at": self.at,
                "kind": self.canary.kind, "planted_in": self.canary.where,
                "position": str(self.canary.position) if self.canary.position else None}


@dataclass
class CanaryReport:
    """Markers planted, surfaces read, and the markers found out of scope."""

    planted: int = 0
    checked: int = 0
    """Surfaces read (one per surface, method and character@point)."""
    found: list[CanaryFinding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"planted": self.planted, "checked": self.checked, "leaks": len(self.found),
                "found": [f.to_dict() for f in self.found[:100]]}


class _Planter:
    def __init__(self) -> None:
        self.canaries: list[Canary] = []

    def mark(self, canary: Canary) -> str:
        self.canaries.append(canary)
        return f"qzx{len(self.canaries) - 1}kv"

    def pos(self, text: str | None) -> Position | None:
        return Position.parse(text) if text else None


def _plant_units(chunk: Chunk, world: World, p: _Planter) -> None:
    """A marker at the end of each perceived unit of ``chunk``, every unit stated (so the copy
    perceives exactly as the original: who perceives each marker is the decision's to say)."""
    axis = world.work.axis
    stated = [StatedUnit(u.text, u.mode, u.audience, u.by, tuple(u.known_by),
                         Position.parse(u.from_).key if u.from_ else None) for u in chunk.units]
    units, _ = place_units(chunk.text, stated, world.work.narrator)
    if not units:
        return
    text, out, pos = "", [], 0
    for u in units:
        mark = p.mark(Canary("chunk", f"{chunk.id} ({u.mode}{' of ' + u.by if u.by else ''})", p.pos(chunk.position),
                             scene=chunk.scene))
        text += chunk.text[pos:u.start]
        piece = f"{chunk.text[u.start:u.end]} {mark}"
        text += piece
        out.append(ChunkUnit.model_validate({
            "text": piece, "mode": u.mode, "by": u.by, "audience": u.audience, "known_by": list(u.known_by),
            "from": None if u.from_key is None else str(Position.from_key(axis, u.from_key))}))
        pos = u.end
    chunk.text = text + chunk.text[pos:]
    chunk.units = out


def plant(world: World) -> tuple[World, list[Canary]]:
    """A copy of ``world`` with a marker appended to every text that may be hidden, and the
    markers' index (marker ``qzx{i}kv`` is ``canaries[i]``)."""
    w = world.model_copy(deep=True)
    p = _Planter()
    for s in w.scenes:
        pos = p.pos(s.position)
        s.title = f"{s.title} {p.mark(Canary('scene', s.id, pos, scene=s.id))}".strip()
        if s.summary:  # the narrator's telling: its own marker (a first-person work keeps it to the narrator)
            s.summary = f"{s.summary} {p.mark(Canary('scene summary', s.id, pos, scene=s.id))}"
        m = p.mark(Canary("scene", s.id, pos, scene=s.id))
        for u in s.messages:
            if u.speech:
                u.speech = f"{u.speech} {m}"
            if u.action:
                u.action = f"{u.action} {m}"
            if u.thought:
                u.thought = f"{u.thought} {p.mark(Canary('thought', s.id, pos, scene=s.id, speaker=u.speaker))}"
    for c in w.chunks:
        _plant_units(c, w, p)
    for f in w.facts:
        f.text = f"{f.text} {p.mark(Canary('fact', f.id, p.pos(f.position), scene=f.scene, public=f.public, known_by=tuple(f.known_by)))}"
    for ch in w.characters:
        for tp in ch.time_points:
            m = p.mark(Canary("time point", f"{ch.name}@{tp.label}", p.pos(tp.position)))
            for name in ("label", "description", "profile", "personality"):
                value = getattr(tp, name)
                if value or name == "label":
                    setattr(tp, name, f"{value} {m}".strip())
        renamed: dict[str, str] = {}
        for alias, since in ch.alias_from.items():
            renamed[alias] = f"{alias} {p.mark(Canary('alias', f'{ch.name}: {alias}', p.pos(since)))}"
        if renamed:
            ch.aliases = [renamed.get(a, a) if isinstance(a, str) else a for a in ch.aliases]
            ch.alias_from = {renamed[a]: since for a, since in ch.alias_from.items()}
    for r in w.relations:
        r.description = f"{r.description} {p.mark(Canary('relation', f'{r.source} → {r.target}', p.pos(r.valid_from)))}".strip()
    for e in w.entities:
        if e.position:
            e.description = f"{e.description} {p.mark(Canary('entity', e.name, p.pos(e.position)))}".strip()
    return w, p.canaries


class Visibility:
    """Which canaries one character may see at one position: the one decision
    (``CharacterKnowledge``) read on the planted copy. A marker is visible when it is in what the
    decision gives the character: the chunks as it perceived them, the witnessed scenes' titles
    and summaries (a first-person work's summaries are the narrator's), their dialogue with its
    own thoughts only, the facts, relations and entities it knows, and the names it can use; a
    time point's marker when the point is reached. Everything else is hidden."""

    def __init__(self, store: CanonStore, work: str, character: str, at: Position,
                 canaries: Sequence[Canary]) -> None:
        self.character, self.at, self.canaries = character, at, canaries
        scope = store.scope(work, character, at, witnessed_only=True)
        knows = scope.knowledge()
        texts = [c.text for c in scope.chunks()]
        texts += [f"{s.title} {s.summary}" for s in scope.scenes(witnessed_only=True)]
        texts += [f"{m.speech} {m.action} {m.thought}" for ms in knows.dialogue().values() for m in ms]
        texts += [f.text for f in knows.facts]
        texts += [r.description for r in knows.relations()]
        texts += [e.description for e in knows.entities()]
        texts += [a for c in knows.characters for a in c.aliases if found_in(a) and knows.knows_name(a)]
        self.visible: set[int] = {i for t in texts for i in found_in(t)}
        """Indexes of the markers the decision gives the character."""

    def hidden(self, marker: int) -> bool:
        """True when the character may not see what marker ``marker`` marks."""
        c = self.canaries[marker]
        if c.kind == "time point":
            return c.position is not None and c.position > self.at
        return marker not in self.visible


def _reuse_vectors(store: CanonStore, copy: CanonStore, work: str) -> None:
    """The original's vectors for the copy (a marker changes a chunk's text by one made-up
    word): the book is embedded once, not once more for the copy."""
    rows = store._conn.execute(
        "SELECT kind, embedder FROM vector_sets v JOIN works w ON w.id = v.work_id WHERE w.slug = ?", (work,)).fetchall()
    for kind, embedder in rows:
        found = store.vectors(work, kind, embedder)
        if len(found.ids):
            copy.put_vectors(work, kind, list(found.ids), embedder, found.matrix)


def found_in(text: str) -> list[int]:
    """Indexes of the markers in ``text`` (each once)."""
    return list(dict.fromkeys(int(m.group(1)) for m in _MARK.finditer(text)))


async def canary_audit(
    store: CanonStore,
    work: str,
    surfaces_at: Callable[[CanonStore, str, Any, str, Position], Any],
    *,
    characters: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> CanaryReport:
    """Plant canaries in a scratch copy of ``work`` and read every surface ``surfaces_at`` builds
    there (an async callable giving ``{(surface, method): text}`` for one character@point)."""
    from incanon.audit.run import audit_points

    original = store.export_world(work)
    planted, canaries = plant(original)
    report = CanaryReport(planted=len(canaries))
    with tempfile.TemporaryDirectory(prefix="incanon-canaries-") as scratch:
        copy = CanonStore.open(Path(scratch) / "canon")
        try:
            copy.import_world(planted)
            _reuse_vectors(store, copy, work)
            points = audit_points(copy, work, characters)
            for n, (record, _label, position) in enumerate(points, start=1):
                if progress:
                    progress(f"[canaries {n}/{len(points)}] {record.name} at {position}")
                seen = Visibility(copy, work, record.name, position, canaries)
                texts = await surfaces_at(copy, work, record, str(position), position)
                for (surface, method), text in texts.items():
                    report.checked += 1
                    for i in found_in(text):
                        if seen.hidden(i):
                            report.found.append(CanaryFinding(surface, method, record.name, str(position), canaries[i]))
        finally:
            copy.close()
    return report


__all__ = ["Canary", "CanaryFinding", "CanaryReport", "Visibility", "canary_audit", "found_in", "plant"]
