"""Character profiles joined as CoSER's evaluator joins them, on a test case of our own in the
released ``test_set.json`` layout: a profile's own spaces stay where they are inside the text."""

from __future__ import annotations

import json
from pathlib import Path

from incanon.bench.coser.critics import Critic
from incanon.bench.coser.files import load_test_set
from incanon.bench.coser.simulation import case as cases
from incanon.models import ScriptedModel

CASE = {
    "book": "The Tide Clock", "scenario": "The quay at dusk.", "topic": "the clock", "tag": "id", "i_p": 0, "i_c": 0,
    "speaking_characters_w_env": ["Mira Dunn", "Hal Penrose", "Sela Voss", "Environment"],
    "major_characters": ["Mira Dunn", "Hal Penrose"],
    "key_characters": [{"name": n, "thought": f"{n} waits."} for n in ("Mira Dunn", "Hal Penrose", "Sela Voss")],
    "dialogues": [{"character": "Mira Dunn", "message": "The clock stopped."},
                  {"character": "Hal Penrose", "message": "(winds it) Not for long."},
                  {"character": "Sela Voss", "message": "Let it rest."}],
    "plot": {"summary": "Mira finds the tide clock stopped.",
             "key_characters": [{"name": "Mira Dunn", "description": "\nMira keeps the clock.  \n"},
                                {"name": "Hal Penrose", "description": ""},
                                {"name": "Mira Dunn", "description": "a second entry the reference never reads"}]},
    # Leading spaces, an indented second paragraph, a tab: CoSER strips line breaks and spaces
    # only at the two ends of the joined text.
    "character_profiles": {"Mira Dunn": "   Mira Dunn, keeper.\n\n    She winds it at noon.\t\n",
                           "Hal Penrose": "  Hal Penrose, ferryman.  ",
                           "Sela Voss": "\n  \n"},
}


def _sample(tmp_path: Path):
    path = tmp_path / "test_set.json"
    path.write_text(json.dumps([CASE]), encoding="utf-8")
    return load_test_set(path)[0]


def test_profiles_keep_inner_spaces_and_lose_only_the_outer_ones(tmp_path):
    profiles = cases.profiles(_sample(tmp_path))
    # Description first: the profile's leading spaces are inside the text, and kept.
    assert profiles["Mira Dunn"] == "Mira keeps the clock.  \n\n   Mira Dunn, keeper.\n\n    She winds it at noon.\t"
    # An empty description is as none: the profile alone loses its outer spaces.
    assert profiles["Hal Penrose"] == "Hal Penrose, ferryman."
    assert "Sela Voss" not in profiles, "spaces and line breaks only: left out"


async def test_the_critic_prompt_carries_the_profiles_as_joined(tmp_path):
    sample = _sample(tmp_path)
    model = ScriptedModel(default=json.dumps({"Character Fidelity": {"flaws": []}}))
    simulation = [{"role": t.character, "content": t.message} for t in sample.dialogues]
    await Critic(model).critique(sample, simulation, dimensions=["Character Fidelity"])
    prompt = "\n".join(m.content for m in model.calls[0].messages)
    assert "Mira keeps the clock.  \n\n   Mira Dunn, keeper.\n\n    She winds it at noon.\t" in prompt
