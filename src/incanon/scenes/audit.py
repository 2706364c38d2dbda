"""Scenes as a surface of the leak audit: every prompt a character's turn sent, read against that
character's horizon at the scene's position, and by the canary check.

* **word check** (:func:`audit_scene`): each model call of each character's turn (persona,
  situation, passages, knowledge, the experts' prompts, the dialogue) is read with
  ``Horizon.leaks`` as ``incanon canon audit`` reads a method's prompt. The lines the character
  heard in the scene are taken out first: what was said to it is what it was told, not something
  incanon put there (a character that *says* a secret gives it away; that is the scene).
* **canary check** (:func:`canary_scene`): the work is copied with a made-up marker planted in
  every text that may be hidden (``incanon.audit.canaries``), the same scene is played on the
  copy, and every marker found in a character's prompts is looked up by the store's structure
  alone (scene positions and participants, facts' positions and who was told).

Both read the replies a ``SceneSession`` keeps in ``replies`` (every call's messages).
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from incanon.audit.canaries import CanaryFinding, CanaryReport, Visibility, found_in, plant
from incanon.audit.surfaces import Sent, _read_ids
from incanon.canon.horizon import Horizon, Leaks
from incanon.canon.persona import horizon_at
from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.scenes.record import SceneLine
from incanon.scenes.session import SceneSession


@dataclass
class TurnFinding:
    """What one character's turn sent from beyond its horizon."""

    index: int
    character: str
    at: str
    leaks: Leaks


def turn_text(session: SceneSession, line: SceneLine, *, heard_removed: bool = True) -> str:
    """Every message of every call behind ``line`` (a model line), one after another; without
    the text of the lines its speaker heard before it when ``heard_removed``."""
    reply = session.replies[line.index]
    text = "\n\n".join(m.content for call in reply.calls for m in call.messages)
    if heard_removed:
        heard = {h.text for h in session.scene.heard(line.speaker) if h.index < line.index}
        for said in sorted(heard, key=len, reverse=True):  # longest first: a line inside another stays whole
            text = text.replace(said, " ")
    return text


def turn_sent(session: SceneSession, line: SceneLine) -> Sent:
    """``line``'s prompts as the audit reads a surface: text, and the chunk and fact ids it carried."""
    chunks, facts = _read_ids(session.replies[line.index])
    return Sent(turn_text(session, line), chunks, facts)


def answered(session: SceneSession) -> list[SceneLine]:
    """The lines a character's model answered in this session (those with their calls kept)."""
    return [line for line in session.lines if line.written_by == "model" and line.index in session.replies]


def audit_scene(session: SceneSession) -> list[TurnFinding]:
    """The word check of every answered line (see the module docstring)."""
    found = []
    for line in answered(session):
        record = session.members[line.speaker].record
        horizon: Horizon = horizon_at(session.store, session.work, record, Position.parse(line.at))
        sent = turn_sent(session, line)
        found.append(TurnFinding(line.index, line.speaker, line.at,
                                 horizon.leaks(sent.text, chunk_ids=sent.chunk_ids, fact_ids=sent.fact_ids)))
    return found


async def canary_scene(store: CanonStore, work: str,
                       play: Callable[[CanonStore], Awaitable[SceneSession]]) -> CanaryReport:
    """The canary check of the scene ``play`` plays on a planted copy of ``work`` (it gets the
    copy's store and returns the session it played)."""
    planted, canaries = plant(store.export_world(work))
    report = CanaryReport(planted=len(canaries))
    with tempfile.TemporaryDirectory(prefix="incanon-scene-canaries-") as scratch:
        copy = CanonStore.open(Path(scratch) / "canon")
        try:
            copy.import_world(planted)
            session = await play(copy)
            for line in answered(session):
                seen = Visibility(planted, line.speaker, Position.parse(line.at))
                report.checked += 1
                for i in found_in(turn_text(session, line, heard_removed=False)):
                    if seen.hidden(canaries[i]):
                        report.found.append(CanaryFinding("scene prompt", session.scene.method, line.speaker,
                                                          line.at, canaries[i]))
        finally:
            copy.close()
    return report


__all__ = ["TurnFinding", "answered", "audit_scene", "canary_scene", "turn_sent", "turn_text"]
