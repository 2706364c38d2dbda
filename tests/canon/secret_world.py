"""A Jekyll-like world of our own: the physician Aurel Vane is secretly Silas Crane.

The lawyer Matthias Ord hears of Crane (1-1-1), reads Vane's will in Crane's favour (1-2-1), and
learns the truth from Vane's confession (1-4-1). The reader learns it a scene earlier (1-3-1), where
Vane, alone, becomes Crane. Bram Tull hears of Crane with Ord and never learns who he is.
"""

from __future__ import annotations

import copy
from typing import Any

from incanon.canon import World

_WORLD: dict[str, Any] = {
    "work": {"id": "vane", "title": "The Double Physician", "author": "incanon tests", "axis": "chapter",
             "description": "A lawyer, his friend, and a doctor with a second name.", "books": {}},
    "characters": [
        {"name": "Matthias Ord", "aliases": ["Ord"], "first_position": "1-1-1",
         "profile": "Matthias Ord is a careful lawyer who keeps his friends' wills.",
         "time_points": [{"label": "the will", "position": "1-2-1"},
                         {"label": "the confession", "position": "1-4-1"}]},
        {"name": "Bram Tull", "aliases": ["Tull"], "first_position": "1-1-1",
         "profile": "Bram Tull is Ord's cousin, who walks with him on Sundays."},
        {"name": "Aurel Vane",
         "aliases": ["Doctor Vane",
                     {"name": "Silas Crane", "secret": True, "revealed_in": ["s3", "s4"]}],
         "first_position": "1-1-1",
         "profile": "Aurel Vane is a respected physician with a laboratory behind his house.",
         "time_points": [{"label": "the will is made", "position": "1-2-1"},
                         {"label": "the draught", "position": "1-3-1"}]},
    ],
    "scenes": [
        {"id": "s1", "position": "1-1-1", "title": "The door in the lane", "location": "a side street",
         "summary": "Tull tells Ord how Silas Crane knocked down a child and paid with a cheque.",
         "participants": ["Matthias Ord", "Bram Tull"], "speakers": ["Matthias Ord", "Bram Tull"]},
        {"id": "s2", "position": "1-2-1", "title": "The will", "location": "Ord's office",
         "summary": "Ord rereads the will of Aurel Vane, which leaves everything to Silas Crane.",
         "participants": ["Matthias Ord"], "speakers": []},
        {"id": "s3", "position": "1-3-1", "title": "The draught", "location": "the laboratory",
         "summary": "Alone, Aurel Vane drinks his draught and becomes Silas Crane.",
         "participants": ["Aurel Vane"], "speakers": []},
        {"id": "s4", "position": "1-4-1", "title": "The confession", "location": "Ord's office",
         "summary": "Ord reads Vane's confession: he and Crane were one man.",
         "participants": ["Matthias Ord"], "speakers": []},
    ],
    "chunks": [
        {"id": "c1", "position": "1-1-1", "scene": "s1",
         "text": "Bram Tull pointed at the door. A man called Silas Crane had knocked a child down there, "
                 "Tull said, and paid the family with a cheque. Ord frowned and said nothing."},
        {"id": "c2", "position": "1-2-1", "scene": "s2",
         "text": "Ord took the will of Aurel Vane from his safe. Every penny was to go to Silas Crane, "
                 "a man Ord had never met, and Ord disliked it more each time he read it."},
        {"id": "c3", "position": "1-3-1", "scene": "s3",
         "text": "Aurel Vane measured the salts into the glass and drank. His hands shrank and darkened, "
                 "and the face in the mirror was the face of Silas Crane."},
        {"id": "c4", "position": "1-4-1", "scene": "s4",
         "text": "Ord read the confession twice. Aurel Vane had been Silas Crane all along."},
    ],
    "relations": [
        {"source": "Matthias Ord", "target": "Aurel Vane", "type": "friend", "description": "Old friends."},
        {"source": "Matthias Ord", "target": "Bram Tull", "type": "cousin", "description": "Cousins."},
    ],
}


def secret_world() -> World:
    """The world, with Silas Crane a secret name of Aurel Vane."""
    return World.model_validate(copy.deepcopy(_WORLD))


def grouped_world() -> World:
    """The same world as a helper that groups the names without saying it is a secret would
    build it: Silas Crane a plain alias of Aurel Vane."""
    data = copy.deepcopy(_WORLD)
    data["characters"][2]["aliases"] = ["Doctor Vane", "Silas Crane"]
    return World.model_validate(data)
