"""The chat's line protocol: a line is something to say, or a slash command.

``handle(session, line)`` returns an ``Outcome`` (what happened, as data) and never raises a
user error: an unknown character, position or method, or a failed model call, becomes an
``error`` outcome with one line of text and the session goes on. Front ends (the terminal loop,
the web app) only render outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from incanon.chat.session import ChatSession
from incanon.chat.transcript import ChatTurn, Evidence
from incanon.errors import IncanonError

OutcomeKind = Literal["reply", "moved", "method", "why", "saved", "help", "quit", "error", "empty"]

COMMANDS: dict[str, str] = {
    "/at POSITION": "move the character in story time (a position such as 2-4, or a time-point label); "
                    "the conversation is kept, the knowledge scope rebuilt",
    "/method NAME": "answer with another role-play method from now on",
    "/why": "show the knowledge scope in force and what shaped the last answer "
            "(hints, retrieved canon, calls)",
    "/save [FILE]": "write the conversation and each reply's evidence as JSON",
    "/help": "show this help",
    "/quit": "end the chat (also /exit, or end of input)",
}


@dataclass
class Outcome:
    """What one line did."""

    kind: OutcomeKind
    message: str = ""
    """One line for the user (errors, moves, method switches, saves)."""
    turn: ChatTurn | None = None
    """The character's reply (``reply``)."""
    evidence: Evidence | None = None
    """``why``: the evidence of the last reply (None before the first)."""
    scope: dict[str, Any] | None = None
    """``why`` and ``moved``: the knowledge scope in force now."""
    path: Path | None = None
    """``saved``: the file written."""
    data: dict[str, Any] = field(default_factory=dict)
    """Anything else a front end may want (``help``: the commands)."""


def default_save_path(session: ChatSession, folder: Path | None = None) -> Path:
    """``incanon-chat-<character>-<time>.json`` in ``folder`` (default: the current folder)."""
    name = "".join(ch if ch.isalnum() else "-" for ch in session.who.character.lower()).strip("-")
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return (folder or Path.cwd()) / f"incanon-chat-{name or 'character'}-{stamp}.json"


def _split(line: str) -> tuple[str, str]:
    head, _, rest = line.strip().partition(" ")
    return head.lower(), rest.strip()


async def handle(session: ChatSession, line: str, *, save_path: Path | None = None) -> Outcome:
    """Do what ``line`` says. ``save_path``: where ``/save`` without a file writes."""
    text = line.strip()
    if not text:
        return Outcome("empty")
    try:
        if not text.startswith("/"):
            return Outcome("reply", turn=await session.say(text))
        command, arg = _split(text)
        if command in ("/quit", "/exit", "/q"):
            return Outcome("quit")
        if command in ("/help", "/?"):
            from incanon.agents.registry import agent_descriptions

            return Outcome("help", data={"commands": COMMANDS, "methods": agent_descriptions(),
                                         "method": session.method})
        if command == "/why":
            return Outcome("why", evidence=session.why(), scope=session.scope())
        if command == "/at":
            if not arg:
                return Outcome("error", "usage: /at POSITION (a position such as 2-4, or one of the character's "
                                        "time-point labels)")
            who = session.move_to(arg)
            label = f" ({who.time_label})" if who.time_label else ""
            return Outcome("moved", f"{who.character} is now at {who.position}{label}", scope=session.scope())
        if command == "/method":
            if not arg:
                return Outcome("error", f"usage: /method NAME (now: {session.method})")
            session.use_method(arg)
            return Outcome("method", f"method is now {arg}")
        if command == "/save":
            target = Path(arg).expanduser() if arg else (save_path or default_save_path(session))
            try:
                written = session.save(target)
            except IncanonError as exc:  # a folder, a full disk: the writer's one line names the file
                return Outcome("error", str(exc))
            except OSError as exc:
                return Outcome("error", f"cannot write {target}: {exc.strerror or exc}")
            return Outcome("saved", f"conversation saved to {written}", path=written)
        return Outcome("error", f"unknown command {command}; /help lists the commands")
    except IncanonError as exc:
        return Outcome("error", str(exc))
