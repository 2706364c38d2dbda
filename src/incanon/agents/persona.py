"""Build a ``CharacterAt`` from the canon store: who the agent plays, and when.

The character comes from ``incanon.canon.persona_at``, the one scoped builder: names in use,
profile and personality as of the position, the situation of the time point. Nothing of the
whole-story text that names something hidden at the position reaches an agent.
"""

from __future__ import annotations

import logging

from incanon.agents.base import CharacterAt
from incanon.canon.persona import Persona, persona_at
from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.logs import NOTICE

log = logging.getLogger(__name__)
_WARNED: set[tuple[str, str, str]] = set()


def character_at(store: CanonStore, work: str, character: str, at: str | Position, *,
                 witnessed_only: bool = False, warn: bool = True, notes: list[str] | None = None) -> CharacterAt:
    """The character ``character`` (name or alias) of ``work`` at ``at`` (position or time-point
    label), with its knowledge scope. Unknown names and positions raise ``NotFoundError``.

    ``witnessed_only``: the scope keeps to scenes the character witnessed (the strict method's
    scope; the papers' methods cut by time only). ``warn``: log (NOTICE, which the command line
    shows on stderr), once per process and character@position, what whole-story text was
    withheld, in one line; with ``notes``, the line is added there instead (a scene says its
    whole cast's in one line). Library code prints nothing itself."""
    record = store.character(work, character)
    persona = persona_at(store, work, record, at)
    if warn:
        key = (work, persona.name, str(persona.position))
        summary = persona.withheld_summary
        if key not in _WARNED and summary:
            _WARNED.add(key)
            at_ = persona.warnings[0].split(": ", 1)[0] if persona.warnings else f"{persona.name} at {persona.position}"
            if notes is not None:
                notes.append(f"{persona.name}: {summary}")
            else:
                log.log(NOTICE, "note: %s: %s", at_, summary)
    return from_persona(persona, store.scope(work, record, persona.position, witnessed_only=witnessed_only))


def from_persona(persona: Persona, scope: object = None) -> CharacterAt:
    """The ``CharacterAt`` of a built persona (with ``scope`` for methods that read canon)."""
    return CharacterAt(
        work_title=persona.work_title,
        author=persona.author,
        character=persona.name,
        aliases=[n for n in persona.names if n not in persona.secret_names],
        secret_names=list(persona.secret_names),
        profile=persona.profile,
        personality=persona.personality,
        position=persona.position,
        time_label=persona.time_label,
        time_description=persona.time_description,
        scope=scope,
        notes=persona.warnings,
    )
