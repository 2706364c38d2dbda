"""Agents registered by method name, so benchmarks, chat and plugins pick them by string."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from incanon.agents.base import Agent
from incanon.errors import ConfigError
from incanon.models.types import ChatModel

_AGENTS: dict[str, type[Agent]] = {}
A = TypeVar("A", bound=type[Agent])


def register_agent(name: str) -> Callable[[A], A]:
    """Class decorator: make an ``Agent`` subclass available as method ``name``."""

    def wrap(cls: A) -> A:
        cls.name = name
        _AGENTS[name] = cls
        return cls

    return wrap


def agent_names() -> list[str]:
    """Every registered method name."""
    _load_builtins()
    return sorted(_AGENTS)


def agent_descriptions() -> dict[str, str]:
    """Every registered method name → the first paragraph of its class docstring."""
    _load_builtins()
    return {name: " ".join((_AGENTS[name].__doc__ or "").strip().split("\n\n")[0].split()) for name in sorted(_AGENTS)}


def create_agent(name: str, model: ChatModel, **options: Any) -> Agent:
    """Instantiate the method ``name`` on ``model``; unknown names list the known ones."""
    _load_builtins()
    try:
        cls = _AGENTS[name]
    except KeyError:
        missing = "".join(f"; the methods of {bench} are not available: {why}" for bench, why in sorted(_UNAVAILABLE.items()))
        raise ConfigError(
            f"unknown role-play method {name!r}; known methods: {', '.join(sorted(_AGENTS))}{missing}"
        ) from None
    _check_requirements(name, cls, options)
    return cls(model, **options)


def _check_requirements(name: str, cls: type[Agent], options: dict[str, Any]) -> None:
    # Each entry of ``requires`` is an option name, or alternatives joined by "|".
    for need in getattr(cls, "requires", ()):
        alternatives = need.split("|")
        if not any(options.get(alt) is not None for alt in alternatives):
            wanted = " or ".join(f"{alt}=" for alt in alternatives)
            raise ConfigError(f"role-play method {name!r} needs the option {wanted}")


# Built-in methods by name -> "module:Class". The registry names them by path and imports
# them with importlib on first lookup, so it never imports an agent module with an import
# statement (those modules import ``register_agent`` from here: no import cycle).
BUILTIN_AGENTS: dict[str, str] = {
    "zero-shot": "incanon.agents.zero_shot:ZeroShotAgent",
    "zero-shot-cot": "incanon.agents.cot:ZeroShotCoTAgent",
    "guided-cot": "incanon.agents.cot:GuidedCoTAgent",
    "few-shot": "incanon.agents.few_shot:FewShotAgent",
    "self-refine": "incanon.agents.self_refine:SelfRefineAgent",
    "rag": "incanon.agents.rag:RAGAgent",
    "rag-cutoff": "incanon.agents.rag:RAGCutoffAgent",
    "narrative-experts": "incanon.agents.narrative:NarrativeExpertsAgent",
    "narrative-experts-rag-cutoff": "incanon.agents.narrative:NarrativeExpertsRAGCutoffAgent",
    "in-canon": "incanon.agents.in_canon:InCanonAgent",
}
_loaded = False
_UNAVAILABLE: dict[str, str] = {}
"""Benchmarks whose methods could not be loaded (an extra not installed) → why."""

DEFAULT_METHOD = "in-canon"
"""The method incanon plays characters with unless told otherwise (chat, serve, ``/v1``, the
demo): the one strict by construction. The papers' methods are baselines."""


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    import importlib

    for name, target in BUILTIN_AGENTS.items():
        module_name, _, class_name = target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        # Importing ran the class's @register_agent; a class that forgot it is still listed.
        _AGENTS.setdefault(name, cls)
    _discover_benchmark_agents()
    _loaded = True


def _discover_benchmark_agents() -> None:
    # Benchmarks ship their own methods as ``incanon.bench.<name>.agents`` (a module or a
    # package); importing it registers them, so adding a benchmark never edits this file.
    import importlib
    import pkgutil

    import incanon.bench

    for info in pkgutil.iter_modules(incanon.bench.__path__):
        name = f"incanon.bench.{info.name}.agents"
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # a benchmark without methods of its own
            from incanon.extras import missing_extra

            missing = missing_extra(exc)
            if missing is None:
                raise
            # A lean install without the `bench` extra: the core's methods still work, and
            # asking for this benchmark's says what to install.
            _UNAVAILABLE[info.name] = str(missing)
