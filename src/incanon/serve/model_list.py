"""The ``GET /v1/models`` listing: every character at each of its time points, each entry built
by the scoped builder so it names only what stands at that point."""

from __future__ import annotations

import time
from typing import Any

from incanon.canon.store import CanonStore
from incanon.serve.config import ServeConfig


def model_entries(config: ServeConfig) -> list[dict[str, Any]]:
    """The ``/v1/models`` entries of the canon store of ``config`` (see ``list_models``)."""
    from incanon.retrieval.chunks import end_of_story

    entries: list[dict[str, Any]] = []
    with CanonStore.open(config.canon) as store:
        for work in store.works():
            for character in store.characters(work.id):
                points = sorted(character.time_points, key=lambda tp: tp.position.key)
                stops = [(tp.label, tp.position) for tp in points] or [("end", end_of_story(work.axis))]
                for label, position in stops:
                    entries.append(model_entry(store, work, character, label, position, config.methods,
                                               spoilers=config.spoilers))
    return entries


def model_entry(store: CanonStore, work: Any, character: Any, label: str, position: Any,
                methods: tuple[str, ...], *, spoilers: bool = False) -> dict[str, Any]:
    """One ``/v1/models`` entry: ``character`` (a record) of ``work`` (a record) at ``label``,
    described as it stands there by the scoped builder."""
    from incanon.canon.persona import persona_at

    persona = persona_at(store, work.id, character, position, text=False)
    # The label as the scoped builder shows it (a label telling more than the point knows is
    # replaced by the position).
    label = persona.time_label or label
    info: dict[str, Any] = {
        "work": work.id, "title": work.title, "character": character.name,
        "names": list(persona.names), "at": label, "position": str(position),
        "description": persona.time_description,
        "time_points": [tp.label for tp in persona.reached], "methods": list(methods)}
    if spoilers:
        info["later_time_points"] = [tp.label for tp in sorted(character.time_points, key=lambda t: t.position.key)
                                     if tp.position > position]
    return {"id": f"{work.id}/{character.name}@{label}", "object": "model", "created": int(time.time()),
            "owned_by": "incanon", "incanon": info}
