"""Small random worlds for property tests: characters with plain, dated and secret names,
entities, scenes with participants and dialogue, chunks (narration and quoted speech, some with
stated perceived units, some works told in the first person), facts with time bounds and who was
told, and relations, all in the world file format (imported the normal way, ``import_world``).

Texts are made of the world's own names in every form (full names, first names, forms of
address, names not yet in use, secret names), so names are attested, met and told in every
combination the knowledge rules distinguish.
"""

from __future__ import annotations

import random
from typing import Any

from incanon.canon import Position, World

_FIRST = ("Ada", "Bram", "Cora", "Dov", "Elin", "Fenn", "Gil", "Hana", "Ivo", "Juno")
_LAST = ("Vale", "Moss", "Reed", "Thorn", "Pike", "Lund", "Marsh", "Quay")
_TITLES = ("Miss", "Captain", "Doctor", "Master")
_LATER = ("the Grey Hand", "the Lamp Warden", "Old Salt", "the Tidecaller", "the Reckoner")
_SECRET = ("Silas Crane", "Mara Voss", "Tobin Hale", "Wil Ashe")
_ENTITIES = (("Lighthouse", "location", ()), ("Salt Market", "location", ("the Market",)),
             ("Iron Bridge", "location", ()), ("Harbor Guild", "organization", ("the Guild",)),
             ("Great Storm", "event", ("the Storm",)), ("Brass Key", "object", ()))
_VERBS = ("met", "argued with", "wrote to", "followed", "thanked", "warned", "saw")
_TYPES = ("friend", "rival", "sister", "debtor", "member_of", "employer", "suspects")
# Positions from the first scene of book 1 to the end of book 2, scenes, chapters and books.
_POSITIONS = tuple(f"{b}-{c}-{s}" for b in (1, 2) for c in (1, 2, 3) for s in (1, 2)) \
    + tuple(f"{b}-{c}" for b in (1, 2) for c in (1, 2, 3)) + ("1", "2")


def positions() -> list[str]:
    """Every position a random world uses, in story order."""
    return sorted(_POSITIONS, key=lambda p: Position.parse(p).key)


def _later(rng: random.Random, pos: str) -> str | None:
    after = [p for p in positions() if Position.parse(p) > Position.parse(pos)]
    return rng.choice(after) if after else None


def random_world(rng: random.Random, work_id: str) -> World:
    """A valid random world (see the module docstring)."""
    used: set[str] = set()

    def fresh(options: tuple[str, ...] | list[str]) -> str | None:
        left = [o for o in options if o.casefold() not in used]
        if not left:
            return None
        name = rng.choice(left)
        used.add(name.casefold())
        return name

    scene_positions = sorted((rng.choice(_POSITIONS) for _ in range(rng.randint(3, 7))),
                             key=lambda p: Position.parse(p).key)
    scene_ids = [f"s{i}" for i in range(len(scene_positions))]
    characters: list[dict[str, Any]] = []
    forms: list[str] = []  # every name in use somewhere, for texts
    for _ in range(rng.randint(2, 5)):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        if f"{first} {last}".casefold() in used or first.casefold() in used:
            continue
        name = f"{first} {last}"
        used.add(name.casefold())
        aliases: list[Any] = []
        if rng.random() < 0.7 and fresh([first]):
            aliases.append(first)
        title = f"{rng.choice(_TITLES)} {last}"
        if rng.random() < 0.5 and fresh([title]):
            aliases.append(title)
        if rng.random() < 0.4 and (later := fresh(list(_LATER))):
            aliases.append({"name": later, "from": rng.choice(_POSITIONS)})
        if rng.random() < 0.35 and (secret := fresh(list(_SECRET))):
            aliases.append({"name": secret, "secret": True,
                            "revealed_in": rng.sample(scene_ids, rng.randint(0, min(2, len(scene_ids))))})
        character: dict[str, Any] = {"name": name, "aliases": aliases}
        if rng.random() < 0.6:
            character["first_position"] = rng.choice(scene_positions)
        characters.append(character)
        forms += [name, *(a if isinstance(a, str) else a["name"] for a in aliases)]
    names = [c["name"] for c in characters]
    for c in characters:  # who else knows a secret name from the start
        for a in c["aliases"]:
            if isinstance(a, dict) and a.get("secret") and rng.random() < 0.4:
                others = [n for n in names if n != c["name"]]
                if others:
                    a["known_by"] = rng.sample(others, 1)
    entities: list[dict[str, Any]] = []
    for name, type_, aliases in rng.sample(_ENTITIES, rng.randint(1, 4)):
        entity: dict[str, Any] = {"name": name, "type": type_,
                                  "aliases": [a for a in aliases if rng.random() < 0.6]}
        if rng.random() < 0.7:
            entity["position"] = rng.choice(scene_positions)
        entities.append(entity)
        forms += [name, *entity["aliases"]]
    owners = names + [e["name"] for e in entities]

    def sentence() -> str:
        a, b = rng.choice(forms), rng.choice(forms)
        return f"{a} {rng.choice(_VERBS)} {b} by the water."

    scenes = []
    for sid, pos in zip(scene_ids, scene_positions):
        present = rng.sample(names, rng.randint(1, len(names)))
        messages = [{"speaker": rng.choice(present), "speech": sentence(),
                     "thought": sentence() if rng.random() < 0.3 else ""} for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.3:
            messages.append({"speaker": "Environment", "action": sentence()})
        scenes.append({"id": sid, "position": pos, "title": f"Scene {sid}", "summary": sentence(),
                       "participants": present,
                       "speakers": sorted({m["speaker"] for m in messages if m["speaker"] != "Environment"},
                                          key=present.index),
                       "messages": messages})
    narrator = rng.choice(names) if rng.random() < 0.4 else None  # a first-person work
    chunks = []
    for i in range(rng.randint(2, 8)):
        # Narration and quoted speech; some chunks state who perceives one of their pieces.
        pieces = [f'"{sentence()}"' if rng.random() < 0.4 else sentence() for _ in range(rng.randint(1, 3))]
        chunk: dict[str, Any] = {"id": f"c{i}", "text": " ".join(pieces)}
        if rng.random() < 0.4:
            mode = rng.choice(("speech", "action", "thought", "narration", "document"))
            unit: dict[str, Any] = {"text": rng.choice(pieces), "mode": mode}
            if mode in ("thought", "document") or rng.random() < 0.5:
                unit["by"] = rng.choice(names)
            if rng.random() < 0.4:
                unit["audience"] = rng.choice(("present", "private", "everyone"))
            if rng.random() < 0.4:
                unit["known_by"] = rng.sample(names, rng.randint(1, len(names)))
                if rng.random() < 0.5:
                    unit["from"] = rng.choice(_POSITIONS)
            chunk["units"] = [unit]
        if rng.random() < 0.75:
            scene = rng.randrange(len(scenes))
            chunk["scene"] = scene_ids[scene]
            chunk["position"] = scene_positions[scene] if rng.random() < 0.8 else rng.choice(_POSITIONS)
        else:
            chunk["position"] = rng.choice(_POSITIONS)
        chunks.append(chunk)
    facts = []
    for i in range(rng.randint(2, 8)):
        pos = rng.choice(_POSITIONS)
        fact: dict[str, Any] = {"id": f"f{i}", "subject": rng.choice(owners), "text": sentence(), "position": pos}
        if rng.random() < 0.3 and (end := _later(rng, pos)):
            fact["valid_to"] = end
        if rng.random() < 0.5:
            fact["scene"] = rng.choice(scene_ids)
        fact["public"] = rng.random() < 0.25
        if rng.random() < 0.4:
            fact["known_by"] = rng.sample(names, rng.randint(1, len(names)))
        facts.append(fact)
    relations = []
    for _ in range(rng.randint(2, 8)):
        source, target = rng.sample(owners, 2)
        relation: dict[str, Any] = {"source": source, "target": target, "type": rng.choice(_TYPES)}
        if rng.random() < 0.5:
            relation["valid_from"] = rng.choice(scene_positions if rng.random() < 0.7 else _POSITIONS)
        start = relation.get("valid_from")
        if rng.random() < 0.3 and (end := _later(rng, start or "1-1-1")):
            relation["valid_to"] = end
        relations.append(relation)
    return World.model_validate({
        "work": {"id": work_id, "title": f"World {work_id}", "axis": "chapter",
                 "narrator": narrator},
        "characters": characters, "scenes": scenes, "chunks": chunks, "entities": entities,
        "relations": relations, "facts": facts,
    })


__all__ = ["positions", "random_world"]
