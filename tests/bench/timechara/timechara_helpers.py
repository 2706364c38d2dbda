"""Shared helpers of the TimeChara tests: a scripted helper LLM and hand-made published rows."""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

from incanon.models import Message, ScriptedModel
from incanon.testing.sample_runs import published_row, published_rows  # noqa: F401 - shared by the tests

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
