"""The one builder of "character C at position P": names, profile, personality and situation as
of P, and nothing from later or from scenes C missed.

Every path that prompts a model as a character or shows a character to a client (agents,
judges, chat, ``/v1``, cards, the web app, the demo) goes through ``persona_at``. Where the
world gives text as of a position, that text is used; where it only has whole-story text, the
character gets the sentences that name nothing hidden at P (see ``incanon.canon.horizon``) and
a warning saying what was withheld:

* **names**: the canonical name and the aliases in use at P (an alias has the position from
  which it is used; a plain alias is in use from the start); a secret name (see
  ``incanon.canon.identities``) is kept apart in ``secret_names`` until it is revealed;
* **profile** / **personality**: the latest time point at or before P that gives one; else the
  dated segments begun by P; else the whole-story text, cleaned sentence by sentence;
* **situation**: the label and description of the time point at P, if P is one;
* **time points reached**: the character's time points at or before P (later ones are not
  named at all).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace
from typing import Any

from incanon.canon.horizon import Horizon
from incanon.canon.position import Position, end_of_story
from incanon.canon.records import CharacterRecord, SegmentRecord, TimePointRecord
from incanon.canon.store import CanonStore
from incanon.canon.tells import label_names_later


@dataclass(frozen=True)
class Withheld:
    """A sentence of whole-story text left out of the persona, and why."""

    field: str
    """``profile``, ``personality`` or ``situation`` (the time point's description)."""
    sentence: str
    reason: str


@dataclass(frozen=True)
class Persona:
    """A character as it stands at one position (see the module docstring)."""

    work: str
    work_title: str
    author: str
    name: str
    position: Position
    names: tuple[str, ...]
    """Aliases in use at the position that a reader there knows are this character (the
    canonical name not repeated; a secret name only once it is revealed by then)."""
    profile: str
    personality: str
    time_label: str
    time_description: str
    reached: tuple[TimePointRecord, ...]
    """The character's time points at or before the position, in story order."""
    sources: dict[str, str] = field(default_factory=dict)
    """Where ``profile`` and ``personality`` came from: ``time point LABEL``, ``dated
    segments``, ``whole story, cleaned``, ``whole story`` or ``none``."""
    withheld: tuple[Withheld, ...] = ()
    secret_names: tuple[str, ...] = ()
    """The character's own secret names in use at the position: the character knows them and
    that they are a secret (its prompt says so); ``names`` shows one only once a reader at the
    position knows it, and what others see only once they know it."""

    @property
    def warnings(self) -> list[str]:
        """One line per field that lost sentences, saying how many and why, without the withheld
        names and words themselves (a warning is read by a person, who may not have read that
        far): ``spoiler_warnings`` gives them."""
        return self._warning_lines(spoilers=False)

    @property
    def withheld_summary(self) -> str:
        """:attr:`warnings` in one line (empty when nothing was withheld): how many sentences,
        from which fields, and why, without the withheld words."""
        if not self.withheld:
            return ""
        counts = {name: sum(1 for w in self.withheld if w.field == name) for name in ("profile", "personality", "situation")}
        parts = ", ".join(f"{n} of the {name}" for name, n in counts.items() if n)
        reasons = "; ".join(sorted({w.reason.split(" (", 1)[0] for w in self.withheld}))
        total = len(self.withheld)
        return f"{total} sentence{'' if total == 1 else 's'} of whole-story text withheld ({parts}): {reasons}"

    @property
    def spoiler_warnings(self) -> list[str]:
        """``warnings`` with the withheld names and words (for the world's author)."""
        return self._warning_lines(spoilers=True)

    def _warning_lines(self, *, spoilers: bool) -> list[str]:
        lines = []
        for name in ("profile", "personality", "situation"):
            dropped = [w for w in self.withheld if w.field == name]
            if dropped:
                # "tells of later or missed events (betray, elect)": the part in brackets spoils.
                reasons = "; ".join(sorted({w.reason if spoilers else w.reason.split(" (", 1)[0] for w in dropped}))
                text = self.time_description if name == "situation" else getattr(self, name)
                kept = ("nothing kept; `incanon canon profiles` writes one from the scenes witnessed"
                        if not text else "the rest kept")
                where = self.sources.get(name, "time point")
                # The axis' end (the omniscient reader's place, book 2047) is no place in the story.
                at = "the end of the story" if self.position == end_of_story(self.position.axis) else self.position
                lines.append(f"{self.name} at {at}: {len(dropped)} sentence(s) of the {name} "
                             f"({where}) withheld ({kept}): {reasons}")
        return lines

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "work": self.work, "character": self.name, "at": str(self.position), "names": list(self.names),
            "profile": self.profile, "personality": self.personality, "time_label": self.time_label,
            "time_description": self.time_description,
            "time_points": [{"label": t.label, "position": str(t.position)} for t in self.reached],
            "sources": dict(self.sources),
            "withheld": [{"field": w.field, "sentence": w.sentence, "reason": w.reason} for w in self.withheld],
        }


def _dated(segments: tuple[SegmentRecord, ...], at: Position, horizon: Horizon | None) -> str:
    """The segments begun by ``at`` whose told scenes and facts the character perceived."""
    def perceived(told: str) -> bool:
        if horizon is None:
            return False
        return told in horizon.witnessed_ids or any(f.id == told for f in horizon.facts)

    return " ".join(g.text.strip() for g in segments
                    if (g.position is None or g.position <= at) and all(perceived(t) for t in g.tells))


def _cleaned(kind: str, text: str, source: str, horizon: Horizon | None, *,
             dated: bool = False) -> tuple[str, str, list[Withheld]]:
    """``text`` without the sentences that tell anything beyond ``horizon``. Every source is
    cleaned: whole-story text of everything hidden; text the world dates itself (a time point's
    profile, dated segments) of hidden names, its words being the world's own claim that the
    leak audit judges (``dated``)."""
    if horizon is None:
        return text, source, []
    kept, dropped = horizon.clean(text, names_only=dated)
    return kept, f"{source}, cleaned" if dropped else source, [Withheld(kind, s, why) for s, why in dropped]


def _pick(record: CharacterRecord, kind: str, at: Position, reached: list[TimePointRecord],
          horizon: Horizon | None) -> tuple[str, str, list[Withheld]]:
    for tp in sorted(reached, key=lambda t: t.position.key, reverse=True):
        text = getattr(tp, kind)
        if text.strip():
            return _cleaned(kind, text, f"time point {tp.label}", horizon, dated=True)
    segments = getattr(record, f"{kind}_segments")
    if segments:
        return _cleaned(kind, _dated(segments, at, horizon), "dated segments", horizon, dated=True)
    whole = getattr(record, kind)
    if not whole.strip():
        return "", "none", []
    return _cleaned(kind, whole, "whole story", horizon)


def persona_at(store: CanonStore, work: str, character: str | CharacterRecord, at: str | Position,
               *, horizon: Horizon | None = None, text: bool = True) -> Persona:
    """Character ``character`` (name, alias or record) of ``work`` at ``at`` (position or
    time-point label). ``horizon``: one already built for the same character and position.
    ``text=False``: names and time points only (profile and personality left empty), for
    listings that show no prose."""
    record = store.character(work, character) if isinstance(character, str) else character
    position = store.resolve_position(work, at, record)
    info = store.work(work)
    reached = sorted((tp for tp in record.time_points if tp.position <= position), key=lambda t: t.position.key)
    label, description = "", ""
    for tp in reached:
        if tp.position == position:
            label, description = tp.label, tp.description
    if horizon is None:
        horizon = horizon_at(store, work, record, position)
    if not text:
        profile, p_src, p_drop, personality, q_src, q_drop = "", "not built", [], "", "not built", []
    else:
        profile, p_src, p_drop = _pick(record, "profile", position, reached, horizon)
        personality, q_src, q_drop = _pick(record, "personality", position, reached, horizon)
    if description:
        description, _, d_drop = _cleaned("situation", description, "", horizon, dated=True)
        p_drop += d_drop
    # Labels and descriptions of the points reached are shown (ids, listings, prompts): each is
    # read against the horizon like any text, and a label that tells more is replaced by its
    # position.
    label = shown_label(label, position, horizon) if label else label
    reached = [replace(tp, label=shown_label(tp.label, tp.position, horizon),
                       description=horizon.clean(tp.description, names_only=True)[0], profile="", personality="")
               for tp in reached]
    return Persona(
        work=info.id, work_title=info.title, author=info.author, name=record.name, position=position,
        names=record.shown_names_at(position),
        secret_names=tuple(a for a in record.names_at(position) if record.secret(a) is not None),
        profile=profile, personality=personality, time_label=label,
        time_description=description, reached=tuple(reached),
        sources={"profile": p_src, "personality": q_src}, withheld=tuple(p_drop + q_drop))


def shown_label(label: str, position: Position, horizon: Horizon) -> str:
    """``label`` when it names and tells nothing beyond ``horizon``, else the position itself
    (``"2-4"``: it resolves like the label and reveals no event)."""
    if horizon.why_hidden(label):
        return str(position)
    # A label made of a later event's words ("before Ottilie breaks her leg") names what is to come.
    return str(position) if label_names_later(horizon.store, horizon.scope.work.id, label, position) else label


def horizon_at(store: CanonStore, work: str, record: CharacterRecord, position: Position) -> Horizon:
    """The ``Horizon`` of ``record`` at ``position``, kept per store for repeated builds (a
    server asks for the same character@point many times)."""
    # Held weakly by the store: a closed, dropped store takes its horizons with it (keyed on the
    # store object itself, a cache would keep every store it ever saw alive).
    kept = _horizons.get(store)
    if kept is None:
        kept = _horizons[store] = {}
    key = (store.data_version(), work, record.name, position)
    found = kept.get(key)
    if found is None:
        if len(kept) >= _HORIZONS:
            kept.clear()  # a changed store or many positions: start again rather than grow
        found = kept[key] = Horizon(store, work, store.character(work, record.name), position)
    return found


_HORIZONS = 256
_horizons: "weakref.WeakKeyDictionary[CanonStore, dict[tuple[object, ...], Horizon]]" = weakref.WeakKeyDictionary()
