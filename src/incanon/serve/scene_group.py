"""SillyTavern's group chats over ``/v1``: the other characters' lines as what the answering
character heard.

A group chat sends one ``/v1/chat/completions`` request per character: ``model`` names the one
answering now, ``messages`` hold the group's history, and the other characters' replies are
``assistant`` messages too, told apart by their ``name`` field or a leading ``Name: `` in their
content (:func:`incanon.serve.requests.client_lines`). Read as a one-to-one chat they would be the
answering character's own past words. Here each line goes to its speaker:

* a ``user`` message is the user's (the scene's narrator);
* an ``assistant`` message named by one of the answering character's own names, or by none, is
  its own;
* one named by a **public** name of another character of the same work, in use at the position,
  is that character's line;
* any other name (not in the work, not in use yet, or someone's **secret** name) is heard under
  the name as written and joined to nobody: a secret name never turns into its person.

The lines make a scene-like history, every line heard by the answering character
(:class:`incanon.scenes.record.SceneLine`), and its dialogue is built by the scene engine's own
rule (:func:`incanon.scenes.heard.heard_turns`): its own lines are its own, the others' come as
``Label: words`` under the names it knows them by at its position (its own horizon, else a name
said in the history, else ``Stranger``), after a narrator's line saying who is there. The
character is the session's, built by the one scoped builder; of the other characters only their
names are read, never their scopes.

A request where nobody but the user and the answering character speaks is a one-to-one chat and
is read as before (:func:`incanon.serve.requests.dialogue_from_messages`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from incanon.agents.base import Turn
from incanon.canon.names import norm
from incanon.canon.persona import horizon_at
from incanon.canon.position import Position
from incanon.canon.records import CharacterRecord
from incanon.canon.store import CanonStore
from incanon.chat import ChatSession
from incanon.errors import InputError, NotFoundError
from incanon.scenes.cast import STRANGER, Member, labels_for, public_names
from incanon.scenes.heard import heard_turns, told_text
from incanon.scenes.record import NARRATOR, SceneLine
from incanon.serve.requests import ClientLine, client_lines, completion_name, leading_label, readable_name


@dataclass(frozen=True)
class Speaker:
    """Who said an ``assistant`` line."""

    kind: Literal["own", "cast", "as-written"]
    """``own``: the answering character; ``cast``: another character of the work, by a public
    name in use; ``as-written``: someone joined to no character, shown by the name given."""
    name: str
    """The canonical name (``own``, ``cast``) or the name as written."""


class CastNames:
    """Every name of a work's characters, to tell who a name in a request is: as written (name
    or alias, any case) or as SillyTavern writes a ``name`` field (:func:`completion_name`)."""

    def __init__(self, store: CanonStore, work: str) -> None:
        self.store, self.work = store, work
        self._fields: dict[str, CharacterRecord | None] = {}
        for record in store.characters(work):
            for name in (record.name, *record.aliases):
                key = completion_name(name).casefold()
                seen = self._fields.get(key, record)
                # Two people whose names are written alike in a name field: it names neither.
                self._fields[key] = record if seen is not None and seen.name == record.name else None

    def find(self, label: str) -> tuple[CharacterRecord, str] | None:
        """The character ``label`` names and the name it matched (None: nobody, or several)."""
        try:
            record = self.store.character(self.work, label)
        except NotFoundError:
            record = None
        if record is not None:
            return record, label
        record = self._fields.get(completion_name(label).casefold())
        if record is None:
            return None
        matched = next(n for n in (record.name, *record.aliases) if completion_name(n).casefold() ==
                       completion_name(label).casefold())
        return record, matched


def speaker_of(cast: CastNames, own: CharacterRecord, at: Position, label: str) -> Speaker | None:
    """Who ``label`` names for ``own`` at ``at`` (see the module docstring); None when it names
    no character of the work."""
    found = cast.find(label)
    if found is None:
        return None
    record, matched = found
    if record.name == own.name:
        return Speaker("own", own.name)  # any of its names, secret ones too: it knows them all
    if norm(matched) in {norm(n) for n in public_names(record, at)}:
        return Speaker("cast", record.name)
    # A secret name, or a name not in use yet: the name is what was said, never its person.
    return Speaker("as-written", matched)


def attribute(cast: CastNames, own: CharacterRecord, at: Position, line: ClientLine,
              group: bool) -> tuple[Speaker, str]:
    """Who said ``line`` (an ``assistant`` message) and its words without the speaker label.
    ``group``: the request is a group's, so a label that names nobody in the work is still a
    speaker's (an unknown one)."""
    text = line.text
    labelled = leading_label(text)
    if line.name is not None:
        by_field = speaker_of(cast, own, at, line.name)
        shown = readable_name(line.name)
        if by_field is None:
            by_field = Speaker("as-written", shown) if shown else None
        if labelled is not None and (
                norm(labelled[0]) in {norm(shown), norm(line.name)}
                or (by_field is not None and speaker_of(cast, own, at, labelled[0]) == by_field)):
            text = labelled[1]  # the label repeats the name field (SillyTavern's default in groups)
        if by_field is not None:
            return by_field, text
    if labelled is not None:
        by_label = speaker_of(cast, own, at, labelled[0])
        if by_label is not None:
            return by_label, labelled[1]
        if group:
            return Speaker("as-written", labelled[0]), labelled[1]
    if line.name is not None and not readable_name(line.name):
        return Speaker("as-written", STRANGER), text  # a name of another script, sanitized away
    return Speaker("own", own.name), text


def _is_group(cast: CastNames, own: CharacterRecord, at: Position, lines: Sequence[ClientLine]) -> bool:
    """True when an ``assistant`` line is by someone other than ``own``: its name field or label
    names another person of the work, or the name fields name someone besides ``own`` (two
    names the work does not know, or one beside one of ``own``'s). One unknown name alone is
    the character's own card under another name: a one-to-one chat, as before."""
    unknown: set[str] = set()
    named_own = False
    for line in lines:
        if line.role != "assistant":
            continue
        labelled = leading_label(line.text)
        for label, from_field in ((line.name, True), (labelled[0] if labelled else None, False)):
            if label is None:
                continue
            named = speaker_of(cast, own, at, label)
            if named is not None and named.kind != "own":
                return True  # someone of the work (by a public, secret or later name)
            if named is not None:
                named_own = True
            elif from_field:
                unknown.add(norm(readable_name(label)))  # a label naming nobody may be a word ("Note:")
    return len(unknown) >= 2 or (bool(unknown) and named_own)


@dataclass
class GroupHistory:
    """A group request as the answering character heard it."""

    lines: list[SceneLine]
    """Every line, by its speaker (``narrator``, a canonical name, or a name as written)."""
    cast: list[CharacterRecord]
    """The other characters of the work who spoke, in order of their first line."""
    unknown: list[str]
    """Speakers joined to no character (names as written), in order of their first line."""


def group_history(store: CanonStore, work: str, own: CharacterRecord, at: Position,
                  lines: Sequence[ClientLine]) -> GroupHistory | None:
    """The scene-like history of a group request for ``own`` at ``at``; None when it is a
    one-to-one chat (nobody else speaks)."""
    cast = CastNames(store, work)
    if not _is_group(cast, own, at, lines):
        return None
    history: list[SceneLine] = []
    others: dict[str, CharacterRecord] = {}
    unknown: dict[str, None] = {}
    for line in lines:
        if line.role == "user":
            speaker, text = NARRATOR, line.text
        else:
            who, text = attribute(cast, own, at, line, group=True)
            speaker = who.name
            if who.kind == "cast":
                others.setdefault(who.name, store.character(work, who.name))
            elif who.kind == "as-written":
                unknown.setdefault(who.name)
        if not text.strip():
            continue  # an empty message (a greeting left blank) says nothing
        history.append(SceneLine(index=len(history), speaker=speaker, text=text.strip(), heard_by=[own.name],
                                 at=str(at)))
    return GroupHistory(history, list(others.values()), [u for u in unknown if u not in others])


def heard_in_group(session: ChatSession, messages: list[dict[str, Any]]) -> list[Turn] | None:
    """The dialogue ``session``'s character answers for a group request's ``messages``, or None
    for a one-to-one chat (see the module docstring). Run on the session's thread (it reads the
    session's canon store)."""
    who = session.who
    own = session.store.character(session.work, who.character)
    history = group_history(session.store, session.work, own, who.position, client_lines(messages))
    if history is None:
        return None
    if not history.lines:
        raise InputError("messages: expected at least one user or assistant message with text")
    listener = Member(record=own, who=who, horizon=horizon_at(session.store, session.work, own, who.position))
    labels = labels_for(listener, history.cast, who.position, told_text(history.lines))
    labels.update({name: name for name in history.unknown})
    others = [labels[r.name] for r in history.cast] + history.unknown
    stranger = STRANGER if any(o.startswith(STRANGER) for o in others) else ""
    situation = session.prompts.render("scene_situation", place="", others=others, stranger=stranger).strip()
    opening = SceneLine(index=-1, speaker=NARRATOR, text=situation, heard_by=[own.name], at=str(who.position))
    # Its own lines are keyed by the name the session's dialogue uses for it.
    lines = [line.model_copy(update={"speaker": who.character}) if line.speaker == own.name else line
             for line in [opening, *history.lines]]
    return heard_turns(who.character, lines, labels, session.prompts, cue=False)


__all__ = ["CastNames", "GroupHistory", "Speaker", "attribute", "group_history", "heard_in_group", "speaker_of"]
