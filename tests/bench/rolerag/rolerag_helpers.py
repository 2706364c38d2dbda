"""A scripted role-play model for the RoleRAG methods: fixed hypothesis, listed entities, answer."""

from __future__ import annotations

import json

from incanon.models import ScriptedModel


def entity(name: str, type_: str = "character", relevant: bool = True, specificity: str = "specific",
           reason: str = "part of the story") -> dict[str, str]:
    return {"name": name, "type": type_, "relevant": "yes" if relevant else "no", "reason": reason,
            "specificity": specificity}


def agent_model(entities: list[dict[str, str]], answer: str = "In character, I answer.") -> ScriptedModel:
    return ScriptedModel(rules=[
        (r"Hypothetical answer:", "I think of my friends and the lamps."),
        (r"Find the entities", json.dumps({"entities": entities})),
    ], default=answer)
