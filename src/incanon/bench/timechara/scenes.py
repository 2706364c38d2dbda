"""Moved to :mod:`incanon.canonbuild.scene_extract` (the product's build uses it); kept for imports."""

from incanon.canonbuild.scene_extract import (
    ExtractedScene,
    ExtractionResult,
    FoundScene,
    ParticipantList,
    SceneList,
    SceneProblem,
    extract_scenes,
    find_participants,
    locate,
    locate_bounds,
    split_scenes,
)

__all__ = ["ExtractedScene", "ExtractionResult", "FoundScene", "ParticipantList", "SceneList", "SceneProblem",
           "extract_scenes", "find_participants", "locate", "locate_bounds", "split_scenes"]
