"""A small world built for the canon tests: three characters over two books (chapter axis)."""

from __future__ import annotations

import copy
from typing import Any

from incanon.canon import World

_HARBOR: dict[str, Any] = {
    "work": {
        "id": "harbor",
        "title": "The Harbor",
        "author": "Test Author",
        "axis": "chapter",
        "description": "A small town by the sea.",
        "books": {"1": "Calm", "2": "Storm", "3": "After"},
    },
    "characters": [
        {
            "name": "Alice Reed",
            "aliases": ["Alice", "Miss Reed"],
            "profile": "A lighthouse keeper.",
            "personality": "Curious, dry humour.",
            "first_position": "1-1-1",
            "time_points": [
                {"label": "First night", "position": "1-1-1", "description": "Just arrived."},
                {"label": "End of book 1", "position": "1", "description": "Settled in."},
                {"label": "After the storm", "position": "2-3"},
            ],
        },
        {"name": "Bob", "aliases": ["Robert"], "first_position": "1-1-1"},
        {"name": "Cara", "first_position": "1-2"},
        {"name": "Dan", "first_position": "3-1"},
    ],
    "scenes": [
        {
            "id": "s1", "position": "1-1-1", "title": "Arrival", "location": "Pier",
            "summary": "Alice meets Bob.", "participants": ["Alice Reed", "Bob"],
            "speakers": ["Alice Reed", "Bob"],
            "messages": [
                {"speaker": "Environment", "action": "Waves hit the pier."},
                {"speaker": "Alice Reed", "speech": "Hello.", "thought": "He looks tired."},
                {"speaker": "Bob", "speech": "Welcome.", "action": "waves", "thought": "A stranger."},
            ],
        },
        {
            "id": "s2", "position": "1-2", "title": "The map", "location": "Cara's house",
            "summary": "Cara hides the map; Bob sees it.", "participants": ["Bob", "Cara"],
            "speakers": ["Cara"],
            "messages": [{"speaker": "Cara", "speech": "Tell no one.", "thought": "He will."}],
        },
        {"id": "s3", "position": "2-1-1", "participants": ["Alice Reed", "Cara"], "summary": "Tea."},
        {"id": "s4", "position": "2-3", "participants": ["Alice Reed", "Bob", "Cara"], "summary": "The storm."},
        {"id": "s5", "position": "3-1", "participants": ["Alice Reed", "Dan"], "summary": "Dan arrives."},
    ],
    "chunks": [
        {"id": "c1", "position": "1-1-1", "text": "Alice stepped onto the pier.", "scene": "s1"},
        {"id": "c2", "position": "1-2", "text": "Cara folded the map.", "scene": "s2"},
        {"id": "c3", "position": "1-3", "text": "The town slept.", "source": "book1.txt"},
        {"id": "c4", "position": "2-1-1", "text": "Tea at Cara's.", "scene": "s3"},
        {"id": "c5", "position": "2-3", "text": "The storm broke the pier.", "scene": "s4"},
        {"id": "c6", "position": "3-1", "text": "A new face: Dan.", "scene": "s5"},
    ],
    "entities": [
        {"name": "Lighthouse", "type": "location", "description": "Old tower."},
        {"name": "Harbor Guild", "type": "organization", "aliases": ["the Guild"], "position": "1-2"},
        {"name": "Great Storm", "type": "event", "position": "2-3"},
    ],
    "relations": [
        {"source": "Alice Reed", "target": "Bob", "type": "friend", "affection": "high", "valid_to": "2-3"},
        {"source": "Alice", "target": "Robert", "type": "rival", "affection": "low", "valid_from": "2-3"},
        {"source": "Bob", "target": "the Guild", "type": "member_of", "weight": 0.5, "valid_from": "1-2"},
        {"source": "Alice Reed", "target": "Dan", "type": "neighbour"},
    ],
    "facts": [
        {"id": "f1", "subject": "Bob", "text": "Bob owns a boat.", "position": "1-1-1", "scene": "s1"},
        {"id": "f2", "subject": "Cara", "text": "Cara hid the map.", "position": "1-2", "scene": "s2"},
        {"id": "f3", "subject": "Harbor Guild", "text": "The guild raised taxes.", "position": "1-2", "public": True},
        {"id": "f4", "subject": "Bob", "text": "Bob is engaged.", "position": "1-3", "valid_to": "2-1", "known_by": ["Alice"]},
        {"id": "f5", "subject": "Great Storm", "text": "The storm wrecked the pier.", "position": "2-3", "scene": "s4"},
        {"id": "f6", "subject": "Lighthouse", "text": "The lamp is broken.", "position": "1-1"},
    ],
    "probes": [
        {"character": "Alice Reed", "at": "1", "question": "Where is the map?", "data_type": "past-absence",
         "event": "s2", "gold_response": "I do not know of any map."},
        {"character": "Alice Reed", "at": "1", "question": "Who is Dan?", "data_type": "future",
         "event": "s5", "gold_response": "I have never heard of him."},
    ],
}


def harbor_data() -> dict[str, Any]:
    """A fresh deep copy of the harbor world as plain JSON data (tests may mutate it)."""
    return copy.deepcopy(_HARBOR)


def harbor_world() -> World:
    """The harbor world as a model."""
    return World.model_validate(harbor_data())


def canonical_harbor_data() -> dict[str, Any]:
    """The harbor world with every reference spelled by canonical name (exports equal to it)."""
    data = harbor_data()
    rels = data["relations"]
    rels[1]["source"], rels[1]["target"] = "Alice Reed", "Bob"
    rels[2]["target"] = "Harbor Guild"
    data["facts"][3]["known_by"] = ["Alice Reed"]
    return data
