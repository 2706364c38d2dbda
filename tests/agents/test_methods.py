from incanon.agents import agent_names, create_agent
from incanon.models import ScriptedModel

TIMECHARA = {"zero-shot", "zero-shot-cot", "few-shot", "self-refine", "rag", "rag-cutoff",
             "narrative-experts", "narrative-experts-rag-cutoff"}


def test_all_eight_timechara_methods_are_registered():
    assert TIMECHARA <= set(agent_names())


def test_store_is_a_harmless_option_for_every_method(tmp_path):
    from incanon.canon import CanonStore

    with CanonStore.open(tmp_path / "canon") as store:
        for name in TIMECHARA:
            agent = create_agent(name, ScriptedModel(default="x"), store=store)
            assert agent.name == name
