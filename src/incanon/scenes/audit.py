"""Scenes as a surface of the leak audit: every prompt a character's turn sent and every reply a
client received, read against that character's horizon at the line's position, and by the
canary check. ``incanon canon audit --scene`` plays scenes through it
(:mod:`incanon.audit.scenes`).

* **word check** (:func:`audit_scene`): each model call of each character's turn (persona,
  situation, passages, knowledge, the experts' prompts, the dialogue) is read with
  ``Horizon.leaks`` as ``incanon canon audit`` reads a method's prompt; with ``replies``, the
  answer too: its evidence (as the web app and ``/why`` show it) and its text. The lines the
  character heard in the scene (said at or before the line's position, before the line) are
  taken out first: what was said to it is what it was told, not something incanon put there
  (a character that *says* a secret gives it away; that is the scene).
* **canary check** (:func:`canary_scenes`): the work is copied with a made-up marker planted in
  every text that may be hidden (``incanon.audit.canaries``), the same scenes are played on the
  copy, and every marker found in a character's prompts (and replies) is looked up by the
  store's structure alone (scene positions and participants, facts' positions and who was told).

Both read the replies a ``SceneSession`` keeps in ``replies`` (every call's messages).
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from incanon.audit.canaries import CanaryFinding, CanaryReport, Visibility, found_in, plant
from incanon.audit.surfaces import Sent, _read_ids, story_text
from incanon.canon.horizon import Horizon, Leaks
from incanon.canon.persona import horizon_at
from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.scenes.record import SceneLine
from incanon.scenes.session import SceneSession

#: The audit's names of a turn's surfaces: what the model was sent, the evidence a client is shown
#: (incanon's), and the reply's text (the model's).
PROMPT, EVIDENCE, REPLY = "scene prompt", "scene evidence", "scene reply"


@dataclass
class TurnFinding:
    """What one character's turn sent (or showed) from beyond its horizon."""

    index: int
    character: str
    at: str
    leaks: Leaks
    surface: str = PROMPT
    """``scene prompt`` (every call's messages), ``scene evidence`` (what ``/why`` and the web app
    show of it) or ``scene reply`` (the answer's text)."""


def _without_heard(session: SceneSession, line: SceneLine, text: str, *, model_text: bool = True) -> str:
    """``text`` without the lines ``line``'s speaker heard before it (at its position), and (with
    ``model_text``) without what the model itself wrote in the turn's calls (an expert's answer
    becomes a hint of the next call; the answer is the line): what is left is what incanon put
    there."""
    heard = {h.text for h in session.scene.heard(line.speaker, Position.parse(line.at)) if h.index < line.index}
    reply = session.replies.get(line.index)
    if model_text and reply is not None:
        heard |= {call.output.strip() for call in reply.calls if call.output.strip()}
    for said in sorted(heard, key=len, reverse=True):  # longest first: a line inside another stays whole
        text = text.replace(said, " ")
    return text


def turn_text(session: SceneSession, line: SceneLine, *, heard_removed: bool = True) -> str:
    """Every message of every call behind ``line`` (a model line), one after another; without
    the text of the lines its speaker heard before it, nor the model's own outputs, when
    ``heard_removed``."""
    reply = session.replies[line.index]
    text = "\n\n".join(m.content for call in reply.calls for m in call.messages)
    return _without_heard(session, line, text) if heard_removed else text


def evidence_text(session: SceneSession, line: SceneLine, *, heard_removed: bool = True) -> str:
    """The evidence a client is shown for ``line`` (story text, ids left out as the audit's
    ``evidence`` surface reads them)."""
    shown = line.evidence.model_dump(mode="json") if line.evidence is not None else {}
    text = story_text(shown)
    return _without_heard(session, line, text) if heard_removed else text


def reply_text(session: SceneSession, line: SceneLine, *, heard_removed: bool = True) -> str:
    """The text of ``line`` as the scene kept it (the model's answer, cleaned), without what its
    speaker heard before it when ``heard_removed`` (repeating what it was told is no leak)."""
    return _without_heard(session, line, line.text, model_text=False) if heard_removed else line.text


def turn_sent(session: SceneSession, line: SceneLine) -> Sent:
    """``line``'s prompts as the audit reads a surface: text, and the chunk and fact ids it carried."""
    chunks, facts = _read_ids(session.replies[line.index])
    return Sent(turn_text(session, line), chunks, facts)


def evidence_sent(session: SceneSession, line: SceneLine) -> Sent:
    """``line``'s evidence as a client is shown it: its text, the chunks it cites and the facts
    its method used."""
    _, facts = _read_ids(session.replies[line.index])
    cited = [c.id for c in line.evidence.chunks] if line.evidence is not None else []
    return Sent(evidence_text(session, line), cited, facts)


def reply_sent(session: SceneSession, line: SceneLine) -> Sent:
    """``line``'s reply text."""
    return Sent(reply_text(session, line))


def answered(session: SceneSession) -> list[SceneLine]:
    """The lines a character's model answered in this session (those with their calls kept)."""
    return [line for line in session.lines if line.written_by == "model" and line.index in session.replies]


def audit_scene(session: SceneSession, *, replies: bool = False) -> list[TurnFinding]:
    """The word check of every answered line's prompts, and with ``replies`` of its reply (see
    the module docstring)."""
    found = []
    for line in answered(session):
        record = session.members[line.speaker].record
        horizon: Horizon = horizon_at(session.store, session.work, record, Position.parse(line.at))
        surfaces = [(PROMPT, turn_sent(session, line))]
        if replies:
            surfaces += [(EVIDENCE, evidence_sent(session, line)), (REPLY, reply_sent(session, line))]
        for surface, sent in surfaces:
            found.append(TurnFinding(line.index, line.speaker, line.at,
                                     horizon.leaks(sent.text, chunk_ids=sent.chunk_ids, fact_ids=sent.fact_ids),
                                     surface))
    return found


Play = Callable[[CanonStore], Awaitable[SceneSession]]


async def canary_scenes(store: CanonStore, work: str, plays: Sequence[Play], *,
                        replies: bool = False) -> CanaryReport:
    """The canary check of the scenes ``plays`` play on one planted copy of ``work`` (each gets
    the copy's store and returns the session it played); ``replies``: read each reply (text and
    evidence) too. Findings name the surface, the scene's method and the character."""
    planted, canaries = plant(store.export_world(work))
    report = CanaryReport(planted=len(canaries))
    with tempfile.TemporaryDirectory(prefix="incanon-scene-canaries-") as scratch:
        copy = CanonStore.open(Path(scratch) / "canon")
        try:
            copy.import_world(planted)
            for play in plays:
                session = await play(copy)
                for line in answered(session):
                    seen = Visibility(copy, work, line.speaker, Position.parse(line.at), canaries)
                    # What it heard others say is taken out here too: a character that quotes
                    # its own canon in the scene gives it away, and its listeners heard it.
                    texts = [(PROMPT, turn_text(session, line))]
                    if replies:
                        texts += [(EVIDENCE, evidence_text(session, line)), (REPLY, reply_text(session, line))]
                    for surface, text in texts:
                        report.checked += 1
                        for i in found_in(text):
                            if seen.hidden(i):
                                report.found.append(CanaryFinding(surface, session.scene.method, line.speaker,
                                                                  line.at, canaries[i]))
        finally:
            copy.close()
    return report


async def canary_scene(store: CanonStore, work: str, play: Play) -> CanaryReport:
    """The canary check of the one scene ``play`` plays (prompts only; see :func:`canary_scenes`)."""
    return await canary_scenes(store, work, [play])


__all__ = ["EVIDENCE", "PROMPT", "REPLY", "TurnFinding", "answered", "audit_scene", "canary_scene", "canary_scenes",
           "evidence_sent", "evidence_text", "reply_sent", "reply_text", "turn_sent", "turn_text"]
