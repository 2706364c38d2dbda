"""Read a script of dated dialogue sessions (DialSim's form) into ``Session`` records.

The form::

    ## 1187-10-29 | 2-4-1 | On the steps of Quay Hall
    Wren: We warned you!
    Provost Hame: The Council has no record of such a warning,
        my dear.                       <- an indented line continues the utterance above

    ## 1187-11-16 | 2-4-3
    ...

A header is ``## <ISO date>``, optionally followed by ``| <story position>`` (``book-chapter[-scene]``)
and ``| <title>``. Blank lines and ``# `` comment lines are ignored anywhere. Dates must not go
backwards, since a dialogue simulator replays sessions in date order. Any other line must be
``Speaker: text``; a line without a speaker raises ``InputError`` naming the file and line.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from incanon.canon.position import Axis, Position
from incanon.canon.world import Scene, Utterance
from incanon.errors import InputError

_HEADER_RE = re.compile(r"^##(?!#)\s*(.*?)\s*$")
_COMMENT_RE = re.compile(r"^#(?!#)(?:\s.*)?$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SPEAKER_RE = re.compile(r"^(?P<speaker>[^\s:][^:]{0,79}?)\s*:(?:\s+(?P<text>.*))?$")

_HEADER_FORM = "'## YYYY-MM-DD' or '## YYYY-MM-DD | book-chapter[-scene]' (optionally '| title')"


@dataclass
class Turn:
    """One utterance of a session, as written (the speaker is not yet resolved to a character)."""

    speaker: str
    text: str
    line: int


@dataclass
class Session:
    """One dated dialogue session of a script."""

    number: int
    """1-based order in the file; the scene id is ``session-<number>``."""
    date: str
    """ISO date."""
    position: str | None
    """Story position (``book-chapter[-scene]``) the session belongs to, if given."""
    title: str = ""
    utterances: list[Turn] = field(default_factory=list)
    line: int = 0
    """1-based line of the header."""

    @property
    def id(self) -> str:
        return f"session-{self.number}"

    @property
    def speakers(self) -> list[str]:
        """Speakers as written, in order of first utterance."""
        return list(dict.fromkeys(turn.speaker for turn in self.utterances))

    def to_scene(
        self,
        *,
        id: str | None = None,
        resolve: Callable[[str], str] | Mapping[str, str] | None = None,
        participants: Iterable[str] = (),
        title: str | None = None,
        location: str = "",
        summary: str = "",
    ) -> Scene:
        """The session as a ``Scene``.

        ``resolve`` maps a written speaker (an alias, say) to its canonical name; a mapping is
        looked up case-insensitively and unknown names pass through. Participants are
        ``participants`` (for silent listeners) followed by every speaker not already listed.
        """
        name = _resolver(resolve)
        speakers = list(dict.fromkeys(name(turn.speaker) for turn in self.utterances))
        people = list(dict.fromkeys([*(name(p) for p in participants), *speakers]))
        return Scene(
            id=id or self.id,
            position=self.position or self.date,
            date=self.date,
            title=self.title if title is None else title,
            location=location,
            summary=summary,
            participants=people,
            speakers=speakers,
            messages=[Utterance(speaker=name(t.speaker), speech=t.text) for t in self.utterances],
        )


def _resolver(resolve: Callable[[str], str] | Mapping[str, str] | None) -> Callable[[str], str]:
    if resolve is None:
        return lambda written: written
    if callable(resolve):
        return resolve
    table = {_fold(k): v for k, v in resolve.items()}
    return lambda written: table.get(_fold(written), written)


def _fold(name: str) -> str:
    return " ".join(name.split()).casefold()


def parse_transcript(text: str, *, source: str = "") -> list[Session]:
    """Parse a script of dated sessions (see the module docstring for the form)."""
    where_file = source or "<transcript>"

    def fail(lineno: int, message: str) -> InputError:
        return InputError(message, source=where_file, where=f"line {lineno}")

    sessions: list[Session] = []
    current: Session | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or _COMMENT_RE.match(raw):
            continue
        header = _HEADER_RE.match(raw)
        if header is not None:
            if current is not None:
                _close(current, fail)
            current = _header(header.group(1), lineno, len(sessions) + 1, fail)
            if sessions and current.date < sessions[-1].date:
                raise fail(
                    lineno,
                    f"session date {current.date} comes before the previous session's "
                    f"{sessions[-1].date}: expected sessions in date order",
                )
            sessions.append(current)
            continue
        if current is None:
            raise fail(lineno, f"text before the first session header: expected {_HEADER_FORM}")
        if raw[0] in " \t":
            if not current.utterances:
                raise fail(lineno, "indented continuation line before any 'Speaker: text' line")
            turn = current.utterances[-1]
            turn.text = f"{turn.text} {raw.strip()}".strip()
            continue
        m = _SPEAKER_RE.match(raw)
        if m is None:
            raise fail(
                lineno,
                f"line without a speaker: {_clip(raw)!r}; expected 'Speaker: text' "
                "(indent a line to continue the utterance above)",
            )
        current.utterances.append(Turn(speaker=" ".join(m["speaker"].split()), text=(m["text"] or "").strip(), line=lineno))
    if current is not None:
        _close(current, fail)
    return sessions


def _header(content: str, lineno: int, number: int, fail: Callable[[int, str], InputError]) -> Session:
    parts = [p.strip() for p in content.split("|")]
    if len(parts) > 3 or not _DATE_RE.match(parts[0]):
        raise fail(lineno, f"bad session header '## {content}': expected {_HEADER_FORM}")
    try:
        date = _dt.date.fromisoformat(parts[0]).isoformat()
    except ValueError as exc:
        raise fail(lineno, f"bad session date {parts[0]!r} ({exc}): expected {_HEADER_FORM}") from None
    position = parts[1] if len(parts) > 1 and parts[1] else None
    if position is not None:
        try:
            pos = Position.parse(position)
        except InputError as exc:
            raise fail(lineno, f"bad story position in session header: {exc}") from None
        if pos.axis is not Axis.CHAPTER:
            raise fail(lineno, f"story position {position!r} is a date: expected book-chapter[-scene] like '2-5-3'")
        position = str(pos)
    title = parts[2] if len(parts) > 2 else ""
    return Session(number=number, date=date, position=position, title=title, line=lineno)


def _close(session: Session, fail: Callable[[int, str], InputError]) -> None:
    if not session.utterances:
        raise fail(session.line, f"session {session.date} has no utterances: expected 'Speaker: text' lines")
    for turn in session.utterances:
        if not turn.text:
            raise fail(turn.line, f"{turn.speaker!r} says nothing: expected text after 'Speaker:'")


def _clip(text: str, limit: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
