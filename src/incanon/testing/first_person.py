"""A first-person world of our own (test support): the engineer Elias Marr tells the story.

Elias built a clockwork man that killed his brother Tam; the maid Nell Ashby is tried for it.
At the trial (1-2-1) Elias, his father Oren and his cousin Ada are present with Nell; Elias
*thinks*, unspoken, that his machine is the murderer. Nobody else ever learns it. Oren writes
Elias a letter (1-1-1, in Oren's study) that Elias reads at 1-3-1. Chunk texts are narration in
the first person with quoted speech, as a first-person novel is laid out.
"""

from __future__ import annotations

import copy
from typing import Any

from incanon.canon import World

SECRET_THOUGHT = "the clockwork man I had wound with my own hands had strangled Tam"
"""The narrator's unspoken thought at the trial: no one else present may receive it."""
LETTER = "Come home, my son; the house is quiet without you."
"""Oren's letter: Oren knows it from writing it, Elias from reading it at 1-3-1."""
SPOKEN = "I did not touch the boy"
"""Nell's speech at the trial: everyone present hears it."""
SUMMARY = "Elias keeps silent at Nell's trial, knowing his clockwork man is the murderer."
"""The trial scene's summary: the narrator's telling, so the narrator's alone."""

_WORLD: dict[str, Any] = {
    "work": {"id": "marr", "title": "The Wound Man", "author": "incanon tests", "axis": "chapter",
             "narrator": "Elias Marr"},
    "characters": [
        {"name": "Elias Marr", "aliases": ["Elias"], "first_position": "1-1-1",
         "time_points": [{"label": "the trial", "position": "1-2-1"},
                         {"label": "home", "position": "1-3-1"}]},
        {"name": "Oren Marr", "aliases": ["Oren", "my father"], "first_position": "1-1-1",
         "time_points": [{"label": "the letter", "position": "1-1-1"},
                         {"label": "the trial", "position": "1-2-1"}]},
        {"name": "Ada Lisle", "aliases": ["Ada"], "first_position": "1-2-1",
         "time_points": [{"label": "the trial", "position": "1-2-1"}]},
        {"name": "Nell Ashby", "aliases": ["Nell"], "first_position": "1-2-1",
         "time_points": [{"label": "the trial", "position": "1-2-1"}]},
    ],
    "scenes": [
        {"id": "s1", "position": "1-1-1", "title": "The study", "location": "Oren's study",
         "participants": ["Oren Marr"]},
        {"id": "s2", "position": "1-2-1", "title": "The trial", "location": "the courthouse",
         "summary": SUMMARY,
         "participants": ["Elias Marr", "Oren Marr", "Ada Lisle", "Nell Ashby"],
         "speakers": ["Nell Ashby", "Ada Lisle"]},
        {"id": "s3", "position": "1-3-1", "title": "Home", "location": "the house",
         "participants": ["Elias Marr"]},
    ],
    "chunks": [
        {"id": "c1", "position": "1-1-1", "scene": "s1",
         "text": "My father sat late in his study that night and wrote to me. " + LETTER,
         "units": [{"text": "My father sat late in his study that night and wrote to me.", "mode": "narration",
                    "audience": "present"},
                   {"text": LETTER, "mode": "document", "by": "Oren Marr", "known_by": ["Elias Marr"],
                    "from": "1-3-1"}]},
        {"id": "c2", "position": "1-2-1", "scene": "s2",
         "text": f"Nell stood pale in the dock. \u201c{SPOKEN},\u201d she said, \u201cI loved him.\u201d "
                 f"I said nothing, for I knew that {SECRET_THOUGHT}, and that I alone could save her. "
                 "\u2018She is innocent,\u2019 Ada cried, and my father bowed his head."},
        {"id": "c3", "position": "1-3-1", "scene": "s3",
         "text": "At home I found my father's letter on the hall table and read it twice."},
    ],
}


def first_person_world(**changes: Any) -> World:
    """The world; ``changes`` replace keys of ``work`` (e.g. ``narrator=None`` plants the leak of
    a third-person reading)."""
    data = copy.deepcopy(_WORLD)
    data["work"].update(changes)
    return World.model_validate(data)
