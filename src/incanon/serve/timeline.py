"""The story timeline of a work, as the web app's slider shows it to one reader.

Stops are the scene positions of the work plus the time points of its characters (``1-3``,
"end of book 1"), in story order. A chapter-level position sorts after every scene of its
chapter, so "end of chapter 3" lands where a reader would put it.

What is sent depends on the reader (:class:`~incanon.serve.reader.ReaderView`): with a reader
position R, only stops, characters, time points and book titles up to R, a time point's label
only when it tells nothing a reader at R has not read (else its position); with none, every stop
named by its position only (no scene titles, participants, labels or descriptions); with
``--spoilers`` and no reader position, everything. What is not to be shown is never sent: the
page cannot hide what it does not have.
"""

from __future__ import annotations

from typing import Any

from incanon.canon.position import Axis, Position
from incanon.canon.store import CanonStore
from incanon.serve.reader import ReaderView, shown_names


def timeline(store: CanonStore, work: str, view: ReaderView | None = None, *,
             cap: Position | None = None) -> dict[str, Any]:
    """``{work, title, author, axis, books, stops, characters, reader}`` for ``work`` as ``view``
    may see it (default: no reader position, no spoilers).

    Each stop is ``{at, label, scenes, date, participants, marks}``: ``scenes`` are the scenes
    (and dialogue sessions) at that position, ``[{id, title, date, participants}]``;
    ``participants`` joins theirs; ``marks`` names the characters' time points that fall there
    (``[{character, label}]``). Characters come with their first position and time points, so
    the app can place them on the slider. ``reader`` is ``{at, cap, spoilers, choices}``: the
    reader's position, the server's cap, and the positions (chapters, or dates) a reader may say
    they have read up to: positions only, which tell no event, none past ``cap`` unless
    ``--spoilers``.
    """
    view = view or ReaderView()
    info = store.work(work)
    horizon = None
    if view.at is not None and not view.everything:
        from incanon.canon.reader_horizon import ReaderHorizon

        horizon = ReaderHorizon(store, work, view.at)
    named = view.named
    stops: dict[int, dict[str, Any]] = {}
    every: set[int] = set()

    def stop_at(position: Position) -> dict[str, Any]:
        if position.key not in stops:
            stops[position.key] = {"at": str(position), "label": str(position), "scenes": [], "date": None,
                                   "participants": [], "marks": []}
        return stops[position.key]

    # A person with a secret name the reader has not seen revealed may be in a scene under that
    # name: listing them by their own name there would tell the secret. Such a person is left
    # out of the participants until the reveal.
    veiled: set[str] = set()
    if not view.everything:
        from incanon.canon.identities import reader_knows

        at = view.at
        veiled = {c.name for c in store.characters(work)
                  if any(at is None or not reader_knows(s, at) for s in c.secret_names)}
    for scene in store.scenes(work):
        every.add(scene.position.key)
        if not view.shows(scene.position):
            continue
        stop = stop_at(scene.position)
        stop["date"] = stop["date"] or scene.date
        if not named:
            continue
        present = [p for p in scene.participants if p not in veiled]
        stop["scenes"].append({"id": scene.id, "title": scene.title, "date": scene.date, "participants": present})
        stop["participants"] = list(dict.fromkeys([*stop["participants"], *present]))
        titles = [s["title"] for s in stop["scenes"] if s["title"]]
        stop["label"] = " · ".join([str(scene.position), *titles[:1]]) + (f" (+{len(titles) - 1})" if len(titles) > 1 else "")
    characters = []
    for record in store.characters(work):
        every.update(tp.position.key for tp in record.time_points)
        if not view.shows(record.first_position):
            continue
        points = []
        for tp in sorted(record.time_points, key=lambda t: t.position.key):
            if not view.shows(tp.position):
                continue
            label, description = str(tp.position), ""
            if named:
                label = horizon.shown_label(tp.label, tp.position) if horizon else tp.label
                description = horizon.clean(tp.description) if horizon else tp.description
            stop = stop_at(tp.position)
            stop["marks"].append({"character": record.name, "label": label})
            if named and not stop["scenes"] and label != str(tp.position):
                stop["label"] = f"{tp.position} · {label}"
            points.append({"label": label, "at": str(tp.position), "description": description})
        characters.append({
            "name": record.name, "aliases": _aliases(record, view),
            "first": str(record.first_position) if record.first_position is not None else None,
            "time_points": points,
        })
    ordered = [stops[key] for key in sorted(stops)]
    return {"work": info.id, "title": info.title, "author": info.author, "axis": info.axis.value,
            "books": _books(info.books, view), "stops": ordered, "characters": characters,
            "reader": {"at": str(view.at) if view.at is not None else None,
                       "cap": str(cap) if cap is not None else None, "spoilers": view.spoilers,
                       "choices": _choices(info.axis, every, None if view.spoilers else cap)}}


def _aliases(record: Any, view: ReaderView) -> list[str]:
    if view.everything:
        return list(record.aliases)
    # No reader position: the names in use where the character first appears (a later name
    # tells what happens); a reader position: the names a reader there knows.
    at = view.at if view.at is not None else record.first_position
    if at is None:
        return [a for a in record.aliases if record.alias_since(a) is None]
    return list(shown_names(record, at))


def _books(books: dict[str, str], view: ReaderView) -> dict[str, str]:
    if view.everything:
        return dict(books)
    if view.at is None:
        return {}  # a later book's title tells what happens in it
    return {b: t for b, t in books.items() if not b.isdigit() or view.at.book is None or int(b) <= view.at.book}


def _choices(axis: Axis, keys: set[int], cap: Position | None) -> list[str]:
    """Where a reader may say they have read up to: each chapter (or date) of the work, by
    position only, none past ``cap``."""
    found: dict[int, Position] = {}
    for key in keys:
        position = Position.from_key(axis, key)
        if axis is Axis.CHAPTER and position.chapter is not None:
            position = Position.chapter_pos(position.book or 0, position.chapter)
        if cap is None or position <= cap:
            found[position.key] = position
    if cap is not None:
        found[cap.key] = cap  # a cap inside a chapter is a choice of its own
    return [str(found[k]) for k in sorted(found)]
