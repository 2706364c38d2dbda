"""incanon: keep role-playing LLM agents in canon.

What a builder uses, importable from the package itself (each loaded on first use, so
``import incanon`` and the command line stay fast)::

    from incanon import CanonStore, persona_at, character_at, create_agent, load_chat_model

    store = CanonStore.open("canon")
    persona = persona_at(store, "lanterns", "Wren", "end of book 1")   # the one scoped builder
    agent = create_agent("in-canon", load_chat_model("embedded"))
    who = character_at(store, "lanterns", "Wren", "end of book 1")     # persona + knowledge scope

* ``CanonStore``, ``World``, ``load_world_file``, ``write_world_file``: the canon store and its interchange format;
* ``persona_at``, ``Persona``, ``Horizon``: a character as it stands at a position, and what it
  has and has not come across there;
* ``character_at``, ``create_agent``, ``Reply``: agents that answer as a character at a position;
* ``load_chat_model``, ``load_embedder``: models from spec strings (``embedded``, ``openai:...``);
* ``audit_work``: the leak audit; ``build_card``: a character card as of a position.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name → the module that defines it.
_EXPORTS = {
    "CanonStore": "incanon.canon.store",
    "World": "incanon.canon.world",
    "load_world_file": "incanon.canon.files",
    "write_world_file": "incanon.canon.files",
    "persona_at": "incanon.canon.persona",
    "Persona": "incanon.canon.persona",
    "Horizon": "incanon.canon.horizon",
    "character_at": "incanon.agents.persona",
    "create_agent": "incanon.agents.registry",
    "Reply": "incanon.agents.base",
    "load_chat_model": "incanon.models",
    "load_embedder": "incanon.models",
    "audit_work": "incanon.audit",
    "build_card": "incanon.cards.build",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'incanon' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # for type checkers and IDEs: the same names, eagerly
    from incanon.agents.base import Reply
    from incanon.agents.persona import character_at
    from incanon.agents.registry import create_agent
    from incanon.audit import audit_work
    from incanon.canon.files import load_world_file, write_world_file
    from incanon.canon.horizon import Horizon
    from incanon.canon.persona import Persona, persona_at
    from incanon.canon.store import CanonStore
    from incanon.canon.world import World
    from incanon.cards.build import build_card
    from incanon.models import load_chat_model, load_embedder
