"""``coser judge --prompts-from``: the clone's critic prompt is sent word for word. The fixture is
our own invented text in the reference's layout (``gca_evaluation/prompts.py`` with a
``critic_prompts`` dict, ``gca_evaluation/main.py`` setting ``additional_instructions``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.bench.coser.critics import Critic
from incanon.bench.coser.files import load_test_set
from incanon.bench.coser.refprompts import use_reference_prompts
from incanon.bench.coser.simulation import case as cases
from incanon.errors import InputError, NotFoundError
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "coser"
TEMPLATE = ("HERON critic for {book}. Plot: {plot_summary} Scene: {scenario}\n{character_profiles}\n"
            "Original:\n{original_conversation}\nMain: {major_characters}. {additional_instructions}\n"
            "Judge {dimension_name} ({dimension_brief}).\n{dimension_criteria}\nAnswer as JSON.")
DETAILS = {d: {"dimension_brief": f"brief of {d}", "dimension_criteria": f"criteria of {d}"}
           for d in ("Storyline Consistency", "Anthropomorphism", "Storyline Quality")}
DETAILS["Character Fidelity"] = {"dimension_brief": "fidelity", "dimension_criteria": "only for {major_characters}"}
PROMPTS_PY = f"critic_prompts = {json.dumps({'self-play-deduct-template': TEMPLATE, 'dimension_details': DETAILS})}\n"
MAIN_PY = '''import json

def judge(args):
    additional_instructions = ''
    if args.continue_from > 0:
        additional_instructions = f'HERON skip the first {args.continue_from} lines.'
'''


def clone(tmp_path: Path, prompts: str = PROMPTS_PY, main: str | None = MAIN_PY) -> Path:
    folder = tmp_path / "CoSER" / "gca_evaluation"
    folder.mkdir(parents=True)
    (folder / "prompts.py").write_text(prompts, encoding="utf-8")
    if main is not None:
        (folder / "main.py").write_text(main, encoding="utf-8")
    return tmp_path / "CoSER"


async def test_the_critic_sends_the_clone_s_prompt(tmp_path: Path):
    library = PromptLibrary()
    use_reference_prompts(library, clone(tmp_path))
    sample = load_test_set(EXAMPLES / "test_set.json")[0]
    simulation = [{"role": t.character, "content": t.message} for t in sample.dialogues]
    simulation.insert(1, {"role": "NSP", "content": "next"})
    model = ScriptedModel(default=json.dumps({"Character Fidelity": {"flaws": []}}))
    await Critic(model, library).critique(sample, simulation, continue_from=2, dimensions=["Character Fidelity"])
    system, user = (m.content for m in model.calls[0].messages)
    # The plot's description of each speaker, then their profile (the reference's involved profiles).
    profiles = "\n\n".join(f"### {n}\n\n{p}" for n, p in cases.profiles(sample).items())
    assert "### Ottilie Fane\n\nOttilie of the Lamphouse.\n\nOttilie Fane works" in profiles
    assert system.startswith(f"HERON critic for {sample.book}. Plot: {sample.plot.summary} Scene: {sample.scenario}\n")
    assert profiles in system and f"Main: {', '.join(sample.major_characters)}. HERON skip the first 2 lines." in system
    # The criteria go in last, so their own placeholder stays as the reference leaves it.
    assert "Judge Character Fidelity (fidelity).\nonly for {major_characters}\nAnswer as JSON." in system
    first = sample.dialogues[0]
    assert f"Original:\n{first.character}: " in system
    # The user message is the simulation alone: contents joined, no names, no NSP, no thoughts.
    assert first.message.startswith("[") and user.split("\n\n")[0] == first.message.split("]", 1)[1].strip()
    assert "next" not in user.split("\n\n") and "[" not in user and len(user.split("\n\n")) == len(sample.dialogues)


def test_bad_clones_say_what_is_wrong(tmp_path: Path):
    with pytest.raises(NotFoundError, match="gca_evaluation/prompts.py"):
        use_reference_prompts(PromptLibrary(), tmp_path)
    with pytest.raises(InputError, match="self-play-deduct-template") as err:
        use_reference_prompts(PromptLibrary(), clone(tmp_path / "a", prompts="critic_prompts = {'x': 'y'}\n"))
    assert "prompts.py" in str(err.value) and "line 1" in str(err.value)
    with pytest.raises(InputError, match="no critic_prompts"):
        use_reference_prompts(PromptLibrary(), clone(tmp_path / "b", prompts="other = 1\n"))
    library = PromptLibrary()
    use_reference_prompts(library, clone(tmp_path / "c", main=None))
    variables = {"dimension": "Anthropomorphism", "book": "B", "plot_summary": "", "scenario": "", "character_profiles": {},
                 "original_plain": "", "major_characters": [], "continue_from": 3}
    with pytest.raises(InputError, match="additional_instructions"):
        library.render("coser_critic_frame", **variables)
    assert "HERON critic for B." in library.render("coser_critic_frame", **{**variables, "continue_from": 0})


def test_cli_judge_reads_the_clone_first(tmp_path: Path):
    from typer.testing import CliRunner

    from incanon.cli.main import app

    result = CliRunner().invoke(app, ["coser", "judge", "coser-gca-x", "--critic", "scripted:x.json",
                                      "--runs", str(tmp_path / "runs.sqlite"), "--prompts-from", str(tmp_path)])
    assert isinstance(result.exception, NotFoundError) and "gca_evaluation/prompts.py" in str(result.exception)
