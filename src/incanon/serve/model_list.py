"""The ``GET /v1/models`` listing: characters at their time points, as one reader may see them.

* With a reader position R (``X-Incanon-Reader-At``, else ``serve --reader-at``): the characters
  first seen by R at each of their time points up to R, each entry built by the scoped builder
  (names in use then, the point's label and description, the points reached), so it names only
  what stands at that point; the id names the point by its label
  (``lanterns/Wren Callow@end of book 1``).
* Without one: every character at each of its time points, each named by its **position** only
  (``lanterns/Wren Callow@1-3``; a label tells what happens there), with no description, the
  points reached as positions and only the names in use where the character first appears.
* ``--spoilers`` and no reader position: labels, descriptions and each entry's later points.

Ids of either form (and of the other) resolve when requested: a label is the user's to type.
A character without time points is listed at the reader's position, or at the end of the story
(:func:`incanon.canon.story_end.story_end`) when there is none or it lies past the end.
"""

from __future__ import annotations

import time
from typing import Any

from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import IncanonError
from incanon.serve.config import ServeConfig
from incanon.serve.requests import FieldError
from incanon.serve.reader import (
    READER_HEADER,
    ReaderView,
    ViewOf,
    choose_work,
    find_character,
    resolve_at,
    shown_names,
    visible_characters,
)


def _views(config: ServeConfig, reader_at: str | None) -> ViewOf:
    return ViewOf(config.reader_at, reader_at, spoilers=config.spoilers, field=READER_HEADER)


def _stops(store: CanonStore, work: Any, character: Any, view: ReaderView,
           ends: dict[str, Position]) -> list[tuple[str, Position]]:
    """(label, position) of each listed point of ``character``, in story order. ``ends``: the
    end of each work's story found so far in this request (read once per work, not per character)."""
    points = sorted(character.time_points, key=lambda tp: tp.position.key)
    stops = [(tp.label, tp.position) for tp in points if view.shows(tp.position)]
    if not character.time_points:
        # At the reader's position, else at the end of the story: the same point (and name) as a
        # main character's "end of the story", never a place past it.
        from incanon.canon.story_end import story_end

        end = ends.get(work.id)
        if end is None:
            end = ends[work.id] = story_end(store, work.id)
        stops = [("", view.at if view.at is not None and view.at < end else end)]
    return stops


def model_entries(config: ServeConfig, reader_at: str | None = None) -> list[dict[str, Any]]:
    """The ``/v1/models`` entries of the canon store of ``config`` for a request whose reader
    position is ``reader_at`` (None: the server's, if any; see the module docstring). A
    malformed or too-late position is a ``FieldError`` naming the header."""
    views = _views(config, reader_at)
    entries: list[dict[str, Any]] = []
    ends: dict[str, Position] = {}
    with CanonStore.open(config.canon) as store:
        for work in store.works():
            view = views.maybe(work)
            if view is None:
                continue  # the reader's position is not on this work's axis: nothing to place
            for character in visible_characters(store, work.id, view):
                for label, position in _stops(store, work, character, view, ends):
                    entries.append(model_entry(store, work, character, label, position, config.methods, view=view))
    return entries


def find_entry(config: ServeConfig, model_id: str, reader_at: str | None = None) -> dict[str, Any] | None:
    """The entry ``model_id`` names (by label or position, as listed for this reader or as an
    older server listed it), or None when it is not listed for this reader. A malformed or
    too-late reader position is a ``FieldError``."""
    from incanon.serve.characters import parse_model

    views = _views(config, reader_at)
    try:
        who = parse_model(model_id, config.methods)
        with CanonStore.open(config.canon) as store:
            work, view = choose_work(store, who.work, who.character, views)
            if view.at is None:
                record = store.character(work.id, who.character)
                position = store.resolve_position(work.id, who.at, record)
            else:
                record = find_character(store, work.id, who.character, view)
                position = resolve_at(store, work.id, record, who.at, view)
            for label, stop in _stops(store, work, record, view, {}):
                if stop == position:
                    return model_entry(store, work, record, label, stop, config.methods, view=view)
    except FieldError:
        raise  # the reader position itself is wrong: the request's error
    except IncanonError:
        return None
    return None


def model_entry(store: CanonStore, work: Any, character: Any, label: str, position: Any,
                methods: tuple[str, ...], *, view: ReaderView | None = None) -> dict[str, Any]:
    """One ``/v1/models`` entry: ``character`` (a record) of ``work`` (a record) at ``position``
    (``label`` its time point's label, "" for none), as ``view`` may see it (default: no reader
    position, no spoilers: the point named by its position)."""
    view = view or ReaderView()
    info: dict[str, Any] = {"work": work.id, "title": work.title, "character": character.name}
    if view.named:
        from incanon.canon.persona import persona_at

        persona = persona_at(store, work.id, character, position, text=False)
        # The label as the scoped builder shows it (a label telling more than the point knows is
        # replaced by the position).
        at = persona.time_label or str(position)
        info.update({"names": list(persona.names), "at": at, "position": str(position),
                     "description": persona.time_description,
                     "time_points": [tp.label for tp in persona.reached]})
    else:
        first = character.first_position or position
        at = str(position)
        info.update({"names": list(shown_names(character, min(first, position, key=lambda p: p.key))), "at": at,
                     "position": at,
                     "time_points": [str(tp.position) for tp in sorted(character.time_points, key=lambda t: t.position.key)
                                     if tp.position <= position]})
    info["methods"] = list(methods)
    if view.everything:
        info["later_time_points"] = [tp.label for tp in sorted(character.time_points, key=lambda t: t.position.key)
                                     if tp.position > position]
    return {"id": f"{work.id}/{character.name}@{at}", "object": "model", "created": int(time.time()),
            "owned_by": "incanon", "incanon": info}
