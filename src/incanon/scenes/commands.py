"""The scene's line protocol, as ``incanon chat``'s: a line is said by the narrator, or it is a
slash command.

``handle(session, line)`` returns an ``Outcome`` (what happened, as data) and never raises a
user error: an unknown character or position, or a failed model call, becomes an ``error``
outcome with one line of text, the lines it added are taken back, and the scene goes on. The
terminal loop and the web app only render outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from incanon.errors import IncanonError, InputError, NotFoundError
from incanon.scenes.record import SceneLine
from incanon.scenes.session import SceneSession

OutcomeKind = Literal["lines", "moved", "cast", "order", "why", "saved", "help", "quit", "error", "empty"]

COMMANDS: dict[str, str] = {
    "TEXT": "the narrator says it to everyone present, and the next speaker answers",
    "/as NAME TEXT": "speak as a character present (everyone present hears it), and the next speaker answers",
    "/to NAME TEXT": "an aside only NAME hears (no answer now: NAME has heard it on its next turn)",
    "/next [NAME]": "let NAME speak, or the next speaker (CoSER's next-speaker prediction, or round robin)",
    "/at POSITION": "move the whole scene in story time: every character is built again there, what each "
                    "heard is kept (a line said later in the story counts once the scene is back there)",
    "/enter NAME": "bring a character into the scene (it hears from now on; at most 4 present)",
    "/leave NAME": "a character leaves (it hears nothing more)",
    "/order nsp|round-robin": "how the next speaker is chosen when you name nobody",
    "/why [NAME]": "whose scope answered the last line (or NAME's last line): its knowledge scope, what it "
                   "heard, and what shaped the answer",
    "/save [FILE]": "write the scene (every line, who heard it, each answer's evidence) as JSON",
    "/help": "show this help",
    "/quit": "end the scene (also /exit, or end of input)",
}


@dataclass
class Outcome:
    """What one line did."""

    kind: OutcomeKind
    message: str = ""
    """One line for the user (errors, moves, cast changes, saves)."""
    lines: list[SceneLine] = field(default_factory=list)
    """``lines``: the lines the command added (yours first, then the answer)."""
    path: Path | None = None
    """``saved``: the file written."""
    data: dict[str, Any] = field(default_factory=dict)
    """``why``: ``character``, ``line``, ``scope``, ``heard`` (``lines``, ``asides``, ``learned``: the
    lines of others among them); ``help``: ``commands``."""


def default_save_path(session: SceneSession, folder: Path | None = None) -> Path:
    """``incanon-scene-<id>-<time>.json`` in ``folder`` (default: the current folder)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return (folder or Path.cwd()) / f"incanon-scene-{session.scene.id}-{stamp}.json"


def split_name(session: SceneSession, rest: str) -> tuple[str, str]:
    """``NAME TEXT`` (or ``NAME: TEXT``) as (canonical name, text): the longest run of leading
    words that names one of the scene's characters."""
    head, colon, tail = rest.partition(":")
    candidates = [(head, tail)] if colon else []
    words = rest.split()
    candidates += [(" ".join(words[:k]), " ".join(words[k:])) for k in range(len(words), 0, -1)]
    for name, text in candidates:
        try:
            record = session.store.character(session.work, name.strip())
        except NotFoundError:
            continue
        if record.name in session.members:
            return record.name, text.strip()
    raise NotFoundError(f"no character of the scene is named at the start of {rest[:40]!r} "
                        f"(in the scene: {', '.join(session.scene.characters)})")


def _split(line: str) -> tuple[str, str]:
    head, _, rest = line.strip().partition(" ")
    return head.lower(), rest.strip()


async def handle(session: SceneSession, line: str, *, save_path: Path | None = None) -> Outcome:
    """Do what ``line`` says. ``save_path``: where ``/save`` without a file writes."""
    text = line.strip()
    if not text:
        return Outcome("empty")
    before = len(session.lines)
    try:
        return await _handle(session, text, save_path)
    except IncanonError as exc:
        del session.lines[before:]  # a failed answer takes the line it answered back too
        return Outcome("error", str(exc))
    except BaseException:
        del session.lines[before:]  # a bug or an interrupt: the scene stays as it was
        raise


async def _answered(session: SceneSession, said: SceneLine) -> Outcome:
    return Outcome("lines", lines=[said, await session.next()])


async def _handle(session: SceneSession, text: str, save_path: Path | None) -> Outcome:
    if not text.startswith("/"):
        return await _answered(session, session.narrate(text))
    command, arg = _split(text)
    if command in ("/quit", "/exit", "/q"):
        return Outcome("quit")
    if command in ("/help", "/?"):
        return Outcome("help", data={"commands": COMMANDS, "order": session.scene.order})
    if command == "/as":
        name, said = split_name(session, arg)
        return await _answered(session, session.speak_as(name, said))
    if command == "/to":
        name, said = split_name(session, arg)
        return Outcome("lines", lines=[session.aside(name, said)])
    if command == "/next":
        return Outcome("lines", lines=[await session.next(arg or None)])
    if command == "/at":
        if not arg:
            raise InputError("usage: /at POSITION (a position such as 1-2, or a time-point label of one of the "
                             "scene's characters)")
        position = session.move_to(arg)
        return Outcome("moved", f"the scene is now at {position}", data={"at": str(position)})
    if command in ("/enter", "/leave"):
        if not arg:
            raise InputError(f"usage: {command} NAME")
        name = session.enter(arg) if command == "/enter" else session.leave(arg)
        verb = "enters" if command == "/enter" else "leaves"
        return Outcome("cast", f"{name} {verb} the scene (present: {', '.join(session.present) or 'nobody'})")
    if command == "/order":
        if not arg:
            raise InputError(f"usage: /order nsp|round-robin (now: {session.scene.order})")
        return Outcome("order", f"the next speaker is now chosen by {session.use_order(arg.strip().lower())}")
    if command == "/why":
        name, last = session.why(arg or None)
        data: dict[str, Any] = {"character": name, "line": last}
        if name is not None:
            heard = session.heard(name)
            data["scope"] = session.scope(name)
            data["heard"] = {"lines": len(heard), "asides": sum(1 for h in heard if h.to == name),
                             "learned": len(session.learned(name))}
        return Outcome("why", data=data)
    if command == "/save":
        target = Path(arg).expanduser() if arg else (save_path or default_save_path(session))
        try:
            written = session.save(target)
        except IncanonError:
            raise  # a folder, a full disk: the writer's one line names the file already
        except OSError as exc:
            raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
        return Outcome("saved", f"scene saved to {written}", path=written)
    raise InputError(f"unknown command {command}; /help lists the commands")
