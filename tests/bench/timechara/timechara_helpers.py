"""Shared helpers of the TimeChara tests: a scripted helper LLM and hand-made published rows."""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

from incanon.models import Message, ScriptedModel

ALL_NAMES = ["Wren Callow", "Ottilie Brand", "Dace Morrow", "Jory Callow", "Ilse Varga", "Sefa Quill"]


def _position(messages: Sequence[Message]) -> str:
    found = re.search(r"story position ([\d-]+)", messages[-1].content)
    return found.group(1) if found else "?"


def _event(messages: Sequence[Message]) -> str:
    # The helper claims everyone was there: data types must come from the canon anyway.
    pos = _position(messages)
    return json.dumps({"event_summary": f"The lamplighters quarrelled over the wall at {pos}.",
                       "participants": ALL_NAMES})


def _freeform(messages: Sequence[Message]) -> str:
    pos = _position(messages)
    return f"Here you go:\n```json\n{json.dumps({'question': f'What did the lamplighters quarrel over at {pos}?', 'answer': 'The wall.'})}\n```"


HELPER_RULES: list[tuple[str, Any]] = [
    (r"Summarize the scene as a single event", _event),
    (r"Write one interview question about this event", _freeform),
    (r"Write a falsified version", json.dumps({"fake_event_summary": "The lamplighters quarrelled at the chapel.",
                                                "method": "3. change the location"})),
    (r"presupposes the fake event", "Question: Why did the lamplighters quarrel at the chapel?\n"
                                    "True answer: They did not; the quarrel was on the wall."),
    (r"Write the character's answer", "I could not tell you anything about that."),
    (r"stays consistent with what the character can know", "Consistent.\nScore: 1"),
]


def helper_model(extra: list[tuple[str, Any]] = (), **kwargs: Any) -> ScriptedModel:
    """A scripted helper that plays every build step (``extra`` rules win)."""
    return ScriptedModel([*extra, *HELPER_RULES], name="scripted-helper", **kwargs)


def published_row(**overrides: Any) -> dict[str, Any]:
    """A valid row in the published dataset's format (a past-absence structured item)."""
    row = {
        "series": "harry_potter",
        "question_generation": "fact_structured",
        "fake_method": "-",
        "event_summary": "Harry and Ron flew the enchanted car to Hogwarts.",
        "question": "Were you there when Harry and Ron flew the enchanted car to Hogwarts?",
        "question_period": "Book2-chapter5",
        "character": "Hermione Granger",
        "character_period": "2nd-year / on Halloween",
        "participants": ["Harry Potter", "Ronald Weasley"],
        "data_type": "past-absence",
        "temporal_label": "Past: during her 2nd year on Halloween, Hermione can recall it.",
        "spatial_label": "Absence: Hermione was not in the car.",
        "gold_response": "No, I was already on the train.",
    }
    row.update(overrides)
    return row


def published_rows() -> list[dict[str, Any]]:
    """One row of each data type (plus a fake one)."""
    return [
        published_row(),
        published_row(character="Ronald Weasley", data_type="past-presence",
                      spatial_label="Presence: Ron was in the car."),
        published_row(question_generation="fact_structured", data_type="future", character="Harry Potter",
                      character_period="1st-year", spatial_label="-",
                      temporal_label="Future: at the end of his first year Harry cannot know this."),
        published_row(question_generation="fact_freeform", data_type="past-only", character="Harry Potter",
                      character_period="2nd-year / on Christmas", spatial_label="-",
                      question="Why did Harry and Ron fly to Hogwarts?"),
        published_row(question_generation="fake_freeform", data_type="past-only", fake_method="3",
                      character="Harry Potter", character_period="2nd-year / on Christmas", spatial_label="-",
                      question="Why did Harry and Ron swim to Hogwarts?"),
    ]
