"""The story timeline of a work, as the web app's slider shows it.

Stops are the scene positions of the work plus the time points of its characters (``1-3``,
"end of book 1"), in story order. A chapter-level position sorts after every scene of its
chapter, so "end of chapter 3" lands where a reader would put it.
"""

from __future__ import annotations

from typing import Any

from incanon.canon.position import Position
from incanon.canon.store import CanonStore


def timeline(store: CanonStore, work: str) -> dict[str, Any]:
    """``{work, title, axis, books, stops, characters}`` for ``work``.

    Each stop is ``{at, label, scene, title, date, participants, marks}``: ``marks`` names the
    characters' time points that fall there (``[{character, label}]``). Characters come with
    their first position and time points, so the app can place them on the slider.
    """
    info = store.work(work)
    stops: dict[int, dict[str, Any]] = {}

    def stop_at(position: Position) -> dict[str, Any]:
        if position.key not in stops:
            stops[position.key] = {"at": str(position), "label": str(position), "scene": None, "title": "",
                                   "date": None, "participants": [], "marks": [], "_pos": position}
        return stops[position.key]

    for scene in store.scenes(work):
        stop = stop_at(scene.position)
        stop.update(scene=scene.id, title=scene.title, date=scene.date, participants=list(scene.participants))
        stop["label"] = f"{scene.position} · {scene.title}" if scene.title else str(scene.position)
    characters = []
    for record in store.characters(work):
        points = []
        for tp in record.time_points:
            stop = stop_at(tp.position)
            stop["marks"].append({"character": record.name, "label": tp.label})
            if stop["scene"] is None:
                stop["label"] = f"{tp.position} · {tp.label}"
            points.append({"label": tp.label, "at": str(tp.position), "description": tp.description})
        characters.append({
            "name": record.name, "aliases": list(record.aliases),
            "first": str(record.first_position) if record.first_position is not None else None,
            "time_points": points,
        })
    ordered = [stops[key] for key in sorted(stops)]
    for stop in ordered:
        del stop["_pos"]
    return {"work": info.id, "title": info.title, "author": info.author, "axis": info.axis.value,
            "books": info.books, "stops": ordered, "characters": characters}
