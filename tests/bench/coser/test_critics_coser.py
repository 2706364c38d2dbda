"""Penalty-based critics: prompts with every placeholder filled, messy JSON, repair, salvage."""

from __future__ import annotations

import json
import re

import pytest

from incanon.bench.coser.critics import Critic, CriticMaterials, critique_format, parse_critique, salvage_flaws
from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.scoring import DIMENSIONS
from incanon.errors import InputError
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

UNFILLED = re.compile(r"\{\{\s*\w|\w\s*\}\}|\{%|\{[a-z_]+\}")
SAMPLE = {
    "book": "Pride and Prejudice", "i_c": 0, "scenario": "Mr Bennet's study.",
    "key_characters": [{"name": "Elizabeth Bennet", "thought": "Dread."}],
    "dialogues": [{"character": "Mr Bennet", "message": "[ORIGINAL-THOUGHT] Lizzy, come in."},
                  {"character": "Elizabeth Bennet", "message": "What is it, Papa?"}],
    "speaking_characters_w_env": ["Mr Bennet", "Elizabeth Bennet", "Environment"],
    "major_characters": ["Mr Bennet", "Elizabeth Bennet"],
    "plot": {"summary": "PLOT-SUMMARY: a letter from Mr Collins.", "i_p": 3, "key_characters": []},
    "character_profiles": {"Mr Bennet": "PROFILE-B", "Elizabeth Bennet": "PROFILE-E"},
}
SIMULATION = [
    {"role": "Mr Bennet", "content": "[SIM-THOUGHT] (waves a letter) Lizzy!"},
    {"role": "Environment", "content": "The fire crackles."},
    {"role": "Elizabeth Bennet", "content": "Papa?"},
    {"role": "Mr Bennet", "content": "A letter."},
]


def ok(dimension: str, *severities: int) -> str:
    return json.dumps({dimension: {"flaws": [{"instance": f"flaw {i}", "type": "t", "severity": s}
                                             for i, s in enumerate(severities)]}})


@pytest.mark.parametrize(("text", "expected"), [
    (ok("Anthropomorphism", 3, 2), [3, 2]),
    ('Sure!\n```json\n{"Anthropomorphism": {"flaws": [{"instance": "a", "type": "t", "severity": 4},]}}\n```\nDone.', [4]),
    ("{'Anthropomorphism': {'flaws': [{'instance': \"it's flat\", 'type': 'Emotional Depth', 'severity': '4 (severe)'}]}}", [4]),
    ('{"flaws": [{"instance": "a", "type": "t", "severity": 2}]}', [2]),
    ('[{"instance": "a", "type": "t", "severity": 5}, {"instance": "b", "type": "t"}]', [5, 1]),
    ('{"anthropomorphism": {"flaws": []}}', []),
    ('{"Anthropomorphism": {"flaws": null}}', []),
    ('{"Evaluation": {"flaws": [{"instance": "a", "type": "t", "severity": 3}]}}', [3]),
    ('{"Storyline Quality": {"flaws": [{"severity": 1}]}, "Anthropomorphism": {"flaws": [{"severity": 2}]}}', [2]),
])
def test_parse_critique_reads_messy_json(text, expected):
    flaws, problem = parse_critique(text, "Anthropomorphism")
    assert problem is None and [f.severity for f in flaws] == expected


@pytest.mark.parametrize("text", [
    "", "The conversation is quite good overall.",
    '{"Anthropomorphism": {"flaws": [{"instance": "a", "type": "t", "severity": 3}, {"instance": "cut off',
])
def test_parse_critique_gives_none_with_a_reason(text):
    flaws, problem = parse_critique(text, "Anthropomorphism")
    assert flaws is None and problem


def test_salvage_takes_complete_flaw_objects_of_a_truncated_answer():
    text = '{"X": {"flaws": [{"instance": "a", "type": "t", "severity": 3}, {"instance": "b", "severity": 2}, {"inst'
    assert [f.severity for f in salvage_flaws(["nothing here", text])] == [3, 2]


def test_critique_format_names_the_dimension():
    schema = critique_format("Storyline Quality")["json_schema"]["schema"]
    assert schema["required"] == ["Storyline Quality"]
    items = schema["properties"]["Storyline Quality"]["properties"]["flaws"]["items"]
    assert items["properties"]["severity"]["enum"] == list(range(1, 11))


async def test_one_call_per_dimension_with_every_placeholder_filled():
    model = ScriptedModel(rules=[(f"List the {d} flaws", ok(d, 2)) for d in DIMENSIONS])
    critic = Critic(model)
    result = await critic.critique(TestSample.model_validate(SAMPLE), SIMULATION)
    assert len(model.calls) == 4
    assert result.actor_rounds == 3
    assert result.scores() == pytest.approx({d: 100 - 5 * (2 - 0.9) for d in DIMENSIONS})
    for call, dimension in zip(model.calls, DIMENSIONS):
        system, ask = call.messages[0].content, call.messages[1].content
        assert not UNFILLED.search(system) and not UNFILLED.search(ask)
        assert dimension in system and dimension in ask
        assert "PLOT-SUMMARY" in system and "PROFILE-B" in system and "PROFILE-E" in system
        assert "Mr Bennet: Lizzy, come in." in system and "ORIGINAL-THOUGHT" not in system
        assert "Mr Bennet: (waves a letter) Lizzy!" in ask and "SIM-THOUGHT" not in ask
        assert "copied from the original" not in system
    fidelity = model.calls[2].messages[0].content
    assert "Judge only the main characters: Mr Bennet, Elizabeth Bennet" in fidelity


async def test_scores_follow_the_formula():
    model = ScriptedModel(rules=[
        ("List the Storyline Consistency", ok("Storyline Consistency", 3, 4)),
        ("List the Anthropomorphism", ok("Anthropomorphism", 5, 5, 5)),
        ("List the Character Fidelity", ok("Character Fidelity")),
        ("List the Storyline Quality", ok("Storyline Quality", 1)),
    ])
    result = await Critic(model).critique(TestSample.model_validate(SAMPLE), SIMULATION)
    # 3 actor rounds: credit 0.9 severity points.
    assert result.scores() == pytest.approx({"Storyline Consistency": 100 - 5 * (7 - 0.9),
                                             "Anthropomorphism": 100 - 5 * (15 - 0.9),
                                             "Character Fidelity": 100.0, "Storyline Quality": 100 - 5 * (1 - 0.9)})
    assert result.score == pytest.approx(sum(result.scores().values()) / 4)
    critique = result.coser_critique()
    assert critique["Anthropomorphism"]["flaws"][0] == {"instance": "flaw 0", "type": "t", "severity": 5}


async def test_unreadable_answer_gets_one_schema_constrained_repair():
    model = ScriptedModel(rules=[("could not be read", ok("Anthropomorphism", 4))],
                          default="It is mostly fine, I would say.")
    critic = Critic(model)
    result = await critic.critique(TestSample.model_validate(SAMPLE), SIMULATION, dimensions=["Anthropomorphism"])
    found = result.dimensions["Anthropomorphism"]
    assert found.repaired and not found.salvaged and [f.severity for f in found.flaws] == [4]
    assert len(model.calls) == 2
    repair = model.calls[1]
    assert repair.params.response_format["json_schema"]["schema"]["required"] == ["Anthropomorphism"]
    assert repair.messages[-2].content == "It is mostly fine, I would say."
    assert "the answer contains no JSON object" in repair.messages[-1].content


async def test_salvage_then_unscored():
    truncated = '{"Anthropomorphism": {"flaws": [{"instance": "a", "type": "t", "severity": 3}, {"instance": "b'
    model = ScriptedModel(default=truncated)
    found = (await Critic(model).critique(TestSample.model_validate(SAMPLE), SIMULATION,
                                          dimensions=["Anthropomorphism"])).dimensions["Anthropomorphism"]
    assert found.salvaged and [f.severity for f in found.flaws] == [3] and found.score is not None
    model = ScriptedModel(default="no idea")
    result = await Critic(model).critique(TestSample.model_validate(SAMPLE), SIMULATION)
    assert all(c.flaws is None and c.score is None and c.problem for c in result.dimensions.values())
    assert result.score is None and len(model.calls) == 8


def test_materials_with_continue_from_and_thoughts():
    sample = TestSample.model_validate(SAMPLE)
    critic = Critic(ScriptedModel(default="{}"), thoughts=True)
    materials = CriticMaterials.from_sample(sample, continue_from=2, thoughts=True)
    system = critic.messages("Storyline Quality", materials, "x")[0].content
    assert "The first 2 messages of the simulated conversation are copied from the original" in system
    assert "[ORIGINAL-THOUGHT]" in system and "inner thoughts in square brackets" in system
    assert "up to 10" in system


def test_an_unfilled_placeholder_in_an_override_is_an_error(tmp_path):
    (tmp_path / "coser_critic_character_fidelity.j2").write_text("Main characters: {{ main_characters }}")
    critic = Critic(ScriptedModel(default="{}"), PromptLibrary(tmp_path))
    materials = CriticMaterials.from_sample(TestSample.model_validate(SAMPLE))
    with pytest.raises(InputError, match="main_characters"):
        critic.messages("Character Fidelity", materials, "x")
