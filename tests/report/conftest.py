"""A run store with scripted runs of the demo and of TimeChara (two methods), made once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from incanon.models import ScriptedModel, load_chat_model
from incanon.runs import RunStore

from report_helpers import JUDGE_RULES, published_rows

async def _make_runs(root: Path) -> dict[str, Any]:
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
    return {"runs_path": runs_path, "demo": demo.run_id, "timechara": [r.run_id for r in results]}


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``runs_path``, the ``demo`` run id and the two ``timechara`` run ids."""
    return asyncio.run(_make_runs(tmp_path_factory.mktemp("report-runs")))
