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

    Each stop is ``{at, label, scenes, date, participants, marks}``: ``scenes`` are the scenes
    (and dialogue sessions) at that position, ``[{id, title, date, participants}]``;
    ``participants`` joins theirs; ``marks`` names the characters' time points that fall there
    (``[{character, label}]``). Characters come with their first position and time points, so
    the app can place them on the slider.
    """
    info = store.work(work)
    stops: dict[int, dict[str, Any]] = {}

    def stop_at(position: Position) -> dict[str, Any]:
        if position.key not in stops:
            stops[position.key] = {"at": str(position), "label": str(position), "scenes": [], "date": None,
                                   "participants": [], "marks": []}
        return stops[position.key]

    for scene in store.scenes(work):
        stop = stop_at(scene.position)
        stop["scenes"].append({"id": scene.id, "title": scene.title, "date": scene.date,
                               "participants": list(scene.participants)})
        stop["date"] = stop["date"] or scene.date
        stop["participants"] = list(dict.fromkeys([*stop["participants"], *scene.participants]))
        titles = [s["title"] for s in stop["scenes"] if s["title"]]
        stop["label"] = " · ".join([str(scene.position), *titles[:1]]) + (f" (+{len(titles) - 1})" if len(titles) > 1 else "")
    characters = []
    for record in store.characters(work):
        points = []
        for tp in record.time_points:
            stop = stop_at(tp.position)
            stop["marks"].append({"character": record.name, "label": tp.label})
            if not stop["scenes"]:
                stop["label"] = f"{tp.position} · {tp.label}"
            points.append({"label": tp.label, "at": str(tp.position), "description": tp.description})
        characters.append({
            "name": record.name, "aliases": list(record.aliases),
            "first": str(record.first_position) if record.first_position is not None else None,
            "time_points": points,
        })
    ordered = [stops[key] for key in sorted(stops)]
    return {"work": info.id, "title": info.title, "author": info.author, "axis": info.axis.value,
            "books": info.books, "stops": ordered, "characters": characters}
