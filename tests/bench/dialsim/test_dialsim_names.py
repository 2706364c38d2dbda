"""Adversarial renaming is consistent across script, questions, options and answers."""

from __future__ import annotations

import re

from dialsim_helpers import FakeClock
from incanon.agents import create_agent
from incanon.bench.dialsim import SimConfig, Simulator, name_map, new_names, rename_question, rename_script, swap_names
from incanon.bench.dialsim.names import NameMap, main_characters
from incanon.models import ScriptedModel


def _all_text(script):
    return "\n".join(f"{line.speaker}: {line.text}" for s in script.sessions for line in s.lines)


def test_swapping_is_a_derangement_of_the_main_characters_and_can_be_undone(sample_script):
    names = swap_names(sample_script, seed=0)
    mains = main_characters(sample_script)
    full = {k: v for k, v in names.mapping.items() if k in mains}
    assert set(full) == set(mains) == set(full.values()) and all(k != v for k, v in full.items())
    renamed = rename_script(sample_script, names)
    back = rename_script(renamed, names.inverse())
    assert _all_text(back) == _all_text(sample_script)
    assert renamed.main == full[sample_script.main]


def test_new_names_leave_no_trace_of_the_old_ones(sample_script, sample_questions):
    names = new_names(sample_script, seed=1)
    renamed = rename_script(sample_script, names)
    text = _all_text(renamed)
    for old in main_characters(sample_script):
        given = old.split()[0]
        assert not re.search(rf"\b{given}\b", text), given
    for q in sample_questions[:200]:
        r = rename_question(q, names)
        blob = " ".join([*r.texts.values(), *r.options, r.answer])
        assert not any(re.search(rf"\b{old.split()[0]}\b", blob) for old in main_characters(sample_script))
        assert r.gold_index() == q.gold_index(), "the gold option does not move"


def test_whole_words_only_and_simultaneous():
    names = NameMap({"Ann": "Bo", "Bo": "Ann"})
    assert names.apply("Ann met Bo; Anne met Bob. Ann's hat.") == "Bo met Ann; Anne met Bob. Bo's hat."


def test_shared_surnames_never_merge_two_families(sample_script):
    for seed in range(10):
        mapping = swap_names(sample_script, seed=seed).mapping
        assert len(set(mapping.values())) == len(mapping)
        NameMap(mapping).inverse()


def test_name_map_modes(sample_script):
    assert name_map(sample_script, None) is None
    assert name_map(sample_script, "swap").mode == "swap"
    assert name_map(sample_script, "new").mode == "new"


async def test_the_simulation_renames_everything_the_agent_sees(sample_script, sample_questions):
    names = new_names(sample_script, seed=0)
    model = ScriptedModel(default="(E)")
    clock = FakeClock()
    sim = Simulator(sample_script.first(3), sample_questions, create_agent("dialsim-recent", model),
                    config=SimConfig(fast=True, seed=2), names=names, clock=clock, sleep=clock.sleep, warm_up=False)
    result = await sim.run()
    olds = [n.split()[0] for n in main_characters(sample_script)]
    for call in model.calls:
        prompt = call.messages[-1].content
        assert not any(re.search(rf"\b{o}\b", prompt) for o in olds), prompt[:200]
    plain = Simulator(sample_script.first(3), sample_questions, create_agent("dialsim-recent", ScriptedModel(default="(E)")),
                      config=SimConfig(fast=True, seed=2), warm_up=False)
    original = await plain.run()
    for a, b in zip(result.outcomes, original.outcomes):
        assert a.question_id == b.question_id and a.gold_marker == b.gold_marker
        assert a.gold == names.apply(b.gold) and a.asker == names.apply(b.asker)


def test_nicknames_are_one_word_aliases_beyond_the_name_parts(sample_script):
    from incanon.bench.dialsim.names import nicknames

    assert nicknames(sample_script, "Wren Callow") == ["Wrennie", "Stormwren"]
    assert nicknames(sample_script, "Dace Morrow") == []  # "Dace" and "Morrow" are the name's own parts


def test_nicknames_never_give_a_renamed_character_away(sample_script):
    assert re.search(r"\bWrennie\b", _all_text(sample_script)), "the sample script uses the nickname"
    for names in (swap_names(sample_script, seed=3), new_names(sample_script, seed=3)):
        text = _all_text(rename_script(sample_script, names))
        assert not re.search(r"\b(Wrennie|Stormwren)\b", text), names.mode
        fresh = {names.mapping["Wrennie"], names.mapping["Stormwren"]}
        assert not fresh & set(re.findall(r"\w+", _all_text(sample_script))), "nicknames get unused names"
        assert len(set(names.mapping.values())) == len(names.mapping)
        back = rename_script(rename_script(sample_script, names), names.inverse())
        assert _all_text(back) == _all_text(sample_script)
