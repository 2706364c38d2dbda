"""Small canon worlds for tests: parts of the sample world that are cheap to embed and index."""

from __future__ import annotations

from incanon.canon.world import World
from incanon.sample import sample_world


def mini_world() -> World:
    """The sample world cut to chapters 1-1 and 2-3 (five scenes, five chunks): cheap to embed,
    and it still has canon before the end of book 1 and canon only the end of book 2 can see."""
    world = sample_world()
    keep = {s.id for s in world.scenes if s.position.startswith(("1-1-", "2-3-"))}
    return world.model_copy(update={
        "scenes": [s for s in world.scenes if s.id in keep],
        "chunks": [c for c in world.chunks if c.scene in keep],
        "facts": [], "relations": [], "entities": [], "probes": [],
    })
