"""The one turn engine of every scene: the product's scenes and CoSER's ``coser simulate`` run their
turns here, so who hears what, what each speaker is shown and how a turn is taken are decided once.

A scene is a list of lines (:class:`Line`): who said it, the words, who heard it (``heard_by``;
None: everyone in the scene), whether it was an aside to one listener (``to``) and the story
position it was said at (``at``; None: undated). One turn (:meth:`SceneEngine.step`) is always:

1. the **director** names who acts next, or ends the scene (a :class:`Cue`); a cue may carry a
   line already written (the user's, or an original line replayed), recorded as written with no
   model asked;
2. the speaker's **view** is made from the lines it heard, said at or before where the scene
   stands, rendered by the front end (:meth:`Stage.render`);
3. the speaker's **performer** turns that view, and nothing else, into a line (:class:`Performance`);
4. the **stage** records the line, deciding once who heard it (:func:`hearers`).

The director is shown the public lines only (no aside), rendered for :data:`DIRECTOR`.

What plugs in:

* the product (:class:`incanon.scenes.session.SceneSession`): lines are ``SceneLine`` dated by
  story position; the view is :func:`incanon.scenes.heard.heard_turns` (labels each listener knows,
  asides marked); the performer is the role-play method with the character from the one scoped
  builder; the director is the user's choice, round robin or CoSER's prediction (never an end);
* the benchmark (:mod:`incanon.bench.coser.simulation`): lines are ``SimMessage``, heard by
  everyone; the view is :func:`concealing_view` (own lines whole, the others' thoughts removed,
  the Environment's whole; the director and the Environment see no thoughts); the performers are
  CoSER's actors and Environment; the director is the next-speaker predictor with its end rules,
  the replay of the original messages (``continue_from``) and the round cap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from incanon.agents.base import Turn
from incanon.canon.position import Position

DIRECTOR = "(director)"
"""The viewer name the director's view is rendered for (no speaker is called that)."""

SCRIPTED = "script"
"""Provenance of a line a cue brought already written, when the cue names no other."""


class Line(Protocol):
    """What the engine reads of a line (the front ends keep their own records)."""

    @property
    def speaker(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def heard_by(self) -> Sequence[str] | None:
        """Who heard it, fixed when it was said; None: everyone in the scene."""
        ...

    @property
    def to(self) -> str | None:
        """An aside: addressed to this one alone (the director does not see it)."""
        ...

    @property
    def at(self) -> str | None:
        """The story position it was said at; None: undated (known at every position)."""
        ...


L = TypeVar("L", bound=Line)


@dataclass(frozen=True)
class Cue:
    """Who acts next and how that was decided, or the end of the scene (``speaker`` None)."""

    speaker: str | None
    how: str = ""
    """How the speaker was chosen (``user``, ``round-robin``, ``original``...)."""
    raw: str = ""
    """The director's raw answer, when a model was asked."""
    script: str | None = None
    """A line already written: recorded as it is, no performer asked."""
    to: str | None = None
    """With ``script``: an aside to this one alone."""
    ended_by: str = ""
    """Why the scene ends (with ``speaker`` None)."""

    @classmethod
    def end(cls, why: str, raw: str = "") -> "Cue":
        """The end of the scene, and why."""
        return cls(speaker=None, raw=raw, ended_by=why)


@dataclass(frozen=True)
class Performance:
    """A line as a performer made it, with its provenance."""

    text: str
    source: str
    """Who made it: a model role (``model``, ``actor``, ``environment``) or a script (``original``...)."""
    raw: str | None = None
    """The performer's output before cleaning (None: the line was not generated)."""
    reply: Any = None
    """The performer's whole answer (an agent's ``Reply`` with every call), for audits."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """Anything else the stage records (what the performer recalled...)."""


Performer = Callable[[str, list[Turn]], Awaitable[Performance]]
"""``(speaker, view) -> Performance``: the speaker's line from its view alone."""


class Stage(Protocol[L]):
    """The front end's side of a scene: its lines, where it stands, how a viewer is shown lines and
    how a performance becomes a line."""

    @property
    def lines(self) -> Sequence[L]: ...

    @property
    def position(self) -> Position | None:
        """Where the scene stands in story time (None: no story clock)."""
        ...

    def render(self, viewer: str, lines: Sequence[L]) -> list[Turn]:
        """``lines`` (all heard by ``viewer``) as ``viewer``'s view; ``viewer`` may be :data:`DIRECTOR`."""
        ...

    def record(self, cue: Cue, performance: Performance) -> L:
        """Add the line ``cue.speaker`` performed; returns it."""
        ...


class Director(Protocol):
    """Chooses the next speaker or ends the scene."""

    async def cue(self, engine: "SceneEngine[Any]") -> Cue: ...


def hears(viewer: str, line: Line) -> bool:
    """True when ``viewer`` heard ``line`` (it was said to everyone, or ``viewer`` is among its hearers)."""
    return line.heard_by is None or viewer in line.heard_by


def said_by(line: Line, at: Position | None) -> bool:
    """True when ``line`` was said at or before ``at`` (an undated line, or no ``at``: always)."""
    return line.at is None or at is None or Position.parse(line.at) <= at


def hearers(speaker: str, present: Sequence[str], to: str | None = None, *, voices: Collection[str] = ()) -> list[str]:
    """Who hears a line said now: everyone present, or only ``to`` for an aside; the speaker
    too (first, if not present to itself), unless it is one of ``voices`` (the narrator: a voice,
    not a listener of the scene)."""
    heard = [to] if to is not None else list(present)
    if speaker not in voices and speaker not in heard:
        heard = [speaker, *heard]
    return heard


def concealing_view(conceal: Callable[[str], str], *, open_speakers: Collection[str] = ()
                    ) -> Callable[[str, Sequence[Line]], list[Turn]]:
    """A renderer showing a viewer its own lines whole and everyone else's through ``conceal``
    (what others may not see taken out), except the lines of ``open_speakers`` (who keep nothing
    private), whole for all. A viewer that is no speaker (the director) sees every line concealed."""

    def render(viewer: str, lines: Sequence[Line]) -> list[Turn]:
        return [Turn(speaker=line.speaker,
                     text=line.text if line.speaker == viewer or line.speaker in open_speakers else conceal(line.text))
                for line in lines]

    return render


class SceneEngine(Generic[L]):
    """Takes the turns of one scene (module docstring): ``stage`` holds the lines, ``director``
    picks who acts, ``cast(speaker)`` is the performer who plays ``speaker``."""

    def __init__(self, stage: Stage[L], director: Director, cast: Callable[[str], Performer]) -> None:
        self.stage = stage
        self.director = director
        self.cast = cast
        self.ended: Cue | None = None
        """The cue that ended the scene, once one did."""

    @property
    def lines(self) -> Sequence[L]:
        """The scene so far."""
        return self.stage.lines

    def heard(self, viewer: str) -> list[L]:
        """The lines ``viewer`` heard, said at or before where the scene stands now."""
        now = self.stage.position
        return [line for line in self.stage.lines if hears(viewer, line) and said_by(line, now)]

    def public(self) -> list[L]:
        """The lines said to everyone present (no aside), at or before where the scene stands."""
        now = self.stage.position
        return [line for line in self.stage.lines if line.to is None and said_by(line, now)]

    def view(self, viewer: str) -> list[Turn]:
        """What ``viewer``'s performer is given: the lines it heard, as the stage renders them."""
        return self.stage.render(viewer, self.heard(viewer))

    def public_view(self) -> list[Turn]:
        """What the director is given: the public lines, rendered for :data:`DIRECTOR`."""
        return self.stage.render(DIRECTOR, self.public())

    def say(self, cue: Cue) -> L:
        """Record the line ``cue`` brings already written (no model is asked)."""
        if cue.speaker is None or cue.script is None:
            raise ValueError("say() needs a cue with a speaker and a written line")
        return self.stage.record(cue, Performance(text=cue.script, source=cue.how or SCRIPTED))

    async def step(self, cue: Cue | None = None) -> L | None:
        """One turn: ``cue`` (or the director's) speaks, from its own view; returns the line,
        or None when the director ends the scene (kept in ``ended``)."""
        cue = cue if cue is not None else await self.director.cue(self)
        if cue.speaker is None:
            self.ended = cue
            return None
        if cue.script is not None:
            return self.say(cue)
        performance = await self.cast(cue.speaker)(cue.speaker, self.view(cue.speaker))
        return self.stage.record(cue, performance)

    async def run(self, max_steps: int | None = None) -> Cue:
        """Take turns until the director ends the scene (or after ``max_steps`` lines: a guard for
        directors without an end); returns the ending cue."""
        steps = 0
        while max_steps is None or steps < max_steps:
            if await self.step() is None:
                assert self.ended is not None
                return self.ended
            steps += 1
        self.ended = Cue.end("max_steps")
        return self.ended


__all__ = [
    "DIRECTOR", "SCRIPTED", "Cue", "Director", "Line", "Performance", "Performer", "SceneEngine", "Stage",
    "concealing_view", "hearers", "hears", "said_by",
]
