"""``canon build``: from a user's own book to a point-in-time canon (scenes, characters with dated
aliases, time points with profiles, event-time graph facts, chunk vectors) in one command."""

from incanon.canonbuild.cast import Cast, CastMember, build_cast, group_names, main_cast, scene_names
from incanon.canonbuild.pipeline import BuildOptions, Built, NothingBuiltError, build_canon, store_world, world_digest
from incanon.canonbuild.profiles import Sheet, write_sheets
from incanon.canonbuild.report import BuildReport, StepCount
from incanon.canonbuild.scenes import SceneStep, cover, find_scenes
from incanon.canonbuild.timepoints import plan_points, structural_points

__all__ = [
    "BuildOptions",
    "BuildReport",
    "Built",
    "Cast",
    "CastMember",
    "NothingBuiltError",
    "SceneStep",
    "Sheet",
    "StepCount",
    "build_canon",
    "build_cast",
    "cover",
    "find_scenes",
    "group_names",
    "main_cast",
    "plan_points",
    "scene_names",
    "store_world",
    "structural_points",
    "world_digest",
    "write_sheets",
]
