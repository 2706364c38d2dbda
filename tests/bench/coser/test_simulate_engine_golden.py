"""``simulate_case`` gives exactly what it gave before the scene engine was shared with the product.

Each case below runs with scripted models that record every call (which model, the messages, the
generation parameters) in one shared log, in call order; the test compares that log and the
resulting ``Simulation`` (messages, decisions, how it ended, prompts) with a JSON fixture written
from the simulation as it stood before its loop moved to :mod:`incanon.scenes.engine`. The cases
cover: incanon's prompts and the ``paper`` prompt set, thoughts on and off, output examples off,
an Environment turn, every kind of next-speaker answer (a name, a marked-up name, JSON, ``random``,
an unknown name, the speaker who just acted, an early end, an end), a constrained predictor,
``continue_from`` 0 and above (a replay that hands over to the models, a replay of the whole
scene that ends as the original does, a replay cut at the round cap, and one whose last original
decision falls on the cap), retrieval before every message, and sampled repetitions (``epoch``).

To write the fixture again (only when a change of the numbers is intended and reviewed)::

    .venv/bin/python tests/bench/coser/test_simulate_engine_golden.py

which runs :func:`write_fixture`.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from incanon.bench.coser.formats import BookData, TestSample
from incanon.bench.coser.simulation import BookMemory, Cast, SimulationConfig, parse_rag, simulate_case
from incanon.models.types import Completion, GenerationParams, Message

FIXTURE = Path(__file__).parent / "data" / "simulate_engine_golden.json"

Log = list[dict[str, Any]]


class Recording:
    """A chat model answering by ``reply(messages, n)`` (``n``: its own call count) that appends
    each call to a log shared by every model of the case."""

    def __init__(self, label: str, log: Log, reply: Callable[[Sequence[Message], int], str]) -> None:
        self.label, self.log, self.reply, self.n = label, log, reply, 0

    @property
    def name(self) -> str:
        return f"golden-{self.label}"

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        params = params or GenerationParams()
        self.n += 1
        self.log.append({"model": self.label, "messages": [[m.role, m.content] for m in messages],
                         "params": params.model_dump(mode="json")})
        return Completion(text=self.reply(messages, self.n), model=self.name)


def _speaker(messages: Sequence[Message]) -> str:
    found = re.match(r"You are (.+?)(?:, a character| from )", messages[0].content)
    assert found, messages[0].content[:80]
    return found.group(1)


def actor_reply(messages: Sequence[Message], n: int) -> str:
    """A thought (others must never see it), an action, speech; every third answer goes on to
    write another speaker's line (cleaning cuts it; the raw output is kept)."""
    me = _speaker(messages)
    text = f"{me}: [THOUGHT-{me}-{n} keep it hidden] (glances at the door) Line {n} of {me}."
    return text + ("\nEnvironment: A shutter bangs." if n % 3 == 0 else "")


def env_reply(messages: Sequence[Message], n: int) -> str:
    return f"Rain on the glass ({n}).\nMr Bennet: written by the environment model"


def scripted_nsp(answers: Sequence[str]) -> Callable[[Sequence[Message], int], str]:
    return lambda messages, n: answers[(n - 1) % len(answers)]


def sample_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "book": "Pride and Prejudice", "i_c": 2, "tag": "id",
        "scenario": "Mr Bennet's library, after breakfast. A letter lies open on the desk.",
        "topic": "the letter",
        "key_characters": [
            {"name": "Elizabeth Bennet", "thought": "GOLD-MOTIVE-LIZZY: learn what the letter says."},
            {"name": "Mr Bennet", "motivation": "GOLD-MOTIVE-BENNET: enjoy the joke."},
            {"name": "Jane Bennet", "motivation": "GOLD-MOTIVE-JANE: keep the peace."},
        ],
        "dialogues": [
            {"character": "Mr Bennet", "message": "[ORIG-T1 amused] Lizzy, sit down."},
            {"character": "Elizabeth Bennet", "message": "[ORIG-T2 wary] (sits) Yes, Papa?"},
            {"character": "Jane Bennet", "message": "[ORIG-T3] Shall I go?"},
            {"character": "Environment", "message": "A clock strikes ten."},
            {"character": "Mr Bennet", "message": "[ORIG-T4] Stay, Jane."},
            {"character": "Elizabeth Bennet", "message": "[ORIG-T5] Who wrote it?"},
        ],
        "speaking_characters_w_env": ["Mr Bennet", "Elizabeth Bennet", "Jane Bennet", "Environment"],
        "major_characters": ["Mr Bennet", "Elizabeth Bennet"],
        "plot": {"summary": "A letter from Mr Collins.", "i_p": 4,
                 "key_characters": [{"name": "Mr Bennet", "description": "GOLD-PLOT-BENNET: amused father."}]},
        "character_profiles": {"Mr Bennet": "GOLD-PROFILE-BENNET", "Elizabeth Bennet": "GOLD-PROFILE-LIZZY",
                               "Jane Bennet": "GOLD-PROFILE-JANE"},
    }
    data.update(changes)
    return data


def book() -> BookData:
    """A small book of six plots in which Elizabeth takes part (retrieval's documents)."""
    plots = []
    for i in range(6):
        plots.append({
            "summary": f"plot {i} summary", "chapter": f"Chapter {i}", "text": f"raw text {i}",
            "key_characters": [{"name": "Elizabeth Bennet", "description": "d", "experience": f"LIZZY-EXP-{i}"}],
            "conversation": [{"scenario": f"room {i}", "topic": f"topic {i}",
                              "key_characters": [{"name": "Elizabeth Bennet", "motivation": "m"}],
                              "dialogues": [{"character": "Elizabeth Bennet", "message": f"[own {i}] talk {i}"}]}],
        })
    lizzy = {"profile": "p", "plots": [{"name": "Elizabeth Bennet", "i_p": i} for i in range(6)],
             "conversations": [], "utterances": []}
    return BookData.model_validate({"title": "Pride and Prejudice", "plots": plots, "split_plot_index": 6,
                                    "character_datasets": {"Elizabeth Bennet": lizzy}})


class WordEmbedder:
    """Counts of a few words: deterministic, no model file."""

    name, dim = "golden-words", 6
    WORDS = ("plot", "talk", "line", "rain", "letter", "door")

    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        rows = [[1.0 + text.lower().count(w) * (i + 1) for i, w in enumerate(self.WORDS)] for text in texts]
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


# Each case: the sample's changes, the config, the predictor's answers (cycled), options.
CASES: dict[str, dict[str, Any]] = {
    "incanon-prompts-thoughts-env-nsp-end": {
        "sample": {},
        "config": {"end_from_round": 3, "nsp_constrained": True},
        "nsp": ["Elizabeth Bennet", "**Environment**.", "END", "Jane", "Jane Bennet", '{"next_speaker": "Mr Bennet"}',
                "<END CHAT>"],
    },
    "paper-no-thoughts-continue-2-cap": {
        "sample": {},
        "config": {"continue_from": 2, "max_rounds": 6, "prompt_set": "paper", "thoughts": False,
                   "output_example": False, "actor_params": {"max_tokens": 300, "temperature": 0.7}},
        "nsp": ["1. Reasoning: the room waits.\n2. Next Speaker: Environment", "random", "the butler",
                "Next Speaker: Elizabeth Bennet"],
        "epoch": 2,
    },
    "continue-3-with-retrieval": {
        "sample": {},
        "config": {"continue_from": 3, "max_rounds": 7, "prompt_set": "paper"},
        "nsp": ["Elizabeth Bennet", "Mr Bennet", "Elizabeth Bennet", "END"],
        "memory": "expr2_conv1",
        "case": "golden-case-id",
    },
    "replay-whole-original-end": {
        "sample": {},
        "config": {"continue_from": 50, "end_from_round": 5},
        "nsp": ["Mr Bennet"],
    },
    "replay-cut-at-the-cap": {
        "sample": {},
        "config": {"continue_from": 5, "max_rounds": 3},
        "nsp": ["Mr Bennet"],
    },
    "replay-decision-on-the-cap": {
        "sample": {},
        "config": {"continue_from": 3, "max_rounds": 3},
        "nsp": ["Mr Bennet"],
    },
}


async def run_case(name: str, tmp_path: Path) -> dict[str, Any]:
    """One case: the call log and the simulation, as JSON data."""
    spec = CASES[name]
    log: Log = []
    memory = None
    if spec.get("memory"):
        from incanon.bench.coser.files import write_book

        folder = tmp_path / name
        folder.mkdir()
        write_book(book(), folder / "Pride and Prejudice.json")
        memory = BookMemory(folder, WordEmbedder(), parse_rag(spec["memory"]))  # type: ignore[arg-type]
    cast = Cast(actor=Recording("actor", log, actor_reply), nsp=Recording("nsp", log, scripted_nsp(spec["nsp"])),
                environment=Recording("environment", log, env_reply), memory=memory)
    sample = TestSample.model_validate(sample_data(**spec["sample"]))
    sim = await simulate_case(sample, cast, SimulationConfig.model_validate(spec["config"]), case=spec.get("case"),
                              epoch=spec.get("epoch", 0))
    return {"calls": log, "simulation": sim.model_dump(mode="json")}


async def write_fixture(tmp_path: Path) -> None:
    """Write the fixture from the simulation as it runs now (see the module docstring)."""
    data = {name: await run_case(name, tmp_path) for name in CASES}
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _golden() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(CASES))
async def test_the_simulation_is_unchanged(name, tmp_path):
    expected = _golden()[name]
    got = json.loads(json.dumps(await run_case(name, tmp_path)))
    # The calls first (model, messages, parameters, in order), then the simulation itself.
    assert [c["model"] for c in got["calls"]] == [c["model"] for c in expected["calls"]]
    for i, (ours, theirs) in enumerate(zip(got["calls"], expected["calls"])):
        assert ours == theirs, f"call {i} ({theirs['model']}) differs"
    assert got["simulation"] == expected["simulation"]


def test_the_fixture_covers_what_it_claims():
    # A golden file is only as good as its cases: each behaviour named in the docstring happens.
    golden = _golden()
    sims = {name: case["simulation"] for name, case in golden.items()}
    assert {s["ended_by"] for s in sims.values()} == {"nsp", "max_rounds", "original"}
    first = sims["incanon-prompts-thoughts-env-nsp-end"]
    assert "environment" in {m["source"] for m in first["messages"]}
    fallbacks = {d["fallback"] for s in sims.values() for d in s["decisions"]}
    assert {"end before round 3", "same speaker again", "random",
            "no speaker named"} <= fallbacks
    assert any(m.get("raw") for s in sims.values() for m in s["messages"])  # cleaning changed an output
    assert any(m.get("retrieved") for m in sims["continue-3-with-retrieval"]["messages"])
    assert [m["source"] for m in sims["replay-cut-at-the-cap"]["messages"]] == ["original"] * 3
    assert sims["replay-cut-at-the-cap"]["decisions"] == []
    assert len(sims["replay-decision-on-the-cap"]["decisions"]) == 1
    paper = golden["paper-no-thoughts-continue-2-cap"]["calls"]
    assert any(c["params"]["epoch"] == 2 for c in paper)
    assert any(c["params"]["response_format"] for c in golden["incanon-prompts-thoughts-env-nsp-end"]["calls"])
    # Thoughts: never in another model's view (also checked on the live run by test_simulate_coser).
    for case in golden.values():
        for call in case["calls"]:
            seen = "\n".join(content for _, content in call["messages"])
            me = _speaker([Message(role=r, content=c) for r, c in call["messages"]]) if call["model"] == "actor" else ""
            for hidden in re.findall(r"THOUGHT-([A-Za-z ]+?)-\d", seen):
                assert hidden == me, (call["model"], hidden)


if __name__ == "__main__":
    asyncio.run(write_fixture(Path(tempfile.mkdtemp())))
