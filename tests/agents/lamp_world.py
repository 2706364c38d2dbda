"""A small world for the agent and retrieval tests: three books, chunks in several chapters,
scenes with known participants, and one probe per data type."""

from __future__ import annotations

import copy
from typing import Any

from incanon.canon import World

_LAMPS: dict[str, Any] = {
    "work": {
        "id": "lamps", "title": "The Lamp Saga", "author": "T. Writer", "axis": "chapter",
        "books": {"1": "Oil", "2": "Storm", "3": "Ash"},
    },
    "characters": [
        {"name": "Ada", "aliases": ["the Warden"], "profile": "A lamplighter.", "personality": "Dry, brief.",
         "first_position": "1-1-1",
         "time_points": [{"label": "end of book 1", "position": "1", "description": "She has the harbour round."},
                         {"label": "after the storm", "position": "2-2"}]},
        {"name": "Bram", "profile": "A ferryman.", "first_position": "1-1-1",
         "time_points": [{"label": "start of book 2", "position": "2-1"}, {"label": "end of book 3", "position": "3"}]},
        {"name": "Cara", "profile": "A glassblower.", "first_position": "1-2",
         "time_points": [{"label": "the fire", "position": "3-1"}]},
    ],
    "scenes": [
        {"id": "s1", "position": "1-1-1", "summary": "Ada lit the harbour lamp for the first time while Bram watched.",
         "participants": ["Ada", "Bram"]},
        {"id": "s2", "position": "1-2-1", "summary": "Cara blew a blue glass chimney for the harbour lamp.",
         "participants": ["Cara", "Bram"]},
        {"id": "s3", "position": "2-1-1", "summary": "The great storm tore the ferry from its moorings.",
         "participants": ["Bram", "Cara"]},
        {"id": "s4", "position": "2-2-1", "summary": "Ada and Cara rebuilt the harbour wall after the storm.",
         "participants": ["Ada", "Cara"]},
        {"id": "s5", "position": "3-1-1", "summary": "The lighthouse burned down and Cara pulled Bram from the fire.",
         "participants": ["Cara", "Bram"]},
        {"id": "s6", "position": "3-2-1", "summary": "Ada was crowned keeper of the new lighthouse.",
         "participants": ["Ada", "Bram", "Cara"]},
    ],
    "chunks": [
        {"id": "c1", "position": "1-1-1", "scene": "s1", "text": "Ada struck the match and the harbour lamp caught; Bram clapped from his ferry."},
        {"id": "c2", "position": "1-1-2", "text": "The harbour smelled of fish oil and tar every morning."},
        {"id": "c3", "position": "1-2-1", "scene": "s2", "text": "Cara turned the molten glass until a blue chimney formed."},
        {"id": "c4", "position": "2-1-1", "scene": "s3", "text": "The storm came at night and snapped the ferry's ropes."},
        {"id": "c5", "position": "2-2-1", "scene": "s4", "text": "Ada and Cara hauled stones to mend the broken harbour wall."},
        {"id": "c6", "position": "3-1-1", "scene": "s5", "text": "Flames climbed the lighthouse tower; the lighthouse burned to the ground."},
        {"id": "c7", "position": "3-1-2", "text": "Ash from the burned lighthouse fell on the whole town for a week."},
        {"id": "c8", "position": "3-2-1", "scene": "s6", "text": "Ada was crowned keeper of the new lighthouse before the town."},
    ],
    "probes": [
        {"character": "Ada", "at": "1", "question": "How did you feel when the lighthouse burned down?",
         "data_type": "future", "event": "s5", "gold_response": "Burned down? The lighthouse stands as it always has."},
        {"character": "Bram", "at": "2-1", "question": "Why did Cara need to pull you from the fire?",
         "data_type": "future", "event": "s5", "gold_response": "A fire? I've been in no fire."},
        {"character": "Ada", "at": "2-2", "question": "What did you see when the storm tore the ferry loose?",
         "data_type": "past-absence", "event": "s3", "gold_response": "I wasn't at the quay that night; Bram told me later."},
        {"character": "Bram", "at": "2-1", "question": "Were you there when Ada first lit the harbour lamp?",
         "data_type": "past-presence", "event": "s1", "gold_response": "I was, clapping like a fool from the ferry."},
        {"character": "Cara", "at": "3-1", "question": "What colour was the chimney glass for the harbour lamp?",
         "data_type": "past-only", "event": "s2", "gold_response": "Blue. I made it myself."},
        {"character": "Bram", "at": "3", "question": "Who was crowned keeper of the new lighthouse?",
         "data_type": "past-only", "event": "s6", "gold_response": "Ada, of course."},
    ],
}


def lamp_data() -> dict[str, Any]:
    """The world as JSON data (a fresh copy)."""
    return copy.deepcopy(_LAMPS)


def lamp_world() -> World:
    """The world as a validated ``World``."""
    return World.model_validate(lamp_data())
