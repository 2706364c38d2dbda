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


def test_builtin_methods_are_named_by_path_not_imported_by_the_registry():
    """The registry names built-in agents as ``module:Class`` (no import cycle with the agent
    modules, which import ``register_agent``); each entry is the class registered under that name."""
    import ast
    import importlib
    from pathlib import Path

    from incanon.agents import registry

    source = Path(registry.__file__).read_text()
    imported = {n.module for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m and m.startswith("incanon.agents.") and m != "incanon.agents.base"]
    names = registry.agent_names()
    for name, target in registry.BUILTIN_AGENTS.items():
        module, _, cls = target.partition(":")
        assert getattr(importlib.import_module(module), cls).name == name
        assert name in names
