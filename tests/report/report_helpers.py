"""Shared pieces of the report tests: TimeChara items in the published format, scripted judge
rules, and what an external reference in HTML looks like."""

from __future__ import annotations

import re
from typing import Any

#: Anything that would make the HTML fetch something: a remote src/href, CSS url(), imports, scripts.
EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//|url\(|@import|<script|<link""", re.I)

JUDGE_RULES = [
    ("captures a character's personality", "Fits well.\nScore: 5"),
    ("Classify the main error", "It reveals the future.\nType: temporal"),
    ("Future:", "It leaks the future.\nScore: 0"),
]


def published_row(**overrides: Any) -> dict[str, Any]:
    """A row in the published TimeChara format (a past-absence structured item)."""
    row = {
        "series": "harry_potter", "question_generation": "fact_structured", "fake_method": "-",
        "event_summary": "Harry and Ron flew the enchanted car to Hogwarts.",
        "question": "Were you there when Harry and Ron flew the enchanted car to Hogwarts?",
        "question_period": "Book2-chapter5", "character": "Hermione Granger",
        "character_period": "2nd-year / on Halloween", "participants": ["Harry Potter", "Ronald Weasley"],
        "data_type": "past-absence",
        "temporal_label": "Past: during her 2nd year on Halloween, Hermione can recall it.",
        "spatial_label": "Absence: Hermione was not in the car.", "gold_response": "No, I was already on the train.",
    }
    row.update(overrides)
    return row


def published_rows() -> list[dict[str, Any]]:
    """One item of each data type, and a fake one."""
    return [
        published_row(),
        published_row(character="Ronald Weasley", data_type="past-presence",
                      spatial_label="Presence: Ron was in the car."),
        published_row(data_type="future", character="Harry Potter", character_period="1st-year", spatial_label="-",
                      temporal_label="Future: at the end of his first year Harry cannot know this."),
        published_row(question_generation="fact_freeform", data_type="past-only", character="Harry Potter",
                      character_period="2nd-year / on Christmas", spatial_label="-",
                      question="Why did Harry and Ron fly to Hogwarts?"),
        published_row(question_generation="fake_freeform", data_type="past-only", fake_method="3",
                      character="Harry Potter", character_period="2nd-year / on Christmas", spatial_label="-",
                      question="Why did Harry and Ron swim to Hogwarts?"),
    ]
