"""A run store with small scripted runs (the demo, and TimeChara with two methods), for tests of
what reads runs: reports, the web app, exports. No model weights, no network.

    runs = asyncio.run(make_sample_runs(tmp_path))
    runs.runs_path, runs.demo, runs.timechara      # the store and the run ids in it
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from incanon.models import ScriptedModel, load_chat_model
from incanon.runs import RunStore

#: Scripted judge replies of the TimeChara runs: personality 5, the future item a temporal
#: failure (score 0, hallucination type temporal), everything else consistent.
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


@dataclass(frozen=True)
class SampleRuns:
    """Where the runs are and their ids."""

    runs_path: Path
    canon: Path
    demo: str
    timechara: list[str]


async def make_sample_runs(root: Path) -> SampleRuns:
    """Run the demo (scripted) into ``root/canon`` + ``root/runs.sqlite``, then TimeChara with
    ``zero-shot`` and ``narrative-experts`` on ``published_rows()`` into the same run store."""
    from incanon.bench.timechara import CharacterResolver, EvalSetup, evaluate, load_items
    from incanon.demo import run_demo

    runs_path = root / "runs.sqlite"
    demo, store, _ = await run_demo(
        store_dir=root / "canon", runs_path=runs_path,
        agent_model=load_chat_model(ScriptedModel(default="I cannot speak of that.")),
        judge_model=load_chat_model(ScriptedModel(default="It stays within what she knows.\nScore: 1")),
        model_specs={"agent": "scripted-agent", "judge": "scripted-judge"}, progress=False)
    store.close()
    data = root / "published.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in published_rows()))
    items = load_items(data)
    runs = RunStore(runs_path)
    setup = EvalSetup(
        agent_model=load_chat_model(ScriptedModel(default="I have no idea what you mean.")),
        judge_model=load_chat_model(ScriptedModel(JUDGE_RULES, default="Consistent.\nScore: 1")),
        models={"agent": "scripted-agent", "judge": "scripted-judge"}, runs=runs, resolver=CharacterResolver(),
        dataset={"source": "published sample"}, concurrency=2, progress=False)
    results = await evaluate(items, ["zero-shot", "narrative-experts"], setup)
    runs.close()
    return SampleRuns(runs_path=runs_path, canon=root / "canon", demo=demo.run_id,
                      timechara=[r.run_id for r in results])
